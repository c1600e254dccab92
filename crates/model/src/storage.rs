//! The storage objects kube-scheduler's volume plugins read (VolumeBinding, VolumeZone,
//! VolumeRestrictions, NodeVolumeLimits): PersistentVolumes and their claims (core/v1), and
//! StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities and VolumeAttachments
//! (storage.k8s.io/v1). Only the fields those plugins read are kept.

use serde::{Deserialize, Serialize};

use crate::kinds::Kind;

use super::core::{
    CompactString, LabelSelector, NodeSelector, ObjectMeta, exact_list, null_as_default,
};
use super::quantity::Bytes;

/// The storage objects of a state, one list per kind.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct StorageObjects {
    pub volumes: Vec<PersistentVolume>,
    pub claims: Vec<PersistentVolumeClaim>,
    pub classes: Vec<StorageClass>,
    pub csi_nodes: Vec<CSINode>,
    pub csi_drivers: Vec<CSIDriver>,
    pub capacities: Vec<CSIStorageCapacity>,
    pub attachments: Vec<VolumeAttachment>,
}

/// The claim's class when set through the deprecated annotation, which wins over the field.
pub const BETA_STORAGE_CLASS_ANNOTATION: &str = "volume.beta.kubernetes.io/storage-class";
/// Set by the PV controller once a claim's binding is complete: only then is it bound.
pub const BIND_COMPLETED_ANNOTATION: &str = "pv.kubernetes.io/bind-completed";
/// On a StorageClass: `"true"` makes it the default class, which the API server's
/// DefaultStorageClass admission gives a claim created without one (and the beta twin).
pub const DEFAULT_CLASS_ANNOTATIONS: [&str; 2] = [
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
];
/// The node a WaitForFirstConsumer claim is provisioned for, once the scheduler picked it.
pub const SELECTED_NODE_ANNOTATION: &str = "volume.kubernetes.io/selected-node";
/// On a CSINode: the in-tree plugins whose volumes that node's CSI drivers serve.
pub const MIGRATED_PLUGINS_ANNOTATION: &str = "storage.alpha.kubernetes.io/migrated-plugins";

/// `metadata` with what the volume plugins read beyond the common fields: whether the object
/// is being deleted, and (claims of generic ephemeral volumes) the pod that controls it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StorageMeta {
    #[serde(flatten)]
    pub common: ObjectMeta,
    /// A volume's `claimRef` may pin the claim's UID.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<CompactString>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub owner_references: Vec<OwnerReference>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OwnerReference {
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub controller: bool,
}

/// The class of a claim or volume: the beta annotation if present, else the field.
fn class_of<'a>(meta: &'a ObjectMeta, field: &'a Option<String>) -> &'a str {
    match meta.annotations.get(BETA_STORAGE_CLASS_ANNOTATION) {
        Some(class) => class.as_str(),
        None => field.as_deref().unwrap_or(""),
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeClaim {
    pub metadata: StorageMeta,
    pub spec: ClaimSpec,
    pub status: StorageStatus,
}

impl PersistentVolumeClaim {
    /// Upstream `GetPersistentVolumeClaimClass`.
    pub fn class(&self) -> &str {
        class_of(&self.metadata.common, &self.spec.storage_class_name)
    }

    /// The requested storage (none: 0).
    pub fn request(&self) -> Bytes {
        self.spec.resources.requests.storage.unwrap_or_default()
    }

    /// Whether the claim names a class, even the empty one (upstream
    /// `PersistentVolumeClaimHasClass`: the beta annotation, or the field set).
    pub fn has_class(&self) -> bool {
        self.spec.storage_class_name.is_some()
            || self
                .metadata
                .common
                .annotations
                .contains_key(BETA_STORAGE_CLASS_ANNOTATION)
    }

    /// The API server's DefaultStorageClass admission of a new claim: one that names no class
    /// gets the default class of `classes` ([`default_class`]), if there is one.
    pub fn admit_default_class(&mut self, classes: &[StorageClass]) {
        if self.has_class() {
            return;
        }
        if let Some(class) = default_class(classes) {
            self.spec.storage_class_name = Some(class.metadata.name.clone());
        }
    }

    /// Bound as VolumeBinding decides it: a volume named and the controller's binding
    /// completed (a claim that only names its volume is pre-bound, not bound).
    pub fn is_fully_bound(&self) -> bool {
        !self.spec.volume_name.is_empty()
            && self
                .metadata
                .common
                .annotations
                .contains_key(BIND_COMPLETED_ANNOTATION)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClaimSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub volume_name: String,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub access_modes: Vec<String>,
    pub resources: ClaimResources,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_attributes_class_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClaimResources {
    pub requests: StorageRequest,
}

/// `requests`: only `storage` is read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StorageRequest {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<Bytes>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StorageStatus {
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub phase: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolume {
    pub metadata: StorageMeta,
    pub spec: VolumeSpec,
    pub status: StorageStatus,
}

impl PersistentVolume {
    /// Upstream `GetPersistentVolumeClass`.
    pub fn class(&self) -> &str {
        class_of(&self.metadata.common, &self.spec.storage_class_name)
    }

    pub fn capacity(&self) -> Bytes {
        self.spec.capacity.storage.unwrap_or_default()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    pub capacity: StorageRequest,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub access_modes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_attributes_class_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_ref: Option<ClaimReference>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<VolumeNodeAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csi: Option<CsiVolumeSource>,
    /// In-tree sources a CSI driver may have taken over (NodeVolumeLimits counts them, and
    /// VolumeBinding reads their translated topology).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gce_persistent_disk: Option<super::core::GcePersistentDisk>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aws_elastic_block_store: Option<super::core::AwsElasticBlockStore>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub azure_disk: Option<super::core::AzureDiskVolume>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cinder: Option<super::core::VolumeId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub portworx_volume: Option<super::core::VolumeId>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClaimReference {
    pub namespace: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeNodeAffinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<NodeSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiVolumeSource {
    pub driver: String,
    pub volume_handle: String,
}

/// `provisioner`, `volumeBindingMode` and `allowedTopologies` sit at the top level.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StorageClass {
    pub metadata: ObjectMeta,
    pub provisioner: String,
    /// `Immediate` or `WaitForFirstConsumer` (the API server defaults it to `Immediate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_binding_mode: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub allowed_topologies: Vec<TopologySelectorTerm>,
}

impl StorageClass {
    /// The mode as the API server defaults it: unset is `Immediate`.
    pub fn waits_for_first_consumer(&self) -> bool {
        self.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer")
    }

    /// Annotated as a default class (upstream `IsDefaultAnnotation`: either annotation is
    /// `"true"`).
    pub fn is_default(&self) -> bool {
        DEFAULT_CLASS_ANNOTATIONS.iter().any(|key| {
            self.metadata
                .annotations
                .get(key)
                .is_some_and(|v| v == "true")
        })
    }
}

/// The default class (upstream `GetDefaultClass`): of the classes annotated as default, the
/// newest by `creationTimestamp` (RFC 3339 in UTC, compared as written; none is the oldest),
/// then the first by name.
pub fn default_class(classes: &[StorageClass]) -> Option<&StorageClass> {
    classes.iter().filter(|c| c.is_default()).min_by(|a, b| {
        let (a, b) = (&a.metadata, &b.metadata);
        b.creation_timestamp
            .cmp(&a.creation_timestamp)
            .then_with(|| a.name.cmp(&b.name))
    })
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologySelectorTerm {
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact_list")]
    pub match_label_expressions: Vec<TopologySelectorRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologySelectorRequirement {
    pub key: String,
    #[serde(deserialize_with = "exact_list")]
    pub values: Vec<String>,
}

/// One per node, named like it: the CSI drivers installed there and their attach limits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CSINode {
    pub metadata: ObjectMeta,
    pub spec: CSINodeSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CSINodeSpec {
    #[serde(deserialize_with = "exact_list")]
    pub drivers: Vec<CSINodeDriver>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CSINodeDriver {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocatable: Option<VolumeNodeResources>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeNodeResources {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CSIDriver {
    pub metadata: ObjectMeta,
    pub spec: CSIDriverSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CSIDriverSpec {
    /// Whether provisioning must find room in a CSIStorageCapacity object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_capacity: Option<bool>,
}

/// Free space a CSI driver reports for one class in one topology segment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CSIStorageCapacity {
    pub metadata: ObjectMeta,
    pub storage_class_name: String,
    /// Unset matches no node; an empty selector matches every node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_topology: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Bytes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum_volume_size: Option<Bytes>,
}

impl CSIStorageCapacity {
    /// The largest volume it can hold: `maximumVolumeSize` when set, else `capacity`.
    pub fn limit(&self) -> Option<Bytes> {
        self.maximum_volume_size.or(self.capacity)
    }
}

/// A volume attached (or being attached) to a node by a CSI driver.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeAttachment {
    pub metadata: ObjectMeta,
    pub spec: VolumeAttachmentSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeAttachmentSpec {
    pub attacher: String,
    pub node_name: String,
    pub source: VolumeAttachmentSource,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeAttachmentSource {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent_volume_name: Option<String>,
}

/// The provisioner of classes whose volumes are created by hand (never provisioned).
pub const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// The topology labels VolumeZone compares between volumes and nodes, in the order it reads
/// them: the deprecated beta keys, then the GA ones. A value may list several zones joined by
/// `__`.
pub const ZONE_LABELS: [&str; 4] = [
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
];

/// The in-tree volume plugins a CSI driver may take over, and that driver (csi-translation-lib).
pub const IN_TREE_DRIVERS: [(&str, &str); 7] = [
    ("kubernetes.io/aws-ebs", "ebs.csi.aws.com"),
    ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io"),
    ("kubernetes.io/azure-disk", "disk.csi.azure.com"),
    ("kubernetes.io/azure-file", "file.csi.azure.com"),
    ("kubernetes.io/cinder", "cinder.csi.openstack.org"),
    ("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"),
    ("kubernetes.io/portworx-volume", "pxd.portworx.com"),
];

crate::kind_object!(
    PersistentVolume,
    Kind::new(
        "PersistentVolume",
        &["v1"],
        "persistentvolumes",
        "VolumeBinding, VolumeZone and NodeVolumeLimits"
    )
    .cluster_scoped()
    .short(&["pv"]),
    metadata.common
);
crate::kind_object!(
    PersistentVolumeClaim,
    Kind::new(
        "PersistentVolumeClaim",
        &["v1"],
        "persistentvolumeclaims",
        "VolumeBinding, VolumeZone, VolumeRestrictions and NodeVolumeLimits"
    )
    .short(&["pvc"]),
    metadata.common
);
crate::kind_object!(
    StorageClass,
    Kind::new(
        "StorageClass",
        &["storage.k8s.io/v1"],
        "storageclasses",
        "VolumeBinding, VolumeZone and NodeVolumeLimits"
    )
    .cluster_scoped()
    .short(&["sc"])
);
crate::kind_object!(
    CSINode,
    Kind::new(
        "CSINode",
        &["storage.k8s.io/v1"],
        "csinodes",
        "NodeVolumeLimits and VolumeBinding"
    )
    .cluster_scoped()
);
crate::kind_object!(
    CSIDriver,
    Kind::new(
        "CSIDriver",
        &["storage.k8s.io/v1"],
        "csidrivers",
        "VolumeBinding"
    )
    .cluster_scoped()
);
crate::kind_object!(
    CSIStorageCapacity,
    Kind::new(
        "CSIStorageCapacity",
        &["storage.k8s.io/v1"],
        "csistoragecapacities",
        "VolumeBinding"
    )
);
crate::kind_object!(
    VolumeAttachment,
    Kind::new(
        "VolumeAttachment",
        &["storage.k8s.io/v1"],
        "volumeattachments",
        "NodeVolumeLimits"
    )
    .cluster_scoped()
);

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, annotation: &str, created: Option<&str>) -> StorageClass {
        let mut class = StorageClass::default();
        class.metadata.name = name.to_string();
        class.metadata.creation_timestamp = created.map(Into::into);
        if let Some((key, value)) = annotation.split_once('=') {
            class.metadata.annotations.insert(key.into(), value.into());
        }
        class
    }

    /// Upstream `GetDefaultClass` (storage/util/helpers.go) and the DefaultStorageClass
    /// admission plugin: among the classes annotated `"true"` (GA or beta key), the newest,
    /// then the first by name; a claim that names a class, even `""`, keeps it.
    #[test]
    fn a_claim_without_a_class_gets_the_newest_default_class() {
        const GA: &str = "storageclass.kubernetes.io/is-default-class";
        const BETA: &str = "storageclass.beta.kubernetes.io/is-default-class";
        let t1 = Some("2024-01-01T00:00:00Z");
        let t2 = Some("2025-01-01T00:00:00Z");
        // (classes, the claim's class field, the class it ends with)
        let cases: Vec<(Vec<StorageClass>, Option<&str>, Option<&str>)> = vec![
            (vec![class("plain", "", t1)], None, None),
            (
                vec![
                    class("off", &format!("{GA}=false"), t2),
                    class("on", &format!("{GA}=true"), t1),
                ],
                None,
                Some("on"),
            ),
            (
                vec![
                    class("old", &format!("{GA}=true"), t1),
                    class("new", &format!("{BETA}=true"), t2),
                ],
                None,
                Some("new"),
            ),
            // Same time: the first by name. No time is the oldest.
            (
                vec![
                    class("b", &format!("{GA}=true"), t1),
                    class("a", &format!("{GA}=true"), t1),
                    class("none", &format!("{GA}=true"), None),
                ],
                None,
                Some("a"),
            ),
            (
                vec![class("on", &format!("{GA}=true"), t1)],
                Some(""),
                Some(""),
            ),
            (
                vec![class("on", &format!("{GA}=true"), t1)],
                Some("gold"),
                Some("gold"),
            ),
        ];
        for (classes, field, expected) in cases {
            let mut claim = PersistentVolumeClaim::default();
            claim.spec.storage_class_name = field.map(Into::into);
            claim.admit_default_class(&classes);
            assert_eq!(
                claim.spec.storage_class_name.as_deref(),
                expected,
                "{classes:?} {field:?}"
            );
        }
        // The beta annotation names a class too: no default is given.
        let mut claim = PersistentVolumeClaim::default();
        claim
            .metadata
            .common
            .annotations
            .insert(BETA_STORAGE_CLASS_ANNOTATION.into(), "gold".into());
        claim.admit_default_class(&[class("on", &format!("{GA}=true"), t1)]);
        assert_eq!(claim.spec.storage_class_name, None);
        assert_eq!(claim.class(), "gold");
    }
}
