//! One scheduling cycle: what the pod needs is computed once (requests, resolved affinity
//! terms, topology counts), then every candidate node is filtered and the feasible ones scored.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use serde::Serialize;

use super::profile::{self, ScoringStrategyType};
use super::resources::{self, Resources, format_bytes};
use super::selector::{self, label_selector_matches, node_selector_map_matches};
use super::terms::{PodTerms, Term, TermKind};
use super::{Decision, NodeVerdict, Scheduler, host_ports, normalized_image_name};
use crate::model::{
    LabelSelector, LabelSelectorRequirement, Labels, Node, NodeSelector, Pod, Taint, Toleration,
};

const MAX_NODE_SCORE: i64 = 100;
const MB: i64 = 1024 * 1024;
const IMAGE_MIN_THRESHOLD: i64 = 23 * MB;
const IMAGE_MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

pub const REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
pub const REASON_NODE_NAME: &str = "node(s) didn't match the requested node name";
pub const REASON_TAINTS: &str = "node(s) had untolerated taint(s)";
pub const REASON_NODE_AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
/// NodeAffinity PreFilter: the `metadata.name` fields of the required terms share no node.
pub const REASON_NODE_AFFINITY_CONFLICT: &str = "pod affinity terms conflict";
/// The status upstream gives nodes a PreFilter result left out of the candidate set.
pub const REASON_NODE_AFFINITY_PRE_FILTER: &str = "node(s) didn't satisfy plugin(s) [NodeAffinity]";
pub const REASON_NODE_PORTS: &str = "node(s) didn't have free ports for the requested pod ports";
pub const REASON_TOO_MANY_PODS: &str = "Too many pods";
pub const REASON_SPREAD: &str = "node(s) didn't match pod topology spread constraints";
pub const REASON_SPREAD_LABEL: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";
pub const REASON_POD_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub const REASON_POD_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub const REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// One filter's verdict on one node, for `explain-placement --node`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterOutcome {
    pub plugin: &'static str,
    pub passed: bool,
    pub reasons: Vec<String>,
    /// The inputs that decided it, in words.
    pub detail: String,
}

/// One score on one node, with its inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreOutcome {
    pub plugin: String,
    pub raw: i64,
    pub normalized: i64,
    pub weight: i64,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeDetail {
    pub node: String,
    pub feasible: bool,
    pub filters: Vec<FilterOutcome>,
    pub scores: Vec<ScoreOutcome>,
    pub total: Option<i64>,
}

type TopologyPair = (String, String);

/// What NodeAffinity's PreFilter makes of the pod's required terms (upstream
/// `PreFilterResult`): when every term names nodes by `matchFields: metadata.name In`, only
/// those nodes are filtered at all; when those names cannot all hold, no node is.
#[derive(Debug, PartialEq)]
enum NodeNameSet {
    AllNodes,
    Only(std::collections::BTreeSet<String>),
    Conflict,
}

impl NodeNameSet {
    fn of(required: Option<&NodeSelector>) -> NodeNameSet {
        let Some(required) = required.filter(|r| !r.node_selector_terms.is_empty()) else {
            return NodeNameSet::AllNodes;
        };
        let mut union = std::collections::BTreeSet::new();
        for term in &required.node_selector_terms {
            // Requirements in a term are ANDed: intersect their name lists.
            let mut names: Option<std::collections::BTreeSet<String>> = None;
            for requirement in &term.match_fields {
                if requirement.key != "metadata.name" || requirement.operator != "In" {
                    continue;
                }
                let values = requirement.values.iter().cloned().collect();
                names = Some(match names {
                    None => values,
                    Some(names) => names.intersection(&values).cloned().collect(),
                });
            }
            // Terms are ORed: one term without names lets every node through.
            let Some(names) = names else {
                return NodeNameSet::AllNodes;
            };
            union.extend(names);
        }
        if union.is_empty() {
            NodeNameSet::Conflict
        } else {
            NodeNameSet::Only(union)
        }
    }

    fn describe(&self) -> String {
        match self {
            NodeNameSet::AllNodes => "every node is a candidate".into(),
            NodeNameSet::Only(names) => format!(
                "required terms name only node(s) {}",
                names.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            NodeNameSet::Conflict => {
                "the required terms' metadata.name fields share no node".into()
            }
        }
    }

    /// Why PreFilter left `node` out, if it did.
    fn excludes(&self, node: &str) -> Option<&'static str> {
        match self {
            NodeNameSet::AllNodes => None,
            NodeNameSet::Only(names) if names.contains(node) => None,
            NodeNameSet::Only(_) => Some(REASON_NODE_AFFINITY_PRE_FILTER),
            NodeNameSet::Conflict => Some(REASON_NODE_AFFINITY_CONFLICT),
        }
    }
}

struct SpreadConstraint {
    max_skew: i64,
    key: String,
    selector: Option<LabelSelector>,
    min_domains: i64,
    honor_node_affinity: bool,
    honor_taints: bool,
    self_match: bool,
}

pub(super) struct Cycle<'s, 'a> {
    sched: &'s Scheduler<'a>,
    pod: &'s Pod,
    requests: Resources,
    /// The pod as NodeResourcesFit's scorer sizes it: non-zero defaults, pod-level ignored.
    fit_score_requests: Resources,
    terms: PodTerms,
    problems: Vec<String>,
    /// NodeAffinity's PreFilter result: the nodes named by `matchFields: metadata.name In`.
    node_name_set: NodeNameSet,
    affinity_counts: HashMap<TopologyPair, i64>,
    anti_affinity_counts: HashMap<TopologyPair, i64>,
    existing_anti_affinity_counts: HashMap<TopologyPair, i64>,
    hard_spread: Vec<SpreadConstraint>,
    soft_spread: Vec<SpreadConstraint>,
    /// Per hard constraint: matching pods per topology value, and the global minimum.
    hard_counts: Vec<HashMap<String, i64>>,
    hard_minimum: Vec<i64>,
}

impl<'s, 'a> Cycle<'s, 'a> {
    pub(super) fn new(sched: &'s Scheduler<'a>, pod: &'s Pod) -> Self {
        let mut cycle = Cycle {
            sched,
            pod,
            requests: super::pod_requests(&pod.spec, false),
            fit_score_requests: resources::container_level_requests(&pod.spec, true),
            terms: PodTerms::of(pod),
            problems: Vec::new(),
            node_name_set: NodeNameSet::AllNodes,
            affinity_counts: HashMap::default(),
            anti_affinity_counts: HashMap::default(),
            existing_anti_affinity_counts: HashMap::default(),
            hard_spread: Vec::new(),
            soft_spread: Vec::new(),
            hard_counts: Vec::new(),
            hard_minimum: Vec::new(),
        };
        cycle.check_own_selectors();
        cycle.node_name_set = NodeNameSet::of(cycle.required_node_affinity());
        cycle.count_inter_pod_affinity();
        cycle.prepare_spread();
        cycle
    }

    /// Invalid selectors in the pod's own spec, said once per decision with their path.
    fn check_own_selectors(&mut self) {
        let affinity = self.pod.spec.affinity.as_ref();
        if let Some(required) = self.required_node_affinity() {
            for (i, term) in required.node_selector_terms.iter().enumerate() {
                if let Err(e) = selector::node_selector_term_matches(term, "", &Labels::new()) {
                    self.problems.push(format!(
                        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}].{e}"
                    ));
                }
            }
        }
        if let Some(node_affinity) = affinity.and_then(|a| a.node_affinity.as_ref()) {
            for (i, term) in node_affinity.preferred.iter().enumerate() {
                let path = format!(
                    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
                );
                if !(1..=100).contains(&term.weight) {
                    self.problems.push(format!(
                        "{path}.weight: must be in 1..100, got {}",
                        term.weight
                    ));
                }
                if let Err(e) =
                    selector::node_selector_term_matches(&term.preference, "", &Labels::new())
                {
                    self.problems.push(format!("{path}.preference.{e}"));
                }
            }
        }
        let mut term_problems = Vec::new();
        for (kind, terms) in [
            ("podAffinity.required", &self.terms.required_affinity),
            (
                "podAntiAffinity.required",
                &self.terms.required_anti_affinity,
            ),
            ("podAffinity.preferred", &self.terms.preferred_affinity),
            (
                "podAntiAffinity.preferred",
                &self.terms.preferred_anti_affinity,
            ),
        ] {
            for (i, term) in terms.iter().enumerate() {
                let no_labels = Labels::new();
                if let Err(e) = term.matches(self.pod, || &no_labels) {
                    term_problems.push(format!("spec.affinity.{kind}[{i}].labelSelector.{e}"));
                }
                if kind.ends_with("preferred") && !(1..=100).contains(&term.weight) {
                    term_problems.push(format!(
                        "spec.affinity.{kind}[{i}].weight: must be in 1..100, got {}",
                        term.weight
                    ));
                }
                if term.topology_key.is_empty() {
                    term_problems.push(format!(
                        "spec.affinity.{kind}[{i}].topologyKey: must not be empty"
                    ));
                }
            }
        }
        self.problems.extend(term_problems);
    }

    fn term_matches(&self, term: &Term, pod: &Pod) -> bool {
        term.matches(pod, || self.sched.namespace_labels(&pod.metadata.namespace))
            .unwrap_or(false)
    }

    /// Topology pairs already holding pods that the incoming pod's required terms select, and
    /// pairs where existing pods' required anti-affinity rejects the incoming pod.
    fn count_inter_pod_affinity(&mut self) {
        let sched = self.sched;
        for group in &sched.term_groups {
            if group.kind != TermKind::RequiredAnti || group.nodes.is_empty() {
                continue;
            }
            if !self.term_matches(&group.term, self.pod) {
                continue;
            }
            for (&node, &count) in &group.nodes {
                if let Some(value) = sched.node_labels(node).get(&group.term.topology_key) {
                    *self
                        .existing_anti_affinity_counts
                        .entry((group.term.topology_key.clone(), value.clone()))
                        .or_default() += count;
                }
            }
        }
        // Affinity: an existing pod counts only when it matches ALL the incoming pod's required
        // affinity terms (upstream `podMatchesAllAffinityTerms`); it then counts in every term's
        // domain. Such a pod matches the first term, so that term's namespaces hold them all.
        if let Some(first) = self.terms.required_affinity.first() {
            for placed in sched.pods_selectable_by(first) {
                let matches_all = self
                    .terms
                    .required_affinity
                    .iter()
                    .all(|term| self.term_matches(term, &placed.pod));
                if !matches_all {
                    continue;
                }
                for term in &self.terms.required_affinity {
                    if let Some(value) = sched.node_labels(placed.node).get(&term.topology_key) {
                        *self
                            .affinity_counts
                            .entry((term.topology_key.clone(), value.clone()))
                            .or_default() += 1;
                    }
                }
            }
        }
        // Anti-affinity: each term on its own.
        for term in &self.terms.required_anti_affinity {
            for placed in sched.pods_selectable_by(term) {
                if !self.term_matches(term, &placed.pod) {
                    continue;
                }
                if let Some(value) = sched.node_labels(placed.node).get(&term.topology_key) {
                    *self
                        .anti_affinity_counts
                        .entry((term.topology_key.clone(), value.clone()))
                        .or_default() += 1;
                }
            }
        }
    }

    fn prepare_spread(&mut self) {
        for constraint in &self.pod.spec.topology_spread_constraints {
            let selector = constraint.label_selector.clone().map(|mut s| {
                for key in &constraint.match_label_keys {
                    if let Some(value) = self.pod.metadata.labels.get(key) {
                        s.match_expressions.push(LabelSelectorRequirement {
                            key: key.clone(),
                            operator: "In".into(),
                            values: vec![value.clone()],
                        });
                    }
                }
                s
            });
            let self_match = selector.as_ref().is_some_and(|s| {
                label_selector_matches(s, &self.pod.metadata.labels).unwrap_or(false)
            });
            let spread = SpreadConstraint {
                max_skew: i64::from(constraint.max_skew.max(1)),
                key: constraint.topology_key.clone(),
                selector,
                min_domains: i64::from(constraint.min_domains.unwrap_or(1).max(1)),
                honor_node_affinity: constraint.node_affinity_policy.as_deref() != Some("Ignore"),
                honor_taints: constraint.node_taints_policy.as_deref() == Some("Honor"),
                self_match,
            };
            if constraint.when_unsatisfiable == "ScheduleAnyway" {
                self.soft_spread.push(spread);
            } else {
                self.hard_spread.push(spread);
            }
        }
        if self.hard_spread.is_empty() {
            return;
        }
        let sched = self.sched;
        let per_node: Vec<HashMap<usize, i64>> = self
            .hard_spread
            .iter()
            .map(|c| self.matching_pods_per_node(c.selector.as_ref()))
            .collect();
        let mut counts: Vec<HashMap<String, i64>> =
            vec![HashMap::default(); self.hard_spread.len()];
        for (index, node) in sched.state.nodes.iter().enumerate() {
            let labels = &node.metadata.labels;
            if !self.hard_spread.iter().all(|c| labels.contains_key(&c.key)) {
                continue;
            }
            for (i, constraint) in self.hard_spread.iter().enumerate() {
                if !self.passes_inclusion_policies(constraint, node) {
                    continue;
                }
                let matching = per_node[i].get(&index).copied().unwrap_or(0);
                *counts[i]
                    .entry(labels[&constraint.key].clone())
                    .or_default() += matching;
            }
        }
        self.hard_minimum = self
            .hard_spread
            .iter()
            .zip(&counts)
            .map(|(c, domains)| {
                if (domains.len() as i64) < c.min_domains {
                    0
                } else {
                    domains.values().copied().min().unwrap_or(0)
                }
            })
            .collect();
        self.hard_counts = counts;
    }

    fn passes_inclusion_policies(&self, constraint: &SpreadConstraint, node: &Node) -> bool {
        (!constraint.honor_node_affinity || self.node_affinity_matches(node))
            && (!constraint.honor_taints
                || untolerated_taint(node, &self.pod.spec.tolerations).is_none())
    }

    /// Pods in the incoming pod's namespace that `selector` selects, counted per node (a
    /// missing selector selects nothing).
    fn matching_pods_per_node(&self, selector: Option<&LabelSelector>) -> HashMap<usize, i64> {
        let mut counts: HashMap<usize, i64> = HashMap::default();
        let Some(selector) = selector else {
            return counts;
        };
        for placed in self
            .sched
            .pods_in_namespaces(vec![&self.pod.metadata.namespace])
        {
            if label_selector_matches(selector, &placed.pod.metadata.labels).unwrap_or(false) {
                *counts.entry(placed.node).or_default() += 1;
            }
        }
        counts
    }

    fn required_node_affinity(&self) -> Option<&'s NodeSelector> {
        self.pod
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required.as_ref())
    }

    fn node_affinity_matches(&self, node: &Node) -> bool {
        let labels = &node.metadata.labels;
        if !node_selector_map_matches(&self.pod.spec.node_selector, labels) {
            return false;
        }
        match self.required_node_affinity() {
            Some(required) => {
                selector::node_selector_matches(required, &node.metadata.name, labels).0
            }
            None => true,
        }
    }

    /// Run the filters in upstream order on one node, stopping at the first failure unless
    /// `all` is set.
    fn filter(&self, index: usize, all: bool) -> Vec<(&'static str, Vec<String>)> {
        let mut outcomes = Vec::new();
        for plugin in super::FILTER_ORDER {
            let reasons = self.run_filter(plugin, index);
            let failed = !reasons.is_empty();
            outcomes.push((plugin, reasons));
            if failed && !all {
                break;
            }
        }
        outcomes
    }

    fn run_filter(&self, plugin: &str, index: usize) -> Vec<String> {
        let node = &self.sched.state.nodes[index];
        let fail = |reason: &str| vec![reason.to_string()];
        match plugin {
            "NodeUnschedulable" => {
                let tolerated = self.pod.spec.tolerations.iter().any(|t| {
                    tolerates(
                        t,
                        &Taint {
                            key: "node.kubernetes.io/unschedulable".into(),
                            value: String::new(),
                            effect: "NoSchedule".into(),
                        },
                    )
                });
                if node.spec.unschedulable && !tolerated {
                    return fail(REASON_UNSCHEDULABLE);
                }
                vec![]
            }
            "NodeName" => {
                let wanted = &self.pod.spec.node_name;
                if !wanted.is_empty() && *wanted != node.metadata.name {
                    return fail(REASON_NODE_NAME);
                }
                vec![]
            }
            "TaintToleration" => match untolerated_taint(node, &self.pod.spec.tolerations) {
                Some(_) => fail(REASON_TAINTS),
                None => vec![],
            },
            "NodeAffinity" => {
                if self.node_affinity_matches(node) {
                    vec![]
                } else {
                    fail(REASON_NODE_AFFINITY)
                }
            }
            "NodePorts" => {
                let used = &self.sched.nodes[index].used_ports;
                let conflict = host_ports(self.pod).iter().any(|(proto, ip, port)| {
                    used.iter().any(|(p, i, n)| {
                        p == proto && n == port && (i == ip || i == "0.0.0.0" || ip == "0.0.0.0")
                    })
                });
                if conflict {
                    fail(REASON_NODE_PORTS)
                } else {
                    vec![]
                }
            }
            "NodeResourcesFit" => self.resources_fit(index),
            "PodTopologySpread" => self.spread_filter(node),
            "InterPodAffinity" => self.inter_pod_affinity_filter(node),
            _ => vec![],
        }
    }

    fn resources_fit(&self, index: usize) -> Vec<String> {
        let info = &self.sched.nodes[index];
        let mut reasons = Vec::new();
        if info.pods.len() as i64 + 1 > self.sched.max_pods(index) {
            reasons.push(REASON_TOO_MANY_PODS.to_string());
        }
        let req = &self.requests;
        let (alloc, used) = (&info.allocatable, &info.requested);
        for (name, wanted, free) in [
            ("cpu", req.milli_cpu, alloc.milli_cpu - used.milli_cpu),
            ("memory", req.memory, alloc.memory - used.memory),
            (
                "ephemeral-storage",
                req.ephemeral_storage,
                alloc.ephemeral_storage - used.ephemeral_storage,
            ),
        ] {
            if wanted > 0 && wanted > free {
                reasons.push(format!("Insufficient {name}"));
            }
        }
        for (name, &wanted) in &req.scalar {
            if wanted > 0 && wanted > alloc.scalar(name) - used.scalar(name) {
                reasons.push(format!("Insufficient {name}"));
            }
        }
        reasons
    }

    fn spread_filter(&self, node: &Node) -> Vec<String> {
        for (i, constraint) in self.hard_spread.iter().enumerate() {
            let Some(value) = node.metadata.labels.get(&constraint.key) else {
                return vec![REASON_SPREAD_LABEL.to_string()];
            };
            let matching = self.hard_counts[i].get(value).copied().unwrap_or(0);
            let skew = matching + i64::from(constraint.self_match) - self.hard_minimum[i];
            if skew > constraint.max_skew {
                return vec![REASON_SPREAD.to_string()];
            }
        }
        vec![]
    }

    fn inter_pod_affinity_filter(&self, node: &Node) -> Vec<String> {
        let labels = &node.metadata.labels;
        let mut pods_exist = true;
        for term in &self.terms.required_affinity {
            let Some(value) = labels.get(&term.topology_key) else {
                return vec![REASON_POD_AFFINITY.to_string()];
            };
            let pair = (term.topology_key.clone(), value.clone());
            if self.affinity_counts.get(&pair).copied().unwrap_or(0) <= 0 {
                pods_exist = false;
            }
        }
        // The first pod of a group with affinity to itself may go anywhere: nothing matches
        // yet, and it matches its own terms.
        let first_of_its_group = self.affinity_counts.is_empty()
            && self
                .terms
                .required_affinity
                .iter()
                .all(|t| self.term_matches(t, self.pod));
        if !pods_exist && !first_of_its_group {
            return vec![REASON_POD_AFFINITY.to_string()];
        }
        for term in &self.terms.required_anti_affinity {
            if let Some(value) = labels.get(&term.topology_key) {
                let pair = (term.topology_key.clone(), value.clone());
                if self.anti_affinity_counts.get(&pair).copied().unwrap_or(0) > 0 {
                    return vec![REASON_POD_ANTI_AFFINITY.to_string()];
                }
            }
        }
        for ((key, value), count) in &self.existing_anti_affinity_counts {
            if *count > 0 && labels.get(key) == Some(value) {
                return vec![REASON_EXISTING_ANTI_AFFINITY.to_string()];
            }
        }
        vec![]
    }

    pub(super) fn decide(&self, candidates: &[usize]) -> Decision {
        let mut verdicts: Vec<NodeVerdict> = candidates
            .iter()
            .map(|&index| {
                let name = &self.sched.state.nodes[index].metadata.name;
                if let Some(reason) = self.node_name_set.excludes(name) {
                    return NodeVerdict {
                        name: name.clone(),
                        index,
                        feasible: false,
                        reasons: vec![reason.to_string()],
                        failed_plugin: Some(profile::NODE_AFFINITY),
                        scores: BTreeMap::new(),
                        score: None,
                    };
                }
                let outcomes = self.filter(index, false);
                let failed = outcomes.iter().find(|(_, reasons)| !reasons.is_empty());
                NodeVerdict {
                    name: self.sched.state.nodes[index].metadata.name.clone(),
                    index,
                    feasible: failed.is_none(),
                    reasons: failed.map(|(_, r)| r.clone()).unwrap_or_default(),
                    failed_plugin: failed.map(|(p, _)| *p),
                    scores: BTreeMap::new(),
                    score: None,
                }
            })
            .collect();
        let feasible: Vec<usize> = verdicts
            .iter()
            .filter(|v| v.feasible)
            .map(|v| v.index)
            .collect();
        let scored = self.score(&feasible);
        let mut best: Option<i64> = None;
        for verdict in verdicts.iter_mut().filter(|v| v.feasible) {
            let (scores, total) = scored.totals(verdict.index);
            verdict.scores = scores;
            verdict.score = Some(total);
            best = Some(best.map_or(total, |b| b.max(total)));
        }
        let mut tied: Vec<String> = verdicts
            .iter()
            .filter(|v| v.score.is_some() && v.score == best)
            .map(|v| v.name.clone())
            .collect();
        tied.sort();
        let selected = tied.first().cloned();
        // A PreFilter rejection is said once, not counted per node (upstream FitError).
        let summary = selected.is_none().then(|| {
            if self.node_name_set == NodeNameSet::Conflict {
                format!(
                    "0/{} nodes are available: {REASON_NODE_AFFINITY_CONFLICT}.",
                    candidates.len()
                )
            } else {
                super::unschedulable_summary(candidates.len(), &verdicts)
            }
        });
        Decision {
            nodes: verdicts,
            selected,
            tied: if tied.len() > 1 { tied } else { Vec::new() },
            summary,
            problems: self.problems.clone(),
        }
    }

    pub(super) fn explain_node(&self, index: usize, decision: &Decision) -> NodeDetail {
        let node = &self.sched.state.nodes[index];
        if let Some(reason) = self.node_name_set.excludes(&node.metadata.name) {
            // Left out at PreFilter: upstream runs no filter on it.
            return NodeDetail {
                node: node.metadata.name.clone(),
                feasible: false,
                filters: vec![FilterOutcome {
                    plugin: profile::NODE_AFFINITY,
                    passed: false,
                    reasons: vec![reason.to_string()],
                    detail: format!("PreFilter: {}", self.node_name_set.describe()),
                }],
                scores: Vec::new(),
                total: None,
            };
        }
        let filters: Vec<FilterOutcome> = self
            .filter(index, true)
            .into_iter()
            .map(|(plugin, reasons)| FilterOutcome {
                plugin,
                passed: reasons.is_empty(),
                detail: self.describe_filter(plugin, index),
                reasons,
            })
            .collect();
        let feasible = filters.iter().all(|f| f.passed);
        let mut feasible_nodes: Vec<usize> = decision
            .nodes
            .iter()
            .filter(|v| v.feasible)
            .map(|v| v.index)
            .collect();
        if !feasible_nodes.contains(&index) {
            feasible_nodes.push(index);
        }
        let scored = self.score(&feasible_nodes);
        let scores = scored
            .plugins
            .iter()
            .map(|p| ScoreOutcome {
                plugin: p.name.to_string(),
                raw: p.raw.get(&index).copied().unwrap_or(0),
                normalized: p.normalized.get(&index).copied().unwrap_or(0),
                weight: p.weight,
                detail: self.describe_score(p.name, index),
            })
            .collect();
        NodeDetail {
            node: node.metadata.name.clone(),
            feasible,
            filters,
            scores,
            total: feasible.then(|| scored.totals(index).1),
        }
    }

    fn describe_filter(&self, plugin: &str, index: usize) -> String {
        let node = &self.sched.state.nodes[index];
        let info = &self.sched.nodes[index];
        match plugin {
            "NodeUnschedulable" => format!("node unschedulable: {}", node.spec.unschedulable),
            "NodeName" if self.pod.spec.node_name.is_empty() => "pod names no node".into(),
            "NodeName" => format!("pod asks for node {:?}", self.pod.spec.node_name),
            "TaintToleration" => match untolerated_taint(node, &self.pod.spec.tolerations) {
                Some(t) => format!("untolerated taint {}={}:{}", t.key, t.value, t.effect),
                None => format!(
                    "{} taint(s), all NoSchedule/NoExecute ones tolerated",
                    node.spec.taints.len()
                ),
            },
            "NodeAffinity" => format!(
                "nodeSelector {:?}; required node affinity {}",
                self.pod.spec.node_selector,
                if self.required_node_affinity().is_some() {
                    "set"
                } else {
                    "unset"
                }
            ),
            "NodePorts" => format!(
                "{} host port(s) requested, {} in use on the node",
                host_ports(self.pod).len(),
                info.used_ports.len()
            ),
            "NodeResourcesFit" => format!(
                "cpu {}m requested + {}m used of {}m; memory {} + {} of {}; pods {} of {}",
                self.requests.milli_cpu,
                info.requested.milli_cpu,
                info.allocatable.milli_cpu,
                format_bytes(self.requests.memory),
                format_bytes(info.requested.memory),
                format_bytes(info.allocatable.memory),
                info.pods.len(),
                self.sched.max_pods(index)
            ),
            "PodTopologySpread" => {
                format!("{} DoNotSchedule constraint(s)", self.hard_spread.len())
            }
            "InterPodAffinity" => format!(
                "{} required affinity term(s), {} required anti-affinity term(s), {} existing pod(s) with anti-affinity against this pod",
                self.terms.required_affinity.len(),
                self.terms.required_anti_affinity.len(),
                self.existing_anti_affinity_counts.values().sum::<i64>()
            ),
            _ => String::new(),
        }
    }

    fn describe_score(&self, plugin: &str, index: usize) -> String {
        let node = &self.sched.state.nodes[index];
        let info = &self.sched.nodes[index];
        match plugin {
            profile::TAINT_TOLERATION => format!(
                "{} untolerated PreferNoSchedule taint(s)",
                self.intolerable_prefer_no_schedule(node)
            ),
            profile::NODE_AFFINITY => "sum of the weights of matching preferred terms".into(),
            profile::NODE_RESOURCES_FIT => format!(
                "{:?}: cpu {}m of {}m, memory {} of {} after placing (non-zero requests)",
                self.sched.profile.strategy,
                info.non_zero_requested.milli_cpu + self.fit_score_requests.milli_cpu,
                info.allocatable.milli_cpu,
                format_bytes(info.non_zero_requested.memory + self.fit_score_requests.memory),
                format_bytes(info.allocatable.memory)
            ),
            profile::BALANCED_ALLOCATION => {
                "1 - standard deviation of cpu and memory fractions".into()
            }
            profile::IMAGE_LOCALITY => {
                "size of the pod's images present on the node, scaled by spread".into()
            }
            profile::INTER_POD_AFFINITY => {
                "sum of matching preferred (anti-)affinity weights in the node's domains".into()
            }
            profile::POD_TOPOLOGY_SPREAD => {
                "fewer matching pods in the node's domains score higher".into()
            }
            _ => String::new(),
        }
    }

    fn intolerable_prefer_no_schedule(&self, node: &Node) -> i64 {
        let tolerations: Vec<&Toleration> = self
            .pod
            .spec
            .tolerations
            .iter()
            .filter(|t| t.effect.is_empty() || t.effect == "PreferNoSchedule")
            .collect();
        node.spec
            .taints
            .iter()
            .filter(|t| t.effect == "PreferNoSchedule")
            .filter(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
            .count() as i64
    }

    fn score(&self, feasible: &[usize]) -> Scored {
        let profile = &self.sched.profile;
        let mut plugins = Vec::new();
        for (name, weight) in &profile.score_weights {
            let raw: HashMap<usize, i64> = match name.as_str() {
                profile::TAINT_TOLERATION => feasible
                    .iter()
                    .map(|&i| {
                        (
                            i,
                            self.intolerable_prefer_no_schedule(&self.sched.state.nodes[i]),
                        )
                    })
                    .collect(),
                profile::NODE_AFFINITY => feasible
                    .iter()
                    .map(|&i| (i, self.preferred_node_affinity(i)))
                    .collect(),
                profile::NODE_RESOURCES_FIT => feasible
                    .iter()
                    .map(|&i| (i, self.resource_fit_score(i)))
                    .collect(),
                profile::BALANCED_ALLOCATION => feasible
                    .iter()
                    .map(|&i| (i, self.balanced_score(i)))
                    .collect(),
                profile::IMAGE_LOCALITY => {
                    feasible.iter().map(|&i| (i, self.image_score(i))).collect()
                }
                profile::INTER_POD_AFFINITY => self.inter_pod_affinity_scores(feasible),
                profile::POD_TOPOLOGY_SPREAD => self.spread_scores(feasible),
                _ => continue,
            };
            let normalized = match name.as_str() {
                profile::TAINT_TOLERATION => default_normalize(&raw, true),
                profile::NODE_AFFINITY => default_normalize(&raw, false),
                profile::INTER_POD_AFFINITY => min_max_normalize(&raw),
                profile::POD_TOPOLOGY_SPREAD => raw.clone(),
                _ => raw.clone(),
            };
            plugins.push(PluginScores {
                name: profile_name(name),
                weight: *weight,
                raw,
                normalized,
            });
        }
        Scored { plugins }
    }

    fn preferred_node_affinity(&self, index: usize) -> i64 {
        let node = &self.sched.state.nodes[index];
        self.pod
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .map(|n| {
                n.preferred
                    .iter()
                    .filter(|t| t.weight != 0)
                    .filter(|t| {
                        selector::node_selector_term_matches(
                            &t.preference,
                            &node.metadata.name,
                            &node.metadata.labels,
                        )
                        .unwrap_or(false)
                    })
                    .map(|t| i64::from(t.weight))
                    .sum()
            })
            .unwrap_or(0)
    }

    fn resource_fit_score(&self, index: usize) -> i64 {
        let info = &self.sched.nodes[index];
        let (mut total, mut weights) = (0, 0);
        for (name, weight) in &self.sched.profile.fit_resources {
            let is_native = matches!(name.as_str(), "cpu" | "memory");
            // Extended resources the pod does not ask for are not scored.
            if !is_native && self.fit_score_requests.get(name) == 0 {
                continue;
            }
            let capacity = info.allocatable.get(name);
            if capacity == 0 {
                continue;
            }
            let requested = if is_native {
                info.non_zero_requested.get(name) + self.fit_score_requests.get(name)
            } else {
                info.requested.get(name) + self.fit_score_requests.get(name)
            };
            let score = match self.sched.profile.strategy {
                ScoringStrategyType::LeastAllocated if requested > capacity => 0,
                ScoringStrategyType::LeastAllocated => {
                    (capacity - requested) * MAX_NODE_SCORE / capacity
                }
                ScoringStrategyType::MostAllocated => {
                    requested.min(capacity) * MAX_NODE_SCORE / capacity
                }
            };
            total += score * weight;
            weights += weight;
        }
        if weights == 0 { 0 } else { total / weights }
    }

    fn balanced_score(&self, index: usize) -> i64 {
        // Best-effort pods are not scored: otherwise they would all pile onto one node.
        if self.requests.milli_cpu == 0 && self.requests.memory == 0 {
            return 0;
        }
        let info = &self.sched.nodes[index];
        let fractions: Vec<f64> = [
            (
                info.requested.milli_cpu + self.requests.milli_cpu,
                info.allocatable.milli_cpu,
            ),
            (
                info.requested.memory + self.requests.memory,
                info.allocatable.memory,
            ),
        ]
        .into_iter()
        .filter(|(_, capacity)| *capacity != 0)
        .map(|(requested, capacity)| (requested as f64 / capacity as f64).min(1.0))
        .collect();
        let std = match fractions.as_slice() {
            [a, b] => ((a - b) / 2.0).abs(),
            _ => 0.0,
        };
        ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
    }

    fn image_score(&self, index: usize) -> i64 {
        let spec = &self.pod.spec;
        let containers = spec.containers.len() + spec.init_containers.len();
        if containers == 0 {
            return 0;
        }
        let total_nodes = self.sched.state.nodes.len().max(1) as f64;
        let sum: i64 = spec
            .init_containers
            .iter()
            .chain(&spec.containers)
            .filter_map(|c| {
                let name = normalized_image_name(&c.image);
                let size = self.sched.node_images[index].get(&name)?;
                let spread = self.sched.images.get(&name).map_or(1, |(_, n)| *n) as f64;
                Some((*size as f64 * spread / total_nodes) as i64)
            })
            .sum();
        let max = IMAGE_MAX_CONTAINER_THRESHOLD * containers as i64;
        let clamped = sum.clamp(IMAGE_MIN_THRESHOLD, max);
        MAX_NODE_SCORE * (clamped - IMAGE_MIN_THRESHOLD) / (max - IMAGE_MIN_THRESHOLD)
    }

    fn inter_pod_affinity_scores(&self, feasible: &[usize]) -> HashMap<usize, i64> {
        let sched = self.sched;
        let hard_weight = sched.profile.hard_pod_affinity_weight;
        // key -> value -> score: a node then looks up its own value per key instead of
        // scanning every pair (thousands with hostname terms).
        let mut topology_score: HashMap<String, HashMap<String, i64>> = HashMap::default();
        let mut add = |labels: &Labels, key: &str, weight: i64| {
            if let Some(value) = labels.get(key) {
                let by_value = match topology_score.get_mut(key) {
                    Some(by_value) => by_value,
                    None => topology_score.entry(key.to_string()).or_default(),
                };
                match by_value.get_mut(value) {
                    Some(score) => *score += weight,
                    None => {
                        by_value.insert(value.clone(), weight);
                    }
                }
            }
        };
        for (terms, sign) in [
            (&self.terms.preferred_affinity, 1),
            (&self.terms.preferred_anti_affinity, -1),
        ] {
            for term in terms {
                for placed in sched.pods_selectable_by(term) {
                    if self.term_matches(term, &placed.pod) {
                        add(
                            sched.node_labels(placed.node),
                            &term.topology_key,
                            sign * term.weight,
                        );
                    }
                }
            }
        }
        // Existing pods' terms towards the incoming pod, one check per distinct term.
        for group in &sched.term_groups {
            let weight = match group.kind {
                TermKind::Required => hard_weight,
                TermKind::Preferred => group.term.weight,
                TermKind::PreferredAnti => -group.term.weight,
                TermKind::RequiredAnti => 0,
            };
            if weight == 0 || group.nodes.is_empty() || !self.term_matches(&group.term, self.pod) {
                continue;
            }
            for (&node, &count) in &group.nodes {
                add(
                    sched.node_labels(node),
                    &group.term.topology_key,
                    weight * count,
                );
            }
        }
        feasible
            .iter()
            .map(|&i| {
                let labels = sched.node_labels(i);
                let score = topology_score
                    .iter()
                    .filter_map(|(key, by_value)| by_value.get(labels.get(key)?))
                    .sum();
                (i, score)
            })
            .collect()
    }

    /// Soft constraints: fewer matching pods in a node's domains is better; weighted by
    /// log(domain count + 2); nodes missing a key score 0.
    fn spread_scores(&self, feasible: &[usize]) -> HashMap<usize, i64> {
        let sched = self.sched;
        let constraints = &self.soft_spread;
        if constraints.is_empty() {
            return feasible.iter().map(|&i| (i, 0)).collect();
        }
        let has_all_keys =
            |labels: &Labels| constraints.iter().all(|c| labels.contains_key(&c.key));
        let scored_nodes: Vec<usize> = feasible
            .iter()
            .copied()
            .filter(|&i| has_all_keys(sched.node_labels(i)))
            .collect();
        let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::default(); constraints.len()];
        for &i in &scored_nodes {
            for (c, constraint) in constraints.iter().enumerate() {
                counts[c]
                    .entry(sched.node_labels(i)[&constraint.key].clone())
                    .or_insert(0);
            }
        }
        let weights: Vec<f64> = constraints
            .iter()
            .enumerate()
            .map(|(c, constraint)| {
                let size = if constraint.key == "kubernetes.io/hostname" {
                    scored_nodes.len()
                } else {
                    counts[c].len()
                };
                ((size + 2) as f64).ln()
            })
            .collect();
        let per_node: Vec<HashMap<usize, i64>> = constraints
            .iter()
            .map(|c| self.matching_pods_per_node(c.selector.as_ref()))
            .collect();
        for (index, node) in sched.state.nodes.iter().enumerate() {
            let labels = &node.metadata.labels;
            // Node inclusion policies (on by default since v1.33) replace the plain node
            // affinity check: with `nodeAffinityPolicy: Ignore` unmatched nodes count too.
            if !has_all_keys(labels) {
                continue;
            }
            for (c, constraint) in constraints.iter().enumerate() {
                if constraint.key == "kubernetes.io/hostname"
                    || !self.passes_inclusion_policies(constraint, node)
                {
                    continue;
                }
                if let Some(count) = counts[c].get_mut(&labels[&constraint.key]) {
                    *count += per_node[c].get(&index).copied().unwrap_or(0);
                }
            }
        }
        let raw: HashMap<usize, i64> = scored_nodes
            .iter()
            .map(|&i| {
                let labels = sched.node_labels(i);
                let score: f64 = constraints
                    .iter()
                    .enumerate()
                    .map(|(c, constraint)| {
                        let count = if constraint.key == "kubernetes.io/hostname" {
                            per_node[c].get(&i).copied().unwrap_or(0)
                        } else {
                            counts[c][&labels[&constraint.key]]
                        };
                        count as f64 * weights[c] + (constraint.max_skew - 1) as f64
                    })
                    .sum();
                (i, score.round() as i64)
            })
            .collect();
        let min = raw.values().copied().min().unwrap_or(0);
        let max = raw.values().copied().max().unwrap_or(0);
        feasible
            .iter()
            .map(|&i| {
                let score = match raw.get(&i) {
                    None => 0,
                    Some(_) if max == 0 => MAX_NODE_SCORE,
                    Some(&s) => MAX_NODE_SCORE * (max + min - s) / max,
                };
                (i, score)
            })
            .collect()
    }
}

struct PluginScores {
    name: &'static str,
    weight: i64,
    raw: HashMap<usize, i64>,
    normalized: HashMap<usize, i64>,
}

struct Scored {
    plugins: Vec<PluginScores>,
}

impl Scored {
    fn totals(&self, index: usize) -> (BTreeMap<&'static str, i64>, i64) {
        let mut scores = BTreeMap::new();
        let mut total = 0;
        for p in &self.plugins {
            let s = p.normalized.get(&index).copied().unwrap_or(0);
            scores.insert(p.name, s);
            total += s * p.weight;
        }
        (scores, total)
    }
}

fn profile_name(name: &str) -> &'static str {
    profile::DEFAULT_SCORE_WEIGHTS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(n, _)| n)
}

/// Upstream's DefaultNormalizeScore: scale to 0..100 by the maximum; `reverse` flips it.
fn default_normalize(raw: &HashMap<usize, i64>, reverse: bool) -> HashMap<usize, i64> {
    let max = raw.values().copied().max().unwrap_or(0);
    raw.iter()
        .map(|(&i, &s)| {
            let score = if max == 0 {
                if reverse { MAX_NODE_SCORE } else { s }
            } else {
                let scaled = MAX_NODE_SCORE * s / max;
                if reverse {
                    MAX_NODE_SCORE - scaled
                } else {
                    scaled
                }
            };
            (i, score)
        })
        .collect()
}

/// InterPodAffinity's normalisation: min..max to 0..100; all equal gives 0.
fn min_max_normalize(raw: &HashMap<usize, i64>) -> HashMap<usize, i64> {
    let min = raw.values().copied().min().unwrap_or(0);
    let max = raw.values().copied().max().unwrap_or(0);
    raw.iter()
        .map(|(&i, &s)| {
            let score = if max > min {
                (MAX_NODE_SCORE as f64 * (s - min) as f64 / (max - min) as f64) as i64
            } else {
                0
            };
            (i, score)
        })
        .collect()
}

/// Upstream's ToleratesTaint.
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    if !toleration.effect.is_empty() && toleration.effect != taint.effect {
        return false;
    }
    if !toleration.key.is_empty() && toleration.key != taint.key {
        return false;
    }
    match toleration.operator.as_str() {
        "" | "Equal" => toleration.value == taint.value,
        "Exists" => true,
        _ => false,
    }
}

/// The first NoSchedule/NoExecute taint no toleration covers.
pub fn untolerated_taint<'n>(node: &'n Node, tolerations: &[Toleration]) -> Option<&'n Taint> {
    node.spec.taints.iter().find(|taint| {
        matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
            && !tolerations.iter().any(|t| tolerates(t, taint))
    })
}
