//! `--scheduler-config`: a KubeSchedulerConfiguration as clusters have it. A file may hold it
//! directly, as a bare profile, or inside a ConfigMap (the way kube-scheduler and the
//! scheduler-plugins charts mount it), in any API version; each of its profiles becomes a
//! [`Profile`] for the pods that name its `schedulerName`.
//!
//! What the engine cannot do is never dropped in silence and never a refusal of the file:
//! every plugin it does not model (an out-of-tree plugin of kubernetes-sigs/scheduler-plugins,
//! an in-tree one outside the engine, a custom scheduler's) is named in one warning, and so are
//! plugin arguments it does not honour. What kube-scheduler itself would refuse (a weight out
//! of range, a misspelt in-tree plugin, an invalid argument of a modelled plugin) stays an
//! error at its position.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::plugins::{self, Known};
use crate::profile::{
    BALANCED_ALLOCATION, DEFAULT_PLACEMENT_SCORE_WEIGHTS, DEFAULT_SCHEDULER_NAME, DefaultSpread,
    INTER_POD_AFFINITY, NODE_RESOURCES_FIT, POD_TOPOLOGY_SPREAD, Point, Profile, Profiles,
    ScoringStrategyType, SpreadDefaulting,
};
use crate::versions::KubeVersion;
use df_manifest::LoadError;
use df_manifest::tree::{Node, Pos, Value, parse_documents, parse_path};
use df_model::null_as_default;
use df_model::text::closest;

/// The scheduler configuration's group; kube-scheduler 1.32 to 1.37 serve only its `v1`.
const GROUP: &str = "kubescheduler.config.k8s.io";
const KIND: &str = "KubeSchedulerConfiguration";
/// Versions of the group that earlier releases served, read here with `v1`'s defaults.
const RETIRED_VERSIONS: [&str; 3] = ["v1beta1", "v1beta2", "v1beta3"];

/// What a queue sort plugin of scheduler-plugins changes, and what the preview does instead.
const QUEUE_ORDER: &str = "queue order; pending pods keep priority, then creation order";

/// The out-of-tree plugins of kubernetes-sigs/scheduler-plugins (its `cmd/scheduler`), with
/// what each changes; Coscheduling is modelled as a gang system, the others are not.
const SCHEDULER_PLUGINS: [(&str, &str); 16] = [
    (
        "CapacityScheduling",
        "ElasticQuota admission and preemption",
    ),
    ("Coscheduling", "gangs"),
    ("CrossNodePreemption", "preemption"),
    ("LoadVariationRiskBalancing", "score by measured load"),
    ("LowRiskOverCommitment", "score by measured load"),
    ("NetworkOverhead", "filter and score by network cost"),
    ("NodeMetadata", "score by node labels or annotations"),
    ("NodeResourceTopologyMatch", "NUMA filter and score"),
    ("NodeResourcesAllocatable", "score by allocatable"),
    ("Peaks", "score by power"),
    ("PodState", "score by terminating and nominated pods"),
    ("PreemptionToleration", "preemption"),
    ("QOSSort", QUEUE_ORDER),
    ("SySched", "score by system calls"),
    ("TargetLoadPacking", "score by measured load"),
    ("TopologicalSort", QUEUE_ORDER),
];

/// The gang plugin of scheduler-plugins: a profile that enables it schedules PodGroups.
pub const COSCHEDULING: &str = "Coscheduling";

/// A scheduler configuration read from a file: its profiles in file order, and what of it
/// the preview does not do, one line each. The default has no profile: every pod gets
/// kube-scheduler's default profile.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchedulerConfig {
    pub profiles: Vec<NamedProfile>,
    pub warnings: Vec<String>,
}

/// One profile of a configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedProfile {
    pub scheduler_name: String,
    pub profile: Profile,
    /// Every plugin the profile enables by name, at any extension point.
    pub enabled: BTreeSet<String>,
}

impl NamedProfile {
    /// Whether the profile schedules PodGroups as scheduler-plugins' Coscheduling does.
    pub fn coschedules(&self) -> bool {
        self.enabled.contains(COSCHEDULING)
    }
}

impl SchedulerConfig {
    /// Read the configuration in `path`: the first KubeSchedulerConfiguration of the file, or
    /// the first ConfigMap that holds one, or a bare profile document. An empty file is the
    /// default profile.
    pub fn from_file(path: &str) -> Result<SchedulerConfig, LoadError> {
        let text = df_manifest::read_text(path)?;
        let file = df_manifest::display_name(path);
        let docs = parse_documents(&text).map_err(|e| LoadError::Syntax {
            file: file.into(),
            pos: e.pos,
            message: e.message,
        })?;
        let mut warnings = Vec::new();
        let found: Vec<Found> = docs
            .iter()
            .filter_map(|doc| find_config(doc, &text))
            .collect();
        let Some(config) = found.first() else {
            if docs.is_empty() {
                return Ok(SchedulerConfig::default());
            }
            let kinds: Vec<&str> = docs
                .iter()
                .filter_map(|d| d.get("kind").and_then(Node::as_str))
                .collect();
            return Err(LoadError::Decode {
                file: file.into(),
                pos: docs[0].pos,
                path: String::new(),
                message: format!(
                    "no {KIND} here, nor a ConfigMap holding one (found {})",
                    if kinds.is_empty() {
                        "nothing with a kind".to_string()
                    } else {
                        kinds.join(", ")
                    }
                ),
            });
        };
        if found.len() > 1 {
            warnings.push(format!(
                "{file}: {} more {KIND} ignored: kube-scheduler reads one configuration",
                found.len() - 1
            ));
        }
        let reader = Reader {
            file,
            found: config,
        };
        let mut config = reader.read(&mut warnings)?;
        config.warnings = warnings;
        Ok(config)
    }

    fn from_profiles(profiles: Vec<NamedProfile>, warnings: Vec<String>) -> SchedulerConfig {
        SchedulerConfig { profiles, warnings }
    }

    /// The profiles by scheduler name, on `version`.
    pub fn profiles(&self, version: KubeVersion) -> Profiles {
        let mut profiles = Profiles::new(
            self.profiles
                .iter()
                .map(|p| (p.scheduler_name.clone(), p.profile.clone()))
                .collect(),
        );
        profiles.set_version(version);
        profiles
    }
}

/// A configuration document, where it came from and how to position its paths.
struct Found {
    root: Node,
    /// The ConfigMap key and the position of its value, when the configuration is embedded.
    embedded: Option<(String, Embedding)>,
}

/// Where an embedded document's text starts in the file: a block scalar's lines start on the
/// line after its indicator at `indent`; any other scalar is positioned as a whole.
#[derive(Clone, Copy)]
enum Embedding {
    Block { first_line: usize, indent: usize },
    Whole(Pos),
}

impl Embedding {
    fn of(value: &Node, text: &str) -> Embedding {
        let line_text = |n: usize| text.lines().nth(n.wrapping_sub(1)).unwrap_or("");
        // A block scalar's node starts at its first line of content; the line before it ends
        // with the indicator (`|`, `>`, with chomping or indentation marks).
        let before = line_text(value.pos.line.saturating_sub(1)).trim_end();
        let indicator = before
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("");
        let block = indicator.starts_with(['|', '>'])
            && indicator[1..]
                .chars()
                .all(|c| matches!(c, '-' | '+' | '1'..='9'));
        if block {
            Embedding::Block {
                first_line: value.pos.line,
                indent: value.pos.column - 1,
            }
        } else {
            Embedding::Whole(value.pos)
        }
    }

    fn outer(self, inner: Pos) -> Pos {
        match self {
            Embedding::Block { first_line, indent } => Pos {
                line: first_line + inner.line - 1,
                column: indent + inner.column,
            },
            Embedding::Whole(pos) => pos,
        }
    }
}

/// `doc` as a configuration: a KubeSchedulerConfiguration, a ConfigMap whose data holds one,
/// or a document without a kind (a bare profile).
fn find_config(doc: &Node, text: &str) -> Option<Found> {
    match doc.get("kind").and_then(Node::as_str) {
        Some(KIND) => Some(Found {
            root: doc.clone(),
            embedded: None,
        }),
        Some("ConfigMap") => doc.get("data")?.entries().iter().find_map(|entry| {
            let inner = parse_documents(entry.value.as_str()?).ok()?;
            let root = inner.into_iter().next()?;
            (root.get("kind").and_then(Node::as_str) == Some(KIND)).then(|| Found {
                root,
                embedded: Some((entry.key.clone(), Embedding::of(&entry.value, text))),
            })
        }),
        Some(_) => None,
        None => matches!(doc.value, Value::Map(_)).then(|| Found {
            root: doc.clone(),
            embedded: None,
        }),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ConfigFile {
    api_version: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    profiles: Vec<ProfileConfig>,
    percentage_of_nodes_to_score: Option<i64>,
    #[serde(deserialize_with = "null_as_default")]
    extenders: Vec<serde_json::Value>,
    #[serde(flatten)]
    bare: ProfileConfig,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ProfileConfig {
    scheduler_name: Option<String>,
    plugins: Option<Plugins>,
    #[serde(deserialize_with = "null_as_default")]
    plugin_config: Vec<PluginConfig>,
    percentage_of_nodes_to_score: Option<i64>,
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

    /// The sets that decide whether a plugin runs at `point`: multiPoint, then the point's own
    /// (both of the filter's: PreFilter and Filter state go together).
    fn deciding(&self, point: Point) -> Vec<&PluginSet> {
        match point {
            Point::PreEnqueue => vec![&self.multi_point, &self.pre_enqueue],
            Point::Filter => vec![&self.multi_point, &self.pre_filter, &self.filter],
            Point::PostFilter => vec![&self.multi_point, &self.post_filter],
        }
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

impl PluginSet {
    fn disables(&self, name: &str) -> bool {
        self.disabled
            .iter()
            .any(|p| p.name == "*" || p.name == name)
    }

    fn enables(&self, name: &str) -> bool {
        self.enabled.iter().any(|p| p.name == name)
    }
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

/// `NodeResourcesFitArgs`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct FitArgs {
    ignored_resources: Vec<String>,
    ignored_resource_groups: Vec<String>,
    scoring_strategy: Option<ScoringStrategy>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct ScoringStrategy {
    #[serde(rename = "type")]
    kind: Option<ScoringStrategyType>,
    resources: Vec<ResourceWeight>,
    requested_to_capacity_ratio: Option<RatioParam>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RatioParam {
    shape: Vec<ShapePoint>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct ShapePoint {
    utilization: i64,
    score: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResourceWeight {
    name: String,
    #[serde(default = "one")]
    weight: i64,
}

fn one() -> i64 {
    1
}

/// `InterPodAffinityArgs`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct InterPodAffinityArgs {
    hard_pod_affinity_weight: Option<i64>,
    ignore_preferred_terms_of_existing_pods: bool,
}

/// `PodTopologySpreadArgs`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct SpreadArgs {
    default_constraints: Vec<df_model::TopologySpreadConstraint>,
    defaulting_type: Option<String>,
}

/// `NodeResourcesBalancedAllocationArgs`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct BalancedArgs {
    resources: Vec<ResourceWeight>,
}

/// Reads the configuration found in one file.
struct Reader<'f> {
    file: &'f str,
    found: &'f Found,
}

impl Reader<'_> {
    /// An error at `path` of the configuration document.
    fn error(&self, path: String, message: String) -> LoadError {
        let inner = self.found.root.closest_pos(&parse_path(&path));
        let (pos, path) = match &self.found.embedded {
            Some((key, embedding)) => (embedding.outer(inner), format!("data[{key}]: {path}")),
            None => (inner, path),
        };
        LoadError::Decode {
            file: self.file.into(),
            pos,
            path,
            message,
        }
    }

    fn read(&self, warnings: &mut Vec<String>) -> Result<SchedulerConfig, LoadError> {
        let json = self.found.root.to_json();
        let config: ConfigFile = serde_path_to_error::deserialize(&json)
            .map_err(|e| self.error(e.path().to_string(), e.inner().to_string()))?;
        if let Some(api_version) = &config.api_version {
            self.check_api_version(api_version, warnings)?;
        }
        if !config.extenders.is_empty() {
            warnings.push(format!(
                "{}: {} scheduler extender(s) not modelled: their filters and scores are left out",
                self.file,
                config.extenders.len()
            ));
        }
        let percentage = config.percentage_of_nodes_to_score;
        let prefixed: Vec<(String, ProfileConfig)> = if config.profiles.is_empty() {
            vec![(String::new(), config.bare)]
        } else {
            config
                .profiles
                .into_iter()
                .enumerate()
                .map(|(i, p)| (format!("profiles[{i}]."), p))
                .collect()
        };
        let mut profiles: Vec<NamedProfile> = Vec::new();
        let mut unmodelled: Vec<String> = Vec::new();
        for (prefix, chosen) in prefixed {
            let scheduler_name = chosen
                .scheduler_name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| DEFAULT_SCHEDULER_NAME.to_string());
            if profiles.iter().any(|p| p.scheduler_name == scheduler_name) {
                return Err(self.error(
                    format!("{prefix}schedulerName"),
                    format!("Duplicate value: {scheduler_name:?}"),
                ));
            }
            let mut read = ProfileReader {
                reader: self,
                prefix: &prefix,
                scheduler_name: &scheduler_name,
                profile: Profile::default(),
                enabled: BTreeSet::new(),
                unmodelled: Vec::new(),
                warnings,
            };
            read.plugins(chosen.plugins.as_ref())?;
            read.plugin_config(&chosen.plugin_config)?;
            let ProfileReader {
                mut profile,
                enabled,
                unmodelled: these,
                ..
            } = read;
            profile.percentage_of_nodes_to_score = chosen
                .percentage_of_nodes_to_score
                .or(percentage)
                .map(|p| p.clamp(0, 100) as u8);
            for name in these {
                if !unmodelled.contains(&name) {
                    unmodelled.push(name);
                }
            }
            profiles.push(NamedProfile {
                scheduler_name,
                profile,
                enabled,
            });
        }
        if !unmodelled.is_empty() {
            unmodelled.sort();
            warnings.insert(
                0,
                format!(
                    "{}: not modelled, left out of this preview: {}",
                    self.file,
                    unmodelled.join(", ")
                ),
            );
        }
        Ok(SchedulerConfig::from_profiles(profiles, Vec::new()))
    }

    fn check_api_version(
        &self,
        api_version: &str,
        warnings: &mut Vec<String>,
    ) -> Result<(), LoadError> {
        let version = api_version.strip_prefix(&format!("{GROUP}/"));
        match version {
            Some("v1") => Ok(()),
            Some(retired) if RETIRED_VERSIONS.contains(&retired) => {
                warnings.push(format!(
                    "{}: {api_version} is not served by kube-scheduler 1.32 to 1.37 (only {GROUP}/v1 is); read with v1's defaults",
                    self.file
                ));
                Ok(())
            }
            _ => Err(self.error(
                "apiVersion".into(),
                format!(
                    "{api_version:?} is not a version of {KIND} (kube-scheduler 1.32 to 1.37 serve {GROUP}/v1)"
                ),
            )),
        }
    }
}

/// Reads one profile.
struct ProfileReader<'r, 'f> {
    reader: &'r Reader<'f>,
    prefix: &'r str,
    scheduler_name: &'r str,
    profile: Profile,
    enabled: BTreeSet<String>,
    /// Enabled plugins the engine does not model, each with what it changes.
    unmodelled: Vec<String>,
    warnings: &'r mut Vec<String>,
}

impl ProfileReader<'_, '_> {
    fn error(&self, path: &str, message: String) -> LoadError {
        self.reader.error(format!("{}{path}", self.prefix), message)
    }

    fn warn(&mut self, message: String) {
        let line = format!(
            "{}: profile {}: {message}",
            self.reader.file, self.scheduler_name
        );
        if !self.warnings.contains(&line) {
            self.warnings.push(line);
        }
    }

    fn plugins(&mut self, plugins: Option<&Plugins>) -> Result<(), LoadError> {
        let Some(plugins) = plugins else {
            return Ok(());
        };
        for (point, set) in plugins.sets() {
            for (list, entries, disabled) in [
                ("enabled", &set.enabled, false),
                ("disabled", &set.disabled, true),
            ] {
                for (i, entry) in entries.iter().enumerate() {
                    self.check_entry(
                        point,
                        &format!("plugins.{point}.{list}[{i}]"),
                        &entry.name,
                        disabled,
                    )?;
                }
            }
        }
        self.placement_weights(&plugins.placement_score)?;
        self.score_weights(plugins)?;
        self.switched_off(plugins);
        Ok(())
    }

    /// One `plugins.<point>.<list>[i]` entry: an error where kube-scheduler would refuse it;
    /// an enabled plugin the engine does not model joins the warning.
    fn check_entry(
        &mut self,
        point: &str,
        path: &str,
        name: &str,
        disabled: bool,
    ) -> Result<(), LoadError> {
        if point == "placementScore" {
            let known = name == "*" && disabled
                || DEFAULT_PLACEMENT_SCORE_WEIGHTS
                    .iter()
                    .any(|(n, _)| *n == name);
            return match known {
                true => Ok(()),
                false => Err(self.error(
                    &format!("{path}.name"),
                    format!(
                        "{name:?} is not a placement score plugin (NodeResourcesFit, PodGroupPodsCount)"
                    ),
                )),
            };
        }
        if name == "*" {
            return Ok(());
        }
        if !disabled {
            self.enabled.insert(name.to_string());
        }
        match plugins::known(name) {
            Known::Registered(r) if !disabled && point == "score" && !r.score => Err(self.error(
                &format!("{path}.name"),
                format!("{name} has no score extension point"),
            )),
            Known::Registered(_) | Known::Honoured => Ok(()),
            Known::InTree if !disabled => {
                self.unmodelled(format!("{name} (in-tree, {point})"));
                Ok(())
            }
            Known::InTree => Ok(()),
            Known::Unknown => {
                if let Some((plugin, what)) =
                    SCHEDULER_PLUGINS.iter().find(|(plugin, _)| *plugin == name)
                {
                    if !disabled && *plugin != COSCHEDULING {
                        self.unmodelled(format!("{plugin} (scheduler-plugins: {what})"));
                    }
                    return Ok(());
                }
                if let Some(near) = closest(name, plugins::known_names()) {
                    return Err(self.error(
                        &format!("{path}.name"),
                        format!("unknown plugin {name:?}; did you mean {near}?"),
                    ));
                }
                if !disabled {
                    self.unmodelled(format!(
                        "{name} (not a plugin of kube-scheduler or scheduler-plugins)"
                    ));
                }
                Ok(())
            }
        }
    }

    fn unmodelled(&mut self, what: String) {
        if !self.unmodelled.contains(&what) {
            self.unmodelled.push(what);
        }
    }

    /// `plugins.placementScore`: disabled plugins leave the placement score, enabled ones join
    /// it with their weight (1 when unset).
    fn placement_weights(&mut self, set: &PluginSet) -> Result<(), LoadError> {
        for disabled in &set.disabled {
            if disabled.name == "*" {
                self.profile.placement_score_weights.clear();
            } else {
                self.profile.placement_score_weights.remove(&disabled.name);
            }
        }
        for (i, enabled) in set.enabled.iter().enumerate() {
            let weight = enabled.weight.unwrap_or(1);
            if !(1..=100).contains(&weight) {
                return Err(self.error(
                    &format!("plugins.placementScore.enabled[{i}].weight"),
                    format!("weight must be in 1..100, got {weight}"),
                ));
            }
            self.profile
                .placement_score_weights
                .insert(enabled.name.clone(), weight);
        }
        Ok(())
    }

    /// Score weights: multiPoint configures every extension point a plugin has, score
    /// included; a plugin disabled at either leaves the score.
    fn score_weights(&mut self, plugins: &Plugins) -> Result<(), LoadError> {
        for set in [&plugins.multi_point, &plugins.score] {
            for disabled in &set.disabled {
                if disabled.name == "*" {
                    self.profile.score_weights.clear();
                } else {
                    self.profile.score_weights.remove(&disabled.name);
                }
            }
        }
        for (point, set) in [
            ("multiPoint", &plugins.multi_point),
            ("score", &plugins.score),
        ] {
            for (i, enabled) in set.enabled.iter().enumerate() {
                if !plugins::registration(&enabled.name).is_some_and(|r| r.score) {
                    continue;
                }
                if point == "multiPoint" && plugins.score.disables(&enabled.name) {
                    continue;
                }
                let weight = enabled.weight.unwrap_or(1);
                if !(1..=100).contains(&weight) {
                    return Err(self.error(
                        &format!("plugins.{point}.enabled[{i}].weight"),
                        format!("weight must be in 1..100, got {weight}"),
                    ));
                }
                self.profile
                    .score_weights
                    .insert(enabled.name.clone(), weight);
            }
        }
        Ok(())
    }

    /// The default plugins of the PreEnqueue, Filter and PostFilter points the profile turns
    /// off: disabled (by name or `*`) in multiPoint or at the point, and not enabled again.
    fn switched_off(&mut self, plugins: &Plugins) {
        for point in Point::ALL {
            let sets = plugins.deciding(point);
            for name in point.defaults() {
                let off =
                    sets.iter().any(|s| s.disables(name)) && !sets.iter().any(|s| s.enables(name));
                if off {
                    self.profile.disabled.insert((point, name));
                }
            }
        }
        if !self.profile.runs(Point::Filter, NODE_RESOURCES_FIT) {
            self.warn(
                "NodeResourcesFit's filter is off: planned pods may exceed a node's allocatable, where the kubelet would reject them"
                    .into(),
            );
        }
    }

    fn plugin_config(&mut self, configs: &[PluginConfig]) -> Result<(), LoadError> {
        for (i, config) in configs.iter().enumerate() {
            let path = format!("pluginConfig[{i}]");
            let name = config.name.as_str();
            if let Known::Unknown = plugins::known(name)
                && !SCHEDULER_PLUGINS.iter().any(|(p, _)| *p == name)
                && let Some(near) = closest(name, plugins::known_names())
            {
                return Err(self.error(
                    &format!("{path}.name"),
                    format!("unknown plugin {name:?}; did you mean {near}?"),
                ));
            }
            let empty = match &config.args {
                serde_json::Value::Null => true,
                serde_json::Value::Object(map) => {
                    map.keys().all(|k| k == "apiVersion" || k == "kind")
                }
                _ => false,
            };
            match name {
                NODE_RESOURCES_FIT => self.fit_args(&path, &config.args)?,
                INTER_POD_AFFINITY => self.inter_pod_affinity_args(&path, &config.args)?,
                POD_TOPOLOGY_SPREAD => self.spread_args(&path, &config.args)?,
                BALANCED_ALLOCATION => self.balanced_args(&path, &config.args)?,
                _ if empty => {}
                _ if matches!(plugins::known(name), Known::Unknown) => {
                    // An out-of-tree plugin's arguments: already named in the warning when
                    // the profile enables it.
                }
                _ => self.warn(format!(
                    "{name} arguments not modelled: this preview runs {name} with its defaults"
                )),
            }
        }
        Ok(())
    }

    fn decode<T: serde::de::DeserializeOwned + Default>(
        &self,
        path: &str,
        args: &serde_json::Value,
    ) -> Result<T, LoadError> {
        let mut args = args.clone();
        match &mut args {
            serde_json::Value::Null => return Ok(T::default()),
            // Plugin arguments may carry their own TypeMeta.
            serde_json::Value::Object(map) => {
                map.remove("apiVersion");
                map.remove("kind");
            }
            _ => {}
        }
        serde_path_to_error::deserialize(&args)
            .map_err(|e| self.error(&format!("{path}.args.{}", e.path()), e.inner().to_string()))
    }

    fn fit_args(&mut self, path: &str, args: &serde_json::Value) -> Result<(), LoadError> {
        let args: FitArgs = self.decode(path, args)?;
        if !args.ignored_resources.is_empty() || !args.ignored_resource_groups.is_empty() {
            self.warn(
                "NodeResourcesFit ignoredResources and ignoredResourceGroups not modelled: the preview's filter checks every resource"
                    .into(),
            );
        }
        let Some(strategy) = args.scoring_strategy else {
            return Ok(());
        };
        let strategy_path = format!("{path}.args.scoringStrategy");
        for (i, resource) in strategy.resources.iter().enumerate() {
            if !(1..=100).contains(&resource.weight) {
                return Err(self.error(
                    &format!("{strategy_path}.resources[{i}].weight"),
                    format!(
                        "resource weight of {} not in valid range (0, 100]",
                        resource.name
                    ),
                ));
            }
        }
        let kind = strategy.kind.unwrap_or(ScoringStrategyType::LeastAllocated);
        match (kind, strategy.requested_to_capacity_ratio) {
            (ScoringStrategyType::RequestedToCapacityRatio, None) => {
                return Err(self.error(
                    &format!("{strategy_path}.requestedToCapacityRatio"),
                    "Required value: must be specified when type is RequestedToCapacityRatio"
                        .into(),
                ));
            }
            (ScoringStrategyType::RequestedToCapacityRatio, Some(ratio)) => {
                let shape_path = format!("{strategy_path}.requestedToCapacityRatio.shape");
                self.profile.capacity_ratio_shape = self.shape(&shape_path, &ratio.shape)?;
            }
            (_, Some(_)) => {
                return Err(self.error(
                    &format!("{strategy_path}.requestedToCapacityRatio"),
                    "Forbidden: must be nil when type is not RequestedToCapacityRatio".into(),
                ));
            }
            (_, None) => {}
        }
        self.profile.strategy = kind;
        if !strategy.resources.is_empty() {
            self.profile.fit_resources = strategy
                .resources
                .into_iter()
                .map(|r| (r.name, r.weight))
                .collect();
        }
        Ok(())
    }

    /// A RequestedToCapacityRatio shape, validated as upstream's `validateFunctionShape`, with
    /// its scores scaled from 0..10 to the node score's 0..100.
    fn shape(&self, path: &str, shape: &[ShapePoint]) -> Result<Vec<(i64, i64)>, LoadError> {
        if shape.is_empty() {
            return Err(self.error(
                path,
                "Required value: at least one point must be specified".into(),
            ));
        }
        for (i, pair) in shape.windows(2).enumerate() {
            if pair[0].utilization >= pair[1].utilization {
                return Err(self.error(
                    &format!("{path}[{}].utilization", i + 1),
                    format!(
                        "Invalid value: {}: values must be sorted in increasing order",
                        pair[1].utilization
                    ),
                ));
            }
        }
        for (i, point) in shape.iter().enumerate() {
            if !(0..=100).contains(&point.utilization) {
                return Err(self.error(
                    &format!("{path}[{i}].utilization"),
                    format!(
                        "Invalid value: {}: not in valid range [0, 100]",
                        point.utilization
                    ),
                ));
            }
            if !(0..=10).contains(&point.score) {
                return Err(self.error(
                    &format!("{path}[{i}].score"),
                    format!("Invalid value: {}: not in valid range [0, 10]", point.score),
                ));
            }
        }
        Ok(shape
            .iter()
            .map(|p| (p.utilization, p.score * 10))
            .collect())
    }

    fn inter_pod_affinity_args(
        &mut self,
        path: &str,
        args: &serde_json::Value,
    ) -> Result<(), LoadError> {
        let args: InterPodAffinityArgs = self.decode(path, args)?;
        if let Some(weight) = args.hard_pod_affinity_weight {
            if !(0..=100).contains(&weight) {
                return Err(self.error(
                    &format!("{path}.args.hardPodAffinityWeight"),
                    format!("Invalid value: {weight}: not in valid range [0, 100]"),
                ));
            }
            self.profile.hard_pod_affinity_weight = weight;
        }
        if args.ignore_preferred_terms_of_existing_pods {
            self.warn(
                "InterPodAffinity ignorePreferredTermsOfExistingPods not modelled: existing pods' preferred terms still score"
                    .into(),
            );
        }
        Ok(())
    }

    /// `PodTopologySpreadArgs`, validated as upstream's `ValidatePodTopologySpreadArgs`; v1
    /// defaults `defaultingType` to System.
    fn spread_args(&mut self, path: &str, args: &serde_json::Value) -> Result<(), LoadError> {
        let args: SpreadArgs = self.decode(path, args)?;
        let at = |field: &str| format!("{path}.args.{field}");
        let list = match args.defaulting_type.as_deref().unwrap_or("System") {
            "System" if !args.default_constraints.is_empty() => {
                return Err(self.error(
                    &at("defaultingType"),
                    "Invalid value: \"System\": when .defaultConstraints are not empty".into(),
                ));
            }
            "System" => false,
            "List" => true,
            other => {
                return Err(self.error(
                    &at("defaultingType"),
                    format!("Unsupported value: {other:?}: supported values: \"System\", \"List\""),
                ));
            }
        };
        let mut constraints: Vec<DefaultSpread> = Vec::new();
        for (i, c) in args.default_constraints.iter().enumerate() {
            let field = |name: &str| at(&format!("defaultConstraints[{i}].{name}"));
            if c.max_skew <= 0 {
                return Err(self.error(
                    &field("maxSkew"),
                    format!("Invalid value: {}: not in valid range (0, inf)", c.max_skew),
                ));
            }
            if c.topology_key.is_empty() {
                return Err(self.error(
                    &field("topologyKey"),
                    "Required value: can not be empty".into(),
                ));
            }
            let hard = match c.when_unsatisfiable.as_str() {
                "DoNotSchedule" => true,
                "ScheduleAnyway" => false,
                "" => {
                    return Err(self.error(
                        &field("whenUnsatisfiable"),
                        "Required value: can not be empty".into(),
                    ));
                }
                other => {
                    return Err(self.error(
                        &field("whenUnsatisfiable"),
                        format!(
                            "Unsupported value: {other:?}: supported values: \"DoNotSchedule\", \"ScheduleAnyway\""
                        ),
                    ));
                }
            };
            if c.label_selector.is_some() {
                return Err(self.error(
                    &field("labelSelector"),
                    "Forbidden: constraint must not define a selector, as they deduced for each pod"
                        .into(),
                ));
            }
            if constraints
                .iter()
                .any(|d| d.topology_key == c.topology_key && d.hard == hard)
            {
                return Err(self.error(
                    &at(&format!("defaultConstraints[{i}]")),
                    format!(
                        "Duplicate value: \"{{{}, {}}}\"",
                        c.topology_key, c.when_unsatisfiable
                    ),
                ));
            }
            constraints.push(DefaultSpread {
                max_skew: i64::from(c.max_skew),
                topology_key: c.topology_key.clone(),
                hard,
                min_domains: i64::from(c.min_domains.unwrap_or(1).max(1)),
                honor_node_affinity: c.node_affinity_policy.as_deref() != Some("Ignore"),
                honor_taints: c.node_taints_policy.as_deref() == Some("Honor"),
            });
        }
        if list {
            self.profile.spread_defaulting = SpreadDefaulting::List(constraints);
        }
        Ok(())
    }

    /// `NodeResourcesBalancedAllocationArgs`: the resources it balances, each of weight 1.
    fn balanced_args(&mut self, path: &str, args: &serde_json::Value) -> Result<(), LoadError> {
        let args: BalancedArgs = self.decode(path, args)?;
        let mut seen: Vec<&str> = Vec::new();
        for (i, resource) in args.resources.iter().enumerate() {
            let field = format!("{path}.args.resources[{i}]");
            if seen.contains(&resource.name.as_str()) {
                return Err(self.error(
                    &format!("{field}.name"),
                    format!("Duplicate value: {:?}", resource.name),
                ));
            }
            seen.push(&resource.name);
            if resource.weight != 1 {
                return Err(self.error(
                    &format!("{field}.weight"),
                    format!("Invalid value: {}: must be 1", resource.weight),
                ));
            }
        }
        if !args.resources.is_empty() {
            self.profile.balanced_resources = args.resources.into_iter().map(|r| r.name).collect();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
