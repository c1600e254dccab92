//! Dynamic Resource Allocation (`resource.k8s.io`): DeviceClasses, ResourceSlices,
//! ResourceClaims and ResourceClaimTemplates, slim, as the scheduler's DynamicResources plugin
//! and its structured allocator read them.
//!
//! Every object is held in the shape of `resource.k8s.io/v1` (GA in 1.34), whatever version it
//! was read with: `v1beta2` has that shape already; `v1beta1` (1.32 and 1.33) nests a device's
//! fields under `basic` and keeps a request's fields flat, and is converted as it is decoded,
//! as the API server converts between the versions it serves. A snapshot writes `v1`.
//!
//! Left out because placement never reads them: opaque device configuration (copied into an
//! allocation, never matched), consumable-capacity requests, binding conditions and the
//! devices' status.

use serde::{Deserialize, Deserializer, Serialize};

use crate::core::{NodeSelector, ObjectMeta, SortedMap, exact_list, null_as_default};
use crate::kinds::{DecodeError, Kind, KindObject, Reader, TypeMeta};
use crate::quantity::Quantity;

/// The versions of `resource.k8s.io` read, oldest first; objects are written as the last.
const API_VERSIONS: &[&str] = &[
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1",
];
/// The version whose devices and requests have the older, nested or flat, shape.
const V1BETA1: &str = "resource.k8s.io/v1beta1";
/// What the notes on what was read say reads these kinds.
const READ_BY: &str = "DynamicResources";

/// A live read lists one version, the newest served: every served version returns the same
/// objects. A cluster of 1.34 or later serves `v1`; 1.32 and 1.33 serve a beta only when it is
/// turned on.
const fn dra_kind(kind: &'static str, plural: &'static str) -> Kind {
    Kind::new(kind, API_VERSIONS, plural, READ_BY).live_first_served(&[
        "resource.k8s.io/v1",
        "resource.k8s.io/v1beta2",
        "resource.k8s.io/v1beta1",
    ])
}

/// The `resource.k8s.io` objects the DynamicResources plugin reads, one list per kind.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct DraObjects {
    pub device_classes: Vec<DeviceClass>,
    pub resource_slices: Vec<ResourceSlice>,
    pub resource_claims: Vec<ResourceClaim>,
    pub resource_claim_templates: Vec<ResourceClaimTemplate>,
}

/// `spec.selectors[]` of a class or a request: a CEL expression over `device`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceSelector {
    /// `None` for a selector of a kind newer than this model (upstream: "CEL expression
    /// empty (unsupported selector type?)").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cel: Option<CelDeviceSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CelDeviceSelector {
    #[serde(deserialize_with = "null_as_default")]
    pub expression: String,
}

/// A DeviceClass (cluster-scoped): the selectors every device allocated through it must pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceClass {
    pub metadata: ObjectMeta,
    pub spec: DeviceClassSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceClassSpec {
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub selectors: Vec<DeviceSelector>,
}

/// A ResourceSlice (cluster-scoped): some devices of one pool of one driver.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceSlice {
    pub metadata: ObjectMeta,
    pub spec: ResourceSliceSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceSliceSpec {
    #[serde(deserialize_with = "null_as_default")]
    pub driver: String,
    pub pool: ResourcePool,
    /// Exactly one of `nodeName`, `nodeSelector`, `allNodes` and `perDeviceNodeSelection`
    /// says which nodes reach the devices; `v1beta1` writes an empty name and `false` for
    /// unset, which decoding turns into `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<NodeSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_nodes: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_device_node_selection: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub devices: Vec<Device>,
    /// Partitionable devices: counters the pool's devices consume (in a slice without devices
    /// since 1.35).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub shared_counters: Vec<CounterSet>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourcePool {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    /// Only the slices of a pool's newest generation count.
    #[serde(deserialize_with = "null_as_default")]
    pub generation: i64,
    /// How many slices the pool has: fewer seen means the driver is mid-update.
    #[serde(deserialize_with = "null_as_default")]
    pub resource_slice_count: i64,
}

/// One device: its name, unique in the pool, and what selectors and constraints read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Device {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Qualified names (`[domain/]id`; a bare id is in the driver's domain) to one value.
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub attributes: SortedMap<String, DeviceAttribute>,
    #[serde(
        skip_serializing_if = "SortedMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub capacity: SortedMap<String, DeviceCapacity>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub consumes_counters: Vec<DeviceCounterConsumption>,
    /// With the slice's `perDeviceNodeSelection`: this device's own nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<NodeSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_nodes: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub taints: Vec<DeviceTaint>,
}

/// One attribute value: exactly one of the four is set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceAttribute {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bool: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
    /// Semantic version 2.0.0 text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceCapacity {
    pub value: Quantity,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CounterSet {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(deserialize_with = "null_as_default")]
    pub counters: SortedMap<String, Counter>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Counter {
    pub value: Quantity,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceCounterConsumption {
    #[serde(deserialize_with = "null_as_default")]
    pub counter_set: String,
    #[serde(deserialize_with = "null_as_default")]
    pub counters: SortedMap<String, Counter>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceTaint {
    #[serde(deserialize_with = "null_as_default")]
    pub key: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub value: String,
    #[serde(deserialize_with = "null_as_default")]
    pub effect: String,
}

/// A `v1beta1` device: its fields under `basic`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct BetaDevice {
    #[serde(deserialize_with = "null_as_default")]
    name: String,
    #[serde(deserialize_with = "null_as_default")]
    basic: Device,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct BetaSliceSpec {
    #[serde(flatten)]
    spec: ResourceSliceSpec,
    #[serde(rename = "devices", deserialize_with = "null_as_default")]
    beta_devices: Vec<BetaDevice>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BetaSlice {
    metadata: ObjectMeta,
    spec: BetaSliceSpec,
}

impl ResourceSliceSpec {
    /// `v1beta1` writes unset node fields as `""` and `false`.
    fn normalize(&mut self) {
        if self.node_name.as_deref() == Some("") {
            self.node_name = None;
        }
        if self.all_nodes == Some(false) {
            self.all_nodes = None;
        }
        if self.per_device_node_selection == Some(false) {
            self.per_device_node_selection = None;
        }
    }
}

impl KindObject for ResourceSlice {
    const KINDS: &'static [Kind] = &[dra_kind("ResourceSlice", "resourceslices").cluster_scoped()];

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        let mut slice = if type_meta.api_version == V1BETA1 {
            let beta: BetaSlice = read.get()?;
            let mut spec = beta.spec.spec;
            spec.devices = beta
                .spec
                .beta_devices
                .into_iter()
                .map(|d| Device {
                    name: d.name,
                    ..d.basic
                })
                .collect();
            ResourceSlice {
                metadata: beta.metadata,
                spec,
            }
        } else {
            read.get::<ResourceSlice>()?
        };
        slice.spec.normalize();
        Ok(slice)
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// What a claim asks for: its requests and the constraints between their devices.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceClaimSpec {
    pub devices: DeviceClaim,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceClaim {
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub requests: Vec<DeviceRequest>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub constraints: Vec<DeviceConstraint>,
}

/// One request: exactly one of `exactly` and `firstAvailable`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceRequest {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exactly: Option<ExactDeviceRequest>,
    /// Alternatives in order of preference: the first that can be met is taken.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub first_available: Vec<DeviceSubRequest>,
}

/// How many devices of which class, and which of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExactDeviceRequest {
    #[serde(deserialize_with = "null_as_default")]
    pub device_class_name: String,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub selectors: Vec<DeviceSelector>,
    /// `ExactCount` (the default) or `All`.
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub allocation_mode: String,
    /// Defaulted to 1 for `ExactCount` as the API server does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    /// Devices for monitoring: they may be in use by other claims.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_access: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub tolerations: Vec<DeviceToleration>,
}

impl ExactDeviceRequest {
    /// Whether every matching device is wanted (`All`), not a count.
    pub fn all(&self) -> bool {
        self.allocation_mode == "All"
    }

    /// The count as the API server defaults it: 1 for `ExactCount` when unset or 0.
    pub fn count(&self) -> i64 {
        match self.count {
            Some(n) if n != 0 => n,
            _ => 1,
        }
    }
}

/// One alternative of `firstAvailable` (its result names it `<request>/<subrequest>`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceSubRequest {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(flatten)]
    pub request: ExactDeviceRequest,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceToleration {
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub key: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub operator: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub value: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub effect: String,
}

/// Devices of the named requests (all when empty) must share, or must each have a different,
/// value of one attribute.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceConstraint {
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub requests: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_attribute: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_attribute: Option<String>,
}

/// A `v1beta1` request: the fields of `exactly` at the request's own level, or subrequests.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct BetaRequest {
    #[serde(deserialize_with = "null_as_default")]
    name: String,
    #[serde(deserialize_with = "null_as_default")]
    first_available: Vec<DeviceSubRequest>,
    #[serde(flatten)]
    exactly: ExactDeviceRequest,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct BetaDeviceClaim {
    #[serde(deserialize_with = "null_as_default")]
    requests: Vec<BetaRequest>,
    #[serde(deserialize_with = "null_as_default")]
    constraints: Vec<DeviceConstraint>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BetaClaimSpec {
    devices: BetaDeviceClaim,
}

impl From<BetaClaimSpec> for ResourceClaimSpec {
    /// As the API server converts: subrequests stay subrequests, otherwise the flat fields
    /// become `exactly`.
    fn from(beta: BetaClaimSpec) -> ResourceClaimSpec {
        let requests = beta
            .devices
            .requests
            .into_iter()
            .map(|r| {
                let exactly = r.first_available.is_empty().then_some(r.exactly);
                DeviceRequest {
                    name: r.name,
                    exactly,
                    first_available: r.first_available,
                }
            })
            .collect();
        ResourceClaimSpec {
            devices: DeviceClaim {
                requests,
                constraints: beta.devices.constraints,
            },
        }
    }
}

/// `metadata.ownerReferences[]`: a claim made from a template is controlled by its pod.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OwnerReference {
    #[serde(deserialize_with = "null_as_default")]
    pub kind: String,
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
}

/// A claim's metadata: the common fields and its owners.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClaimMeta {
    #[serde(flatten)]
    pub meta: ObjectMeta,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub owner_references: Vec<OwnerReference>,
}

/// A ResourceClaim: devices asked for, and once allocated, which ones and for which pods.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceClaim {
    pub metadata: ClaimMeta,
    pub spec: ResourceClaimSpec,
    #[serde(skip_serializing_if = "ResourceClaimStatus::is_empty")]
    pub status: ResourceClaimStatus,
}

impl ResourceClaim {
    /// Whether pod `pod` (by name, in the claim's namespace) is the claim's controller, as
    /// the resourceclaim controller makes a template's claim. Upstream compares the pod's
    /// UID; a pod planned from a manifest has none, so the name stands in for it.
    pub fn controlled_by_pod(&self, pod: &str) -> bool {
        self.metadata
            .owner_references
            .iter()
            .any(|o| o.controller == Some(true) && o.kind == "Pod" && o.name == pod)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceClaimStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocation: Option<AllocationResult>,
    /// The pods that use the allocated devices.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub reserved_for: Vec<ResourceClaimConsumerReference>,
}

impl ResourceClaimStatus {
    fn is_empty(&self) -> bool {
        self.allocation.is_none() && self.reserved_for.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceClaimConsumerReference {
    #[serde(deserialize_with = "null_as_default")]
    pub resource: String,
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
}

/// Which devices a claim got, and the nodes that reach them (`None`: every node).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AllocationResult {
    pub devices: DeviceAllocationResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<NodeSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceAllocationResult {
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub results: Vec<DeviceRequestAllocationResult>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeviceRequestAllocationResult {
    /// The request's name, `<request>/<subrequest>` for an alternative of `firstAvailable`.
    #[serde(deserialize_with = "null_as_default")]
    pub request: String,
    #[serde(deserialize_with = "null_as_default")]
    pub driver: String,
    #[serde(deserialize_with = "null_as_default")]
    pub pool: String,
    #[serde(deserialize_with = "null_as_default")]
    pub device: String,
    /// Admin access leaves the device free for other claims.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_access: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BetaClaim {
    metadata: ClaimMeta,
    spec: BetaClaimSpec,
    status: ResourceClaimStatus,
}

impl KindObject for ResourceClaim {
    const KINDS: &'static [Kind] = &[dra_kind("ResourceClaim", "resourceclaims")];

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        if type_meta.api_version == V1BETA1 {
            let beta: BetaClaim = read.get()?;
            return Ok(ResourceClaim {
                metadata: beta.metadata,
                spec: beta.spec.into(),
                status: beta.status,
            });
        }
        read.get()
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata.meta
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata.meta
    }
}

/// A ResourceClaimTemplate: the claim the resourceclaim controller makes for each pod.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceClaimTemplate {
    pub metadata: ObjectMeta,
    pub spec: ResourceClaimTemplateSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceClaimTemplateSpec {
    pub spec: ResourceClaimSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BetaTemplate {
    metadata: ObjectMeta,
    spec: BetaTemplateSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BetaTemplateSpec {
    spec: BetaClaimSpec,
}

impl KindObject for ResourceClaimTemplate {
    const KINDS: &'static [Kind] = &[dra_kind("ResourceClaimTemplate", "resourceclaimtemplates")];

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        if type_meta.api_version == V1BETA1 {
            let beta: BetaTemplate = read.get()?;
            return Ok(ResourceClaimTemplate {
                metadata: beta.metadata,
                spec: ResourceClaimTemplateSpec {
                    spec: beta.spec.spec.into(),
                },
            });
        }
        read.get()
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

crate::kind_object!(
    DeviceClass,
    dra_kind("DeviceClass", "deviceclasses").cluster_scoped()
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Object;

    fn decode_json(text: &str) -> Object {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let type_meta = TypeMeta::deserialize(&value).unwrap();
        Object::decode(type_meta, &value).unwrap()
    }

    #[test]
    fn v1beta1_devices_and_requests_are_read_in_the_v1_shape() {
        let beta = decode_json(
            r#"{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice","metadata":{"name":"s"},
                "spec":{"driver":"gpu.example.com","nodeName":"","allNodes":true,
                        "pool":{"name":"p","generation":1,"resourceSliceCount":1},
                        "devices":[{"name":"g0","basic":{"attributes":{"model":{"string":"a100"}}}}]}}"#,
        );
        let v1 = decode_json(
            r#"{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},
                "spec":{"driver":"gpu.example.com","allNodes":true,
                        "pool":{"name":"p","generation":1,"resourceSliceCount":1},
                        "devices":[{"name":"g0","attributes":{"model":{"string":"a100"}}}]}}"#,
        );
        assert_eq!(beta, v1);
        let beta = decode_json(
            r#"{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"c"},
                "spec":{"devices":{"requests":[{"name":"r0","deviceClassName":"gpu","count":2},
                  {"name":"r1","firstAvailable":[{"name":"s0","deviceClassName":"gpu"}]}]}}}"#,
        );
        let v1 = decode_json(
            r#"{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},
                "spec":{"devices":{"requests":[{"name":"r0","exactly":{"deviceClassName":"gpu","count":2}},
                  {"name":"r1","firstAvailable":[{"name":"s0","deviceClassName":"gpu"}]}]}}}"#,
        );
        assert_eq!(beta, v1);
    }

    #[test]
    fn exact_count_defaults_to_one() {
        let mut request = ExactDeviceRequest::default();
        assert_eq!(request.count(), 1);
        request.count = Some(3);
        assert_eq!(request.count(), 3);
        assert!(!request.all());
    }
}
