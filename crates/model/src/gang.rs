//! Gang objects: Godel PodGroups and Volcano Jobs / PodGroups.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::core::{NodeSelector, ObjectMeta, PodTemplateSpec, ResourceList, null_as_default};

pub const GODEL_API_VERSION: &str = "scheduling.godel.kubewharf.io/v1alpha1";
/// The pod label through which pods join a Godel PodGroup.
pub const GODEL_POD_GROUP_LABEL: &str = "godel.bytedance.com/pod-group-name";
pub const VOLCANO_JOB_API_VERSION: &str = "batch.volcano.sh/v1alpha1";
pub const VOLCANO_POD_GROUP_API_VERSION: &str = "scheduling.volcano.sh/v1beta1";
pub const VOLCANO_AFFINITY_ANNOTATION: &str = "volcano.sh/task-topology-affinity";
pub const VOLCANO_ANTI_AFFINITY_ANNOTATION: &str = "volcano.sh/task-topology-anti-affinity";
pub const VOLCANO_TASK_ORDER_ANNOTATION: &str = "volcano.sh/task-topology-task-order";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologyTerm {
    pub topology_key: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SortRule {
    pub resource: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub dimension: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub order: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodGroupAffinity {
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub required: Vec<TopologyTerm>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub preferred: Vec<TopologyTerm>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub sort_rules: Vec<SortRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<NodeSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GodelAffinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_group_affinity: Option<PodGroupAffinity>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GodelPodGroupSpec {
    pub min_member: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<GodelAffinity>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GodelPodGroup {
    pub metadata: ObjectMeta,
    pub spec: GodelPodGroupSpec,
}

impl GodelPodGroup {
    /// The job-level affinity, if the group declares one.
    pub fn pod_group_affinity(&self) -> Option<&PodGroupAffinity> {
        self.spec
            .affinity
            .as_ref()
            .and_then(|a| a.pod_group_affinity.as_ref())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoTask {
    pub name: String,
    pub replicas: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_available: Option<i32>,
    pub template: PodTemplateSpec,
    /// Lifecycle policies of the task; read only to check them as Volcano's admission webhook
    /// does.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub policies: Vec<LifecyclePolicy>,
    /// The task's pods in partitions of `partitionSize`, each scheduled all or nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_policy: Option<PartitionPolicy>,
}

impl VolcanoTask {
    /// `minAvailable` as Volcano's mutating webhook defaults it: `minPartitions x
    /// partitionSize` with a partition policy whose `minPartitions` is set, else `replicas`.
    pub fn min_available_or_default(&self) -> i32 {
        self.min_available
            .unwrap_or_else(|| match &self.partition_policy {
                Some(p) if p.min_partitions > 0 => {
                    p.min_partitions.saturating_mul(p.partition_size)
                }
                _ => self.replicas,
            })
    }

    /// The partition a pod of ordinal `index` in the task is in (the job controller's
    /// `volcano.sh/partition-id`: `index / partitionSize`, 0 for a size below 1), when the task
    /// has a partition policy.
    pub fn partition_of(&self, index: usize) -> Option<usize> {
        let policy = self.partition_policy.as_ref()?;
        Some(
            usize::try_from(policy.partition_size)
                .ok()
                .filter(|size| *size > 0)
                .map_or(0, |size| index / size),
        )
    }
}

/// A Volcano Job task's `partitionPolicy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PartitionPolicy {
    pub total_partitions: i32,
    pub partition_size: i32,
    /// Keeps each partition inside one HyperNode, as the job's own `networkTopology` does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_topology: Option<NetworkTopologySpec>,
    /// Partitions that must be placed for the job to run (0: the task's `minAvailable` rules).
    pub min_partitions: i32,
}

/// The job controller's label of a partitioned task's pods: its partition's number.
pub const PARTITION_ID_LABEL: &str = "volcano.sh/partition-id";

/// A Volcano Job's (or task's) lifecycle policy: on `event` (or any of `events`), or on a
/// container `exitCode`, take `action`. Planning ignores them; lint checks them as the
/// admission webhook does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LifecyclePolicy {
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub event: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub events: Vec<String>,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoJobSpec {
    pub min_available: i32,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub scheduler_name: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub queue: String,
    #[serde(deserialize_with = "null_as_default")]
    pub tasks: Vec<VolcanoTask>,
    /// Network-topology-aware scheduling over HyperNodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_topology: Option<NetworkTopologySpec>,
    /// The job's lifecycle policies (see [`VolcanoTask::policies`]).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub policies: Vec<LifecyclePolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoJob {
    pub metadata: ObjectMeta,
    pub spec: VolcanoJobSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoPodGroupSpec {
    pub min_member: i32,
    /// Per task (the pods' `volcano.sh/task-spec`), the pods of it that must be ready.
    #[serde(
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub min_task_member: BTreeMap<String, i32>,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub priority_class_name: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub queue: String,
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub min_resources: ResourceList,
    /// Network-topology-aware scheduling over HyperNodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_topology: Option<NetworkTopologySpec>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoPodGroup {
    pub metadata: ObjectMeta,
    pub spec: VolcanoPodGroupSpec,
    #[serde(skip_serializing_if = "VolcanoPodGroupStatus::is_empty")]
    pub status: VolcanoPodGroupStatus,
}

/// A Volcano PodGroup's status: its `phase` says whether the `enqueue` action has let it in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoPodGroupStatus {
    /// `Pending` (or empty: not yet enqueued), `Inqueue`, `Running`, `Unknown`, `Completed`.
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub phase: String,
}

impl VolcanoPodGroupStatus {
    pub fn is_empty(&self) -> bool {
        self.phase.is_empty()
    }
}

/// Volcano's `Queue` (`scheduling.volcano.sh/v1beta1`, cluster-scoped): what the `enqueue`
/// action's proportion plugin lets the queue's PodGroups reserve.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoQueue {
    pub metadata: ObjectMeta,
    pub spec: VolcanoQueueSpec,
    #[serde(skip_serializing_if = "VolcanoQueueStatus::is_empty")]
    pub status: VolcanoQueueStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoQueueSpec {
    /// Its share of the cluster against other queues (proportion); unset counts as 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
    /// Queues of a higher priority are allocated first (proportion's queue order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// The most the queue's jobs may hold; unset dimensions are unlimited.
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub capability: ResourceList,
    /// Resources kept for the queue alone: other queues can never reach them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarantee: Option<QueueGuarantee>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct QueueGuarantee {
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub resource: ResourceList,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoQueueStatus {
    /// `Open`, `Closed`, `Closing`, `Unknown`; empty counts as `Open` (a new queue).
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub state: String,
}

impl VolcanoQueueStatus {
    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }
}

/// A Volcano Job's or PodGroup's `spec.networkTopology`: keep the gang inside one HyperNode
/// (`hard`) or as close as possible (`soft`), at a tier no higher than `highestTierAllowed`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NetworkTopologySpec {
    /// `hard` or `soft`; Volcano defaults it to `hard`.
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub highest_tier_allowed: Option<i32>,
    /// The highest tier by a HyperNode's `spec.tierName`, when `highestTierAllowed` is unset.
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub highest_tier_name: String,
}

/// The annotation through which pods join a kube-batch or Volcano PodGroup (both projects read
/// the same key: kube-batch `api/job_info.go`, Volcano `GetPodGroupName`).
pub const GROUP_NAME_ANNOTATION: &str = "scheduling.k8s.io/group-name";
/// kube-batch's PodGroup, first in the incubator group, then in `scheduling.sigs.dev`.
pub const KUBE_BATCH_V1ALPHA1: &str = "scheduling.incubator.k8s.io/v1alpha1";
pub const KUBE_BATCH_V1ALPHA2: &str = "scheduling.sigs.dev/v1alpha2";
/// scheduler-plugins' coscheduling PodGroup and the label its pods carry.
pub const COSCHEDULING_API_VERSION: &str = "scheduling.x-k8s.io/v1alpha1";
pub const COSCHEDULING_POD_GROUP_LABEL: &str = "scheduling.x-k8s.io/pod-group";
/// The Kubernetes Workload API: v1.35 serves `Workload` in v1alpha1 (gangs inline, pods join
/// through `spec.workloadRef`); v1.36 serves `Workload` and the runtime `PodGroup` in v1alpha2
/// (pods join a PodGroup through `spec.schedulingGroup.podGroupName`); v1.37 serves both in
/// v1alpha3 and v1beta1, whose fields the engine reads are v1alpha2's (kubernetes/api
/// `scheduling/v1beta1/types.go`), and no longer serves v1alpha1 or v1alpha2.
pub const WORKLOAD_API_V1ALPHA1: &str = "scheduling.k8s.io/v1alpha1";
pub const WORKLOAD_API_V1ALPHA2: &str = "scheduling.k8s.io/v1alpha2";
pub const WORKLOAD_API_V1ALPHA3: &str = "scheduling.k8s.io/v1alpha3";
pub const WORKLOAD_API_V1BETA1: &str = "scheduling.k8s.io/v1beta1";
/// The versions of the runtime `PodGroup` (and of the `Workload` that only holds templates).
pub const POD_GROUP_API_VERSIONS: &[&str] = &[
    WORKLOAD_API_V1ALPHA2,
    WORKLOAD_API_V1ALPHA3,
    WORKLOAD_API_V1BETA1,
];

/// `basic` (pod by pod) or `gang` (all or nothing with `minCount`): exactly one is set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SchedulingPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic: Option<BasicPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gang: Option<GangPolicy>,
}

/// Empty by design upstream: its presence alone selects pod-by-pod scheduling.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BasicPolicy {}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GangPolicy {
    pub min_count: i32,
}

/// The scheduling constraints of a Workload API pod group (KEP-5732, v1.36
/// `TopologyAwareWorkloadScheduling`). Released v1alpha2 spells them `topology: [{key}]`; the
/// v1alpha2 of the v1.36 development branch spelled them `topologyConstraints: [{topologyKey}]`,
/// which is read too. At most one constraint (`maxItems=1`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SchedulingConstraints {
    #[serde(
        alias = "topologyConstraints",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub topology: Vec<TopologyConstraint>,
}

/// Keep every pod of the group in one domain of the node label `key` (`topologyKey` in the
/// development spelling).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologyConstraint {
    #[serde(alias = "topologyKey")]
    pub key: String,
}

/// The PodGroups that differ only in field names: kube-batch (`minMember`, `queue`,
/// `priorityClassName`, `minResources`), coscheduling (`minMember`, `minResources`,
/// `scheduleTimeoutSeconds`) and the Kubernetes runtime PodGroup (`schedulingPolicy`). Which
/// one it is comes from `apiVersion`, kept here because the state lists all of them together.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodGroupSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_member: Option<i32>,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub queue: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub priority_class_name: String,
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub min_resources: ResourceList,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_timeout_seconds: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_policy: Option<SchedulingPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_constraints: Option<SchedulingConstraints>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodGroup {
    /// Set from the object's `apiVersion` when it is read; says which project it belongs to.
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: PodGroupSpec,
}

/// One pod group of a Kubernetes `Workload`: v1alpha1 spells it `podGroups[].policy`,
/// v1alpha2 `podGroupTemplates[].schedulingPolicy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadPodGroup {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<SchedulingPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_policy: Option<SchedulingPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_constraints: Option<SchedulingConstraints>,
}

impl WorkloadPodGroup {
    /// The policy whichever version spelled it.
    pub fn policy(&self) -> Option<&SchedulingPolicy> {
        self.policy.as_ref().or(self.scheduling_policy.as_ref())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SchedulingWorkloadSpec {
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub pod_groups: Vec<WorkloadPodGroup>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub pod_group_templates: Vec<WorkloadPodGroup>,
}

/// A Kubernetes `scheduling.k8s.io` Workload (v1alpha1 to v1beta1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SchedulingWorkload {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: SchedulingWorkloadSpec,
}

impl SchedulingWorkload {
    /// Its pod groups whichever version listed them, with their field path.
    pub fn pod_groups(&self) -> impl Iterator<Item = (String, &WorkloadPodGroup)> {
        let v1 = self.spec.pod_groups.iter().enumerate();
        let v2 = self.spec.pod_group_templates.iter().enumerate();
        v1.map(|(i, g)| (format!("spec.podGroups[{i}]"), g))
            .chain(v2.map(|(i, g)| (format!("spec.podGroupTemplates[{i}]"), g)))
    }
}
