//! What every gang shares, whatever kind defines it: its members and where they come from, its
//! minimum, minimum resources, queue and priority, topology constraints, and which scheduler
//! honours it. A leaf: the adapters read their objects into this model and the planner, lint
//! and the batch read gang facts only from it.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use df_engine::config::SchedulerConfig;
use df_manifest::ManifestSet;
use df_model::gang::{NetworkTopologySpec, TopologyTerm};
use df_model::operators::OperatorObject;
use df_model::{
    GodelPodGroup, Object, ObjectMeta, Pod, PodGroup, ResourceList, SchedulingWorkload, VolcanoJob,
    VolcanoPodGroup, Workload,
};
use df_state::ClusterState;

/// The schedulers a gang can be handed to, each modelled on the one engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum System {
    /// kube-scheduler (v1.35+ honours Workload API gangs through its GangScheduling plugin).
    KubeScheduler,
    /// A kube-scheduler running the scheduler-plugins coscheduling profile.
    Coscheduling,
    KubeBatch,
    Volcano,
    Godel,
}

impl System {
    pub const ALL: [System; 5] = [
        System::KubeScheduler,
        System::Coscheduling,
        System::KubeBatch,
        System::Volcano,
        System::Godel,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            System::KubeScheduler => "kube-scheduler",
            System::Coscheduling => "coscheduling",
            System::KubeBatch => "kube-batch",
            System::Volcano => "volcano",
            System::Godel => "godel",
        }
    }

    pub fn parse(name: &str) -> Option<System> {
        System::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for System {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which system each `schedulerName` goes to. The defaults are the names each project's own
/// manifests and charts deploy: `default-scheduler`, `volcano`, `kube-batch`, `godel-scheduler`
/// and the scheduler-plugins chart's `scheduler-plugins-scheduler` (its plain manifests replace
/// `default-scheduler` instead: map it with `--scheduler-name default-scheduler=coscheduling`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerRoutes {
    routes: BTreeMap<String, System>,
}

/// A pod without `schedulerName` goes to the default scheduler.
pub(crate) use df_engine::profile::DEFAULT_SCHEDULER_NAME;

impl Default for SchedulerRoutes {
    fn default() -> SchedulerRoutes {
        let routes = [
            (DEFAULT_SCHEDULER_NAME, System::KubeScheduler),
            ("scheduler-plugins-scheduler", System::Coscheduling),
            ("kube-batch", System::KubeBatch),
            ("volcano", System::Volcano),
            ("godel-scheduler", System::Godel),
        ];
        SchedulerRoutes {
            routes: routes
                .into_iter()
                .map(|(name, system)| (name.to_string(), system))
                .collect(),
        }
    }
}

impl SchedulerRoutes {
    /// The defaults with `overrides` (`NAME=SYSTEM`) applied in order.
    pub fn with(overrides: &[(String, System)]) -> SchedulerRoutes {
        let mut routes = SchedulerRoutes::default();
        for (name, system) in overrides {
            routes.routes.insert(name.clone(), *system);
        }
        routes
    }

    /// The system a pod's `schedulerName` goes to; `None` when nothing modelled answers it.
    pub fn system(&self, scheduler_name: &str) -> Option<System> {
        let name = if scheduler_name.is_empty() {
            DEFAULT_SCHEDULER_NAME
        } else {
            scheduler_name
        };
        self.routes.get(name).copied()
    }
}

/// The routes a scheduler configuration declares: each profile's `schedulerName` goes to
/// coscheduling when the profile enables scheduler-plugins' `Coscheduling` plugin at any
/// extension point, else to kube-scheduler.
pub fn scheduler_config_routes(config: &SchedulerConfig) -> Vec<(String, System)> {
    config
        .profiles
        .iter()
        .map(|profile| {
            let system = if profile.coschedules() {
                System::Coscheduling
            } else {
                System::KubeScheduler
            };
            (profile.scheduler_name.clone(), system)
        })
        .collect()
}

/// `NAME=SYSTEM` of `--scheduler-name`.
pub fn parse_route(text: &str) -> Result<(String, System), String> {
    let (name, system) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not NAME=SYSTEM"))?;
    let system = System::parse(system).ok_or_else(|| {
        let known: Vec<&str> = System::ALL.iter().map(|s| s.as_str()).collect();
        format!("unknown system {system:?}: one of {}", known.join(", "))
    })?;
    if name.is_empty() {
        return Err(format!("{text:?} names no scheduler"));
    }
    Ok((name.to_string(), system))
}

/// One gang kind as users meet it: the object that defines the group, how pods join it, and
/// the system that honours it.
#[derive(Debug, PartialEq, Eq)]
pub struct GangKind {
    /// A short stable id (`kube-batch`, `coscheduling`...), shown in the plan.
    pub id: &'static str,
    /// The object kind (`PodGroup`, `Job`, `Workload`): the contract's `groups[].kind`.
    pub kind: &'static str,
    pub api_versions: &'static [&'static str],
    /// How a pod joins, as the README lists it.
    pub joining: &'static str,
    /// The pod field that says so, for positioned lint findings.
    pub join_field: JoinField,
    pub honoured_by: System,
}

/// The pod field through which a pod joins a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinField {
    Label(&'static str),
    Annotation(&'static str),
    /// A field under the pod spec (`workloadRef.podGroup`).
    Spec(&'static str),
    /// The group makes its own pods (a Volcano Job's tasks).
    Own,
}

/// Where a member pod comes from (`groups[].pods[].source` in the plan).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PodSource {
    /// A Pod of the inputs.
    Manifest,
    /// A replica of a template of the inputs (`Deployment/name`, `--replicas` copies).
    Template(String),
    /// A pending pod of the cluster state.
    State,
    /// A pod a Volcano Job's task creates.
    Task,
}

/// A pending member of a gang.
#[derive(Debug, Clone)]
pub struct Member {
    pub pod: Pod,
    /// Volcano task (`volcano.sh/task-spec`), when the pod has one.
    pub task: Option<String>,
    pub source: PodSource,
}

/// How the gang is placed beyond all-or-nothing: the kind-specific rule that plugs into the
/// one placement path.
#[derive(Debug, Clone)]
pub enum PlacementRule {
    /// Pod by pod over all nodes, each placed pod assumed for the next (kube-batch, Workload
    /// gangs).
    PodByPod,
    /// Volcano PodGroups: pod by pod, going on past a pod that fits nowhere as Volcano's
    /// allocate action does (it skips the rest of a task that failed).
    VolcanoPodGroup,
    /// Coscheduling: the PreFilter's cluster-wide minResources check first, then pod by pod.
    Coscheduling,
    /// Godel node groups and circles.
    Godel(Box<GodelPodGroup>),
    /// Volcano task-topology buckets over the Job's tasks.
    VolcanoJob(Box<VolcanoJob>),
    /// Kueue admission of a Job's pod set, with Topology Aware Scheduling when its flavor has
    /// a topology.
    Kueue(Box<df_model::kueue::KueueObjects>),
}

impl PlacementRule {
    /// What a gang's scheduler adds to the engine's decision, for a pod it puts elsewhere.
    pub fn beyond_the_engine(&self) -> &'static str {
        match self {
            PlacementRule::VolcanoJob(_) => {
                "Volcano adds its task-topology (bucket) score to the engine's"
            }
            PlacementRule::Godel(_) => {
                "Godel fills the node group's circles (preferred domains) in order"
            }
            PlacementRule::PodByPod
            | PlacementRule::VolcanoPodGroup
            | PlacementRule::Coscheduling => {
                "the gang's pods placed before it count for its decision"
            }
            PlacementRule::Kueue(_) => {
                "Kueue's topology assignment gives it a node selector for its domain"
            }
        }
    }
}

/// One gang: the shared facts every kind is read into.
#[derive(Debug, Clone)]
pub struct Gang {
    pub kind: &'static GangKind,
    pub api_version: String,
    pub meta: ObjectMeta,
    /// As written (may be zero or negative: lint says so; the plan treats it as given).
    pub min_member: i64,
    /// Volcano PodGroup `minTaskMember` / Job task `minAvailable`: per task, pods that must fit.
    pub min_task_member: BTreeMap<String, i64>,
    pub min_resources: ResourceList,
    pub queue: String,
    pub priority_class_name: String,
    /// Topology constraints on the whole gang (Workload API `topologyConstraints`; Volcano
    /// HyperNodes and Kueue TAS will add theirs here).
    pub topology: Vec<TopologyTerm>,
    /// Volcano `spec.networkTopology`: keep the gang inside one HyperNode.
    pub network_topology: Option<NetworkTopologySpec>,
    /// Pending pods, in planning order.
    pub members: Vec<Member>,
    /// Pods of the gang already bound; they count towards the minimum.
    pub running: Vec<Pod>,
    /// Pods of the group in the state that have finished (Succeeded, Failed): coscheduling's
    /// PreFilter counts every pod its lister holds, whatever its phase, as a sibling.
    pub finished: usize,
    pub rule: PlacementRule,
    /// False when pods join a group that is in neither the inputs nor the state.
    pub defined: bool,
    /// Pods of the inputs the API server would refuse to create (LimitRange, ResourceQuota):
    /// taken out of `members`, as they never exist.
    pub rejected: Vec<RejectedPod>,
    /// The queue manager's decision before any pod is placed (Kueue admission), when one
    /// manages the gang.
    pub admission: Option<Box<crate::kueue::Decision>>,
}

/// A gang's pod the API server rejects at admission, with its words
/// (`pods "NAME" is forbidden: ...`).
#[derive(Debug, Clone)]
pub struct RejectedPod {
    pub pod: Pod,
    pub reason: String,
}

impl Gang {
    /// A gang of `kind` with only its identity and minimum; adapters fill the rest.
    pub fn new(kind: &'static GangKind, api_version: &str, meta: &ObjectMeta, min: i64) -> Gang {
        Gang {
            kind,
            api_version: api_version.to_string(),
            meta: meta.clone(),
            min_member: min,
            min_task_member: BTreeMap::new(),
            min_resources: ResourceList::new(),
            queue: String::new(),
            priority_class_name: String::new(),
            topology: Vec::new(),
            network_topology: None,
            members: Vec::new(),
            running: Vec::new(),
            finished: 0,
            rule: PlacementRule::PodByPod,
            defined: true,
            rejected: Vec::new(),
            admission: None,
        }
    }

    /// The minimum as a count (zero and negative minimums ask for nothing).
    pub fn minimum(&self) -> usize {
        usize::try_from(self.min_member).unwrap_or(0)
    }

    /// Every pod of the gang, running first.
    pub fn pods(&self) -> Vec<Pod> {
        self.running
            .iter()
            .cloned()
            .chain(self.members.iter().map(|m| m.pod.clone()))
            .collect()
    }

    /// The `schedulerName` its pods ask for (the first pod's; empty means the default).
    pub fn scheduler_name(&self) -> &str {
        self.members
            .iter()
            .map(|m| &m.pod)
            .chain(&self.running)
            .map(|p| p.spec.scheduler_name.as_str())
            .next()
            .unwrap_or("")
    }
}

/// The gang-defining objects of one source (the inputs, or the state), by kind.
#[derive(Debug, Default)]
pub struct GangObjects<'a> {
    pub godel: Vec<&'a GodelPodGroup>,
    pub volcano_jobs: Vec<&'a VolcanoJob>,
    pub volcano_pod_groups: Vec<&'a VolcanoPodGroup>,
    pub pod_groups: Vec<&'a PodGroup>,
    pub workloads: Vec<&'a SchedulingWorkload>,
    /// Jobs handed to Kueue (inputs only: a state holds their pods, not the Jobs).
    pub kueue_jobs: Vec<&'a Workload>,
    /// StatefulSets handed to Kueue (inputs only).
    pub kueue_stateful_sets: Vec<&'a Workload>,
    /// Operator objects handed to Kueue (JobSet, Kubeflow jobs, Ray...; inputs only).
    pub kueue_operators: Vec<&'a OperatorObject>,
    /// Kueue queues, flavors and topologies of the inputs (the state's are read at plan time).
    pub kueue: df_model::kueue::KueueObjects,
}

impl<'a> GangObjects<'a> {
    pub fn from_manifests(manifests: &'a ManifestSet) -> GangObjects<'a> {
        let mut objects = GangObjects::default();
        for m in &manifests.manifests {
            match &m.object {
                Object::GodelPodGroup(o) => objects.godel.push(o),
                Object::VolcanoJob(o) => objects.volcano_jobs.push(o),
                Object::VolcanoPodGroup(o) => objects.volcano_pod_groups.push(o),
                Object::PodGroup(o) => objects.pod_groups.push(o),
                Object::SchedulingWorkload(o) => objects.workloads.push(o),
                Object::Workload(o) if o.is_kueue_job() => objects.kueue_jobs.push(o),
                Object::Workload(o)
                    if o.kind == "StatefulSet"
                        && o.metadata
                            .labels
                            .contains_key(df_model::kueue::QUEUE_NAME_LABEL) =>
                {
                    objects.kueue_stateful_sets.push(o)
                }
                Object::Operator(o) if crate::operators::kueue_managed(o) => {
                    objects.kueue_operators.push(o)
                }
                other => {
                    objects.kueue.add(other);
                }
            }
        }
        objects
    }

    pub fn from_state(state: &'a ClusterState) -> GangObjects<'a> {
        GangObjects {
            godel: state.godel_pod_groups.iter().collect(),
            volcano_jobs: state.volcano_jobs.iter().collect(),
            volcano_pod_groups: state.volcano_pod_groups.iter().collect(),
            pod_groups: state.pod_groups.iter().collect(),
            workloads: state.scheduling_workloads.iter().collect(),
            kueue_jobs: Vec::new(),
            kueue_stateful_sets: Vec::new(),
            kueue_operators: Vec::new(),
            kueue: Default::default(),
        }
    }
}

/// The Volcano job controller's task key: a label and an annotation on every pod of a task.
pub const TASK_SPEC_KEY: &str = "volcano.sh/task-spec";

/// The Volcano task of a pod, as Volcano's gang plugin counts tasks.
pub(crate) fn task_of(pod: &Pod) -> Option<String> {
    pod.metadata
        .annotations
        .get(TASK_SPEC_KEY)
        .map(ToString::to_string)
}

/// How one gang kind is read: which objects define its groups and how a pod joins one. Adding a
/// gang kind is one file implementing this and one line in the registry.
pub trait Adapter: Sync {
    fn kind(&self) -> &'static GangKind;
    /// The gangs `objects` define (without members: the planner gathers those).
    fn define(&self, objects: &GangObjects) -> Vec<Gang>;
    /// The name of the group `pod` joins by this kind's rule, if it joins one.
    fn joins(&self, pod: &Pod) -> Option<String>;
    /// The group its member pods make by themselves, where no object defines it (Kueue's
    /// pod integration: a pod, or a pod group, is its own workload): `first` is the first
    /// given member of group `name`. `None` (the default): the group must be defined.
    fn implied(&self, _objects: &GangObjects, _name: &str, _first: &Pod) -> Option<Gang> {
        None
    }
}
