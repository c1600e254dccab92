//! Kueue workloads: a `batch/v1` Job labelled `kueue.x-k8s.io/queue-name` is one pod set
//! (`main`) that Kueue admits on quota ([`crate::kueue`]) through its LocalQueue, at its full
//! count or, with `kueue.x-k8s.io/job-min-parallelism`, partially; then unsuspends it. With
//! Topology Aware Scheduling it also decides the topology domain of every pod
//! ([`crate::topology::kueue`]). The Job's pods carry the Job-name label; the tool also gives
//! them the Job's queue label so that they join its workload rather than the batch.
//!
//! An operator object with the queue label (JobSet, TrainJob, the Kubeflow jobs, RayCluster,
//! RayJob) is one workload of several pod sets, one per replicated Job, replica type or group
//! ([`crate::operators::kueue_pod_set`]); each kind is its own gang kind, so objects of two
//! kinds never share a workload. Its pods carry Kueue's pod-set label, as the pods Kueue starts
//! do, and [`WORKLOAD_LABEL`], the tool's own, which joins them to their workload. A
//! StatefulSet is one workload of all its replicas, joined the same way.

use std::collections::BTreeMap;

use super::model::{Adapter, Gang, GangKind, GangObjects, JoinField, PlacementRule, System};
use crate::kueue::assign::PodSetShape;
use crate::kueue::{self as admission, Job, pod_set_of};
use crate::operators::kueue_managed;
use crate::topology::kueue::asks_topology;
use df_model::KindObject;
use df_model::kueue::{
    KueueObjects, KueueWorkload, MIN_PARALLELISM, POD_GROUP_NAME, POD_GROUP_TOTAL_COUNT,
    POD_SET_LABEL, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL,
};
use df_model::operators::OperatorObject;
use df_model::resources::pod_requests;
use df_model::{Labels, ObjectMeta, Pod, Workload};
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

/// Mark a pod of `job` as a member of its Kueue workload: a Job's pods by the Job's queue and
/// name labels; a StatefulSet's (one Workload of all its replicas, Kueue's StatefulSet
/// reconciler) by the queue label and [`WORKLOAD_LABEL`]; a Deployment's by the queue label
/// alone, which makes each its own workload ([`KueuePods`]).
pub fn mark_job_pod(job: &Workload, pod: &mut Pod) {
    let Some(queue) = job.metadata.labels.get(QUEUE_NAME_LABEL) else {
        return;
    };
    let labels = &mut pod.metadata.labels;
    match job.kind.as_str() {
        "Job" => {
            labels.insert(QUEUE_NAME_LABEL.into(), queue.as_str().into());
            labels.insert(JOB_NAME_LABEL.into(), job.metadata.name.as_str().into());
        }
        "Deployment" => {
            // Kueue's Deployment webhook puts the queue label on the pod template: each pod is
            // then its own workload (the pod integration, [`KueuePods`]).
            labels.insert(QUEUE_NAME_LABEL.into(), queue.as_str().into());
        }
        "StatefulSet" => {
            labels.insert(QUEUE_NAME_LABEL.into(), queue.as_str().into());
            let workload = format!("statefulset-{}", job.metadata.name);
            labels.insert(WORKLOAD_LABEL.into(), workload.into());
        }
        _ => {}
    }
}

/// The tool's label on the pods of a workload Kueue admits as a whole (a StatefulSet, an
/// operator object): `<kind>-<name>`, the kind lower-cased (as Kueue's Workload names begin),
/// which joins them to it.
pub const WORKLOAD_LABEL: &str = "kubectl-dataflow.io/kueue-workload";

/// Mark `pod`, one of the pods `object`'s controllers create, as a member of its Kueue
/// workload: the object's queue label, the pod set Kueue counts it in, and
/// [`WORKLOAD_LABEL`]. Pods of an object Kueue does not manage are left alone.
pub fn mark_operator_pod(object: &OperatorObject, pod: &mut Pod) {
    if !kueue_managed(object) {
        return;
    }
    let Some(pod_set) = crate::operators::kueue_pod_set(&object.spec, pod) else {
        return;
    };
    let queue = object.metadata.labels[QUEUE_NAME_LABEL].clone();
    let kind = object.kind_info().kind.to_lowercase();
    let labels = &mut pod.metadata.labels;
    labels.insert(QUEUE_NAME_LABEL.into(), queue);
    labels.insert(POD_SET_LABEL.into(), pod_set.into());
    let workload = match labels.get(crate::operators::lws::GROUP_INDEX) {
        Some(group) => format!("{kind}-{}-{group}", object.metadata.name),
        None => format!("{kind}-{}", object.metadata.name),
    };
    labels.insert(WORKLOAD_LABEL.into(), workload.into());
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
        if labels.contains_key(WORKLOAD_LABEL) {
            // A JobSet's or a RayJob's pod carries a Job-name label too: its workload is the
            // operator object's.
            return None;
        }
        labels.get(JOB_NAME_LABEL).map(ToString::to_string)
    }
}

/// Kueue's workloads of one kind whose pods join by [`WORKLOAD_LABEL`]: a StatefulSet, or an
/// operator kind (see [`kueue_managed`]).
pub struct KueueWorkloads(&'static GangKind);

const fn workload_kind(kind: &'static str, api_versions: &'static [&'static str]) -> GangKind {
    GangKind {
        id: "kueue",
        kind,
        api_versions,
        joining: "label `kueue.x-k8s.io/queue-name: <LocalQueue>` on the object",
        join_field: JoinField::Label(QUEUE_NAME_LABEL),
        honoured_by: System::KubeScheduler,
    }
}

/// StatefulSet, then the operator kinds Kueue integrates, in the order of `crate::operators`.
static WORKLOAD_KINDS: [GangKind; 13] = [
    workload_kind("StatefulSet", &["apps/v1"]),
    workload_kind("LeaderWorkerSet", &["leaderworkerset.x-k8s.io/v1"]),
    workload_kind("JobSet", &["jobset.x-k8s.io/v1alpha2"]),
    workload_kind("TrainJob", &["trainer.kubeflow.org/v1alpha1"]),
    workload_kind("PyTorchJob", &["kubeflow.org/v1"]),
    workload_kind("TFJob", &["kubeflow.org/v1"]),
    workload_kind("XGBoostJob", &["kubeflow.org/v1"]),
    workload_kind("PaddleJob", &["kubeflow.org/v1"]),
    workload_kind("JAXJob", &["kubeflow.org/v1"]),
    workload_kind("MPIJob", &[df_model::operators::MPI_OPERATOR_VERSION]),
    workload_kind("RayCluster", &["ray.io/v1"]),
    workload_kind("RayJob", &["ray.io/v1"]),
    workload_kind("RayService", &["ray.io/v1"]),
];

/// One adapter per kind of [`WORKLOAD_KINDS`], for the registry.
pub static KUEUE_WORKLOADS: [KueueWorkloads; 13] = [
    KueueWorkloads(&WORKLOAD_KINDS[0]),
    KueueWorkloads(&WORKLOAD_KINDS[1]),
    KueueWorkloads(&WORKLOAD_KINDS[2]),
    KueueWorkloads(&WORKLOAD_KINDS[3]),
    KueueWorkloads(&WORKLOAD_KINDS[4]),
    KueueWorkloads(&WORKLOAD_KINDS[5]),
    KueueWorkloads(&WORKLOAD_KINDS[6]),
    KueueWorkloads(&WORKLOAD_KINDS[7]),
    KueueWorkloads(&WORKLOAD_KINDS[8]),
    KueueWorkloads(&WORKLOAD_KINDS[9]),
    KueueWorkloads(&WORKLOAD_KINDS[10]),
    KueueWorkloads(&WORKLOAD_KINDS[11]),
    KueueWorkloads(&WORKLOAD_KINDS[12]),
];

impl Adapter for KueueWorkloads {
    fn kind(&self) -> &'static GangKind {
        self.0
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        let kind = self.kind();
        let stateful_sets = objects
            .kueue_stateful_sets
            .iter()
            .filter(|_| kind.kind == "StatefulSet")
            .map(|set| set.metadata.clone());
        let operators = objects
            .kueue_operators
            .iter()
            .filter(|object| object.kind_info().kind == kind.kind)
            .flat_map(|object| {
                crate::operators::kueue_workloads(object)
                    .into_iter()
                    .map(|name| ObjectMeta {
                        name,
                        ..object.metadata.clone()
                    })
            });
        stateful_sets
            .chain(operators)
            .map(|meta| {
                let mut gang = Gang::new(kind, kind.api_versions[0], &meta, 0);
                gang.queue = meta.labels[QUEUE_NAME_LABEL].to_string();
                gang.rule = PlacementRule::Kueue(Box::new(objects.kueue.clone()));
                gang
            })
            .collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        let workload = pod.metadata.labels.get(WORKLOAD_LABEL)?;
        let kind = self.0.kind.to_lowercase();
        let name = workload.strip_prefix(kind.as_str())?.strip_prefix('-')?;
        Some(name.to_string())
    }
}

/// Kueue's pod integration: a pod with the queue label that no Kueue job owns is its own
/// workload of one pod; pods sharing `kueue.x-k8s.io/pod-group-name` are one workload, which
/// Kueue creates only once `kueue.x-k8s.io/pod-group-total-count` of them exist.
pub struct KueuePods;

pub static KUEUE_POD_KIND: GangKind = GangKind {
    id: "kueue",
    kind: "Pod",
    api_versions: &["v1"],
    joining: "label `kueue.x-k8s.io/queue-name: <LocalQueue>` on the Pod or its Deployment \
              (`kueue.x-k8s.io/pod-group-name` groups pods)",
    join_field: JoinField::Label(QUEUE_NAME_LABEL),
    honoured_by: System::KubeScheduler,
};

impl Adapter for KueuePods {
    fn kind(&self) -> &'static GangKind {
        &KUEUE_POD_KIND
    }

    fn define(&self, _objects: &GangObjects) -> Vec<Gang> {
        Vec::new()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        let labels = &pod.metadata.labels;
        labels.get(QUEUE_NAME_LABEL)?;
        let owned = labels.contains_key(WORKLOAD_LABEL)
            || df_model::JOB_NAME_LABELS
                .iter()
                .any(|key| labels.contains_key(key));
        if owned {
            return None;
        }
        let group = labels.get(POD_GROUP_NAME).map(ToString::to_string);
        Some(group.unwrap_or_else(|| pod.metadata.name.to_string()))
    }

    fn implied(&self, objects: &GangObjects, name: &str, first: &Pod) -> Option<Gang> {
        let labels = &first.metadata.labels;
        let in_group = labels.get(POD_GROUP_NAME).is_some();
        let total = if in_group {
            first
                .metadata
                .annotations
                .get(POD_GROUP_TOTAL_COUNT)
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(1)
        } else {
            1
        };
        let meta = df_model::ObjectMeta {
            name: name.to_string(),
            namespace: first.metadata.namespace.clone(),
            labels: labels.clone(),
            creation_timestamp: first.metadata.creation_timestamp.clone(),
            ..df_model::ObjectMeta::default()
        };
        let mut gang = Gang::new(&KUEUE_POD_KIND, "v1", &meta, total);
        gang.queue = labels[QUEUE_NAME_LABEL].to_string();
        gang.rule = PlacementRule::Kueue(Box::new(objects.kueue.clone()));
        Some(gang)
    }
}

/// Kueue's admission of every Kueue gang in `gangs` at once (they compete for the same quota,
/// in Kueue's queue order), each gang given its decision. Without any Kueue object in the
/// inputs or the state nothing is decided (the plan says so).
pub fn admit_gangs(gangs: &[Gang], state: &ClusterState) -> Vec<Gang> {
    let mut out = gangs.to_vec();
    let managed: Vec<usize> = (0..out.len())
        .filter(|&i| {
            // A pod group whose pods do not all exist yet has no Workload.
            let gang = &out[i];
            matches!(gang.rule, PlacementRule::Kueue(_))
                && gang.defined
                && gang.members.len() + gang.running.len() >= gang.minimum()
        })
        .collect();
    let Some(PlacementRule::Kueue(given)) = managed.first().map(|&i| &out[i].rule) else {
        return out;
    };
    let mut objects: KueueObjects = (**given).clone();
    objects.extend(&state.kueue);
    if objects.is_empty() {
        return out;
    }
    for &i in &managed {
        if out[i].kind.kind == KUEUE_POD_KIND.kind {
            label_roles(&mut out[i]);
        }
    }
    let jobs: Vec<Job> = managed
        .iter()
        .map(|&i| job_of(&out[i], &objects, state))
        .collect();
    let decisions = admission::admit(&objects, &namespace_labels(state), &jobs);
    for (&i, decision) in managed.iter().zip(decisions) {
        out[i].admission = Some(Box::new(decision));
    }
    out
}

/// The state's Workloads Kueue has not admitted (their jobs suspended) with what Kueue decides
/// for them now, against the quota the admitted ones hold, in Kueue's queue order: the
/// pending side of Kueue that `plan --pending` shows, since these jobs have no pods yet.
pub fn waiting_workloads(state: &ClusterState) -> Vec<(&KueueWorkload, admission::Decision)> {
    let waiting: Vec<&KueueWorkload> = state
        .kueue
        .workloads
        .iter()
        .filter(|w| w.waiting())
        .collect();
    if waiting.is_empty() {
        return Vec::new();
    }
    let jobs: Vec<Job> = waiting
        .iter()
        .map(|w| {
            let pod_sets = w
                .spec
                .pod_sets
                .iter()
                .map(|ps| {
                    let pod = Pod {
                        metadata: ps.template.metadata.clone(),
                        spec: ps.template.spec.clone(),
                        ..Pod::default()
                    };
                    let mut shape = pod_set_shape(&ps.name, &pod);
                    shape.count = ps.count;
                    shape.min_count = ps.min_count;
                    shape
                })
                .collect();
            Job {
                kind: "Workload".to_string(),
                namespace: w.metadata.namespace.clone(),
                name: w.metadata.name.clone(),
                uid: String::new(),
                queue: w.spec.queue_name.clone(),
                priority: w.spec.priority.unwrap_or(0),
                created: w
                    .metadata
                    .creation_timestamp
                    .as_deref()
                    .unwrap_or("")
                    .to_string(),
                pod_sets,
            }
        })
        .collect();
    let decisions = admission::admit(&state.kueue, &namespace_labels(state), &jobs);
    waiting.into_iter().zip(decisions).collect()
}

/// The labels of each namespace of `state`, which ClusterQueues' namespace selectors read.
fn namespace_labels(state: &ClusterState) -> impl Fn(&str) -> Option<Labels> + '_ {
    |name: &str| {
        state
            .namespaces
            .iter()
            .find(|n| n.metadata.name == name)
            .map(|n| n.metadata.labels.clone())
    }
}

/// A pod group's pod sets are its roles, pods of one shape (Kueue names each by a hash of the
/// role; here the first is `main`, the next `role-2`, ...): each member is labelled with its
/// role's pod set, as Kueue labels the pods it starts.
fn label_roles(gang: &mut Gang) {
    let mut roles: Vec<BTreeMap<String, i64>> = Vec::new();
    for member in &mut gang.members {
        let shape = pod_set_shape("", &member.pod).per_pod;
        let role = match roles.iter().position(|r| *r == shape) {
            Some(role) => role,
            None => {
                roles.push(shape);
                roles.len() - 1
            }
        };
        let name = match role {
            0 => "main".to_string(),
            n => format!("role-{}", n + 1),
        };
        let labels = &mut member.pod.metadata.labels;
        labels.insert(POD_SET_LABEL.into(), name.into());
    }
}

/// The Workload Kueue's integration derives: a Job's one pod set `main` of the pending pods,
/// its minimum from `kueue.x-k8s.io/job-min-parallelism`; an operator object's pod sets in the
/// order its pods come (each pod's [`POD_SET_LABEL`]). The priority comes from the
/// WorkloadPriorityClass the job names, else the pods' PriorityClass (upstream
/// `ExtractPriority`).
fn job_of(gang: &Gang, objects: &KueueObjects, state: &ClusterState) -> Job {
    let template = gang
        .members
        .first()
        .map(|m| m.pod.clone())
        .unwrap_or_default();
    let mut pod_sets: Vec<PodSetShape> = Vec::new();
    for member in &gang.members {
        let name = pod_set_of(&member.pod);
        match pod_sets.iter_mut().find(|ps| ps.name == name) {
            Some(pod_set) => pod_set.count = pod_set.count.saturating_add(1),
            None => pod_sets.push(pod_set_shape(name, &member.pod)),
        }
    }
    // Kueue lists an MPIJob's launcher before its workers (`orderedReplicaTypes`), though
    // mpi-operator creates the workers first.
    pod_sets.sort_by_key(|set| !crate::operators::kueue_pod_set_first(gang.kind.kind, &set.name));
    if let [main] = pod_sets.as_mut_slice() {
        main.min_count = gang
            .meta
            .annotations
            .get(MIN_PARALLELISM)
            .and_then(|v| v.parse::<i32>().ok())
            .filter(|v| *v > 0 && *v < main.count);
    }
    if pod_sets.is_empty() {
        pod_sets.push(pod_set_shape("main", &template));
        pod_sets[0].count = 0;
    }
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
        pod_sets,
    }
}

/// A pod set of one pod like `pod`, with its requests per pod.
fn pod_set_shape(name: &str, pod: &Pod) -> PodSetShape {
    let requests = pod_requests(&pod.spec, false);
    let mut per_pod: BTreeMap<String, i64> = ["cpu", "memory", "ephemeral-storage"]
        .iter()
        .map(|r| (r.to_string(), requests.get(r)))
        .chain(requests.scalar.iter().map(|(r, v)| (r.clone(), *v)))
        .collect();
    per_pod.retain(|_, v| *v > 0);
    PodSetShape {
        name: name.to_string(),
        count: 1,
        min_count: None,
        per_pod,
        asks_topology: asks_topology(pod),
        pod: pod.clone(),
    }
}
