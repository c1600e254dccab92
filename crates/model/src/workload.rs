//! The workload controllers' kinds (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job,
//! CronJob): a pod template and how many pods the controller creates now.

use serde::{Deserialize, Deserializer};

use crate::core::{LabelSelector, ObjectMeta, PodTemplateSpec};
use crate::kinds::{DecodeError, Kind, KindObject, Reader, TypeMeta};
use crate::kueue;

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
    /// `spec.selector`: the pods the controller counts as its own (a ReplicaSet's and a
    /// StatefulSet's spread their pods, as kube-scheduler's default constraints select by it).
    pub selector: Option<LabelSelector>,
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

impl Workload {
    /// A Job Kueue manages: a Job with the queue label.
    pub fn is_kueue_job(&self) -> bool {
        self.kind == "Job" && self.metadata.labels.contains_key(kueue::QUEUE_NAME_LABEL)
    }
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
    selector: Option<LabelSelector>,
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

/// The workload controllers' kinds: planned from manifests (their pods are what they create);
/// a live read lists only ReplicaSets and StatefulSets (the pods are listed themselves).
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
    // Listed live for their selectors: PodTopologySpread's default constraints select a pod's
    // peers by its ReplicaSet's or StatefulSet's.
    Kind::new(
        "StatefulSet",
        &["apps/v1"],
        "statefulsets",
        "the planner (its pods), PodTopologySpread's default constraints",
    )
    .short(&["sts"])
    .addressable(),
    Kind::new(
        "ReplicaSet",
        &["apps/v1"],
        "replicasets",
        "the planner (its pods), PodTopologySpread's default constraints",
    )
    .short(&["rs"])
    .addressable(),
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
        read: Reader<D>,
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
            selector: body.spec.selector,
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

/// A workload as snapshots and the binary cache write it: what [`Workload::decode`] reads
/// back to the same workload (its count as `spec.replicas`, or as a Job's `parallelism`,
/// which the Job controller's active count equals without completions).
impl serde::Serialize for Workload {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Spec<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            replicas: Option<i32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            parallelism: Option<i32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            selector: Option<&'a LabelSelector>,
            template: &'a PodTemplateSpec,
        }
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct CronSpec<'a> {
            job_template: JobTemplateBody<'a>,
        }
        #[derive(serde::Serialize)]
        struct JobTemplateBody<'a> {
            spec: Spec<'a>,
        }
        #[derive(serde::Serialize)]
        struct Body<'a, T> {
            metadata: &'a ObjectMeta,
            spec: T,
        }
        let job = matches!(self.kind.as_str(), "Job" | "CronJob");
        let spec = Spec {
            replicas: (!job).then_some(self.replicas),
            parallelism: job.then_some(self.replicas),
            selector: self.selector.as_ref(),
            template: &self.template,
        };
        let metadata = &self.metadata;
        if self.kind == "CronJob" {
            let spec = CronSpec {
                job_template: JobTemplateBody { spec },
            };
            Body { metadata, spec }.serialize(s)
        } else {
            Body { metadata, spec }.serialize(s)
        }
    }
}

impl From<Box<Workload>> for Workload {
    fn from(workload: Box<Workload>) -> Workload {
        *workload
    }
}
