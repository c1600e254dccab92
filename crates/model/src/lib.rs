//! Typed objects: what the tool understands of each manifest or state item.

pub mod core;
pub mod fluid;
pub mod gang;
pub mod hypernode;
pub mod kinds;
pub mod kueue;
pub mod policy;
pub mod quantity;
pub mod quota;
pub mod resources;
pub mod sorted_map;
pub mod text;

use serde::{Deserialize, Deserializer};

pub use self::core::*;
pub use fluid::{FluidOp, OpKind};
pub use gang::{GodelPodGroup, PodGroup, SchedulingWorkload, VolcanoJob, VolcanoPodGroup};

pub use hypernode::{ConfigMap, HyperNode};
pub use kinds::{Kind, KindObject, Object, ObjectLists};
pub use policy::{PodDisruptionBudget, PriorityClass};
pub use quantity::Quantity;
pub use quota::{LimitRange, ResourceQuota};

/// `apiVersion` and `kind`, read first to decide how to decode the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TypeMeta {
    #[serde(deserialize_with = "null_as_default")]
    pub api_version: String,
    #[serde(deserialize_with = "null_as_default")]
    pub kind: String,
}

impl TypeMeta {
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }
}

/// The label the Job controller puts on its pods (and its legacy twin).
pub const JOB_NAME_LABELS: [&str; 2] = ["batch.kubernetes.io/job-name", "job-name"];
/// The labels the StatefulSet controller gives each pod: its name and its ordinal.
pub const STATEFULSET_POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// A core workload with a pod template.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub kind: String,
    pub metadata: ObjectMeta,
    /// The pods its controller creates now: `spec.replicas` (default 1), or for a Job or
    /// CronJob the Job controller's active count ([`JobCounts::active`]). A DaemonSet's count
    /// depends on the nodes, so `plan::workload` computes it.
    pub replicas: i32,
    pub template: PodTemplateSpec,
}

/// A Job's (or a CronJob's job template's) counts, as the Job controller reads them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobCounts {
    pub parallelism: Option<i32>,
    pub completions: Option<i32>,
    pub succeeded: i32,
    pub suspend: bool,
}

impl JobCounts {
    /// The Job controller's `wantActive`: parallelism (default 1), capped by the remaining
    /// completions when completions are set; none while suspended.
    pub fn active(&self) -> i32 {
        if self.suspend {
            return 0;
        }
        let parallelism = self.parallelism.unwrap_or(1).max(0);
        match self.completions {
            Some(completions) => (completions - self.succeeded).clamp(0, parallelism),
            None if self.succeeded > 0 => 0,
            None => parallelism,
        }
    }
}

/// Why an object could not be decoded; `path` names the field (`spec.runAfter.name`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    pub path: String,
    pub message: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WorkloadBody {
    metadata: ObjectMeta,
    spec: WorkloadSpec,
    status: WorkloadStatus,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WorkloadSpec {
    replicas: Option<i32>,
    parallelism: Option<i32>,
    completions: Option<i32>,
    suspend: Option<bool>,
    template: PodTemplateSpec,
    job_template: Option<JobTemplate>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WorkloadStatus {
    succeeded: i32,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct JobTemplate {
    spec: Box<WorkloadSpec>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MetadataOnly {
    metadata: ObjectMeta,
}

/// The workload controllers' kinds: read from manifests (their pods are what they create), not
/// from a live cluster (its pods are listed themselves).
const WORKLOAD_KINDS: &[Kind] = &[
    Kind::new(
        "Deployment",
        &["apps/v1"],
        "deployments",
        "the planner (its pods)",
    )
    .short(&["deploy"])
    .addressable()
    .live(&[]),
    Kind::new(
        "StatefulSet",
        &["apps/v1"],
        "statefulsets",
        "the planner (its pods)",
    )
    .short(&["sts"])
    .addressable()
    .live(&[]),
    Kind::new(
        "ReplicaSet",
        &["apps/v1"],
        "replicasets",
        "the planner (its pods)",
    )
    .short(&["rs"])
    .addressable()
    .live(&[]),
    Kind::new(
        "DaemonSet",
        &["apps/v1"],
        "daemonsets",
        "the planner (its pods)",
    )
    .short(&["ds"])
    .addressable()
    .live(&[]),
    Kind::new("Job", &["batch/v1"], "jobs", "the planner (its pods)")
        .addressable()
        .live(&[]),
    Kind::new(
        "CronJob",
        &["batch/v1"],
        "cronjobs",
        "the planner (its pods)",
    )
    .short(&["cj"])
    .addressable()
    .live(&[]),
];

impl KindObject for Workload {
    const KINDS: &'static [Kind] = WORKLOAD_KINDS;

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: kinds::Reader<D>,
    ) -> Result<Self, DecodeError> {
        let kind = type_meta.kind.as_str();
        let body: WorkloadBody = read.get()?;
        let suspended = body.spec.suspend.unwrap_or(false);
        let (replicas, template) = match (kind, body.spec.job_template) {
            ("CronJob", Some(job)) => {
                let counts = JobCounts {
                    parallelism: job.spec.parallelism,
                    completions: job.spec.completions,
                    succeeded: 0,
                    suspend: suspended || job.spec.suspend.unwrap_or(false),
                };
                (counts.active(), job.spec.template)
            }
            ("Job", _) => {
                // A Job handed to Kueue is created suspended and unsuspended when
                // admitted: its pods are the ones admission starts.
                let queued = body.metadata.labels.contains_key(kueue::QUEUE_NAME_LABEL);
                let counts = JobCounts {
                    parallelism: body.spec.parallelism,
                    completions: body.spec.completions,
                    succeeded: body.status.succeeded,
                    suspend: suspended && !queued,
                };
                (counts.active(), body.spec.template)
            }
            _ => (body.spec.replicas.unwrap_or(1), body.spec.template),
        };
        Ok(Workload {
            kind: kind.to_string(),
            metadata: body.metadata,
            replicas,
            template,
        })
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }

    fn kind_info(&self) -> &'static Kind {
        WORKLOAD_KINDS
            .iter()
            .find(|k| k.kind == self.kind)
            .unwrap_or(&WORKLOAD_KINDS[0])
    }
}

/// A workload as the binary cache keeps it: its metadata alone. A cluster state counts
/// workloads among the kinds it does not keep, so nothing else of them is read back.
impl serde::Serialize for Workload {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct MetadataOnly<'a> {
            metadata: &'a ObjectMeta,
        }
        MetadataOnly {
            metadata: &self.metadata,
        }
        .serialize(s)
    }
}

impl From<Box<Workload>> for Workload {
    fn from(workload: Box<Workload>) -> Workload {
        *workload
    }
}

impl Object {
    /// Decode an object whose `apiVersion`/`kind` were already read; errors name the field.
    pub fn decode<'de, D: Deserializer<'de>>(
        type_meta: TypeMeta,
        deserializer: D,
    ) -> Result<Object, DecodeError> {
        Object::decode_as(type_meta, deserializer, true)
    }

    /// The same without tracking field paths: what large states use first, decoding again with
    /// [`Object::decode`] only when an item fails, to say where.
    pub fn decode_untracked<'de, D: Deserializer<'de>>(
        type_meta: TypeMeta,
        deserializer: D,
    ) -> Result<Object, DecodeError> {
        Object::decode_as(type_meta, deserializer, false)
    }

    fn decode_as<'de, D: Deserializer<'de>>(
        type_meta: TypeMeta,
        deserializer: D,
        tracked: bool,
    ) -> Result<Object, DecodeError> {
        let read = kinds::Reader {
            tracked,
            d: deserializer,
        };
        // Every object of a large state comes through here: no allocation unless the
        // apiVersion is refused.
        let Some(kind) = kinds::find(type_meta.group(), &type_meta.kind) else {
            let body: MetadataOnly = read.get()?;
            return Ok(Object::Unknown {
                type_meta,
                metadata: body.metadata,
            });
        };
        if !kind.reads(&type_meta.api_version) {
            let expected = kinds::registry()
                .filter(|k| k.kind == kind.kind && k.group() == kind.group())
                .flat_map(|k| k.api_versions)
                .map(|api_version| format!("{api_version:?}"))
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(DecodeError {
                path: "apiVersion".into(),
                message: format!(
                    "unsupported apiVersion {:?} for {} (expected {expected})",
                    type_meta.api_version, kind.kind
                ),
            });
        }
        Object::decode_registered(&type_meta, kind, read)
    }

    /// The kind as users write it (`DataLoad`, `PodGroup`, `Job`...).
    pub fn kind(&self) -> &str {
        match self {
            Object::Unknown { type_meta, .. } => &type_meta.kind,
            other => other.kind_info().map_or("", |k| k.kind),
        }
    }

    /// Namespaced kinds default to `default` when a manifest leaves the namespace out.
    pub fn is_namespaced(&self) -> bool {
        self.kind_info().is_none_or(|k| k.namespaced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_json(text: &str) -> Result<Object, DecodeError> {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let type_meta = TypeMeta::deserialize(&value).unwrap();
        Object::decode(type_meta, &value)
    }

    #[test]
    fn dispatches_on_group_and_kind() {
        let cases = [
            (
                r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#,
                "Pod",
            ),
            (
                r#"{"apiVersion":"batch/v1","kind":"Job","spec":{"parallelism":3}}"#,
                "Job",
            ),
            (
                r#"{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job"}"#,
                "Job",
            ),
            (
                r#"{"apiVersion":"data.fluid.io/v1alpha1","kind":"DataLoad"}"#,
                "DataLoad",
            ),
            (
                r#"{"apiVersion":"example.com/v1","kind":"Widget"}"#,
                "Widget",
            ),
        ];
        for (text, kind) in cases {
            assert_eq!(decode_json(text).unwrap().kind(), kind, "{text}");
        }
        assert!(matches!(
            decode_json(r#"{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job"}"#),
            Ok(Object::VolcanoJob(_))
        ));
        assert!(matches!(
            decode_json(r#"{"apiVersion":"example.com/v1","kind":"Widget"}"#),
            Ok(Object::Unknown { .. })
        ));
        match decode_json(r#"{"apiVersion":"batch/v1","kind":"Job","spec":{"parallelism":3}}"#) {
            Ok(Object::Workload(w)) => assert_eq!(w.replicas, 3),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn wrong_api_version_is_an_error_on_api_version() {
        let err =
            decode_json(r#"{"apiVersion":"data.fluid.io/v1beta1","kind":"DataLoad"}"#).unwrap_err();
        assert_eq!(err.path, "apiVersion");
        assert_eq!(
            err.message,
            "unsupported apiVersion \"data.fluid.io/v1beta1\" for DataLoad (expected \"data.fluid.io/v1alpha1\")"
        );
    }

    #[test]
    fn type_errors_name_the_field_path() {
        let err = decode_json(
            r#"{"apiVersion":"data.fluid.io/v1alpha1","kind":"DataLoad",
                "spec":{"runAfter":{"affinityStrategy":{"prefers":[{"name":"x","weight":"high"}]}}}}"#,
        )
        .unwrap_err();
        assert_eq!(err.path, "spec.runAfter.affinityStrategy.prefers[0].weight");
        let err = decode_json(
            r#"{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}}"#,
        )
        .unwrap_err();
        assert_eq!(err.path, "spec.containers[0].resources.requests.cpu");
        assert!(
            err.message.contains("invalid quantity \"lots\""),
            "{}",
            err.message
        );
    }
}
