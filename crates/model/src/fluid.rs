//! Fluid data operations (`data.fluid.io/v1alpha1`) as shipped, with `spec.runAfter`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::kinds::{Kind, KindObject, Reader};
use crate::{DecodeError, TypeMeta};

use super::core::{
    Affinity, Labels, NodeAffinity, ObjectMeta, PodSpec, ResourceRequirements, Toleration,
    null_as_default,
};

pub(crate) const API_VERSION: &str = "data.fluid.io/v1alpha1";
/// The annotation listing extra node label keys an operation records for its successors.
pub const AFFINITY_LABELS_ANNOTATION: &str = "affinity.dataflow.fluid.io/labels";
/// The spelling used before Fluid shipped the feature; lint points users to the new one.
pub const OLD_AFFINITY_LABELS_ANNOTATION: &str = "data-operation.fluid.io/affinity.labels";
/// The spelling of Fluid's English docs (docs/en/samples/dataflow_affinity.md), which the
/// code never reads.
pub const DOCS_AFFINITY_LABELS_ANNOTATION: &str = "fluid.io/affinity.labels";
pub const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";
pub const REGION_LABEL: &str = "topology.kubernetes.io/region";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum OpKind {
    DataLoad,
    DataMigrate,
    DataProcess,
    DataBackup,
}

impl OpKind {
    pub const ALL: [OpKind; 4] = [
        OpKind::DataLoad,
        OpKind::DataMigrate,
        OpKind::DataProcess,
        OpKind::DataBackup,
    ];

    pub fn parse(kind: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::DataLoad => "DataLoad",
            OpKind::DataMigrate => "DataMigrate",
            OpKind::DataProcess => "DataProcess",
            OpKind::DataBackup => "DataBackup",
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectRef {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Require {
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Prefer {
    pub name: String,
    pub weight: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AffinityStrategy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depend_on: Option<ObjectRef>,
    #[serde(deserialize_with = "null_as_default")]
    pub policy: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub requires: Vec<Require>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub prefers: Vec<Prefer>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OperationRef {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    pub affinity_strategy: AffinityStrategy,
}

/// DataLoad, DataMigrate and DataProcess name their dataset as `{name, namespace}`; DataBackup
/// names it as a plain string (`spec.dataset: imagenet`), so both spellings are read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, from = "DatasetRefRepr")]
pub struct DatasetRef {
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum DatasetRefRepr {
    Name(String),
    Ref {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        namespace: Option<String>,
    },
}

impl From<DatasetRefRepr> for DatasetRef {
    fn from(repr: DatasetRefRepr) -> Self {
        match repr {
            DatasetRefRepr::Name(name) => DatasetRef {
                name,
                namespace: String::new(),
            },
            DatasetRefRepr::Ref { name, namespace } => DatasetRef {
                name: name.unwrap_or_default(),
                namespace: namespace.unwrap_or_default(),
            },
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JobProcessor {
    pub pod_spec: PodSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScriptProcessor {
    pub image: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub image_tag: String,
    pub resources: ResourceRequirements,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Processor {
    /// Labels and annotations of the processor's pod.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<PodMetadata>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<JobProcessor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<ScriptProcessor>,
}

/// The union of the spec fields of the four kinds that placement needs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dataset: Option<DatasetRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_after: Option<OperationRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    #[serde(
        skip_serializing_if = "Labels::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub node_selector: Labels,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub tolerations: Vec<Toleration>,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub scheduler_name: String,
    pub resources: ResourceRequirements,
    /// DataMigrate only: more than one pod means Fluid records no node affinity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processor: Option<Processor>,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub image: String,
    /// Labels and annotations of the operation's pod (DataLoad, DataMigrate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<PodMetadata>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodMetadata {
    #[serde(
        skip_serializing_if = "Labels::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub labels: Labels,
    #[serde(
        skip_serializing_if = "Labels::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub annotations: Labels,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpStatus {
    #[serde(deserialize_with = "null_as_default")]
    pub phase: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<NodeAffinity>,
}

/// A Fluid cache runtime: what the webhook reads of it is `status.cacheAffinity`, the node
/// affinity of its cache workers, whose zone and region terms become the tiered locality, and
/// `spec.fuse.nodeSelector`, the nodes its fuse runs on, which RequireNodeWithFuse requires.
#[derive(Debug, Clone, PartialEq)]
pub struct FluidRuntime {
    pub kind: String,
    pub metadata: ObjectMeta,
    pub cache_affinity: Option<NodeAffinity>,
    pub fuse_node_selector: Labels,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct FluidRuntimeBody {
    pub metadata: ObjectMeta,
    pub spec: FluidRuntimeSpec,
    pub status: FluidRuntimeStatus,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct FluidRuntimeSpec {
    pub fuse: FuseSpec,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct FuseSpec {
    #[serde(deserialize_with = "null_as_default")]
    pub node_selector: Labels,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct FluidRuntimeStatus {
    pub cache_affinity: Option<NodeAffinity>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FluidOp {
    pub kind: OpKind,
    pub metadata: ObjectMeta,
    pub spec: OpSpec,
    pub status: OpStatus,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[derive(Default)]
pub(crate) struct FluidOpBody {
    pub metadata: ObjectMeta,
    pub spec: OpSpec,
    pub status: OpStatus,
}

impl FluidOp {
    pub fn namespace(&self) -> &str {
        &self.metadata.namespace
    }

    /// Whether Fluid writes `status.nodeAffinity` for this operation once it completes.
    /// Only single-pod DataLoad and DataMigrate do.
    pub fn records_node_affinity(&self) -> bool {
        match self.kind {
            OpKind::DataLoad => true,
            OpKind::DataMigrate => self.spec.parallelism.unwrap_or(1) <= 1,
            OpKind::DataProcess | OpKind::DataBackup => false,
        }
    }

    /// The `affinity.dataflow.fluid.io/labels` value the operation's pod carries: Fluid copies
    /// `spec.podMetadata.annotations` to the pod and then the operation's own annotation over
    /// it whenever its key is present, even with an empty value (`dataflow.InjectAffinityAnnotation`).
    pub(crate) fn affinity_labels(&self) -> Option<&str> {
        self.metadata
            .annotations
            .get(AFFINITY_LABELS_ANNOTATION)
            .or_else(|| {
                self.spec
                    .pod_metadata
                    .as_ref()?
                    .annotations
                    .get(AFFINITY_LABELS_ANNOTATION)
            })
            .map(|v| v.as_str())
    }

    /// Node label keys recorded after the operation runs: hostname, region, zone and the keys
    /// of the pod's `affinity.dataflow.fluid.io/labels` annotation, split on `,` and trimmed
    /// as the DataOpJob controller does.
    pub fn recorded_label_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = [HOSTNAME_LABEL, ZONE_LABEL, REGION_LABEL]
            .iter()
            .map(|k| k.to_string())
            .collect();
        for key in self
            .affinity_labels()
            .into_iter()
            .flat_map(|v| v.split(','))
            .map(str::trim)
        {
            if !key.is_empty() && !keys.iter().any(|k| k == key) {
                keys.push(key.to_string());
            }
        }
        keys
    }

    pub fn is_complete(&self) -> bool {
        self.status.phase == "Complete"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affinity_labels_come_from_the_operation_then_its_pod_metadata() {
        // (operation annotation, spec.podMetadata annotation, extra recorded keys)
        let cases: &[(Option<&str>, Option<&str>, &[&str])] = &[
            (None, None, &[]),
            (Some("example.com/rack"), None, &["example.com/rack"]),
            (None, Some("example.com/rack"), &["example.com/rack"]),
            (
                Some("example.com/gpu"),
                Some("example.com/rack"),
                &["example.com/gpu"],
            ),
            // The operation's key wins even when empty: the pod gets an empty list.
            (Some(""), Some("example.com/rack"), &[]),
            (
                None,
                Some(" example.com/rack ,,kubernetes.io/hostname,example.com/gpu"),
                &["example.com/rack", "example.com/gpu"],
            ),
        ];
        for &(own, pod, extra) in cases {
            let mut op = FluidOp {
                kind: OpKind::DataLoad,
                metadata: ObjectMeta::default(),
                spec: OpSpec::default(),
                status: OpStatus::default(),
            };
            if let Some(own) = own {
                op.metadata
                    .annotations
                    .insert(AFFINITY_LABELS_ANNOTATION.into(), own.into());
            }
            if let Some(pod) = pod {
                let mut metadata = PodMetadata::default();
                metadata
                    .annotations
                    .insert(AFFINITY_LABELS_ANNOTATION.into(), pod.into());
                op.spec.pod_metadata = Some(metadata);
            }
            let mut want = vec![HOSTNAME_LABEL, ZONE_LABEL, REGION_LABEL];
            want.extend_from_slice(extra);
            assert_eq!(op.recorded_label_keys(), want, "{own:?} / {pod:?}");
        }
    }
}

/// A Fluid operation's fields as the API serves them: what snapshots and the binary cache write.
#[derive(Serialize)]
struct FluidBody<'a> {
    metadata: &'a ObjectMeta,
    spec: &'a OpSpec,
    status: &'a OpStatus,
}

/// A Fluid runtime as written back (by snapshots and the binary cache): only what the webhook
/// reads of it.
#[derive(Serialize)]
struct RuntimeBody<'a> {
    metadata: &'a ObjectMeta,
    spec: RuntimeSpecWritten<'a>,
    status: RuntimeStatusWritten<'a>,
}

#[derive(Serialize)]
struct RuntimeSpecWritten<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    fuse: Option<FuseWritten<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FuseWritten<'a> {
    node_selector: &'a Labels,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuntimeStatusWritten<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_affinity: Option<&'a NodeAffinity>,
}

impl<'a> RuntimeBody<'a> {
    /// Destructuring the runtime makes a new field of it a compile error here until snapshots
    /// and the cache keep it too.
    fn of(runtime: &'a FluidRuntime) -> RuntimeBody<'a> {
        let FluidRuntime {
            kind: _,
            metadata,
            cache_affinity,
            fuse_node_selector,
        } = runtime;
        RuntimeBody {
            metadata,
            spec: RuntimeSpecWritten {
                fuse: (!fuse_node_selector.is_empty()).then_some(FuseWritten {
                    node_selector: fuse_node_selector,
                }),
            },
            status: RuntimeStatusWritten {
                cache_affinity: cache_affinity.as_ref(),
            },
        }
    }
}

impl Serialize for FluidOp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FluidBody {
            metadata: &self.metadata,
            spec: &self.spec,
            status: &self.status,
        }
        .serialize(s)
    }
}

impl Serialize for FluidRuntime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RuntimeBody::of(self).serialize(s)
    }
}

/// The operations: DataLoad, DataMigrate, DataProcess and DataBackup, in [`OpKind::ALL`]'s order.
const OP_KINDS: &[Kind] = &[
    op_kind("DataLoad", "dataloads"),
    op_kind("DataMigrate", "datamigrates"),
    op_kind("DataProcess", "dataprocesses"),
    op_kind("DataBackup", "databackups"),
];

const fn op_kind(kind: &'static str, plural: &'static str) -> Kind {
    Kind::new(kind, &[API_VERSION], plural, "Fluid DataFlow planning").addressable()
}

impl KindObject for FluidOp {
    const KINDS: &'static [Kind] = OP_KINDS;

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        let body: FluidOpBody = read.get()?;
        Ok(FluidOp {
            kind: OpKind::parse(&type_meta.kind).expect("one of OP_KINDS"),
            metadata: body.metadata,
            spec: body.spec,
            status: body.status,
        })
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }

    fn kind_info(&self) -> &'static Kind {
        &OP_KINDS[OpKind::ALL
            .iter()
            .position(|k| *k == self.kind)
            .unwrap_or(0)]
    }
}

/// The cache runtimes a Dataset binds to (same name and namespace as the dataset).
const RUNTIMES: &[Kind] = &[
    runtime_kind("AlluxioRuntime", "alluxioruntimes"),
    runtime_kind("JindoRuntime", "jindoruntimes"),
    runtime_kind("GooseFSRuntime", "goosefsruntimes"),
    runtime_kind("JuiceFSRuntime", "juicefsruntimes"),
    runtime_kind("EFCRuntime", "efcruntimes"),
    runtime_kind("ThinRuntime", "thinruntimes"),
    runtime_kind("VineyardRuntime", "vineyardruntimes"),
];

const fn runtime_kind(kind: &'static str, plural: &'static str) -> Kind {
    Kind::new(
        kind,
        &[API_VERSION],
        plural,
        "Fluid's webhook (dataset cache locality)",
    )
}

impl KindObject for FluidRuntime {
    const KINDS: &'static [Kind] = RUNTIMES;

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        let body: FluidRuntimeBody = read.get()?;
        Ok(FluidRuntime {
            kind: type_meta.kind.clone(),
            metadata: body.metadata,
            cache_affinity: body.status.cache_affinity,
            fuse_node_selector: body.spec.fuse.node_selector,
        })
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }

    fn kind_info(&self) -> &'static Kind {
        RUNTIMES
            .iter()
            .find(|k| k.kind == self.kind)
            .unwrap_or(&RUNTIMES[0])
    }
}
