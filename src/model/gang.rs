//! Gang objects: Godel PodGroups and Volcano Jobs / PodGroups.

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
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolcanoPodGroup {
    pub metadata: ObjectMeta,
    pub spec: VolcanoPodGroupSpec,
}
