//! Typed objects: what the tool understands of each manifest or state item.

pub mod core;
pub mod fluid;
pub mod gang;
pub mod hypernode;
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

// Objects are decoded once and moved straight into typed lists; boxing pods would cost an
// allocation per pod when loading 150,000 of them. Workloads and Fluid operations, larger than a
// pod and rare in a state, are boxed: every object of a loaded state is held as an `Object`
// until it is sorted into the lists, so the enum's size is what that costs per pod.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    Pod(Pod),
    Node(Node),
    Namespace(Namespace),
    Workload(Box<Workload>),
    FluidOp(Box<FluidOp>),
    FluidRuntime(fluid::FluidRuntime),
    GodelPodGroup(GodelPodGroup),
    VolcanoJob(VolcanoJob),
    VolcanoPodGroup(VolcanoPodGroup),
    /// kube-batch, coscheduling and Kubernetes runtime PodGroups (`apiVersion` tells which).
    PodGroup(PodGroup),
    /// A Kubernetes `scheduling.k8s.io` Workload.
    SchedulingWorkload(SchedulingWorkload),
    PriorityClass(PriorityClass),
    PodDisruptionBudget(PodDisruptionBudget),
    /// Namespace policies the API server applies to pods before scheduling.
    ResourceQuota(ResourceQuota),
    LimitRange(LimitRange),
    /// Kueue's Topology, ResourceFlavor, ClusterQueue and LocalQueue.
    Kueue(kueue::KueueObject),
    /// A Volcano network topology domain.
    HyperNode(HyperNode),
    /// Read for Volcano's scheduler configuration.
    ConfigMap(ConfigMap),
    /// Kept so callers can report it, never silently dropped.
    Unknown {
        type_meta: TypeMeta,
        metadata: ObjectMeta,
    },
}

/// Why an object could not be decoded; `path` names the field (`spec.runAfter.name`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    pub path: String,
    pub message: String,
}

/// The API groups and kinds we model, with every version of each we read.
const KNOWN_KINDS: &[(&str, &str, &str)] = &[
    ("", "v1", "Pod"),
    ("", "v1", "Node"),
    ("", "v1", "Namespace"),
    ("", "v1", "ConfigMap"),
    ("", "v1", "ResourceQuota"),
    ("", "v1", "LimitRange"),
    ("apps", "v1", "Deployment"),
    ("apps", "v1", "StatefulSet"),
    ("apps", "v1", "ReplicaSet"),
    ("apps", "v1", "DaemonSet"),
    ("batch", "v1", "Job"),
    ("batch", "v1", "CronJob"),
    ("data.fluid.io", "v1alpha1", "DataLoad"),
    ("data.fluid.io", "v1alpha1", "DataMigrate"),
    ("data.fluid.io", "v1alpha1", "DataProcess"),
    ("data.fluid.io", "v1alpha1", "DataBackup"),
    ("data.fluid.io", "v1alpha1", "AlluxioRuntime"),
    ("data.fluid.io", "v1alpha1", "JindoRuntime"),
    ("data.fluid.io", "v1alpha1", "GooseFSRuntime"),
    ("data.fluid.io", "v1alpha1", "JuiceFSRuntime"),
    ("data.fluid.io", "v1alpha1", "EFCRuntime"),
    ("data.fluid.io", "v1alpha1", "ThinRuntime"),
    ("data.fluid.io", "v1alpha1", "VineyardRuntime"),
    ("scheduling.godel.kubewharf.io", "v1alpha1", "PodGroup"),
    ("batch.volcano.sh", "v1alpha1", "Job"),
    ("scheduling.volcano.sh", "v1beta1", "PodGroup"),
    ("scheduling.incubator.k8s.io", "v1alpha1", "PodGroup"),
    ("scheduling.sigs.dev", "v1alpha2", "PodGroup"),
    ("scheduling.x-k8s.io", "v1alpha1", "PodGroup"),
    ("scheduling.k8s.io", "v1alpha2", "PodGroup"),
    ("scheduling.k8s.io", "v1alpha1", "Workload"),
    ("scheduling.k8s.io", "v1alpha2", "Workload"),
    ("scheduling.k8s.io", "v1", "PriorityClass"),
    ("policy", "v1", "PodDisruptionBudget"),
    ("kueue.x-k8s.io", "v1alpha1", "Topology"),
    ("kueue.x-k8s.io", "v1beta1", "Topology"),
    ("kueue.x-k8s.io", "v1beta2", "Topology"),
    ("kueue.x-k8s.io", "v1beta1", "ResourceFlavor"),
    ("kueue.x-k8s.io", "v1beta2", "ResourceFlavor"),
    ("kueue.x-k8s.io", "v1beta1", "ClusterQueue"),
    ("kueue.x-k8s.io", "v1beta2", "ClusterQueue"),
    ("kueue.x-k8s.io", "v1beta1", "LocalQueue"),
    ("kueue.x-k8s.io", "v1beta2", "LocalQueue"),
    ("topology.volcano.sh", "v1alpha1", "HyperNode"),
];

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

/// Whether `api_version` is `version` of `group` (the core group's are bare: `v1`).
fn is_api_version(api_version: &str, group: &str, version: &str) -> bool {
    if group.is_empty() {
        api_version == version
    } else {
        api_version
            .strip_prefix(group)
            .and_then(|rest| rest.strip_prefix('/'))
            == Some(version)
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
        let read = |d| Reader { tracked, d };
        let group = type_meta.group();
        let kind = type_meta.kind.as_str();
        // Every object of a large state comes through here: no allocation unless the
        // apiVersion is refused.
        let is_kind = |&&(g, _, k): &&(&str, &str, &str)| k == kind && g == group;
        let mut known = KNOWN_KINDS.iter().filter(is_kind).peekable();
        if known.peek().is_none() {
            let body: MetadataOnly = read(deserializer).get()?;
            return Ok(Object::Unknown {
                type_meta,
                metadata: body.metadata,
            });
        }
        if !known.any(|&(g, v, _)| is_api_version(&type_meta.api_version, g, v)) {
            let expected = KNOWN_KINDS
                .iter()
                .filter(is_kind)
                .map(|&(g, v, _)| match g {
                    "" => v.to_string(),
                    _ => format!("{g}/{v}"),
                })
                .map(|api_version| format!("{api_version:?}"))
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(DecodeError {
                path: "apiVersion".into(),
                message: format!(
                    "unsupported apiVersion {:?} for {kind} (expected {expected})",
                    type_meta.api_version
                ),
            });
        }
        Ok(match (group, kind) {
            ("", "Pod") => Object::Pod(read(deserializer).get()?),
            ("", "Node") => Object::Node(read(deserializer).get()?),
            ("", "Namespace") => Object::Namespace(read(deserializer).get()?),
            ("", "ConfigMap") => Object::ConfigMap(read(deserializer).get()?),
            ("", "ResourceQuota") => Object::ResourceQuota(read(deserializer).get()?),
            ("", "LimitRange") => Object::LimitRange(read(deserializer).get()?),
            ("topology.volcano.sh", _) => Object::HyperNode(read(deserializer).get()?),
            ("data.fluid.io", _) if OpKind::parse(kind).is_none() => {
                let body: fluid::FluidRuntimeBody = read(deserializer).get()?;
                Object::FluidRuntime(fluid::FluidRuntime {
                    kind: kind.to_string(),
                    metadata: body.metadata,
                    cache_affinity: body.status.cache_affinity,
                    fuse_node_selector: body.spec.fuse.node_selector,
                })
            }
            ("data.fluid.io", _) => {
                let body: fluid::FluidOpBody = read(deserializer).get()?;
                Object::FluidOp(Box::new(FluidOp {
                    kind: OpKind::parse(kind).expect("listed in KNOWN_KINDS"),
                    metadata: body.metadata,
                    spec: body.spec,
                    status: body.status,
                }))
            }
            ("scheduling.godel.kubewharf.io", _) => {
                Object::GodelPodGroup(read(deserializer).get()?)
            }
            ("batch.volcano.sh", _) => Object::VolcanoJob(read(deserializer).get()?),
            ("scheduling.volcano.sh", _) => Object::VolcanoPodGroup(read(deserializer).get()?),
            (_, "PodGroup") => {
                let mut group: PodGroup = read(deserializer).get()?;
                group.api_version = type_meta.api_version.clone();
                Object::PodGroup(group)
            }
            (_, "Workload") if group == "scheduling.k8s.io" => {
                let mut workload: SchedulingWorkload = read(deserializer).get()?;
                workload.api_version = type_meta.api_version.clone();
                Object::SchedulingWorkload(workload)
            }
            ("scheduling.k8s.io", _) => Object::PriorityClass(read(deserializer).get()?),
            ("policy", _) => Object::PodDisruptionBudget(read(deserializer).get()?),
            (kueue::GROUP, _) => {
                let api_version = type_meta.api_version.clone();
                Object::Kueue(match kind {
                    "Topology" => kueue::KueueObject::Topology(kueue::Topology {
                        api_version,
                        ..read(deserializer).get()?
                    }),
                    "ResourceFlavor" => kueue::KueueObject::ResourceFlavor(kueue::ResourceFlavor {
                        api_version,
                        ..read(deserializer).get()?
                    }),
                    "ClusterQueue" => kueue::KueueObject::ClusterQueue(kueue::ClusterQueue {
                        api_version,
                        ..read(deserializer).get()?
                    }),
                    _ => kueue::KueueObject::LocalQueue(kueue::LocalQueue {
                        api_version,
                        ..read(deserializer).get()?
                    }),
                })
            }
            _ => {
                let body: WorkloadBody = read(deserializer).get()?;
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
                Object::Workload(Box::new(Workload {
                    kind: kind.to_string(),
                    metadata: body.metadata,
                    replicas,
                    template,
                }))
            }
        })
    }

    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            Object::Pod(o) => &o.metadata,
            Object::Node(o) => &o.metadata,
            Object::Namespace(o) => &o.metadata,
            Object::Workload(o) => &o.metadata,
            Object::FluidOp(o) => &o.metadata,
            Object::GodelPodGroup(o) => &o.metadata,
            Object::VolcanoJob(o) => &o.metadata,
            Object::VolcanoPodGroup(o) => &o.metadata,
            Object::PodGroup(o) => &o.metadata,
            Object::SchedulingWorkload(o) => &o.metadata,
            Object::FluidRuntime(o) => &o.metadata,
            Object::PriorityClass(o) => &o.metadata,
            Object::PodDisruptionBudget(o) => &o.metadata,
            Object::ResourceQuota(o) => &o.metadata,
            Object::LimitRange(o) => &o.metadata,
            Object::Kueue(o) => o.metadata(),
            Object::HyperNode(o) => &o.metadata,
            Object::ConfigMap(o) => &o.metadata,
            Object::Unknown { metadata, .. } => metadata,
        }
    }

    pub fn metadata_mut(&mut self) -> &mut ObjectMeta {
        match self {
            Object::Pod(o) => &mut o.metadata,
            Object::Node(o) => &mut o.metadata,
            Object::Namespace(o) => &mut o.metadata,
            Object::Workload(o) => &mut o.metadata,
            Object::FluidOp(o) => &mut o.metadata,
            Object::GodelPodGroup(o) => &mut o.metadata,
            Object::VolcanoJob(o) => &mut o.metadata,
            Object::VolcanoPodGroup(o) => &mut o.metadata,
            Object::PodGroup(o) => &mut o.metadata,
            Object::SchedulingWorkload(o) => &mut o.metadata,
            Object::FluidRuntime(o) => &mut o.metadata,
            Object::PriorityClass(o) => &mut o.metadata,
            Object::PodDisruptionBudget(o) => &mut o.metadata,
            Object::ResourceQuota(o) => &mut o.metadata,
            Object::LimitRange(o) => &mut o.metadata,
            Object::Kueue(o) => o.metadata_mut(),
            Object::HyperNode(o) => &mut o.metadata,
            Object::ConfigMap(o) => &mut o.metadata,
            Object::Unknown { metadata, .. } => metadata,
        }
    }

    /// The kind as users write it (`DataLoad`, `PodGroup`, `Job`...).
    pub fn kind(&self) -> &str {
        match self {
            Object::Pod(_) => "Pod",
            Object::Node(_) => "Node",
            Object::Namespace(_) => "Namespace",
            Object::Workload(w) => &w.kind,
            Object::FluidOp(op) => op.kind.as_str(),
            Object::GodelPodGroup(_) | Object::VolcanoPodGroup(_) | Object::PodGroup(_) => {
                "PodGroup"
            }
            Object::SchedulingWorkload(_) => "Workload",
            Object::FluidRuntime(o) => &o.kind,
            Object::VolcanoJob(_) => "Job",
            Object::PriorityClass(_) => "PriorityClass",
            Object::PodDisruptionBudget(_) => "PodDisruptionBudget",
            Object::ResourceQuota(_) => "ResourceQuota",
            Object::LimitRange(_) => "LimitRange",
            Object::Kueue(o) => o.kind(),
            Object::HyperNode(_) => "HyperNode",
            Object::ConfigMap(_) => "ConfigMap",
            Object::Unknown { type_meta, .. } => &type_meta.kind,
        }
    }

    /// Namespaced kinds default to `default` when a manifest leaves the namespace out.
    pub fn is_namespaced(&self) -> bool {
        match self {
            Object::Kueue(o) => o.is_namespaced(),
            _ => !matches!(
                self,
                Object::Node(_)
                    | Object::Namespace(_)
                    | Object::PriorityClass(_)
                    | Object::HyperNode(_)
            ),
        }
    }
}

/// A deserializer with the choice of tracking field paths.
struct Reader<D> {
    tracked: bool,
    d: D,
}

impl<'de, D: Deserializer<'de>> Reader<D> {
    fn get<T: Deserialize<'de>>(self) -> Result<T, DecodeError> {
        if self.tracked {
            decode_path(self.d)
        } else {
            T::deserialize(self.d).map_err(|e| DecodeError {
                path: String::new(),
                message: e.to_string(),
            })
        }
    }
}

fn decode_path<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, DecodeError> {
    serde_path_to_error::deserialize(d).map_err(|e| DecodeError {
        path: e.path().to_string().trim_start_matches('.').to_string(),
        message: e.inner().to_string(),
    })
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
