//! Kueue workloads: a `batch/v1` Job labelled `kueue.x-k8s.io/queue-name` is one pod set
//! (`main`) that Kueue admits on quota ([`crate::kueue`]) through its LocalQueue, at its full
//! count or, with `kueue.x-k8s.io/job-min-parallelism`, partially; then unsuspends it. With
//! Topology Aware Scheduling it also decides the topology domain of every pod
//! ([`crate::topology::kueue`]). The Job's pods carry the Job-name label; the tool also gives
//! them the Job's queue label so that they join its workload rather than the batch.

use std::collections::BTreeMap;

use super::model::{Adapter, Gang, GangKind, GangObjects, JoinField, PlacementRule, System};
use crate::kueue::assign::PodSetShape;
use crate::kueue::{self as admission, Job};
use crate::topology::kueue::asks_topology;
use df_model::kueue::{KueueObjects, MIN_PARALLELISM, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL};
use df_model::resources::pod_requests;
use df_model::{Labels, Pod, Workload};
use df_state::ClusterState;

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
/// Only a Job's: a Deployment or StatefulSet with the queue label is not a Kueue Job, and its
/// pods marked so would join a Job that does not exist and be planned twice.
pub fn mark_job_pod(job: &Workload, pod: &mut Pod) {
    if !job.is_kueue_job() {
        return;
    }
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

/// Kueue's admission of every Kueue gang in `gangs` at once (they compete for the same quota,
/// in Kueue's queue order), each gang given its decision. Without any Kueue object in the
/// inputs or the state nothing is decided (the plan says so).
pub fn admit_gangs(gangs: &[Gang], state: &ClusterState) -> Vec<Gang> {
    let mut out = gangs.to_vec();
    let managed: Vec<usize> = (0..out.len())
        .filter(|&i| matches!(out[i].rule, PlacementRule::Kueue(_)) && out[i].defined)
        .collect();
    let Some(PlacementRule::Kueue(given)) = managed.first().map(|&i| &out[i].rule) else {
        return out;
    };
    let mut objects: KueueObjects = (**given).clone();
    objects.extend(&state.kueue);
    if objects.is_empty() {
        return out;
    }
    let jobs: Vec<Job> = managed
        .iter()
        .map(|&i| job_of(&out[i], &objects, state))
        .collect();
    let namespaces = |name: &str| -> Option<Labels> {
        state
            .namespaces
            .iter()
            .find(|n| n.metadata.name == name)
            .map(|n| n.metadata.labels.clone())
    };
    let decisions = admission::admit(&objects, &namespaces, &jobs);
    for (&i, decision) in managed.iter().zip(decisions) {
        out[i].admission = Some(Box::new(decision));
    }
    out
}

/// The Workload Kueue's Job integration derives: one pod set `main` of the pending pods, its
/// minimum from `kueue.x-k8s.io/job-min-parallelism`, and its priority from the
/// WorkloadPriorityClass the Job names, else the pods' PriorityClass (upstream
/// `ExtractPriority`).
fn job_of(gang: &Gang, objects: &KueueObjects, state: &ClusterState) -> Job {
    let template = gang
        .members
        .first()
        .map(|m| m.pod.clone())
        .unwrap_or_default();
    let requests = pod_requests(&template.spec, false);
    let mut per_pod: BTreeMap<String, i64> = ["cpu", "memory", "ephemeral-storage"]
        .iter()
        .map(|r| (r.to_string(), requests.get(r)))
        .chain(requests.scalar.iter().map(|(r, v)| (r.clone(), *v)))
        .collect();
    per_pod.retain(|_, v| *v > 0);
    let count = i32::try_from(gang.members.len()).unwrap_or(i32::MAX);
    let min_count = gang
        .meta
        .annotations
        .get(MIN_PARALLELISM)
        .and_then(|v| v.parse::<i32>().ok())
        .filter(|v| *v > 0 && *v < count);
    let priority = match gang.meta.labels.get(PRIORITY_CLASS_LABEL) {
        Some(name) => objects.priority_class(name).map_or(0, |c| c.value),
        None => state
            .priority_classes
            .iter()
            .find(|c| c.metadata.name == template.spec.priority_class_name.as_str())
            .map_or(0, |c| c.value),
    };
    Job {
        kind: gang.kind.kind.to_string(),
        namespace: gang.meta.namespace.clone(),
        name: gang.meta.name.clone(),
        uid: String::new(),
        queue: gang.queue.clone(),
        priority,
        created: gang
            .meta
            .creation_timestamp
            .as_deref()
            .unwrap_or("")
            .to_string(),
        pod_sets: vec![PodSetShape {
            name: "main".into(),
            count,
            min_count,
            per_pod,
            asks_topology: asks_topology(&template),
            pod: template,
        }],
    }
}
