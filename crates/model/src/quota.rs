//! The namespace policies the API server applies to a pod before any scheduler sees it:
//! ResourceQuota (`spec.hard`, `spec.scopes`) and LimitRange (`spec.limits`), core/v1.

use serde::{Deserialize, Serialize};

use super::core::{ObjectMeta, ResourceList, null_as_default};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceQuotaSpec {
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub hard: ResourceList,
    /// `BestEffort`, `NotBestEffort`, `Terminating`, `NotTerminating`, `PriorityClass`...
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub scopes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_selector: Option<ScopeSelector>,
}

/// `spec.scopeSelector`: its expressions are ANDed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScopeSelector {
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub match_expressions: Vec<ScopedResourceSelectorRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScopedResourceSelectorRequirement {
    pub scope_name: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceQuota {
    pub metadata: ObjectMeta,
    pub spec: ResourceQuotaSpec,
}

/// One `spec.limits[]` entry: `type` is `Container`, `Pod` or `PersistentVolumeClaim`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LimitRangeItem {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub default: ResourceList,
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub default_request: ResourceList,
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub min: ResourceList,
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub max: ResourceList,
    #[serde(
        skip_serializing_if = "ResourceList::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub max_limit_request_ratio: ResourceList,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LimitRangeSpec {
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub limits: Vec<LimitRangeItem>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LimitRange {
    pub metadata: ObjectMeta,
    pub spec: LimitRangeSpec,
}
