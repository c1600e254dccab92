//! The scheduler profile: score weights and the resource scoring strategy, optionally read
//! from a KubeSchedulerConfiguration-shaped file (`--scheduler-config`).

use crate::versions::KubeVersion;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::plugins;
use df_manifest::LoadError;
use df_model::null_as_default;

pub(crate) const TAINT_TOLERATION: &str = "TaintToleration";
pub(crate) const NODE_AFFINITY: &str = "NodeAffinity";
pub(crate) const POD_TOPOLOGY_SPREAD: &str = "PodTopologySpread";
pub(crate) const INTER_POD_AFFINITY: &str = "InterPodAffinity";
pub const NODE_RESOURCES_FIT: &str = "NodeResourcesFit";
pub(crate) const BALANCED_ALLOCATION: &str = "NodeResourcesBalancedAllocation";
pub(crate) const IMAGE_LOCALITY: &str = "ImageLocality";

/// kube-scheduler's placement scorers for topology-aware workload scheduling (KEP-5732).
pub const POD_GROUP_PODS_COUNT: &str = "PodGroupPodsCount";

/// The placement score plugins and their default weights (v1.36: 1 each, as the
/// "Topology-Aware Workload Scheduling" page of the Kubernetes documentation says).
pub(crate) const DEFAULT_PLACEMENT_SCORE_WEIGHTS: [(&str, i64); 2] =
    [(NODE_RESOURCES_FIT, 1), (POD_GROUP_PODS_COUNT, 1)];

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
    /// Enabled placement score plugins (`plugins.placementScore`) and their weights.
    pub placement_score_weights: BTreeMap<String, i64>,
    /// The Kubernetes release whose scheduler this profile is.
    pub version: KubeVersion,
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
            placement_score_weights: DEFAULT_PLACEMENT_SCORE_WEIGHTS
                .iter()
                .map(|(n, w)| (n.to_string(), *w))
                .collect(),
            version: KubeVersion::DEFAULT,
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

/// The extension points a profile's `plugins` may configure (upstream `Plugins`).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Plugins {
    pre_enqueue: PluginSet,
    queue_sort: PluginSet,
    pre_filter: PluginSet,
    filter: PluginSet,
    post_filter: PluginSet,
    pre_score: PluginSet,
    score: PluginSet,
    reserve: PluginSet,
    permit: PluginSet,
    pre_bind: PluginSet,
    bind: PluginSet,
    post_bind: PluginSet,
    multi_point: PluginSet,
    /// KEP-5732's placement scoring (v1.36).
    placement_score: PluginSet,
}

impl Plugins {
    fn sets(&self) -> [(&'static str, &PluginSet); 14] {
        [
            ("preEnqueue", &self.pre_enqueue),
            ("queueSort", &self.queue_sort),
            ("preFilter", &self.pre_filter),
            ("filter", &self.filter),
            ("postFilter", &self.post_filter),
            ("preScore", &self.pre_score),
            ("score", &self.score),
            ("reserve", &self.reserve),
            ("permit", &self.permit),
            ("preBind", &self.pre_bind),
            ("bind", &self.bind),
            ("postBind", &self.post_bind),
            ("multiPoint", &self.multi_point),
            ("placementScore", &self.placement_score),
        ]
    }
}

/// Why a profile's plugin entry cannot be honoured, if it cannot: an unknown name, or a filter
/// the engine always runs being disabled (it would silently keep running).
fn plugin_entry_problem(point: &str, name: &str, disabled: bool) -> Option<String> {
    if point == "placementScore" {
        let known = name == "*" && disabled
            || DEFAULT_PLACEMENT_SCORE_WEIGHTS
                .iter()
                .any(|(n, _)| *n == name);
        return (!known).then(|| {
            format!(
                "{name:?} is not a placement score plugin (NodeResourcesFit, PodGroupPodsCount)"
            )
        });
    }
    if disabled && name == "*" {
        return matches!(point, "preFilter" | "filter" | "multiPoint").then(|| {
            format!("disabling every {point} plugin is not supported: the engine always runs the default filters")
        });
    }
    match plugins::registration(name) {
        Some(r)
            if disabled && r.filter && matches!(point, "preFilter" | "filter" | "multiPoint") =>
        {
            Some(format!(
                "{name} is a filter the profile requires: the engine always runs it, so it cannot be disabled"
            ))
        }
        Some(r) if !disabled && point == "score" && !r.score => {
            Some(format!("{name} has no score extension point"))
        }
        Some(_) => None,
        None if plugins::PRE_ENQUEUE.contains(&name) => disabled.then(|| {
            format!(
                "{name} holds pods back before scheduling: the engine always runs it, so it cannot be disabled"
            )
        }),
        None if plugins::UNMODELLED.contains(&name) => None,
        None => Some(format!("unknown plugin {name:?}")),
    }
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

/// `plugins.placementScore`: disabled plugins leave the placement score, enabled ones join it
/// with their weight (1 when unset); `invalid(i, weight)` is the error for entry `i`'s weight.
fn placement_weights(
    profile: &mut Profile,
    set: &PluginSet,
    invalid: impl Fn(usize, i64) -> LoadError,
) -> Result<(), LoadError> {
    for disabled in &set.disabled {
        if disabled.name == "*" {
            profile.placement_score_weights.clear();
        } else {
            profile.placement_score_weights.remove(&disabled.name);
        }
    }
    for (i, enabled) in set.enabled.iter().enumerate() {
        let weight = enabled.weight.unwrap_or(1);
        if !(1..=100).contains(&weight) {
            return Err(invalid(i, weight));
        }
        profile
            .placement_score_weights
            .insert(enabled.name.clone(), weight);
    }
    Ok(())
}

impl Profile {
    /// Read a KubeSchedulerConfiguration (its first profile) or a bare profile document.
    pub fn from_file(path: &str) -> Result<Profile, LoadError> {
        let text = df_manifest::read_text(path)?;
        let file = df_manifest::display_name(path);
        let docs = df_manifest::tree::parse_documents(&text).map_err(|e| LoadError::Syntax {
            file: file.into(),
            pos: e.pos,
            message: e.message,
        })?;
        let Some(root) = docs.first() else {
            return Ok(Profile::default());
        };
        let decode_error = |path: String, message: String| LoadError::Decode {
            file: file.into(),
            pos: root.closest_pos(&df_manifest::parse_path(&path)),
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
            for (point, set) in plugins.sets() {
                for (list, entries, disabled) in [
                    ("enabled", &set.enabled, false),
                    ("disabled", &set.disabled, true),
                ] {
                    for (i, entry) in entries.iter().enumerate() {
                        if let Some(problem) = plugin_entry_problem(point, &entry.name, disabled) {
                            return Err(decode_error(
                                format!("{prefix}plugins.{point}.{list}[{i}].name"),
                                problem,
                            ));
                        }
                    }
                }
            }
            placement_weights(&mut profile, &plugins.placement_score, |i, weight| {
                decode_error(
                    format!("{prefix}plugins.placementScore.enabled[{i}].weight"),
                    format!("weight must be in 1..100, got {weight}"),
                )
            })?;
            // multiPoint configures every extension point a plugin has, score included.
            for set in [&plugins.multi_point, &plugins.score] {
                for disabled in &set.disabled {
                    if disabled.name == "*" {
                        profile.score_weights.clear();
                    } else {
                        profile.score_weights.remove(&disabled.name);
                    }
                }
            }
            let multi_point_scores = plugins
                .multi_point
                .enabled
                .into_iter()
                .enumerate()
                .filter(|(_, e)| plugins::registration(&e.name).is_some_and(|r| r.score))
                .map(|(i, e)| ("multiPoint", i, e));
            let score_enabled = plugins
                .score
                .enabled
                .into_iter()
                .enumerate()
                .filter(|(_, e)| plugins::registration(&e.name).is_some())
                .map(|(i, e)| ("score", i, e));
            for (point, i, enabled) in multi_point_scores.chain(score_enabled) {
                let weight = enabled.weight.unwrap_or(1);
                if !(1..=100).contains(&weight) {
                    return Err(decode_error(
                        format!("{prefix}plugins.{point}.enabled[{i}].weight"),
                        format!("weight must be in 1..100, got {weight}"),
                    ));
                }
                profile.score_weights.insert(enabled.name, weight);
            }
        }
        for (i, config) in chosen.plugin_config.into_iter().enumerate() {
            if let Some(problem) = plugin_entry_problem("pluginConfig", &config.name, false) {
                return Err(decode_error(
                    format!("{prefix}pluginConfig[{i}].name"),
                    problem,
                ));
            }
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

    /// A placement score plugin's weight; 0 when it is disabled.
    pub fn placement_weight(&self, plugin: &str) -> i64 {
        self.placement_score_weights
            .get(plugin)
            .copied()
            .unwrap_or(0)
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

    /// KEP-5732's placement scorers: 1 each by default; `plugins.placementScore` reweighs
    /// or disables them.
    #[test]
    fn reads_the_placement_score_weights() {
        let cases: &[(&str, [(&str, i64); 2])] = &[
            ("", [(NODE_RESOURCES_FIT, 1), (POD_GROUP_PODS_COUNT, 1)]),
            (
                "plugins:\n  placementScore:\n    enabled:\n    - name: NodeResourcesFit\n      weight: 2\n    - name: PodGroupPodsCount\n      weight: 5\n",
                [(NODE_RESOURCES_FIT, 2), (POD_GROUP_PODS_COUNT, 5)],
            ),
            (
                "plugins:\n  placementScore:\n    disabled:\n    - name: PodGroupPodsCount\n",
                [(NODE_RESOURCES_FIT, 1), (POD_GROUP_PODS_COUNT, 0)],
            ),
        ];
        for (text, expected) in cases {
            let profile = if text.is_empty() {
                Profile::default()
            } else {
                Profile::from_file(write(text).path().to_str().unwrap()).unwrap()
            };
            let got = expected.map(|(name, _)| (name, profile.placement_weight(name)));
            assert_eq!(got, *expected, "{text}");
        }
    }

    #[test]
    fn unknown_or_required_plugins_are_positioned_errors() {
        let cases: &[(&str, &str)] = &[
            (
                "plugins:\n  placementScore:\n    enabled:\n    - name: NodeAffinity\n",
                ":4:13: plugins.placementScore.enabled[0].name: \"NodeAffinity\" is not a placement score plugin (NodeResourcesFit, PodGroupPodsCount)",
            ),
            (
                "plugins:\n  placementScore:\n    enabled:\n    - name: PodGroupPodsCount\n      weight: 0\n",
                ":5:15: plugins.placementScore.enabled[0].weight: weight must be in 1..100, got 0",
            ),
            (
                "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeAfinity\n",
                ":5:15: profiles[0].plugins.filter.enabled[0].name: unknown plugin \"NodeAfinity\"",
            ),
            (
                "plugins:\n  filter:\n    disabled:\n    - name: NodePorts\n",
                ":4:13: plugins.filter.disabled[0].name: NodePorts is a filter the profile requires: the engine always runs it, so it cannot be disabled",
            ),
            (
                "plugins:\n  multiPoint:\n    disabled:\n    - name: \"*\"\n",
                ":4:13: plugins.multiPoint.disabled[0].name: disabling every multiPoint plugin is not supported: the engine always runs the default filters",
            ),
            (
                "plugins:\n  score:\n    enabled:\n    - name: NodePorts\n",
                ":4:13: plugins.score.enabled[0].name: NodePorts has no score extension point",
            ),
            (
                "pluginConfig:\n- name: NodeResourcesFitt\n  args: {}\n",
                ":2:9: pluginConfig[0].name: unknown plugin \"NodeResourcesFitt\"",
            ),
        ];
        for (text, want) in cases {
            let file = write(text);
            let err = Profile::from_file(file.path().to_str().unwrap()).unwrap_err();
            assert!(err.to_string().ends_with(want), "{err}\nwant …{want}");
        }
    }

    #[test]
    fn multi_point_weights_and_unmodelled_plugins() {
        let file = write(
            "plugins:\n  multiPoint:\n    enabled:\n    - name: VolumeBinding\n    - name: ImageLocality\n      weight: 7\n    disabled:\n    - name: NodeResourcesBalancedAllocation\n  score:\n    disabled:\n    - name: VolumeBinding\n",
        );
        let profile = Profile::from_file(file.path().to_str().unwrap()).unwrap();
        assert_eq!(profile.weight(IMAGE_LOCALITY), Some(7));
        assert_eq!(profile.weight(BALANCED_ALLOCATION), None);
        assert_eq!(profile.weight(TAINT_TOLERATION), Some(3));
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
