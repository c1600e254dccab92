//! Kueue workloads: a `batch/v1` Job labelled `kueue.x-k8s.io/queue-name` is one pod set that
//! Kueue admits as a whole (all `parallelism` pods or none) through its LocalQueue, then
//! unsuspends; with Topology Aware Scheduling it also decides the topology domain of every pod
//! ([`crate::topology::kueue`]). The Job's pods carry the Job-name label; the tool also
//! gives them the Job's queue label so that they join its workload rather than the batch.

use super::model::{Adapter, Gang, GangKind, GangObjects, JoinField, PlacementRule, System};
use df_model::kueue::QUEUE_NAME_LABEL;
use df_model::{Pod, Workload};

/// The label the Job controller puts on its pods (`batch.kubernetes.io/job-name`).
const JOB_NAME_LABEL: &str = df_model::JOB_NAME_LABELS[0];

pub static KUEUE_KIND: GangKind = GangKind {
    id: "kueue",
    kind: "Job",
    api_versions: &["batch/v1"],
    joining: "label `kueue.x-k8s.io/queue-name: <LocalQueue>` on the Job",
    join_field: JoinField::Label(QUEUE_NAME_LABEL),
    honoured_by: System::KubeScheduler,
};

/// Mark a pod of `job` as a member of its Kueue workload (the Job's queue and name labels).
pub fn mark_job_pod(job: &Workload, pod: &mut Pod) {
    if let Some(queue) = job.metadata.labels.get(QUEUE_NAME_LABEL) {
        let labels = &mut pod.metadata.labels;
        labels.insert(QUEUE_NAME_LABEL.into(), queue.as_str().into());
        labels.insert(JOB_NAME_LABEL.into(), job.metadata.name.as_str().into());
    }
}

pub struct KueueJobs;

impl Adapter for KueueJobs {
    fn kind(&self) -> &'static GangKind {
        &KUEUE_KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects
            .kueue_jobs
            .iter()
            .map(|job| {
                let mut gang =
                    Gang::new(&KUEUE_KIND, "batch/v1", &job.metadata, job.replicas.into());
                gang.queue = job.metadata.labels[QUEUE_NAME_LABEL].to_string();
                gang.rule = PlacementRule::Kueue(Box::new(objects.kueue.clone()));
                gang
            })
            .collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        let labels = &pod.metadata.labels;
        labels.get(QUEUE_NAME_LABEL)?;
        labels.get(JOB_NAME_LABEL).map(ToString::to_string)
    }
}
