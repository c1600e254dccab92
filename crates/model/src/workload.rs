//! The workload controllers' kinds (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job,
//! CronJob): a pod template and how many pods the controller creates now.

use serde::{Deserialize, Deserializer};

use crate::core::{ObjectMeta, PodTemplateSpec};
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
