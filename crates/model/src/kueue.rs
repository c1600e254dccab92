//! Kueue (`kueue.x-k8s.io`) objects that decide Topology Aware Scheduling: the `Topology`
//! (levels by node label), the `ResourceFlavor` that names it, and the `ClusterQueue` /
//! `LocalQueue` chain from a Job's `kueue.x-k8s.io/queue-name` label to the flavors. Only the
//! fields placement depends on are read; quotas are not.

use serde::{Deserialize, Serialize};

use super::core::{Labels, ObjectMeta, Taint, Toleration, null_as_default};

pub const GROUP: &str = "kueue.x-k8s.io";
/// The label that hands a Job (or Pod) to Kueue: the LocalQueue of its namespace.
pub const QUEUE_NAME_LABEL: &str = "kueue.x-k8s.io/queue-name";
/// Pod-set annotations (on a Job's pod template) that ask for topology.
pub const REQUIRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-required-topology";
pub const PREFERRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-preferred-topology";
pub const UNCONSTRAINED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-unconstrained-topology";
pub const SLICE_REQUIRED_TOPOLOGY: &str = "kueue.x-k8s.io/podset-slice-required-topology";
pub const SLICE_SIZE: &str = "kueue.x-k8s.io/podset-slice-size";

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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FlavorQuotas {
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceGroup {
    #[serde(deserialize_with = "null_as_default")]
    pub flavors: Vec<FlavorQuotas>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterQueueSpec {
    #[serde(deserialize_with = "null_as_default")]
    pub resource_groups: Vec<ResourceGroup>,
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
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LocalQueue {
    #[serde(skip)]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: LocalQueueSpec,
}

/// The Kueue objects of one source (the inputs or the state), by kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KueueObjects {
    pub topologies: Vec<Topology>,
    pub flavors: Vec<ResourceFlavor>,
    pub cluster_queues: Vec<ClusterQueue>,
    pub local_queues: Vec<LocalQueue>,
}

impl KueueObjects {
    pub fn is_empty(&self) -> bool {
        self.topologies.is_empty()
            && self.flavors.is_empty()
            && self.cluster_queues.is_empty()
            && self.local_queues.is_empty()
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
    }
}
