//! The scheduler profile: score weights and the resource scoring strategy, optionally read
//! from a KubeSchedulerConfiguration-shaped file (`--scheduler-config`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::manifest::{self, LoadError};
use crate::model::null_as_default;

pub const TAINT_TOLERATION: &str = "TaintToleration";
pub const NODE_AFFINITY: &str = "NodeAffinity";
pub const POD_TOPOLOGY_SPREAD: &str = "PodTopologySpread";
pub const INTER_POD_AFFINITY: &str = "InterPodAffinity";
pub const NODE_RESOURCES_FIT: &str = "NodeResourcesFit";
pub const BALANCED_ALLOCATION: &str = "NodeResourcesBalancedAllocation";
pub const IMAGE_LOCALITY: &str = "ImageLocality";

/// The default profile's score plugins and weights (v1.34).
pub const DEFAULT_SCORE_WEIGHTS: [(&str, i64); 7] = [
    (TAINT_TOLERATION, 3),
    (NODE_AFFINITY, 2),
    (POD_TOPOLOGY_SPREAD, 2),
    (INTER_POD_AFFINITY, 2),
    (NODE_RESOURCES_FIT, 1),
    (BALANCED_ALLOCATION, 1),
    (IMAGE_LOCALITY, 1),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ScoringStrategyType {
    LeastAllocated,
    MostAllocated,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Enabled score plugins and their weights; a plugin absent here does not score.
    pub score_weights: BTreeMap<String, i64>,
    pub strategy: ScoringStrategyType,
    /// Resources NodeResourcesFit scores, with their weights.
    pub fit_resources: Vec<(String, i64)>,
    /// Weight of an existing pod's *required* affinity towards the incoming pod in scoring.
    pub hard_pod_affinity_weight: i64,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            score_weights: DEFAULT_SCORE_WEIGHTS
                .iter()
                .map(|(n, w)| (n.to_string(), *w))
                .collect(),
            strategy: ScoringStrategyType::LeastAllocated,
            fit_resources: vec![("cpu".into(), 1), ("memory".into(), 1)],
            hard_pod_affinity_weight: 1,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ConfigFile {
    #[serde(deserialize_with = "null_as_default")]
    profiles: Vec<ProfileConfig>,
    #[serde(flatten)]
    bare: ProfileConfig,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ProfileConfig {
    plugins: Option<Plugins>,
    #[serde(deserialize_with = "null_as_default")]
    plugin_config: Vec<PluginConfig>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Plugins {
    score: PluginSet,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PluginSet {
    #[serde(deserialize_with = "null_as_default")]
    enabled: Vec<PluginRef>,
    #[serde(deserialize_with = "null_as_default")]
    disabled: Vec<PluginRef>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PluginRef {
    name: String,
    weight: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PluginConfig {
    name: String,
    args: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FitArgs {
    scoring_strategy: Option<ScoringStrategy>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScoringStrategy {
    #[serde(rename = "type")]
    kind: Option<ScoringStrategyType>,
    #[serde(default)]
    resources: Vec<ResourceWeight>,
}

#[derive(Deserialize)]
struct ResourceWeight {
    name: String,
    #[serde(default = "one")]
    weight: i64,
}

fn one() -> i64 {
    1
}

impl Profile {
    /// Read a KubeSchedulerConfiguration (its first profile) or a bare profile document.
    pub fn from_file(path: &str) -> Result<Profile, LoadError> {
        let text = manifest::read_text(path)?;
        let file = manifest::display_name(path);
        let docs = manifest::tree::parse_documents(&text).map_err(|e| LoadError::Syntax {
            file: file.into(),
            pos: e.pos,
            message: e.message,
        })?;
        let Some(root) = docs.first() else {
            return Ok(Profile::default());
        };
        let decode_error = |path: String, message: String| LoadError::Decode {
            file: file.into(),
            pos: root.closest_pos(&manifest::parse_path(&path)),
            path,
            message,
        };
        let json = root.to_json();
        let config: ConfigFile = serde_path_to_error::deserialize(&json)
            .map_err(|e| decode_error(e.path().to_string(), e.inner().to_string()))?;
        let (prefix, chosen) = match config.profiles.into_iter().next() {
            Some(p) => ("profiles[0].", p),
            None => ("", config.bare),
        };
        let mut profile = Profile::default();
        if let Some(plugins) = chosen.plugins {
            for disabled in plugins.score.disabled {
                if disabled.name == "*" {
                    profile.score_weights.clear();
                } else {
                    profile.score_weights.remove(&disabled.name);
                }
            }
            for (i, enabled) in plugins.score.enabled.into_iter().enumerate() {
                let weight = enabled.weight.unwrap_or(1);
                if !DEFAULT_SCORE_WEIGHTS
                    .iter()
                    .any(|(n, _)| *n == enabled.name)
                {
                    return Err(decode_error(
                        format!("{prefix}plugins.score.enabled[{i}].name"),
                        format!("unknown score plugin {:?}", enabled.name),
                    ));
                }
                if !(1..=100).contains(&weight) {
                    return Err(decode_error(
                        format!("{prefix}plugins.score.enabled[{i}].weight"),
                        format!("weight must be in 1..100, got {weight}"),
                    ));
                }
                profile.score_weights.insert(enabled.name, weight);
            }
        }
        for (i, config) in chosen.plugin_config.into_iter().enumerate() {
            if config.name != NODE_RESOURCES_FIT {
                continue;
            }
            let args: FitArgs = serde_path_to_error::deserialize(&config.args).map_err(|e| {
                decode_error(
                    format!("{prefix}pluginConfig[{i}].args.{}", e.path()),
                    e.inner().to_string(),
                )
            })?;
            if let Some(strategy) = args.scoring_strategy {
                if let Some(kind) = strategy.kind {
                    profile.strategy = kind;
                }
                if !strategy.resources.is_empty() {
                    profile.fit_resources = strategy
                        .resources
                        .into_iter()
                        .map(|r| (r.name, r.weight))
                        .collect();
                }
            }
        }
        Ok(profile)
    }

    pub fn weight(&self, plugin: &str) -> Option<i64> {
        self.score_weights.get(plugin).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        file
    }

    #[test]
    fn reads_weights_and_strategy_from_a_scheduler_configuration() {
        let file = write(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      disabled:\n      - name: ImageLocality\n      enabled:\n      - name: NodeAffinity\n        weight: 10\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: 3\n        - name: nvidia.com/gpu\n          weight: 5\n",
        );
        let profile = Profile::from_file(file.path().to_str().unwrap()).unwrap();
        assert_eq!(profile.weight(NODE_AFFINITY), Some(10));
        assert_eq!(profile.weight(IMAGE_LOCALITY), None);
        assert_eq!(profile.weight(TAINT_TOLERATION), Some(3));
        assert_eq!(profile.strategy, ScoringStrategyType::MostAllocated);
        assert_eq!(
            profile.fit_resources,
            vec![("cpu".to_string(), 3), ("nvidia.com/gpu".to_string(), 5)]
        );
    }

    #[test]
    fn bad_configurations_name_the_field() {
        let file = write(
            "plugins:\n  score:\n    enabled:\n    - name: NodeAffinity\n      weight: 500\n",
        );
        let err = Profile::from_file(file.path().to_str().unwrap()).unwrap_err();
        assert!(
            err.to_string().ends_with(
                ":5:15: plugins.score.enabled[0].weight: weight must be in 1..100, got 500"
            ),
            "{err}"
        );
        let file = write(
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      type: Random\n",
        );
        let err = Profile::from_file(file.path().to_str().unwrap()).unwrap_err();
        assert!(
            err.to_string()
                .contains("pluginConfig[0].args.scoringStrategy.type: unknown variant `Random`"),
            "{err}"
        );
    }
}
