//! InterPodAffinity: required (anti-)affinity of the incoming pod, and existing pods' required
//! anti-affinity towards it (PreFilter counts per topology pair, Filter checks); preferred
//! terms both ways and existing pods' required affinity (PreScore, Score, min-max NormalizeScore).

use rustc_hash::FxHashMap as HashMap;

use crate::framework::{Code, Context, Filter, MAX_NODE_SCORE, PreFilter, PreScore, Score, Status};
use crate::terms::TermKind;
use df_model::Labels;

pub(crate) const REASON_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub(crate) const REASON_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub(crate) const REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// Counts (or weights) per topology domain, key -> value -> sum, so that a node looks up its
/// own value of each key instead of scanning every pair (thousands with hostname terms) and
/// nothing is allocated per node.
#[derive(Default)]
struct DomainCounts(HashMap<String, HashMap<String, i64>>);

impl DomainCounts {
    /// Add `n` in the domain of `key` the node of `labels` is in (none without the label).
    fn add_on(&mut self, labels: &Labels, key: &str, n: i64) {
        let Some(value) = labels.get(key) else {
            return;
        };
        let by_value = match self.0.get_mut(key) {
            Some(by_value) => by_value,
            None => self.0.entry(key.to_string()).or_default(),
        };
        match by_value.get_mut(value.as_str()) {
            Some(sum) => *sum += n,
            None => {
                by_value.insert(value.to_string(), n);
            }
        }
    }

    /// The sum in the domain `key`=`value`.
    fn get(&self, key: &str, value: &str) -> i64 {
        self.0
            .get(key)
            .and_then(|by_value| by_value.get(value))
            .copied()
            .unwrap_or(0)
    }

    /// The sums of the node's domains, one per key it has a label of.
    fn on<'c>(&'c self, labels: &'c Labels) -> impl Iterator<Item = i64> + 'c {
        self.0
            .iter()
            .filter_map(|(key, by_value)| by_value.get(labels.get(key)?.as_str()).copied())
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn total(&self) -> i64 {
        self.0.values().flat_map(|by_value| by_value.values()).sum()
    }
}

/// PreFilter state: topology domains holding pods the incoming pod's required terms select,
/// and domains where existing pods' required anti-affinity rejects the incoming pod.
pub(crate) struct RequiredTerms {
    affinity_counts: DomainCounts,
    anti_affinity_counts: DomainCounts,
    existing_anti_affinity_counts: DomainCounts,
}

impl PreFilter for RequiredTerms {
    fn pre_filter(cx: &Context) -> Self {
        let sched = cx.sched;
        let mut state = RequiredTerms {
            affinity_counts: DomainCounts::default(),
            anti_affinity_counts: DomainCounts::default(),
            existing_anti_affinity_counts: DomainCounts::default(),
        };
        for group in &sched.term_groups {
            if group.kind != TermKind::RequiredAnti || group.nodes.is_empty() {
                continue;
            }
            if !cx.term_matches(&group.term, cx.pod) {
                continue;
            }
            for (&node, &count) in &group.nodes {
                state.existing_anti_affinity_counts.add_on(
                    sched.node_labels(node),
                    &group.term.topology_key,
                    count,
                );
            }
        }
        // Affinity: an existing pod counts only when it matches ALL the incoming pod's required
        // affinity terms (upstream `podMatchesAllAffinityTerms`); it then counts in every term's
        // domain. Such a pod matches the first term, so that term's namespaces hold them all.
        let required = &cx.terms.required_affinity;
        if let Some(first) = required.first() {
            for placed in sched.pods_selectable_by(first) {
                if !required
                    .iter()
                    .all(|term| cx.term_matches(term, &placed.pod))
                {
                    continue;
                }
                for term in required {
                    let labels = sched.node_labels(placed.node);
                    state.affinity_counts.add_on(labels, &term.topology_key, 1);
                }
            }
        }
        // Anti-affinity: each term on its own.
        for term in &cx.terms.required_anti_affinity {
            for placed in sched.pods_selectable_by(term) {
                if !cx.term_matches(term, &placed.pod) {
                    continue;
                }
                let labels = sched.node_labels(placed.node);
                state
                    .anti_affinity_counts
                    .add_on(labels, &term.topology_key, 1);
            }
        }
        state
    }
}

impl Filter for RequiredTerms {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let labels = &cx.node(node).metadata.labels;
        let mut pods_exist = true;
        for term in &cx.terms.required_affinity {
            let Some(value) = labels.get(&term.topology_key) else {
                return Status::new(Code::UnschedulableAndUnresolvable, REASON_AFFINITY);
            };
            if self.affinity_counts.get(&term.topology_key, value) <= 0 {
                pods_exist = false;
            }
        }
        // The first pod of a group with affinity to itself may go anywhere: nothing matches
        // yet, and it matches its own terms.
        let first_of_its_group = self.affinity_counts.is_empty()
            && cx
                .terms
                .required_affinity
                .iter()
                .all(|t| cx.term_matches(t, cx.pod));
        if !pods_exist && !first_of_its_group {
            return Status::new(Code::UnschedulableAndUnresolvable, REASON_AFFINITY);
        }
        for term in &cx.terms.required_anti_affinity {
            if let Some(value) = labels.get(&term.topology_key)
                && self.anti_affinity_counts.get(&term.topology_key, value) > 0
            {
                return Status::new(Code::Unschedulable, REASON_ANTI_AFFINITY);
            }
        }
        if self
            .existing_anti_affinity_counts
            .on(labels)
            .any(|count| count > 0)
        {
            return Status::new(Code::Unschedulable, REASON_EXISTING_ANTI_AFFINITY);
        }
        Status::success()
    }

    fn describe_filter(&self, cx: &Context, _: usize) -> String {
        format!(
            "{} required affinity term(s), {} required anti-affinity term(s), {} existing pod(s) with anti-affinity against this pod",
            cx.terms.required_affinity.len(),
            cx.terms.required_anti_affinity.len(),
            self.existing_anti_affinity_counts.total()
        )
    }
}

/// PreScore state: the weights summed per topology domain.
pub(crate) struct PreferredTerms {
    topology_score: DomainCounts,
}

impl PreScore for PreferredTerms {
    fn pre_score(cx: &Context, _: &[usize]) -> Self {
        let sched = cx.sched;
        let mut state = PreferredTerms {
            topology_score: DomainCounts::default(),
        };
        for (terms, sign) in [
            (&cx.terms.preferred_affinity, 1),
            (&cx.terms.preferred_anti_affinity, -1),
        ] {
            for term in terms {
                for placed in sched.pods_selectable_by(term) {
                    if cx.term_matches(term, &placed.pod) {
                        state.topology_score.add_on(
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
                TermKind::Required => cx.profile.hard_pod_affinity_weight,
                TermKind::Preferred => group.term.weight,
                TermKind::PreferredAnti => -group.term.weight,
                TermKind::RequiredAnti => 0,
            };
            if weight == 0 || group.nodes.is_empty() || !cx.term_matches(&group.term, cx.pod) {
                continue;
            }
            for (&node, &count) in &group.nodes {
                state.topology_score.add_on(
                    sched.node_labels(node),
                    &group.term.topology_key,
                    weight * count,
                );
            }
        }
        state
    }
}

impl Score for PreferredTerms {
    fn score(&self, cx: &Context, node: usize) -> i64 {
        self.topology_score.on(cx.sched.node_labels(node)).sum()
    }

    /// min..max to 0..100; all equal gives 0.
    fn normalize(&self, scores: &mut [(usize, i64)]) {
        let min = scores.iter().map(|(_, s)| *s).min().unwrap_or(0);
        let max = scores.iter().map(|(_, s)| *s).max().unwrap_or(0);
        for (_, score) in scores.iter_mut() {
            *score = if max > min {
                (MAX_NODE_SCORE as f64 * (*score - min) as f64 / (max - min) as f64) as i64
            } else {
                0
            };
        }
    }

    fn describe_score(&self, _: &Context, _: usize) -> String {
        "sum of matching preferred (anti-)affinity weights in the node's domains".into()
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;
    use crate::*;

    #[test]
    fn inter_pod_affinity_filter() {
        let cluster = nodes(&["zone: a", "zone: a", "zone: b", "team: x"])
            + &running("db", "n1", "app: db", "")
            + &running(
                "lonely",
                "n3",
                "app: lonely",
                "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: web}}\n        topologyKey: zone\n",
            );
        let affinity = "node(s) didn't match pod affinity rules";
        let anti = "node(s) didn't match pod anti-affinity rules";
        let existing = "node(s) didn't satisfy existing pods anti-affinity rules";
        let cases: &[(&str, &str, [&str; 4])] = &[
            (
                "affinity to the zone of app=db",
                "  labels: {app: api}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        topologyKey: zone\n",
                ["", "", affinity, affinity],
            ),
            (
                "anti-affinity per host",
                "  labels: {app: api}\nspec:\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        topologyKey: kubernetes.io/hostname\n",
                [anti, "", "", ""],
            ),
            (
                "existing pods' anti-affinity is symmetric",
                "  labels: {app: web}\nspec: {}\n",
                ["", "", existing, ""],
            ),
            (
                "first pod of a self-affine group goes anywhere with the key",
                "  labels: {app: cache}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: cache}}\n        topologyKey: zone\n",
                ["", "", "", affinity],
            ),
            (
                "no exception when the pod does not match its own term",
                "  labels: {app: other}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: cache}}\n        topologyKey: zone\n",
                [affinity, affinity, affinity, affinity],
            ),
            (
                "a term in another namespace sees no db pod",
                "  labels: {app: api}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        namespaces: [other]\n        topologyKey: zone\n",
                [affinity, affinity, affinity, affinity],
            ),
            (
                "an empty namespaceSelector selects every namespace",
                "  labels: {app: api}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        namespaces: [other]\n        namespaceSelector: {}\n        topologyKey: zone\n",
                ["", "", affinity, affinity],
            ),
        ];
        for (name, spec, want) in cases {
            let decision = decide(&cluster, spec);
            let got = reasons(&decision);
            assert_eq!(got, want, "{name}");
        }
    }

    /// Upstream filtering_test.go: with several required affinity terms, one existing pod must
    /// match them all; pods that each match one term do not add up.
    #[test]
    fn inter_pod_affinity_terms_must_all_match_one_pod() {
        let cluster = nodes(&["zone: a", "zone: a", "zone: b", "zone: c"])
            + &running("db", "n1", "app: db", "")
            + &running("metrics", "n2", "role: metrics", "")
            + &running("both", "n3", "app: db, role: metrics", "");
        let affinity = "node(s) didn't match pod affinity rules";
        let two_terms = |first_key: &str| {
            format!(
                "  labels: {{app: api}}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {{matchLabels: {{app: db}}}}\n        topologyKey: {first_key}\n      - labelSelector: {{matchLabels: {{role: metrics}}}}\n        topologyKey: zone\n"
            )
        };
        let cases: &[(&str, String, [&str; 4])] = &[
            (
                "only the pod matching both terms counts: zone a's two half-matches do not",
                two_terms("zone"),
                [affinity, affinity, "", affinity],
            ),
            (
                "the matching pod counts in each term's own topology",
                two_terms("kubernetes.io/hostname"),
                [affinity, affinity, "", affinity],
            ),
        ];
        for (name, spec, want) in cases {
            let got = reasons(&decide(&cluster, spec));
            assert_eq!(got, want, "{name}");
        }
        // Without the pod that matches both, nothing counts: the terms are not satisfiable, and the
        // incoming pod (app=api) does not match them itself.
        let halves = nodes(&["zone: a", "zone: a"])
            + &running("db", "n1", "app: db", "")
            + &running("metrics", "n2", "role: metrics", "");
        let got = reasons(&decide(&halves, &two_terms("zone")));
        assert_eq!(got, [affinity, affinity]);
    }

    #[test]
    fn namespace_selector_uses_namespace_labels() {
        let cluster = nodes(&["zone: a", "zone: b"])
            + "apiVersion: v1\nkind: Namespace\nmetadata: {name: data, labels: {tier: storage}}\n---\n"
            + "apiVersion: v1\nkind: Pod\nmetadata: {name: db, namespace: data, labels: {app: db}}\nspec: {nodeName: n2, containers: [{name: c}]}\nstatus: {phase: Running}\n";
        let spec = |selector: &str| {
            format!(
                "spec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {{matchLabels: {{app: db}}}}\n        namespaceSelector: {selector}\n        topologyKey: zone\n"
            )
        };
        let feasible = |d: &Decision| {
            d.nodes
                .iter()
                .filter(|v| v.feasible)
                .map(|v| v.name.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            feasible(&decide(&cluster, &spec("{matchLabels: {tier: storage}}"))),
            ["n2"]
        );
        assert_eq!(
            feasible(&decide(
                &cluster,
                &spec("{matchLabels: {kubernetes.io/metadata.name: data}}")
            )),
            Vec::<String>::new()
        );
        assert_eq!(
            feasible(&decide(&cluster, &spec("{matchLabels: {tier: web}}"))),
            Vec::<String>::new()
        );
    }

    #[test]
    fn inter_pod_affinity_score() {
        let cluster = nodes(&["zone: a", "zone: b", "zone: c"])
            + &running("web1", "n1", "app: web", "")
            + &running("web2", "n1", "app: web", "")
            + &running("web3", "n2", "app: web", "");
        let decision = decide(
            &cluster,
            "spec:\n  affinity:\n    podAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 10\n        podAffinityTerm:\n          labelSelector: {matchLabels: {app: web}}\n          topologyKey: zone\n",
        );
        // Raw 20, 10, 0 -> min-max normalised.
        assert_eq!(scores(&decision, "InterPodAffinity"), [100, 50, 0]);
        let anti = decide(
            &cluster,
            "spec:\n  affinity:\n    podAntiAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 10\n        podAffinityTerm:\n          labelSelector: {matchLabels: {app: web}}\n          topologyKey: zone\n",
        );
        assert_eq!(scores(&anti, "InterPodAffinity"), [0, 50, 100]);
        // All equal: 0 everywhere.
        assert_eq!(
            scores(
                &decide(&nodes(&["zone: a", "zone: b"]), "spec: {}\n"),
                "InterPodAffinity"
            ),
            [0, 0]
        );
    }
}
