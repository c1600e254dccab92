//! Kueue (`kueue.x-k8s.io`) objects that decide admission and Topology Aware Scheduling: the
//! `Topology` (levels by node label), the `ResourceFlavor` that names it, the `ClusterQueue` /
//! `LocalQueue` chain from a job's `kueue.x-k8s.io/queue-name` label to the flavors and their
//! quotas, `Cohort`s that share quota, `WorkloadPriorityClass`es, and the admitted `Workload`s
//! whose reserved quota is the usage new jobs compete with. v1beta1 and v1beta2 are read into
//! one model: their only difference here is the ClusterQueue's `cohort` (v1beta1) vs
//! `cohortName` (v1beta2) and the Cohort's `parent` (v1alpha1) vs `parentName`.

use serde::{Deserialize, Serialize};

use super::core::{
    LabelSelector, Labels, ObjectMeta, PodTemplateSpec, ResourceList, Taint, Toleration,
    null_as_default,
};
use super::quantity::Quantity;
use super::sorted_map::SortedMap;

pub const GROUP: &str = "kueue.x-k8s.io";
/// The label that hands a Job (or Pod) to Kueue: the LocalQueue of its namespace.
pub const QUEUE_NAME_LABEL: &str = "kueue.x-k8s.io/queue-name";
/// Pod-set annotations (on a Job's pod template) that ask for topology.
pub const REQUIRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-required-topology";
pub const PREFERRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-preferred-topology";
pub const UNCONSTRAINED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-unconstrained-topology";
pub const SLICE_REQUIRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-slice-required-topology";
pub const SLICE_SIZE: &str = "kueue.x-k8s.io/podset-slice-size";
/// The job label that selects a WorkloadPriorityClass.
pub const PRIORITY_CLASS_LABEL: &str = "kueue.x-k8s.io/priority-class";
/// The Job annotation that allows partial admission down to this many pods.
pub const MIN_PARALLELISM: &str = "kueue.x-k8s.io/job-min-parallelism";
/// The pod set of an admitted job's pods: Kueue's job reconciler puts it on every pod template
/// of the job when it starts it (`getPodSetsInfoFromStatus`).
pub const POD_SET_LABEL: &str = "kueue.x-k8s.io/podset";
/// Pods of a plain-pod group (label) and how many it expects (annotation).
pub const POD_GROUP_NAME: &str = "kueue.x-k8s.io/pod-group-name";
pub const POD_GROUP_TOTAL_COUNT: &str = "kueue.x-k8s.io/pod-group-total-count";

/// Every annotation that names a Topology level, with the field path lint points at.
pub const LEVEL_ANNOTATIONS: [&str; 3] = [
    REQUIRED_TOPOLOGY,
    PREFERRED_TOPOLOGY,
    SLICE_REQUIRED_TOPOLOGY,
];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologyLevel {
    pub node_label: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologySpec {
    #[serde(deserialize_with = "null_as_default")]
    pub levels: Vec<TopologyLevel>,
}

/// `Topology`: cluster-scoped, levels from the highest (block) to the lowest (often hostname).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Topology {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: TopologySpec,
}

impl Topology {
    /// The level keys, highest first.
    pub fn level_keys(&self) -> Vec<String> {
        self.spec
            .levels
            .iter()
            .map(|l| l.node_label.clone())
            .collect()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceFlavorSpec {
    #[serde(
        skip_serializing_if = "Labels::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub node_labels: Labels,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub node_taints: Vec<Taint>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub tolerations: Vec<Toleration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceFlavor {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: ResourceFlavorSpec,
}

/// One resource's quota in one flavor. `borrowingLimit` unset means unlimited borrowing
/// from the cohort, `lendingLimit` unset means everything is lent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceQuotaLimits {
    pub name: String,
    pub nominal_quota: Quantity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<Quantity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<Quantity>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FlavorQuotas {
    pub name: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub resources: Vec<ResourceQuotaLimits>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceGroup {
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub covered_resources: Vec<String>,
    #[serde(deserialize_with = "null_as_default")]
    pub flavors: Vec<FlavorQuotas>,
}

/// `spec.flavorFungibility`; unset fields take Kueue's defaults (`MayStopSearch` when the
/// flavor borrows, `TryNextFlavor` when it needs preemption).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FlavorFungibility {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_can_borrow: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_can_preempt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preference: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BorrowWithinCohort {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_priority_threshold: Option<i32>,
}

/// `spec.preemption`; every policy defaults to `Never`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterQueuePreemption {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reclaim_within_cohort: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within_cluster_queue: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrow_within_cohort: Option<BorrowWithinCohort>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterQueueSpec {
    #[serde(deserialize_with = "null_as_default")]
    pub resource_groups: Vec<ResourceGroup>,
    /// `cohortName` (v1beta2), `cohort` (v1beta1); empty: no borrowing, no lending.
    #[serde(alias = "cohort", skip_serializing_if = "String::is_empty")]
    pub cohort_name: String,
    /// `StrictFIFO` or `BestEffortFIFO` (the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queueing_strategy: Option<String>,
    /// Unset matches no namespace; `{}` matches every one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flavor_fungibility: Option<FlavorFungibility>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<ClusterQueuePreemption>,
    /// `None` (the default), `Hold` or `HoldAndDrain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
    /// The AdmissionChecks every Workload must pass after its quota is reserved (v1beta1).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub admission_checks: Vec<String>,
    /// The AdmissionChecks, each for some flavors only or for all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admission_checks_strategy: Option<AdmissionChecksStrategy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AdmissionChecksStrategy {
    #[serde(deserialize_with = "null_as_default")]
    pub admission_checks: Vec<AdmissionCheckStrategyRule>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AdmissionCheckStrategyRule {
    pub name: String,
    /// Empty: every flavor.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub on_flavors: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterQueue {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: ClusterQueueSpec,
}

impl ClusterQueue {
    /// The AdmissionChecks a Workload admitted on `flavors` waits for once its quota is
    /// reserved: the listed ones, and those of the strategy for all flavors or one of these.
    pub fn admission_checks_for<'a>(&'a self, flavors: &[&str]) -> Vec<&'a str> {
        let mut checks: Vec<&str> = self
            .spec
            .admission_checks
            .iter()
            .map(String::as_str)
            .collect();
        let rules = self
            .spec
            .admission_checks_strategy
            .iter()
            .flat_map(|s| &s.admission_checks);
        for rule in rules {
            let applies = rule.on_flavors.is_empty()
                || rule
                    .on_flavors
                    .iter()
                    .any(|f| flavors.contains(&f.as_str()));
            if applies && !checks.contains(&rule.name.as_str()) {
                checks.push(&rule.name);
            }
        }
        checks
    }

    /// Its flavors in the order Kueue tries them (resource groups, then flavors, in order).
    pub fn flavor_names(&self) -> impl Iterator<Item = &str> {
        self.spec
            .resource_groups
            .iter()
            .flat_map(|g| &g.flavors)
            .map(|f| f.name.as_str())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LocalQueueSpec {
    pub cluster_queue: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LocalQueue {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: LocalQueueSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CohortSpec {
    /// `parentName` (v1beta1, v1beta2), `parent` (v1alpha1); a parent that does not exist is
    /// an implicit empty cohort.
    #[serde(alias = "parent", skip_serializing_if = "String::is_empty")]
    pub parent_name: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub resource_groups: Vec<ResourceGroup>,
}

/// `Cohort`: quota shared by the ClusterQueues (and child cohorts) that name it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Cohort {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: CohortSpec,
}

/// `WorkloadPriorityClass`: the priority a job's `kueue.x-k8s.io/priority-class` label gives
/// its Workload (queue order and preemption only; pods keep their own priority).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadPriorityClass {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub value: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSet {
    pub name: String,
    pub count: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_count: Option<i32>,
    pub template: PodTemplateSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KueueWorkloadSpec {
    pub queue_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub pod_sets: Vec<PodSet>,
}

/// One pod set's admission: the flavor per resource and the quota it reserved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSetAssignment {
    pub name: String,
    #[serde(deserialize_with = "null_as_default")]
    pub flavors: SortedMap<String, String>,
    #[serde(deserialize_with = "null_as_default")]
    pub resource_usage: ResourceList,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Admission {
    pub cluster_queue: String,
    #[serde(deserialize_with = "null_as_default")]
    pub pod_set_assignments: Vec<PodSetAssignment>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KueueWorkloadStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub conditions: Vec<WorkloadCondition>,
}

/// Kueue's `Workload`: read for the quota an admitted one holds (upstream
/// `HasActiveQuotaReservation`: `QuotaReserved=True`, not `Finished`, not deactivated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KueueWorkload {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: KueueWorkloadSpec,
    pub status: KueueWorkloadStatus,
}

impl KueueWorkload {
    fn condition(&self, type_: &str) -> Option<&WorkloadCondition> {
        self.status.conditions.iter().find(|c| c.type_ == type_)
    }

    /// The admission whose quota this Workload holds now, if any.
    pub fn reserved(&self) -> Option<&Admission> {
        let on = |t: &str| self.condition(t).is_some_and(|c| c.status == "True");
        if !on("QuotaReserved") || on("Finished") || self.spec.active == Some(false) {
            return None;
        }
        self.status.admission.as_ref()
    }

    /// Whether it waits for Kueue: no quota reserved, active and not finished (its job is
    /// suspended until Kueue admits it).
    pub fn waiting(&self) -> bool {
        let finished = self
            .condition("Finished")
            .is_some_and(|c| c.status == "True");
        self.reserved().is_none() && !finished && self.spec.active != Some(false)
    }

    /// When its quota was reserved (candidate order: the most recently reserved goes first).
    pub fn reserved_at(&self) -> Option<&str> {
        self.condition("QuotaReserved")?
            .last_transition_time
            .as_deref()
    }
}

/// The Kueue objects of one source (the inputs or the state), by kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KueueObjects {
    pub topologies: Vec<Topology>,
    pub flavors: Vec<ResourceFlavor>,
    pub cluster_queues: Vec<ClusterQueue>,
    pub local_queues: Vec<LocalQueue>,
    pub cohorts: Vec<Cohort>,
    pub priority_classes: Vec<WorkloadPriorityClass>,
    pub workloads: Vec<KueueWorkload>,
}

impl KueueObjects {
    pub fn is_empty(&self) -> bool {
        self.topologies.is_empty()
            && self.flavors.is_empty()
            && self.cluster_queues.is_empty()
            && self.local_queues.is_empty()
            && self.cohorts.is_empty()
            && self.priority_classes.is_empty()
            && self.workloads.is_empty()
    }

    pub fn cohort(&self, name: &str) -> Option<&Cohort> {
        self.cohorts.iter().find(|o| o.metadata.name == name)
    }

    pub fn priority_class(&self, name: &str) -> Option<&WorkloadPriorityClass> {
        self.priority_classes
            .iter()
            .find(|o| o.metadata.name == name)
    }

    /// `other`'s objects that this one lacks (by namespace and name), added after this one's:
    /// the same object given and recorded is one object, and this one's copy wins.
    pub fn extend(&mut self, other: &KueueObjects) {
        fn merge<T: Clone>(mine: &mut Vec<T>, theirs: &[T], meta: fn(&T) -> &ObjectMeta) {
            for o in theirs {
                let key = meta(o);
                let known = mine.iter().any(|m| {
                    let m = meta(m);
                    m.namespace == key.namespace && m.name == key.name
                });
                if !known {
                    mine.push(o.clone());
                }
            }
        }
        merge(&mut self.topologies, &other.topologies, |o| &o.metadata);
        merge(&mut self.flavors, &other.flavors, |o| &o.metadata);
        merge(&mut self.cluster_queues, &other.cluster_queues, |o| {
            &o.metadata
        });
        merge(&mut self.local_queues, &other.local_queues, |o| &o.metadata);
        merge(&mut self.cohorts, &other.cohorts, |o| &o.metadata);
        merge(&mut self.priority_classes, &other.priority_classes, |o| {
            &o.metadata
        });
        merge(&mut self.workloads, &other.workloads, |o| &o.metadata);
    }

    pub fn topology(&self, name: &str) -> Option<&Topology> {
        self.topologies.iter().find(|o| o.metadata.name == name)
    }

    pub fn flavor(&self, name: &str) -> Option<&ResourceFlavor> {
        self.flavors.iter().find(|o| o.metadata.name == name)
    }

    pub fn cluster_queue(&self, name: &str) -> Option<&ClusterQueue> {
        self.cluster_queues.iter().find(|o| o.metadata.name == name)
    }

    pub fn local_queue(&self, namespace: &str, name: &str) -> Option<&LocalQueue> {
        self.local_queues
            .iter()
            .find(|o| o.metadata.namespace == namespace && o.metadata.name == name)
    }

    /// Sorted by namespace and name, for deterministic snapshots.
    pub fn sort(&mut self) {
        let key = |m: &ObjectMeta| (m.namespace.clone(), m.name.clone());
        self.topologies.sort_by_key(|o| key(&o.metadata));
        self.flavors.sort_by_key(|o| key(&o.metadata));
        self.cluster_queues.sort_by_key(|o| key(&o.metadata));
        self.local_queues.sort_by_key(|o| key(&o.metadata));
        self.cohorts.sort_by_key(|o| key(&o.metadata));
        self.priority_classes.sort_by_key(|o| key(&o.metadata));
        self.workloads.sort_by_key(|o| key(&o.metadata));
    }
}
