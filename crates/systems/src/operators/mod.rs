//! The workload operators AI teams run, as the pods their controllers create and what their
//! pod webhooks inject: JobSet ([`jobset`]), LeaderWorkerSet ([`lws`]), Kubeflow Trainer's
//! TrainJob through its runtime's JobSet ([`trainer`]), training-operator v1's PyTorchJob,
//! TFJob, XGBoostJob, PaddleJob, JAXJob and MPIJob ([`kubeflow`]), mpi-operator's `v2beta1`
//! MPIJob ([`mpi`]) and KubeRay's RayCluster, RayJob and RayService ([`kuberay`]).
//!
//! [`expand`] is the controllers: it turns one object into ordinary objects (pods, and the
//! PodGroups a controller creates for a gang), so every planner reads them as it reads any
//! pod or PodGroup of the inputs. [`admit`] is the pod webhooks, run when each pod is created;
//! [`leader_of`] and [`follow`] are the one thing decided only at placement: exclusive
//! placement's followers get their leader's topology domain as a nodeSelector once the leader
//! is bound (upstream refuses them until then).

pub mod jobset;
pub mod kubeflow;
pub mod kuberay;
pub mod lws;
pub mod mpi;
pub(crate) mod sha1;
pub mod trainer;

use df_model::kueue::QUEUE_NAME_LABEL;
use df_model::operators::{OperatorObject, OperatorSpec};
use df_model::{
    Affinity, LabelSelector, LabelSelectorRequirement, Node, Object, ObjectMeta, Pod, PodAffinity,
    PodAffinityTerm, PodStatus, PodTemplateSpec, TypeMeta,
};

/// What one operator object's controllers create.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expansion {
    /// Pods in creation order (leaders before the followers that wait for them), then the
    /// PodGroups its controller creates for gang scheduling.
    pub objects: Vec<Object>,
    /// What the controllers do that the plan cannot show as pods: suspended, created later,
    /// not modelled (and why).
    pub notes: Vec<String>,
}

impl Expansion {
    fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }
}

/// The pods (and PodGroups) `object`'s controllers create. `runtimes` are the training
/// runtimes of the inputs and the state, which a TrainJob is built from. A training runtime
/// itself creates nothing.
pub fn expand(object: &OperatorObject, runtimes: &[&OperatorObject]) -> Expansion {
    let meta = &object.metadata;
    match &object.spec {
        OperatorSpec::JobSet(spec) => jobset::expand(meta, spec),
        OperatorSpec::LeaderWorkerSet(spec) => lws::expand(meta, spec),
        OperatorSpec::TrainJob(spec) => trainer::expand(meta, spec, runtimes),
        OperatorSpec::TrainingRuntime(_) | OperatorSpec::ClusterTrainingRuntime(_) => {
            Expansion::default()
        }
        OperatorSpec::PyTorchJob(spec) => {
            kubeflow::expand(meta, spec, &spec.pytorch_replica_specs, &kubeflow::PYTORCH)
        }
        OperatorSpec::TfJob(spec) => {
            kubeflow::expand(meta, spec, &spec.tf_replica_specs, &kubeflow::TENSORFLOW)
        }
        OperatorSpec::XgBoostJob(spec) => {
            kubeflow::expand(meta, spec, &spec.xgb_replica_specs, &kubeflow::XGBOOST)
        }
        OperatorSpec::PaddleJob(spec) => {
            kubeflow::expand(meta, spec, &spec.paddle_replica_specs, &kubeflow::PADDLE)
        }
        OperatorSpec::JaxJob(spec) => {
            kubeflow::expand(meta, spec, &spec.jax_replica_specs, &kubeflow::JAX)
        }
        OperatorSpec::MpiJob(spec) => kubeflow::expand_mpi(meta, spec),
        OperatorSpec::MpiJobV2beta1(spec) => mpi::expand(meta, spec),
        OperatorSpec::RayCluster(spec) => kuberay::expand_cluster(meta, spec),
        OperatorSpec::RayJob(spec) => kuberay::expand_job(meta, spec),
        OperatorSpec::RayService(spec) => kuberay::expand_service(meta, spec),
    }
}

/// Run the operators' pod webhooks on `pod` at its creation (`priority`: the value the
/// Priority admission plugin resolved, which runs before them). Returns what they injected,
/// one line per webhook, for the plan to show as inherited.
pub fn admit(pod: &mut Pod, priority: i32) -> Vec<String> {
    let mut injected = Vec::new();
    injected.extend(jobset::admit(pod, priority));
    injected.extend(lws::admit(pod));
    injected
}

/// The Kueue pod set `pod` (one of the pods `spec`'s controllers create) is counted in, as
/// Kueue's integration of the kind names its pod sets (`pkg/controller/jobs/<kind>`, `PodSets`,
/// lower-cased by `NewPodSetReference`): a JobSet's or TrainJob's replicated Job, a Kubeflow
/// job's replica type, an MPIJob's job role, a Ray cluster's `head` and worker groups, a RayJob's `submitter`. `None`
/// for the kinds Kueue does not admit as one workload: see [`kueue_integrated`].
pub fn kueue_pod_set(spec: &OperatorSpec, pod: &Pod) -> Option<String> {
    if !kueue_integrated(spec) {
        return None;
    }
    let label = |key: &str| {
        pod.metadata
            .labels
            .get(key)
            .map(|v| v.to_lowercase().to_string())
    };
    match spec {
        OperatorSpec::JobSet(_) | OperatorSpec::TrainJob(_) => label(jobset::REPLICATED_JOB_NAME),
        // Kueue's LeaderWorkerSet integration: one Workload per group, of pod sets `leader`
        // (worker index 0) and `worker` with a leader template, else `main`.
        OperatorSpec::LeaderWorkerSet(spec) => {
            let leader = label(lws::WORKER_INDEX).as_deref() == Some("0");
            let pod_set = match (&spec.leader_worker_template.leader_template, leader) {
                (None, _) => "main",
                (Some(_), true) => "leader",
                (Some(_), false) => "worker",
            };
            Some(pod_set.to_string())
        }
        OperatorSpec::RayCluster(_) | OperatorSpec::RayJob(_) | OperatorSpec::RayService(_) => {
            match label(kuberay::NODE_TYPE).as_deref() {
                Some("head") => Some("head".to_string()),
                Some(_) => label(kuberay::GROUP),
                None => Some("submitter".to_string()),
            }
        }
        OperatorSpec::MpiJobV2beta1(_) => label(kubeflow::JOB_ROLE),
        _ => label(kubeflow::REPLICA_TYPE),
    }
}

/// `object` as Kueue starts it once admitted (`RunWithPodSetsInfo` sets `suspend: false`):
/// Kueue's webhook creates every job it manages suspended, so a queued object's `suspend:
/// true` says only that Kueue holds it, not that it stays so.
pub fn unsuspended_by_kueue(object: &OperatorObject) -> OperatorObject {
    let mut object = object.clone();
    match &mut object.spec {
        OperatorSpec::JobSet(spec) => spec.suspend = None,
        OperatorSpec::TrainJob(spec) => spec.suspend = None,
        OperatorSpec::PyTorchJob(spec)
        | OperatorSpec::MpiJob(spec)
        | OperatorSpec::MpiJobV2beta1(spec)
        | OperatorSpec::TfJob(spec)
        | OperatorSpec::XgBoostJob(spec)
        | OperatorSpec::PaddleJob(spec)
        | OperatorSpec::JaxJob(spec) => {
            if let Some(policy) = &mut spec.run_policy {
                policy.suspend = None;
            }
        }
        OperatorSpec::RayCluster(spec) => spec.suspend = None,
        OperatorSpec::RayJob(spec) => spec.suspend = None,
        OperatorSpec::LeaderWorkerSet(_)
        | OperatorSpec::RayService(_)
        | OperatorSpec::TrainingRuntime(_)
        | OperatorSpec::ClusterTrainingRuntime(_) => {}
    }
    object
}

/// Whether Kueue lists the pod set `pod_set` of a `kind` workload before the others, where
/// the pods come in another order: an MPIJob's `launcher` (Kueue's `orderedReplicaTypes`).
pub fn kueue_pod_set_first(kind: &str, pod_set: &str) -> bool {
    kind == "MPIJob" && pod_set == "launcher"
}

/// Whether Kueue manages `object` as one workload: a kind Kueue integrates, with the queue
/// label.
pub fn kueue_managed(object: &OperatorObject) -> bool {
    object.metadata.labels.contains_key(QUEUE_NAME_LABEL) && kueue_integrated(&object.spec)
}

/// Whether Kueue admits an object of `spec`'s kind labelled with a queue name (as one Workload
/// of pod sets; a LeaderWorkerSet as one per group). Not a `kubeflow.org/v1` MPIJob (Kueue
/// integrates mpi-operator's `v2beta1` MPIJob only), nor a training runtime (it creates
/// nothing).
pub fn kueue_integrated(spec: &OperatorSpec) -> bool {
    !matches!(
        spec,
        OperatorSpec::MpiJob(_)
            | OperatorSpec::TrainingRuntime(_)
            | OperatorSpec::ClusterTrainingRuntime(_)
    )
}

/// The Kueue Workloads of a Kueue-managed object, by the name the plan shows: the object's
/// own, or a LeaderWorkerSet's `<name>-<group>` per group (`spec.replicas`, default 1).
pub fn kueue_workloads(object: &OperatorObject) -> Vec<String> {
    let name = &object.metadata.name;
    match &object.spec {
        OperatorSpec::LeaderWorkerSet(spec) => (0..spec.replicas.unwrap_or(1).max(0))
            .map(|group| format!("{name}-{group}"))
            .collect(),
        _ => vec![name.clone()],
    }
}

/// A follower of exclusive placement: created only once `leader` (a pod of the same
/// namespace) is bound, with `nodeSelector {topology_key: <the leader's node's value>}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Follower {
    pub leader: String,
    pub topology_key: String,
    /// Upstream's refusal while the leader is not bound.
    pub waiting: &'static str,
}

/// The leader `pod` waits for, when it is a follower of JobSet's or LeaderWorkerSet's
/// exclusive placement.
pub fn leader_of(pod: &Pod) -> Option<Follower> {
    jobset::leader_of(pod).or_else(|| lws::leader_of(pod))
}

/// Give `pod` its leader's topology domain, as the webhook does once the leader is bound on
/// `leader_node`; the note says what was injected, the error why the pod is not created.
pub fn follow(
    pod: &mut Pod,
    follower: &Follower,
    leader_node: Option<&Node>,
) -> Result<String, String> {
    let Some(node) = leader_node else {
        return Err(format!("not created: {}", follower.waiting));
    };
    let key = follower.topology_key.as_str();
    let Some(value) = node.metadata.labels.get(key) else {
        return Err(format!(
            "not created: node does not have topology label: {key} (leader {} is on {})",
            follower.leader, node.metadata.name
        ));
    };
    pod.spec.node_selector.insert(key.into(), value.clone());
    Ok(format!(
        "nodeSelector {key}={value} (from leader {})",
        follower.leader
    ))
}

/// A pod of `template` in `namespace`, named `name`.
fn pod_of(template: &PodTemplateSpec, namespace: &str, name: String) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name,
            namespace: namespace.to_string(),
            ..template.metadata.clone()
        },
        spec: template.spec.clone(),
        status: PodStatus::default(),
    }
}

/// The label and the annotation the batch Job controller gives an Indexed Job's pods
/// (the label is PodIndexLabel, GA in 1.32).
pub const JOB_COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";

/// The pods the Job controller creates for an Indexed Job of `template` (completion indexes
/// `0..active`), named `<job>-<index>` (upstream appends five random characters).
fn indexed_job_pods(
    template: &PodTemplateSpec,
    namespace: &str,
    job: &str,
    active: i32,
) -> Vec<Pod> {
    (0..active.max(0))
        .map(|index| {
            let mut pod = pod_of(template, namespace, format!("{job}-{index}"));
            let meta = &mut pod.metadata;
            for key in df_model::JOB_NAME_LABELS {
                meta.labels.insert(key.into(), job.into());
            }
            meta.labels
                .insert(JOB_COMPLETION_INDEX.into(), index.to_string().into());
            meta.annotations
                .insert(JOB_COMPLETION_INDEX.into(), index.to_string().into());
            pod
        })
        .collect()
}

/// Exclusive placement's pair of required terms over `label` (`key`'s own group, every other
/// group), appended to the pod's own as the JobSet and LeaderWorkerSet webhooks do; `extra`
/// narrows the anti-affinity (JobSet: the same priority) and `all_namespaces` sets
/// `namespaceSelector: {}` (JobSet; LWS keeps to the pod's namespace).
fn exclusive_terms(
    pod: &mut Pod,
    label: &str,
    key: &str,
    topology_key: &str,
    extra: Option<LabelSelectorRequirement>,
    all_namespaces: bool,
) {
    let requirement = |operator: &str, values: &[&str]| LabelSelectorRequirement {
        key: label.to_string(),
        operator: operator.to_string(),
        values: values.iter().map(ToString::to_string).collect(),
    };
    let term = |expressions: Vec<LabelSelectorRequirement>| PodAffinityTerm {
        label_selector: Some(LabelSelector {
            match_expressions: expressions,
            ..LabelSelector::default()
        }),
        namespace_selector: all_namespaces.then(LabelSelector::default),
        topology_key: topology_key.to_string(),
        ..PodAffinityTerm::default()
    };
    let affinity = pod
        .spec
        .affinity
        .get_or_insert_with(Box::<Affinity>::default);
    affinity
        .pod_affinity
        .get_or_insert_with(PodAffinity::default)
        .required
        .push(term(vec![requirement("In", &[key])]));
    let mut anti = vec![requirement("Exists", &[]), requirement("NotIn", &[key])];
    anti.extend(extra);
    affinity
        .pod_anti_affinity
        .get_or_insert_with(PodAffinity::default)
        .required
        .push(term(anti));
}

/// Requests equal to limits of these quantities (what operators give the containers they add).
fn fixed(quantities: &[(&str, &str)]) -> df_model::ResourceRequirements {
    let list: df_model::ResourceList = quantities
        .iter()
        .filter_map(|(k, v)| {
            Some((
                df_model::CompactString::from(*k),
                df_model::Quantity::parse(v).ok()?,
            ))
        })
        .collect();
    df_model::ResourceRequirements {
        requests: list.clone(),
        limits: list,
    }
}

/// A PodGroup object a controller creates, decoded as one read from a manifest would be.
fn pod_group(api_version: &str, body: serde_json::Value) -> Option<Object> {
    let type_meta = TypeMeta {
        api_version: api_version.to_string(),
        kind: "PodGroup".to_string(),
    };
    Object::decode(type_meta, body).ok()
}
