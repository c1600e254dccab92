//! Slim core/v1 types: only the fields placement depends on.
//!
//! Field names follow the Kubernetes JSON exactly, so these types read `kubectl get -o json`
//! output and serialize back to valid core/v1 fragments (the plan contract embeds them).
//! Unknown fields are skipped, which is what keeps loading a 150,000-pod dump cheap.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use compact_str::CompactString;

use super::quantity::{Bytes, Quantity};
pub use super::sorted_map::SortedMap;

pub type Labels = SortedMap<CompactString, CompactString>;
pub type Annotations = SortedMap<CompactString, CompactString>;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectMeta {
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub labels: Labels,
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub annotations: Annotations,
    /// RFC 3339. `plan --pending` orders pods of equal priority by it: a dump records no
    /// scheduling-queue timestamp, and the creation time is what that timestamp starts as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<CompactString>,
    /// RFC 3339, set once the object is being deleted. A terminating pod stays on its node,
    /// holding its resources, until its grace period ends: PodTopologySpread no longer counts
    /// it, and a preemptor waits for the victims it is terminating (`Pod::terminating_by_preemption`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<CompactString>,
    /// The owner that manages the object (`ownerReferences[]` with `controller: true`), when it
    /// is a ReplicaSet or a StatefulSet: kube-scheduler spreads a pod by its controller's
    /// selector (`helper.DefaultSelector`); no other reference is read.
    #[serde(
        rename = "ownerReferences",
        deserialize_with = "spreading_controller",
        serialize_with = "as_owner_references",
        skip_serializing_if = "Option::is_none"
    )]
    pub controller: Option<Controller>,
}

/// A pod's ReplicaSet or StatefulSet, by kind and name (inline: most controller names are
/// short, and 150,000 pods of a large state each have one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller {
    pub kind: ControllerKind,
    pub name: CompactString,
}

/// The controllers whose selector spreads their pods (`apps/v1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControllerKind {
    ReplicaSet,
    StatefulSet,
}

impl ControllerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ControllerKind::ReplicaSet => "ReplicaSet",
            ControllerKind::StatefulSet => "StatefulSet",
        }
    }
}

/// The reference of `ownerReferences` marked `controller: true` (the API server allows one),
/// when it names an `apps/v1` ReplicaSet or StatefulSet.
fn spreading_controller<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Controller>, D::Error> {
    #[derive(Deserialize, Default)]
    #[serde(rename_all = "camelCase", default)]
    struct OwnerReference<'a> {
        #[serde(borrow)]
        api_version: Cow<'a, str>,
        #[serde(borrow)]
        kind: Cow<'a, str>,
        name: CompactString,
        controller: Option<bool>,
    }
    let references: Option<Vec<OwnerReference>> = Option::deserialize(deserializer)?;
    Ok(references.into_iter().flatten().find_map(|r| {
        let kind = match (r.controller, &*r.api_version, &*r.kind) {
            (Some(true), "apps/v1", "ReplicaSet") => ControllerKind::ReplicaSet,
            (Some(true), "apps/v1", "StatefulSet") => ControllerKind::StatefulSet,
            _ => return None,
        };
        Some(Controller { kind, name: r.name })
    }))
}

fn as_owner_references<S: Serializer>(
    controller: &Option<Controller>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct OwnerReference<'a> {
        api_version: &'static str,
        kind: &'static str,
        name: &'a str,
        controller: bool,
    }
    let references: Vec<OwnerReference> = controller
        .iter()
        .map(|c| OwnerReference {
            api_version: "apps/v1",
            kind: c.kind.as_str(),
            name: &c.name,
            controller: true,
        })
        .collect();
    references.serialize(serializer)
}

/// `field: null` in YAML means "absent"; serde's `default` alone would reject it.
pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A list field, `null` as empty, without spare room. A vector makes room for four elements at
/// its first push and most of an object's lists hold one or two: a pod's one container took 576
/// bytes for 144, and such slack was a sixth of a large state's memory.
pub(crate) fn exact_list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let mut list: Vec<T> = null_as_default(deserializer)?;
    list.shrink_to_fit();
    Ok(list)
}

/// A size read as text (`500m`, `2Gi`) in the formats people read and as an integer in binary
/// ones (the state cache), which reads back without parsing.
trait TextOrInteger: std::fmt::Display + Sized {
    fn parse_text(text: &str) -> Result<Self, super::quantity::QuantityError>;
    /// A bare number in a readable format (`cpu: 2`).
    fn from_number(value: i64) -> Self;
    /// The integer a binary format holds.
    fn cached(&self) -> i64;
    fn from_cached(cached: i64) -> Self;
}

impl TextOrInteger for Quantity {
    fn parse_text(text: &str) -> Result<Self, super::quantity::QuantityError> {
        Quantity::parse(text)
    }
    fn from_number(value: i64) -> Self {
        Quantity::from_value(value)
    }
    /// The thousandths.
    fn cached(&self) -> i64 {
        self.milli_value()
    }
    fn from_cached(cached: i64) -> Self {
        Quantity::from_milli(cached)
    }
}

impl TextOrInteger for Bytes {
    fn parse_text(text: &str) -> Result<Self, super::quantity::QuantityError> {
        Bytes::parse(text)
    }
    fn from_number(value: i64) -> Self {
        Bytes(value)
    }
    fn cached(&self) -> i64 {
        self.0
    }
    fn from_cached(cached: i64) -> Self {
        Bytes(cached)
    }
}

fn serialize_text_or_integer<T: TextOrInteger, S: Serializer>(
    value: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    if s.is_human_readable() {
        s.collect_str(value)
    } else {
        s.serialize_i64(value.cached())
    }
}

fn deserialize_text_or_integer<'de, T: TextOrInteger, D: Deserializer<'de>>(
    d: D,
) -> Result<T, D::Error> {
    if !d.is_human_readable() {
        return i64::deserialize(d).map(T::from_cached);
    }
    struct Visitor<T>(std::marker::PhantomData<T>);
    impl<T: TextOrInteger> serde::de::Visitor<'_> for Visitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a resource quantity such as \"500m\" or \"2Gi\"")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
            T::parse_text(v).map_err(E::custom)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<T, E> {
            Ok(T::from_number(v))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<T, E> {
            Ok(T::from_number(i64::try_from(v).unwrap_or(i64::MAX)))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<T, E> {
            T::parse_text(&v.to_string()).map_err(E::custom)
        }
    }
    d.deserialize_any(Visitor(std::marker::PhantomData))
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_text_or_integer(self, s)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_text_or_integer(d)
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_text_or_integer(self, s)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_text_or_integer(d)
    }
}

pub type ResourceList = SortedMap<CompactString, Quantity>;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceRequirements {
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub requests: ResourceList,
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub limits: ResourceList,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerPort {
    pub container_port: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_port: Option<i32>,
    #[serde(rename = "hostIP", skip_serializing_if = "String::is_empty")]
    pub host_ip: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub protocol: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Container {
    pub name: CompactString,
    #[serde(skip_serializing_if = "CompactString::is_empty")]
    pub image: CompactString,
    pub resources: ResourceRequirements,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub ports: Vec<ContainerPort>,
    /// `Always` on an init container makes it a sidecar, which changes the request formula.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSelectorRequirement {
    pub key: String,
    /// Kept as text so an invalid operator is explained rather than rejected at load time.
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSelectorTerm {
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub match_expressions: Vec<NodeSelectorRequirement>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub match_fields: Vec<NodeSelectorRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSelector {
    #[serde(deserialize_with = "exact_list")]
    pub node_selector_terms: Vec<NodeSelectorTerm>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PreferredSchedulingTerm {
    pub weight: i32,
    pub preference: NodeSelectorTerm,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeAffinity {
    #[serde(
        rename = "requiredDuringSchedulingIgnoredDuringExecution",
        skip_serializing_if = "Option::is_none"
    )]
    pub required: Option<NodeSelector>,
    #[serde(
        rename = "preferredDuringSchedulingIgnoredDuringExecution",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "exact_list"
    )]
    pub preferred: Vec<PreferredSchedulingTerm>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub match_labels: Labels,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

impl LabelSelector {
    /// No requirement at all (`{}`). It matches every label set, yet the upstream code that
    /// asks `Selector.Empty()` (PodDisruptionBudgets, PodTopologySpread's counts, HyperNode
    /// label matches) takes it as selecting nothing.
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodAffinityTerm {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub namespaces: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    pub topology_key: String,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub match_label_keys: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub mismatch_label_keys: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WeightedPodAffinityTerm {
    pub weight: i32,
    pub pod_affinity_term: PodAffinityTerm,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodAffinity {
    #[serde(
        rename = "requiredDuringSchedulingIgnoredDuringExecution",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "exact_list"
    )]
    pub required: Vec<PodAffinityTerm>,
    #[serde(
        rename = "preferredDuringSchedulingIgnoredDuringExecution",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "exact_list"
    )]
    pub preferred: Vec<WeightedPodAffinityTerm>,
}

impl PodAffinity {
    pub fn is_empty(&self) -> bool {
        self.required.is_empty() && self.preferred.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Affinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<NodeAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_affinity: Option<PodAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_anti_affinity: Option<PodAffinity>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Toleration {
    #[serde(skip_serializing_if = "CompactString::is_empty")]
    pub key: CompactString,
    #[serde(skip_serializing_if = "CompactString::is_empty")]
    pub operator: CompactString,
    #[serde(skip_serializing_if = "CompactString::is_empty")]
    pub value: CompactString,
    #[serde(skip_serializing_if = "CompactString::is_empty")]
    pub effect: CompactString,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Taint {
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    pub effect: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologySpreadConstraint {
    pub max_skew: i32,
    pub topology_key: String,
    pub when_unsatisfiable: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_domains: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_taints_policy: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub match_label_keys: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SchedulingGate {
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSpec {
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub node_name: String,
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub node_selector: Labels,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Box<Affinity>>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub tolerations: Vec<Toleration>,
    /// On the host's network: the DaemonSet controller then adds a toleration of
    /// `node.kubernetes.io/network-unavailable`, since such a pod needs no pod network.
    #[serde(
        skip_serializing_if = "std::ops::Not::not",
        deserialize_with = "null_as_default"
    )]
    pub host_network: bool,
    #[serde(deserialize_with = "exact_list")]
    pub containers: Vec<Container>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub init_containers: Vec<Container>,
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub overhead: ResourceList,
    /// Pod-level requests and limits (`spec.resources`, PodLevelResources, on by default
    /// since v1.34).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Box<ResourceRequirements>>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub scheduler_name: String,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub scheduling_gates: Vec<SchedulingGate>,
    /// Set by the Priority admission plugin from `priorityClassName` (or the global default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub priority_class_name: String,
    /// `Never` keeps a pod from preempting others; unset means `PreemptLowerPriority`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<String>,
    /// Kubernetes v1.35 Workload API: the Workload and pod group this pod belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload_ref: Option<Box<WorkloadReference>>,
    /// Kubernetes v1.36 Workload API: the runtime PodGroup this pod belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_group: Option<PodSchedulingGroup>,
    /// The volumes placement reads: claims (how a pod mounts a Fluid dataset, and what the
    /// volume plugins bind), generic ephemeral volumes, and the in-line disks VolumeRestrictions
    /// and NodeVolumeLimits count. Other volumes (configMap, secret, emptyDir...) do not affect
    /// placement and are dropped.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "placement_volumes"
    )]
    pub volumes: Vec<Volume>,
    /// Dynamic Resource Allocation: the ResourceClaims the pod needs, by name or template.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub resource_claims: Vec<PodResourceClaim>,
}

/// A pod volume of a kind placement reads: one source is set (the API allows one per volume).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Volume {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim: Option<ClaimSource>,
    /// A generic ephemeral volume: its claim is `<pod>-<volume>`, made by the ephemeral volume
    /// controller from this template.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<Box<EphemeralSource>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gce_persistent_disk: Option<Box<GcePersistentDisk>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aws_elastic_block_store: Option<Box<AwsElasticBlockStore>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rbd: Option<Box<RbdVolume>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iscsi: Option<Box<IscsiVolume>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub azure_disk: Option<Box<AzureDiskVolume>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cinder: Option<Box<VolumeId>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub portworx_volume: Option<Box<VolumeId>>,
}

impl Volume {
    /// The claim a `persistentVolumeClaim` volume names.
    pub fn claim_name(&self) -> Option<&str> {
        self.persistent_volume_claim
            .as_ref()
            .map(|c| c.claim_name.as_str())
    }

    fn is_read(&self) -> bool {
        self.persistent_volume_claim.is_some()
            || self.ephemeral.is_some()
            || self.gce_persistent_disk.is_some()
            || self.aws_elastic_block_store.is_some()
            || self.rbd.is_some()
            || self.iscsi.is_some()
            || self.azure_disk.is_some()
            || self.cinder.is_some()
            || self.portworx_volume.is_some()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClaimSource {
    pub claim_name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

/// `ephemeral`: only its presence matters to the scheduler (the claim it makes is looked up).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EphemeralSource {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GcePersistentDisk {
    #[serde(rename = "pdName")]
    pub pd_name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AwsElasticBlockStore {
    #[serde(rename = "volumeID")]
    pub volume_id: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RbdVolume {
    #[serde(deserialize_with = "exact_list")]
    pub monitors: Vec<String>,
    /// Unset is `rbd`, as the API defaults it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub pool: String,
    pub image: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IscsiVolume {
    pub iqn: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AzureDiskVolume {
    #[serde(rename = "diskURI")]
    pub disk_uri: String,
}

/// The in-line sources identified by a `volumeID` alone (Cinder, Portworx).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeId {
    #[serde(rename = "volumeID")]
    pub volume_id: String,
}

/// `spec.volumes`, keeping only the kinds placement reads.
fn placement_volumes<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Volume>, D::Error> {
    let volumes: Vec<Volume> = null_as_default(deserializer)?;
    let mut kept: Vec<Volume> = volumes.into_iter().filter(Volume::is_read).collect();
    kept.shrink_to_fit();
    Ok(kept)
}

/// `spec.resourceClaims[]` of a pod: a claim by name, or one made from a template.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodResourceClaim {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claim_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claim_template_name: Option<String>,
}

/// `status.resourceClaimStatuses[]`: the claim the controller made for a template entry
/// (`None`: deliberately none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodResourceClaimStatus {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claim_name: Option<String>,
}

/// `spec.workloadRef` (v1.35): pods with the same Workload, pod group and replica key form
/// one gang.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadReference {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(deserialize_with = "null_as_default")]
    pub pod_group: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub pod_group_replica_key: String,
}

/// `spec.schedulingGroup` (v1.36).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSchedulingGroup {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_group_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodStatus {
    #[serde(
        skip_serializing_if = "CompactString::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub phase: CompactString,
    /// RFC 3339; among victims of equal priority the one started earlier is more important.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<CompactString>,
    /// The node a preemption nominated for this Pending pod: kube-scheduler tries it first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominated_node_name: Option<String>,
    /// The `DisruptionTarget` entry of `status.conditions`, the one condition the scheduler
    /// reads. The others (a running pod has four or five) are dropped as the pod is decoded,
    /// and this one is written back as a list of one.
    #[serde(
        rename = "conditions",
        skip_serializing_if = "Option::is_none",
        with = "disruption_target"
    )]
    pub disruption_target: Option<Box<PodCondition>>,
    /// The claims the resourceclaim controller made for the pod's template entries.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub resource_claim_statuses: Vec<PodResourceClaimStatus>,
}

/// A pod condition, as far as the scheduler reads one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PodCondition {
    #[serde(rename = "type", deserialize_with = "null_as_default")]
    pub kind: CompactString,
    #[serde(deserialize_with = "null_as_default")]
    pub status: CompactString,
    #[serde(
        skip_serializing_if = "CompactString::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub reason: CompactString,
}

/// `status.conditions` read down to its first `DisruptionTarget` condition (the one upstream's
/// `podTerminatingByPreemption` decides on), without keeping a list.
mod disruption_target {
    use serde::de::{SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::PodCondition;

    const DISRUPTION_TARGET: &str = "DisruptionTarget";

    pub fn serialize<S: Serializer>(
        condition: &Option<Box<PodCondition>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        condition.as_slice().serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Box<PodCondition>>, D::Error> {
        struct First(Option<Box<PodCondition>>);
        impl<'de> Deserialize<'de> for First {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_seq(FirstVisitor)
            }
        }
        struct FirstVisitor;
        impl<'de> Visitor<'de> for FirstVisitor {
            type Value = First;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of pod conditions")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<First, A::Error> {
                let mut first = None;
                while let Some(condition) = seq.next_element::<PodCondition>()? {
                    if first.is_none() && condition.kind == DISRUPTION_TARGET {
                        first = Some(Box::new(condition));
                    }
                }
                Ok(First(first))
            }
        }
        Ok(Option::<First>::deserialize(deserializer)?.and_then(|first| first.0))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Pod {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
    pub status: PodStatus,
}

impl Pod {
    /// Succeeded and Failed pods hold no resources; the scheduler's cache drops them.
    pub fn is_terminated(&self) -> bool {
        matches!(self.status.phase.as_str(), "Succeeded" | "Failed")
    }

    /// Being deleted (`metadata.deletionTimestamp`), yet still on its node.
    pub fn is_terminating(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
    }

    /// Upstream's `podTerminatingByPreemption`: terminating, and its `DisruptionTarget`
    /// condition is True for reason `PreemptionByScheduler` (the scheduler evicted it).
    pub fn terminating_by_preemption(&self) -> bool {
        self.is_terminating()
            && self
                .status
                .disruption_target
                .as_deref()
                .is_some_and(|c| c.status == "True" && c.reason == "PreemptionByScheduler")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodTemplateSpec {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSpec {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unschedulable: bool,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub taints: Vec<Taint>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerImage {
    #[serde(deserialize_with = "exact_list")]
    pub names: Vec<String>,
    pub size_bytes: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeStatus {
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub allocatable: ResourceList,
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub capacity: ResourceList,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub images: Vec<ContainerImage>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Node {
    pub metadata: ObjectMeta,
    pub spec: NodeSpec,
    pub status: NodeStatus,
}

impl Node {
    /// Allocatable, falling back to capacity as the kubelet reports it when allocatable is unset.
    pub fn allocatable(&self) -> &ResourceList {
        if self.status.allocatable.is_empty() {
            &self.status.capacity
        } else {
            &self.status.allocatable
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Namespace {
    pub metadata: ObjectMeta,
}

/// A pod's image name as ImageLocality looks it up among the nodes' images (upstream
/// `normalizedImageName`): `:latest` is added unless a `:` follows the last `/`, so
/// `nginx` is `nginx:latest`, while `reg.io:5000/app` gains a tag and `app@sha256:...` keeps
/// its digest. Node image names are compared as they are listed.
pub fn normalized_image_name(name: &str) -> Cow<'_, str> {
    // `None` (no such character) orders below any position, as Go's -1 does.
    if name.rfind(':') <= name.rfind('/') {
        Cow::Owned(format!("{name}:latest"))
    } else {
        Cow::Borrowed(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream image_locality_test.go `TestNormalizedImageName`, and a name with `@` but no
    /// `:` after its last `/`, which gains a tag too.
    #[test]
    fn image_names_are_normalised_as_upstream_does() {
        let digest = format!("app@sha256:{}", "0123456789abcdef".repeat(4));
        let cases = [
            ("app", "app:latest"),
            ("reg.io:5000/app", "reg.io:5000/app:latest"),
            ("reg.io:5000/app:2", "reg.io:5000/app:2"),
            ("app:1.0", "app:1.0"),
            (&digest, &digest),
            ("app@v1", "app@v1:latest"),
            ("team/app", "team/app:latest"),
        ];
        for (name, normalised) in cases {
            assert_eq!(normalized_image_name(name), normalised, "{name}");
        }
    }

    /// Lists hold exactly their elements, however they grew while decoding: the slack of a
    /// vector's first growth, kept for every pod of a large state, was a sixth of its memory.
    #[test]
    fn decoded_lists_have_no_spare_room() {
        let pod: Pod = serde_json::from_str(
            r#"{"metadata": {"name": "p"}, "spec": {
                "containers": [{"name": "main", "ports": [{"containerPort": 80}]}],
                "tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}],
                "volumes": [{"name": "cfg", "configMap": {"name": "c"}},
                            {"name": "data", "persistentVolumeClaim": {"claimName": "d"}}],
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                    {"nodeSelectorTerms": [{"matchExpressions":
                        [{"key": "zone", "operator": "In", "values": ["a", "b", "c"]}]}]}}}}}"#,
        )
        .unwrap();
        let spec = &pod.spec;
        let terms = &spec
            .affinity
            .as_ref()
            .unwrap()
            .node_affinity
            .as_ref()
            .unwrap();
        let term = &terms.required.as_ref().unwrap().node_selector_terms[0];
        let lists = [
            (
                "containers",
                spec.containers.len(),
                spec.containers.capacity(),
            ),
            (
                "ports",
                spec.containers[0].ports.len(),
                spec.containers[0].ports.capacity(),
            ),
            (
                "tolerations",
                spec.tolerations.len(),
                spec.tolerations.capacity(),
            ),
            ("volumes", spec.volumes.len(), spec.volumes.capacity()),
            (
                "terms",
                1,
                terms
                    .required
                    .as_ref()
                    .unwrap()
                    .node_selector_terms
                    .capacity(),
            ),
            (
                "values",
                term.match_expressions[0].values.len(),
                term.match_expressions[0].values.capacity(),
            ),
        ];
        let expected = [
            ("containers", 1),
            ("ports", 1),
            ("tolerations", 2),
            ("volumes", 1),
            ("terms", 1),
            ("values", 3),
        ];
        for ((name, len, capacity), (expected_name, expected_len)) in
            lists.into_iter().zip(expected)
        {
            assert_eq!(
                (name, len, capacity),
                (expected_name, expected_len, expected_len)
            );
        }
    }
}
