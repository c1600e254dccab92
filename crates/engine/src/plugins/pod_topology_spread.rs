//! PodTopologySpread: DoNotSchedule constraints bound the skew of matching pods across
//! topology domains (PreFilter counts, Filter checks); ScheduleAnyway constraints prefer the
//! emptier domains (PreScore counts the domains of feasible nodes, Score, NormalizeScore).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::taint_toleration::untolerated_taint;
use crate::framework::{Code, Context, Filter, MAX_NODE_SCORE, PreFilter, PreScore, Score, Status};
use crate::profile::{DefaultSpread, SpreadDefaulting};
use crate::selector::label_selector_matches;
use df_model::{LabelSelector, LabelSelectorRequirement, Labels, Node, Pod};

pub const REASON: &str = "node(s) didn't match pod topology spread constraints";
pub(crate) const REASON_LABEL: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";
const HOSTNAME: &str = "kubernetes.io/hostname";

/// The system default constraints' topology keys and maxSkew (`systemDefaultConstraints`).
const SYSTEM_DEFAULTS: [(&str, i64); 2] = [(HOSTNAME, 3), ("topology.kubernetes.io/zone", 5)];

/// Upstream `helper.DefaultSelector`: the selectors of the Services of the pod's namespace that
/// select it (merged; a later Service's value wins), narrowed by the selector of its controller
/// when that is a ReplicaSet or a StatefulSet (looked up by name). `None` when that selects by
/// nothing: no default spreading then.
fn default_selector(cx: &Context) -> Option<LabelSelector> {
    let pod = cx.pod;
    let namespace = &pod.metadata.namespace;
    let mut selector = LabelSelector::default();
    for service in cx.sched.services_in(namespace) {
        if service.selects(&pod.metadata.labels)
            && let Some(labels) = &service.spec.selector
        {
            for (key, value) in labels.iter() {
                selector.match_labels.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(owner) = &pod.metadata.controller
        && let Some(controller) = cx
            .sched
            .controller(owner.kind.as_str(), namespace, &owner.name)
        && let Some(own) = &controller.selector
    {
        // `selector.Add(requirements...)`: its labels as `In` requirements, then its expressions.
        for (key, value) in own.match_labels.iter() {
            selector.match_expressions.push(LabelSelectorRequirement {
                key: key.to_string(),
                operator: "In".into(),
                values: vec![value.to_string()],
            });
        }
        selector
            .match_expressions
            .extend(own.match_expressions.iter().cloned());
    }
    (!selector.is_empty()).then_some(selector)
}

struct Constraint {
    max_skew: i64,
    key: String,
    selector: Option<LabelSelector>,
    min_domains: i64,
    honor_node_affinity: bool,
    honor_taints: bool,
    self_match: bool,
}

impl Constraint {
    /// The pod's constraints of one kind (`ScheduleAnyway` or not), with `matchLabelKeys`
    /// folded into the selector.
    fn of_pod(cx: &Context, soft: bool) -> Vec<Constraint> {
        let pod = cx.pod;
        pod.spec
            .topology_spread_constraints
            .iter()
            .filter(|c| (c.when_unsatisfiable == "ScheduleAnyway") == soft)
            .map(|constraint| {
                let selector = constraint.label_selector.clone().map(|mut s| {
                    for key in &constraint.match_label_keys {
                        if let Some(value) = pod.metadata.labels.get(key) {
                            s.match_expressions.push(LabelSelectorRequirement {
                                key: key.clone(),
                                operator: "In".into(),
                                values: vec![value.to_string()],
                            });
                        }
                    }
                    s
                });
                let self_match = selector.as_ref().is_some_and(|s| {
                    label_selector_matches(s, &pod.metadata.labels).unwrap_or(false)
                });
                Constraint {
                    max_skew: i64::from(constraint.max_skew.max(1)),
                    key: constraint.topology_key.clone(),
                    selector,
                    min_domains: i64::from(constraint.min_domains.unwrap_or(1).max(1)),
                    honor_node_affinity: constraint.node_affinity_policy.as_deref()
                        != Some("Ignore"),
                    honor_taints: constraint.node_taints_policy.as_deref() == Some("Honor"),
                    self_match,
                }
            })
            .collect()
    }

    /// The pod's constraints of one kind: its own when it has any, else the profile's default
    /// constraints of that kind (upstream `buildDefaultConstraints`), which select the pod's
    /// peers by [`default_selector`] and are none when that selector is empty.
    fn for_pod(cx: &Context, soft: bool) -> Vec<Constraint> {
        if !cx.pod.spec.topology_spread_constraints.is_empty() {
            return Constraint::of_pod(cx, soft);
        }
        let system;
        let defaults = match &cx.profile.spread_defaulting {
            SpreadDefaulting::System => {
                system = SYSTEM_DEFAULTS.map(|(key, max_skew)| DefaultSpread {
                    max_skew,
                    topology_key: key.to_string(),
                    hard: false,
                    min_domains: 1,
                    honor_node_affinity: true,
                    honor_taints: false,
                });
                &system[..]
            }
            SpreadDefaulting::List(list) => &list[..],
        };
        let wanted: Vec<&DefaultSpread> = defaults.iter().filter(|d| d.hard != soft).collect();
        if wanted.is_empty() {
            return Vec::new();
        }
        let Some(selector) = default_selector(cx) else {
            return Vec::new();
        };
        let self_match =
            label_selector_matches(&selector, &cx.pod.metadata.labels).unwrap_or(false);
        wanted
            .into_iter()
            .map(|d| Constraint {
                max_skew: d.max_skew,
                key: d.topology_key.clone(),
                selector: Some(selector.clone()),
                min_domains: d.min_domains,
                honor_node_affinity: d.honor_node_affinity,
                honor_taints: d.honor_taints,
                self_match,
            })
            .collect()
    }

    /// Upstream `matchNodeInclusionPolicies`: whether the node's pods count for this constraint.
    fn includes(&self, cx: &Context, node: &Node) -> bool {
        (!self.honor_node_affinity || cx.node_affinity_matches(node))
            && (!self.honor_taints || untolerated_taint(node, &cx.pod.spec.tolerations).is_none())
    }

    /// Pods in the incoming pod's namespace the selector selects, per node, as upstream's
    /// `countPodsMatchSelector`: a missing selector selects nothing, and so does an empty one
    /// (`labelSelector: {}`, though it matches the incoming pod itself); terminating pods are
    /// leaving and do not count (kubernetes#87621), though they still hold their resources.
    fn matching_pods_per_node(&self, cx: &Context) -> HashMap<usize, i64> {
        let mut counts: HashMap<usize, i64> = HashMap::default();
        let Some(selector) = self.selector.as_ref().filter(|s| !s.is_empty()) else {
            return counts;
        };
        for placed in cx
            .sched
            .pods_in_namespace_selectable_by(&cx.pod.metadata.namespace, selector)
        {
            if self.counts(cx, &placed.pod) {
                *counts.entry(placed.node).or_default() += 1;
            }
        }
        counts
    }

    /// Whether `pod`, wherever it is placed, counts for this constraint of the incoming pod:
    /// in its namespace, selected, and not terminating.
    fn counts(&self, cx: &Context, pod: &Pod) -> bool {
        let Some(selector) = self.selector.as_ref().filter(|s| !s.is_empty()) else {
            return false;
        };
        pod.metadata.namespace == cx.pod.metadata.namespace
            && !pod.is_terminating()
            && label_selector_matches(selector, &pod.metadata.labels).unwrap_or(false)
    }
}

/// Whether the pod has a ScheduleAnyway constraint, its own or the profile's default: its
/// scores then depend on the domains of every feasible node.
pub(crate) fn spreads_softly(cx: &Context) -> bool {
    !Constraint::for_pod(cx, true).is_empty()
}

fn has_all_keys(constraints: &[Constraint], labels: &Labels) -> bool {
    constraints.iter().all(|c| labels.contains_key(&c.key))
}

/// PreFilter state: per DoNotSchedule constraint, matching pods per domain and the minimum.
pub(crate) struct HardSpread {
    constraints: Vec<Constraint>,
    counts: Vec<HashMap<String, i64>>,
    minimum: Vec<i64>,
}

impl PreFilter for HardSpread {
    fn pre_filter(cx: &Context) -> Self {
        let constraints = Constraint::for_pod(cx, false);
        if constraints.is_empty() {
            return HardSpread {
                constraints,
                counts: Vec::new(),
                minimum: Vec::new(),
            };
        }
        let per_node: Vec<HashMap<usize, i64>> = constraints
            .iter()
            .map(|c| c.matching_pods_per_node(cx))
            .collect();
        let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::default(); constraints.len()];
        for (index, node) in cx.sched.state.nodes.iter().enumerate() {
            let labels = &node.metadata.labels;
            if !has_all_keys(&constraints, labels) {
                continue;
            }
            for (i, constraint) in constraints.iter().enumerate() {
                if !constraint.includes(cx, node) {
                    continue;
                }
                let matching = per_node[i].get(&index).copied().unwrap_or(0);
                // Most nodes share their domain with others: only its first node names it.
                let domain = labels[&constraint.key].as_str();
                match counts[i].get_mut(domain) {
                    Some(count) => *count += matching,
                    None => {
                        counts[i].insert(domain.to_string(), matching);
                    }
                }
            }
        }
        let minimum = constraints
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
        HardSpread {
            constraints,
            counts,
            minimum,
        }
    }
}

impl HardSpread {
    /// Each constraint's minimum of matching pods over its domains, which every node's skew is
    /// measured from.
    pub(crate) fn minimum(&self) -> &[i64] {
        &self.minimum
    }

    /// The topology keys of the constraints that count `pod`: placing it or taking it off
    /// changes the count of its node's domain of each.
    pub(crate) fn keys_counting<'h>(
        &'h self,
        cx: &'h Context,
        pod: &'h Pod,
    ) -> impl Iterator<Item = &'h str> + 'h {
        self.constraints
            .iter()
            .filter(move |c| c.counts(cx, pod))
            .map(|c| c.key.as_str())
    }
}

impl Filter for HardSpread {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let labels = &cx.node(node).metadata.labels;
        for (i, constraint) in self.constraints.iter().enumerate() {
            let Some(value) = labels.get(&constraint.key) else {
                return Status::new(Code::UnschedulableAndUnresolvable, REASON_LABEL);
            };
            let matching = self.counts[i].get(value.as_str()).copied().unwrap_or(0);
            let skew = matching + i64::from(constraint.self_match) - self.minimum[i];
            if skew > constraint.max_skew {
                return Status::new(Code::Unschedulable, REASON);
            }
        }
        Status::success()
    }

    fn describe_filter(&self, _: &Context, _: usize) -> String {
        format!("{} DoNotSchedule constraint(s)", self.constraints.len())
    }
}

/// PreScore state (upstream `initPreScoreState`): the ScheduleAnyway constraints, the
/// feasible nodes that have every key (the others score 0), matching pods per domain of
/// those nodes, and each constraint's weight, log(domain count + 2).
pub(crate) struct SoftSpread {
    constraints: Vec<Constraint>,
    scored: HashSet<usize>,
    counts: Vec<HashMap<String, i64>>,
    per_node: Vec<HashMap<usize, i64>>,
    weights: Vec<f64>,
}

impl PreScore for SoftSpread {
    fn pre_score(cx: &Context, feasible: &[usize]) -> Self {
        // The pod's own ScheduleAnyway constraints when it has any constraint at all; else the
        // defaults. Only the system defaults keep the nodes that lack a key (upstream
        // `requireAllTopologies` is false only then).
        let constraints = Constraint::for_pod(cx, true);
        let require_all_topologies = !cx.pod.spec.topology_spread_constraints.is_empty()
            || cx.profile.spread_defaulting != SpreadDefaulting::System;
        let mut spread = SoftSpread {
            scored: HashSet::default(),
            counts: vec![HashMap::default(); constraints.len()],
            per_node: Vec::new(),
            weights: Vec::new(),
            constraints,
        };
        if spread.constraints.is_empty() {
            return spread;
        }
        let constraints = &spread.constraints;
        let sched = cx.sched;
        let counted =
            |labels: &Labels| !require_all_topologies || has_all_keys(constraints, labels);
        spread.scored = feasible
            .iter()
            .copied()
            .filter(|&i| counted(sched.node_labels(i)))
            .collect();
        // Domains come from the feasible nodes only; a node without the key is the "" domain.
        for &i in feasible.iter().filter(|i| spread.scored.contains(i)) {
            for (c, constraint) in constraints.iter().enumerate() {
                let value = sched.node_labels(i).get(&constraint.key);
                spread.counts[c]
                    .entry(value.map_or("", |v| v.as_str()).to_string())
                    .or_insert(0);
            }
        }
        spread.weights = constraints
            .iter()
            .enumerate()
            .map(|(c, constraint)| {
                let size = if constraint.key == HOSTNAME {
                    spread.scored.len()
                } else {
                    spread.counts[c].len()
                };
                ((size + 2) as f64).ln()
            })
            .collect();
        spread.per_node = constraints
            .iter()
            .map(|c| c.matching_pods_per_node(cx))
            .collect();
        // Every node's pods count in those domains, under the inclusion policies.
        for (index, node) in sched.state.nodes.iter().enumerate() {
            let labels = &node.metadata.labels;
            if !counted(labels) {
                continue;
            }
            for (c, constraint) in constraints.iter().enumerate() {
                if constraint.key == HOSTNAME || !constraint.includes(cx, node) {
                    continue;
                }
                let value = labels.get(&constraint.key).map_or("", |v| v.as_str());
                if let Some(count) = spread.counts[c].get_mut(value) {
                    *count += spread.per_node[c].get(&index).copied().unwrap_or(0);
                }
            }
        }
        spread
    }
}

impl Score for SoftSpread {
    fn score(&self, cx: &Context, node: usize) -> i64 {
        if !self.scored.contains(&node) {
            return 0;
        }
        let labels = cx.sched.node_labels(node);
        // Summed over the constraints whose key the node has (under the system defaults a
        // node without a zone counts by its hostname alone).
        let score: f64 = self
            .constraints
            .iter()
            .enumerate()
            .filter_map(|(c, constraint)| {
                let value = labels.get(&constraint.key)?;
                let count = if constraint.key == HOSTNAME {
                    self.per_node[c].get(&node).copied().unwrap_or(0)
                } else {
                    self.counts[c][value.as_str()]
                };
                Some(count as f64 * self.weights[c] + (constraint.max_skew - 1) as f64)
            })
            .sum();
        score.round() as i64
    }

    /// Fewer matching pods is better: `100 * (max + min - score) / max` over the scored
    /// nodes; nodes without every key stay 0.
    fn normalize(&self, scores: &mut [(usize, i64)]) {
        if self.constraints.is_empty() {
            return;
        }
        let scored = || {
            scores
                .iter()
                .filter(|(i, _)| self.scored.contains(i))
                .map(|(_, s)| *s)
        };
        let min = scored().min().unwrap_or(0);
        let max = scored().max().unwrap_or(0);
        for (node, score) in scores.iter_mut() {
            *score = if !self.scored.contains(node) {
                0
            } else if max == 0 {
                MAX_NODE_SCORE
            } else {
                MAX_NODE_SCORE * (max + min - *score) / max
            };
        }
    }

    fn describe_score(&self, _: &Context, _: usize) -> String {
        "fewer matching pods in the node's domains score higher".into()
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;

    #[test]
    fn topology_spread_filter() {
        let cluster = nodes(&["zone: a", "zone: a", "zone: b", "zone: c", "rack: r1"])
            + &running("w1", "n1", "app: web", "")
            + &running("w2", "n2", "app: web", "")
            + &running("w3", "n3", "app: web", "");
        let constraint = |skew: i32, extra: &str| {
            format!(
                "  labels: {{app: web}}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: {skew}\n    topologyKey: zone\n    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {{matchLabels: {{app: web}}}}\n{extra}"
            )
        };
        let skew = "node(s) didn't match pod topology spread constraints";
        let label = "node(s) didn't match pod topology spread constraints (missing required label)";
        let cases: Vec<(&str, String, [&str; 5])> = vec![
            // zone a has 2, b 1, c 0: only c keeps the skew at 1.
            (
                "maxSkew 1",
                constraint(1, ""),
                [skew, skew, skew, "", label],
            ),
            ("maxSkew 2", constraint(2, ""), [skew, skew, "", "", label]),
            // Fewer domains than minDomains: the minimum counts as 0.
            (
                "minDomains above the domain count",
                constraint(2, "    minDomains: 4\n"),
                [skew, skew, "", "", label],
            ),
        ];
        for (name, spec, want) in cases {
            let decision = decide(&cluster, &spec);
            let got = reasons(&decision);
            assert_eq!(got, want, "{name}");
        }
        // Nodes the pod's nodeSelector excludes are no domain (nodeAffinityPolicy Honor): zone a
        // is then the only domain, its count is the minimum, and the skew stays within 1.
        let honor = decide(
            &cluster,
            &constraint(1, "").replace("spec:\n", "spec:\n  nodeSelector: {zone: a}\n"),
        );
        let miss = "node(s) didn't match Pod's node affinity/selector";
        let got = reasons(&honor);
        assert_eq!(got, ["", "", miss, miss, miss]);
    }

    #[test]
    fn topology_spread_score() {
        let cluster = nodes(&["zone: a", "zone: b", "zone: c", "rack: r1"])
            + &running("w1", "n1", "app: web", "")
            + &running("w2", "n1", "app: web", "");
        let decision = decide(
            &cluster,
            "  labels: {app: web}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n    labelSelector: {matchLabels: {app: web}}\n",
        );
        // Raw: a = 2 * ln(3 + 2) = 3.2 -> 3, b = c = 0; the keyless node scores 0.
        assert_eq!(scores(&decision, "PodTopologySpread"), [0, 100, 100, 0]);
        assert_eq!(decision.selected.as_deref(), Some("n2"));
        assert_eq!(decision.tied, ["n2", "n3"]);
    }

    /// Upstream filtering_test.go and scoring_test.go, "terminating Pods should be excluded":
    /// a pod being deleted is not counted in any domain, though it still holds its resources.
    #[test]
    fn terminating_pods_are_not_counted() {
        let hard = |key: &str, extra: &str| {
            format!(
                "  labels: {{app: web}}\nspec:\n{extra}  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: {key}\n    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {{matchLabels: {{app: web}}}}\n"
            )
        };
        let skew = "node(s) didn't match pod topology spread constraints";
        let other_namespace = |pod: String| pod.replace("namespace: default", "namespace: other");
        let big = "  containers: [{name: c, resources: {requests: {cpu: \"3\"}}}]\n";
        let cases: Vec<(&str, String, String, Vec<&str>)> = vec![
            // Per hostname n1 counts 0 and n2 1: the minimum is 0, so n2's skew is 1 + 1 > 1.
            (
                "hostname: the terminating pod's node counts 0",
                nodes(&["zone: a", "zone: b"])
                    + &terminating("w1", "n1", "app: web", "")
                    + &running("w2", "n2", "app: web", ""),
                hard("kubernetes.io/hostname", ""),
                vec!["", skew],
            ),
            // Zone a has one counted pod (w1 is leaving), zone b one: every skew is 1.
            (
                "zone: the terminating pod leaves its zone level with the other",
                nodes(&["zone: a", "zone: a", "zone: b"])
                    + &terminating("w1", "n1", "app: web", "")
                    + &running("w2", "n2", "app: web", "")
                    + &running("w3", "n3", "app: web", ""),
                hard("zone", ""),
                vec!["", "", ""],
            ),
            // Another namespace's pods never count, terminating or not: 1 against 1.
            (
                "another namespace's terminating pod",
                nodes(&["zone: a", "zone: b"])
                    + &running("w1", "n1", "app: web", "")
                    + &other_namespace(terminating("w0", "n1", "app: web", ""))
                    + &running("w2", "n2", "app: web", ""),
                hard("kubernetes.io/hostname", ""),
                vec!["", ""],
            ),
            // w1 holds 3 of n1's 4 CPUs while it terminates: the 2-CPU pod does not fit
            // there, yet n1 counts 0, so n2 (1 web pod) is 1 + 1 above the minimum.
            (
                "a terminating pod still holds its resources",
                nodes(&["zone: a", "zone: b"])
                    + &terminating("w1", "n1", "app: web", big)
                    + &running("w2", "n2", "app: web", ""),
                hard(
                    "kubernetes.io/hostname",
                    "  containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]\n",
                ),
                vec!["Insufficient cpu", skew],
            ),
        ];
        for (name, cluster, spec, want) in cases {
            let got = reasons(&decide(&cluster, &spec));
            assert_eq!(got, want, "{name}");
        }
        // ScheduleAnyway per hostname, weight ln(2 + 2) = 1.39: raw n1 = 0, n2 = round(1.39)
        // = 1, normalised 100 * (1 + 0 - raw) / 1.
        let cluster = nodes(&["zone: a", "zone: b"])
            + &terminating("w1", "n1", "app: web", "")
            + &running("w2", "n2", "app: web", "");
        let soft = "  labels: {app: web}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: kubernetes.io/hostname\n    whenUnsatisfiable: ScheduleAnyway\n    labelSelector: {matchLabels: {app: web}}\n";
        assert_eq!(
            scores(&decide(&cluster, soft), "PodTopologySpread"),
            [100, 0]
        );
    }

    /// Upstream's `countPodsMatchSelector` counts nothing for an empty selector, while the
    /// incoming pod still matches it: with `labelSelector: {}` every domain counts 0 and the
    /// skew is 0 + 1 - 0 = 1. `matchLabelKeys` make it a real selector (here app in (web)).
    #[test]
    fn an_empty_selector_counts_no_pods() {
        let cluster = nodes(&["zone: a", "zone: b"])
            + &running("w1", "n1", "app: web", "")
            + &running("w2", "n1", "app: web", "");
        let spec = |extra: &str| {
            format!(
                "  labels: {{app: web}}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {{}}\n{extra}"
            )
        };
        let skew = "node(s) didn't match pod topology spread constraints";
        assert_eq!(reasons(&decide(&cluster, &spec(""))), ["", ""]);
        // app=web: zone a counts 2, b 0, so a's skew is 2 + 1 - 0.
        assert_eq!(
            reasons(&decide(&cluster, &spec("    matchLabelKeys: [app]\n"))),
            [skew, ""]
        );
    }

    /// Upstream scoring_test.go (initPreScoreState / PreScore): only domains holding a feasible
    /// node are counted and sized; with `nodeAffinityPolicy: Ignore` pods on nodes the pod's
    /// required affinity excludes still count in those domains, with `Honor` they do not.
    #[test]
    fn topology_spread_score_counts_feasible_domains_under_the_inclusion_policy() {
        // n1, n2, n5 are feasible (type x); n3 (zone a) and n4 (zone c) are excluded by affinity.
        let cluster = nodes(&[
            "zone: a, type: x",
            "zone: b, type: x",
            "zone: a, type: y",
            "zone: c, type: y",
            "zone: b, type: x",
        ]) + &running("w1", "n3", "app: web", "")
            + &running("w2", "n3", "app: web", "")
            + &running("w3", "n3", "app: web", "")
            + &running("w4", "n4", "app: web", "")
            + &running("w5", "n5", "app: web", "");
        let spec = |policy: &str| {
            format!(
                "  labels: {{app: web}}\nspec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{{key: type, operator: In, values: [x]}}]\n  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n    nodeAffinityPolicy: {policy}\n    labelSelector: {{matchLabels: {{app: web}}}}\n"
            )
        };
        // Ignore: zone a = 3 (n3's pods), zone b = 1; zone c has no feasible node, so two domains,
        // weight ln(2 + 2): raw a = round(4.16) = 4, b = round(1.39) = 1 -> 100 * (4 + 1 - s) / 4.
        assert_eq!(
            scores(&decide(&cluster, &spec("Ignore")), "PodTopologySpread"),
            [25, 100, 100]
        );
        // Honor: only n5's pod counts: a = 0, b = round(1.39) = 1.
        assert_eq!(
            scores(&decide(&cluster, &spec("Honor")), "PodTopologySpread"),
            [100, 0, 0]
        );
    }

    /// The system default constraints (upstream podtopologyspread scoring_test rows and a
    /// worked example of `scoring.go`): hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway,
    /// for a pod without constraints of its own, selecting by its Services and its ReplicaSet.
    #[test]
    fn system_default_constraints_spread_a_controllers_pods() {
        let node = |name: &str, zone: &str| {
            let zone = if zone.is_empty() {
                String::new()
            } else {
                format!(", topology.kubernetes.io/zone: {zone}")
            };
            format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{zone}}}}}\nstatus: {{allocatable: {{cpu: \"8\", memory: 16Gi, pods: \"110\"}}}}\n---\n"
            )
        };
        let replica_set = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-5d8f, namespace: default}\nspec:\n  selector: {matchLabels: {app: web, pod-template-hash: 5d8f}}\n  template: {metadata: {labels: {app: web}}}\n---\n";
        let owned = "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, controller: true}]\n";
        let peer =
            |name: &str, node: &str| running(name, node, "app: web, pod-template-hash: 5d8f", "");
        let incoming = |owner: &str| {
            format!(
                "  labels: {{app: web, pod-template-hash: 5d8f}}\n{owner}spec:\n  containers: [{{name: c}}]\n"
            )
        };
        // n1, n2 in zone a, n3 in zone b; web pods: 2 on n1, 1 on n3. Weights: hostname
        // ln(3 + 2) = 1.609, zone ln(2 + 2) = 1.386; zone counts a = 2, b = 1. Raw: n1 =
        // 2 * 1.609 + 2 + 2 * 1.386 + 4 = 11.99 -> 12; n2 = 0 + 2 + 2.77 + 4 = 8.77 -> 9;
        // n3 = 1.609 + 2 + 1.386 + 4 = 9.0 -> 9. Normalized (min 9, max 12): n1 100 * 9 / 12
        // = 75, n2 and n3 100 * 12 / 12 = 100.
        let cluster = [
            node("n1", "a"),
            node("n2", "a"),
            node("n3", "b"),
            replica_set.to_string(),
            peer("web-a", "n1"),
            peer("web-b", "n1"),
            peer("web-c", "n3"),
        ]
        .concat();
        let spread = |cluster: &str, pod: &str| scores(&decide(cluster, pod), "PodTopologySpread");
        assert_eq!(spread(&cluster, &incoming(owned)), [75, 100, 100]);
        // Without its owner in the state and no Service, the selector is empty: no defaults
        // (every node scores 0).
        let no_owner = cluster.replace(replica_set, "");
        assert_eq!(spread(&no_owner, &incoming(owned)), [0, 0, 0]);
        // A Service that selects the pod is enough on its own.
        let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {selector: {app: web}}\n---\n";
        assert_eq!(
            spread(&format!("{no_owner}{service}"), &incoming("")),
            [75, 100, 100]
        );
        // A pod with constraints of its own (here only a DoNotSchedule one) gets no defaults.
        let own = format!(
            "{}  topologySpreadConstraints: [{{maxSkew: 9, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: web}}}}}}]\n",
            incoming(owned)
        );
        assert_eq!(spread(&cluster, &own), [0, 0, 0]);
        // Nodes without a zone are kept, in the "" domain, and scored by hostname alone:
        // n4 (no zone) holds one web pod. Weights: hostname ln(4 + 2) = 1.792, zone over the
        // domains a, b and "" ln(3 + 2) = 1.609; zone counts a = 2, b = 1, "" = 1. Raw: n1 =
        // 2 * 1.792 + 2 + 2 * 1.609 + 4 = 12.80 -> 13; n2 = 2 + 3.22 + 4 = 9.22 -> 9; n3 =
        // 1.792 + 2 + 1.609 + 4 = 9.40 -> 9; n4 = 1.792 + 2 = 3.79 -> 4 (no zone term).
        // Normalized (min 4, max 13): 100 * (17 - s) / 13 = 30, 61, 61, 100.
        let zoneless = format!("{cluster}{}{}", node("n4", ""), peer("web-d", "n4"));
        assert_eq!(spread(&zoneless, &incoming(owned)), [30, 61, 61, 100]);
    }
}
