//! The volcano-scheduler configuration (`volcano-scheduler.conf` of the ConfigMap
//! `volcano-system/volcano-scheduler-configmap`): its actions and its tiers of plugins with
//! their arguments, as Volcano's conf loader reads them. Read once here for every Volcano
//! behaviour that depends on it: the enqueue gate's voters and network-topology-aware
//! scheduling.

use std::collections::BTreeMap;

use serde::Deserialize;

use df_model::hypernode::{CONFIG_KEY, CONFIG_NAME, CONFIG_NAMESPACE};
use df_state::ClusterState;

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct SchedulerConf {
    /// Comma-separated action names (`enqueue, allocate, backfill`).
    pub actions: String,
    pub tiers: Vec<ConfTier>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ConfTier {
    pub plugins: Vec<ConfPlugin>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ConfPlugin {
    pub name: String,
    /// `enableJobEnqueued` (Volcano's spelling, unlike `enabledOverused`).
    #[serde(rename = "enableJobEnqueued")]
    pub enabled_job_enqueued: Option<bool>,
    /// `enableQueueOrder`, `enabledOverused`, `enabledAllocatable`: whether the plugin's queue
    /// order, overused and allocatable functions count (unset: they do).
    pub enable_queue_order: Option<bool>,
    pub enabled_overused: Option<bool>,
    pub enabled_allocatable: Option<bool>,
    pub arguments: BTreeMap<String, Argument>,
}

/// One plugin argument as Volcano's `yaml.v2` decodes it: a YAML integer, a float, a string
/// (a quoted number stays one), or anything else.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Argument {
    Int(i64),
    Float(f64),
    Text(String),
    Other(serde::de::IgnoredAny),
}

impl SchedulerConf {
    /// The state's configuration: `None` when the state has none, the first line of the
    /// parser's error when it cannot be read.
    pub fn of(state: &ClusterState) -> Option<Result<SchedulerConf, String>> {
        let text = state
            .config_maps
            .iter()
            .find(|c| c.metadata.namespace == CONFIG_NAMESPACE && c.metadata.name == CONFIG_NAME)
            .and_then(|c| c.data.get(CONFIG_KEY))?;
        Some(
            serde_saphyr::from_str::<SchedulerConf>(text)
                .map_err(|e| e.to_string().lines().next().unwrap_or("").to_string()),
        )
    }

    /// Whether its actions include `action`.
    pub fn runs(&self, action: &str) -> bool {
        self.actions.split(',').any(|a| a.trim() == action)
    }

    /// The first plugin named `name`, in tier order.
    pub fn plugin(&self, name: &str) -> Option<&ConfPlugin> {
        self.tiers
            .iter()
            .flat_map(|t| &t.plugins)
            .find(|p| p.name == name)
    }
}
