//! Volcano's network topology objects (`topology.volcano.sh/v1alpha1`): a `HyperNode` is one
//! topology domain at a tier (1 is the lowest: a rack, a NVLink block), whose members are
//! nodes (selected by exact name, name regex or labels) or lower HyperNodes (by exact name).
//! And the one ConfigMap that says whether Volcano's scheduler plans with them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::core::{LabelSelector, ObjectMeta, null_as_default};

/// Where Volcano's chart keeps the scheduler configuration.
pub const CONFIG_NAMESPACE: &str = "volcano-system";
pub const CONFIG_NAME: &str = "volcano-scheduler-configmap";
pub const CONFIG_KEY: &str = "volcano-scheduler.conf";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HyperNode {
    pub metadata: ObjectMeta,
    pub spec: HyperNodeSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HyperNodeSpec {
    pub tier: i32,
    /// A name for the tier, which a job's `highestTierName` may give instead of its number.
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub tier_name: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub members: Vec<HyperNodeMember>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HyperNodeMember {
    /// `Node` or `HyperNode`.
    #[serde(rename = "type", deserialize_with = "null_as_default")]
    pub member_type: String,
    pub selector: MemberSelector,
}

/// Exactly one of the three is meant to be set; HyperNode members only take `exactMatch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemberSelector {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_match: Option<ExactMatch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regex_match: Option<RegexMatch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_match: Option<LabelSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExactMatch {
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RegexMatch {
    #[serde(deserialize_with = "null_as_default")]
    pub pattern: String,
}

/// A ConfigMap; only Volcano's scheduler configuration is read from one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfigMap {
    pub metadata: ObjectMeta,
    #[serde(
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub data: BTreeMap<String, String>,
}
