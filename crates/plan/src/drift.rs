//! Drift: a bound pod's node against the node the engine would choose for it now.
//!
//! Each comparison is one scheduling cycle of the pod against the state with the pod itself
//! taken off its node first (as `explain-placement` explains a pod of the state in place), so
//! its own requests, ports and affinity terms do not count against it. A pod drifted when a
//! filter now rejects its node, or when another node scores higher; a node tied for the top
//! score is not drift (upstream picks among equals at random).
//!
//! Cost: `plan --pending --compare` runs one cycle per compared pod over every node, on one
//! scheduler built once (the pod is forgotten, decided, and put back). It compares the bound
//! pods kube-scheduler placed in the planned namespace (`-n`; every namespace with `-A`) that
//! `-l`/`--field-selector` select, at most [`MAX_COMPARED`] of them in namespace/name order,
//! and says how many it left out.

use std::cmp::Reverse;

use serde::Serialize;

use df_engine::object_selector::{ObjectSelector, SelectedObject};
use df_engine::{Decision, NodeVerdict, Profiles, Scheduler};
use df_model::Pod;
use df_state::ClusterState;
use df_systems::gang::{self, SchedulerRoutes, System};

/// The most bound pods one `plan --pending --compare` compares: each costs a scheduling cycle
/// over every node (about 2,000 cycles take seconds on a 5,000-node state).
pub(crate) const MAX_COMPARED: usize = 2_000;

/// The annotation the kubelet puts on the API mirror of a static pod: no scheduler placed it.
const MIRROR_POD_ANNOTATION: &str = "kubernetes.io/config.mirror";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriftError {
    #[error(
        "pod {namespace}/{name} is not bound to a node in the cluster state: only a running pod has a node to compare"
    )]
    NotBound { namespace: String, name: String },
}

/// How a bound pod's node compares with the engine's choice now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DriftStatus {
    /// A filter rejects its node now (or no node fits it any more).
    FilteredOut,
    /// Its node is feasible but another node scores higher.
    Outscored,
    /// Its node ties for the top score: the engine might pick it as well.
    Tied,
    /// The engine would choose the node it runs on.
    Same,
}

impl DriftStatus {
    pub fn drifted(self) -> bool {
        matches!(self, DriftStatus::FilteredOut | DriftStatus::Outscored)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DriftStatus::FilteredOut => "filtered out",
            DriftStatus::Outscored => "outscored",
            DriftStatus::Tied => "tied",
            DriftStatus::Same => "same",
        }
    }
}

/// One bound pod against the engine's choice.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    pub namespace: String,
    pub name: String,
    /// The node it runs on.
    pub node: String,
    /// The node the engine would choose now; `null` when none fits.
    pub chosen: Option<String>,
    pub status: DriftStatus,
    /// Weighted total of its node (when feasible) and of the chosen node.
    pub node_score: Option<i64>,
    pub chosen_score: Option<i64>,
    /// `chosenScore - nodeScore`, when both nodes are feasible.
    pub difference: Option<i64>,
    /// Per plugin, 0..100 before weights, for both nodes (feasible ones only).
    pub node_scores: df_engine::NodeScores,
    pub chosen_scores: df_engine::NodeScores,
    /// Why its node is filtered out now (upstream failure messages).
    pub reasons: Vec<String>,
}

impl Drift {
    /// Compare `node` (where the pod runs) with `decision` (the pod decided without itself).
    pub fn of(namespace: &str, name: &str, node: &str, decision: &Decision) -> Drift {
        let current = decision.verdict(node);
        let chosen = decision.selected_verdict();
        let feasible_score =
            |v: Option<&NodeVerdict>| v.filter(|v| v.feasible).and_then(|v| v.score);
        let node_score = feasible_score(current);
        let chosen_score = feasible_score(chosen);
        let status = match (node_score, chosen_score) {
            _ if decision.selected.as_deref() == Some(node) => DriftStatus::Same,
            (Some(mine), Some(top)) if mine >= top => DriftStatus::Tied,
            (Some(_), Some(_)) => DriftStatus::Outscored,
            _ => DriftStatus::FilteredOut,
        };
        let reasons = match current {
            Some(v) if !v.feasible => v.reasons.to_vec(),
            Some(_) => Vec::new(),
            None => vec![format!(
                "node {node} is not among the nodes this decision considers"
            )],
        };
        let scores = |v: Option<&NodeVerdict>| {
            v.filter(|v| v.feasible)
                .map(|v| v.scores)
                .unwrap_or_default()
        };
        Drift {
            namespace: namespace.to_string(),
            name: name.to_string(),
            node: node.to_string(),
            chosen: decision.selected.clone(),
            status,
            node_score,
            chosen_score,
            difference: node_score.zip(chosen_score).map(|(mine, top)| top - mine),
            node_scores: scores(current),
            chosen_scores: scores(chosen),
            reasons,
        }
    }
}

/// `explain-placement --compare`: the explained pod's node in the state against the explained
/// decision (which was made with the pod taken off its node).
pub fn of_bound_pod(
    state: &ClusterState,
    namespace: &str,
    name: &str,
    decision: &Decision,
) -> Result<Drift, DriftError> {
    let bound = state
        .pod(namespace, name)
        .filter(|pod| !pod.spec.node_name.is_empty() && !pod.is_terminated())
        .ok_or_else(|| DriftError::NotBound {
            namespace: namespace.to_string(),
            name: name.to_string(),
        })?;
    Ok(Drift::of(namespace, name, &bound.spec.node_name, decision))
}

/// `plan --pending --compare`: the running pods of a namespace that sit where the engine
/// would not put them now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftSummary {
    /// The namespace compared; `null` for every namespace.
    pub namespace: Option<String>,
    /// Bound pods compared.
    pub compared: usize,
    /// Bound pods left out beyond [`MAX_COMPARED`].
    pub skipped: usize,
    pub drifted: usize,
    /// The drifted pods: filtered out first, then the largest score difference.
    pub pods: Vec<Drift>,
    /// What drift may mean, when there is some.
    pub note: Option<String>,
}

/// What drift may mean; the engine cannot tell which.
pub(crate) const DRIFT_NOTE: &str = "the pods lack a constraint the engine sees or carry one it does \
not model, a custom scheduler placed them, or the cluster changed since they were scheduled \
(labels, taints, other pods)";

/// Whether kube-scheduler placed `pod` (as far as the state tells): bound, running, routed to
/// kube-scheduler, not a gang's pod, not a static pod's mirror.
fn placed_by_kube_scheduler(pod: &Pod, routes: &SchedulerRoutes) -> bool {
    !pod.spec.node_name.is_empty()
        && !pod.is_terminated()
        && routes.system(&pod.spec.scheduler_name) == Some(System::KubeScheduler)
        && !gang::joins_any(pod)
        && !pod.metadata.annotations.contains_key(MIRROR_POD_ANNOTATION)
}

/// Compare every pod kube-scheduler placed in `namespace` (every namespace when `None`) that
/// `selector` selects with the engine's choice now, each decided without itself on one
/// scheduler.
pub(crate) fn summarize(
    state: &ClusterState,
    profiles: Profiles,
    routes: &SchedulerRoutes,
    namespace: Option<&str>,
    selector: &ObjectSelector,
) -> DriftSummary {
    let mut bound: Vec<&Pod> = state
        .pods
        .iter()
        .filter(|pod| namespace.is_none_or(|ns| pod.metadata.namespace == ns))
        .filter(|pod| selector.matches(&SelectedObject::of_pod(pod)))
        .filter(|pod| placed_by_kube_scheduler(pod, routes))
        .collect();
    bound.sort_by(|a, b| {
        (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name))
    });
    let skipped = bound.len().saturating_sub(MAX_COMPARED);
    bound.truncate(MAX_COMPARED);
    let mut scheduler = Scheduler::new(state, profiles);
    let mut pods: Vec<Drift> = bound
        .iter()
        .map(|pod| compare_in_place(&mut scheduler, pod))
        .filter(|drift| drift.status.drifted())
        .collect();
    pods.sort_by(|a, b| {
        (a.status, Reverse(a.difference), &a.namespace, &a.name).cmp(&(
            b.status,
            Reverse(b.difference),
            &b.namespace,
            &b.name,
        ))
    });
    DriftSummary {
        namespace: namespace.map(str::to_string),
        compared: bound.len(),
        skipped,
        drifted: pods.len(),
        note: (!pods.is_empty()).then(|| DRIFT_NOTE.to_string()),
        pods,
    }
}

/// Decide `pod` with itself taken off its node, then put it back for the next comparison.
fn compare_in_place(scheduler: &mut Scheduler, pod: &Pod) -> Drift {
    let (namespace, name) = (&pod.metadata.namespace, &pod.metadata.name);
    let node = pod.spec.node_name.clone();
    scheduler.forget(namespace, name);
    let mut pending = pod.clone();
    pending.spec.node_name.clear();
    let decision = scheduler.decide(&pending);
    scheduler.assume(pending, &node);
    Drift::of(namespace, name, &node, &decision)
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::{ObjectMeta, PodSpec, PodStatus};

    /// A verdict: feasible with a weighted total, or rejected for `reason`.
    fn verdict(name: &'static str, outcome: Result<i64, &str>) -> NodeVerdict {
        NodeVerdict {
            name,
            index: 0,
            feasible: outcome.is_ok(),
            reasons: outcome
                .err()
                .map(str::to_string)
                .into_iter()
                .collect::<Vec<_>>()
                .into(),
            failed_plugin: None,
            code: None,
            scores: outcome
                .ok()
                .map(|score| [("NodeAffinity", score)].into_iter().collect())
                .unwrap_or_default(),
            score: outcome.ok(),
        }
    }

    fn decision(nodes: Vec<NodeVerdict>, selected: Option<&str>) -> Decision {
        Decision {
            nodes,
            selected: selected.map(str::to_string),
            ..Decision::default()
        }
    }

    #[test]
    fn a_pods_node_against_the_decision() {
        const TAINT: &str = "node(s) had untolerated taint {dedicated: db}";
        // (case, node it runs on, verdicts, selected, status, difference, reasons)
        let cases = [
            (
                "chosen again",
                "a",
                vec![verdict("a", Ok(300)), verdict("b", Ok(200))],
                Some("a"),
                DriftStatus::Same,
                Some(0),
                vec![],
            ),
            (
                "tied with the pick",
                "b",
                vec![verdict("a", Ok(300)), verdict("b", Ok(300))],
                Some("a"),
                DriftStatus::Tied,
                Some(0),
                vec![],
            ),
            (
                "another node scores higher",
                "b",
                vec![verdict("a", Ok(300)), verdict("b", Ok(120))],
                Some("a"),
                DriftStatus::Outscored,
                Some(180),
                vec![],
            ),
            (
                "a filter rejects its node",
                "b",
                vec![verdict("a", Ok(300)), verdict("b", Err(TAINT))],
                Some("a"),
                DriftStatus::FilteredOut,
                None,
                vec![TAINT],
            ),
            (
                "no node fits any more",
                "b",
                vec![verdict("a", Err(TAINT)), verdict("b", Err(TAINT))],
                None,
                DriftStatus::FilteredOut,
                None,
                vec![TAINT],
            ),
            (
                "its node is outside the decision",
                "c",
                vec![verdict("a", Ok(300))],
                Some("a"),
                DriftStatus::FilteredOut,
                None,
                vec!["node c is not among the nodes this decision considers"],
            ),
        ];
        for (case, node, verdicts, selected, status, difference, reasons) in cases {
            let drift = Drift::of("ns", "p", node, &decision(verdicts, selected));
            assert_eq!(
                (drift.status, drift.difference, drift.reasons),
                (
                    status,
                    difference,
                    reasons.iter().map(|r| r.to_string()).collect()
                ),
                "{case}"
            );
            assert_eq!(
                drift.status.drifted(),
                matches!(status, DriftStatus::Outscored | DriftStatus::FilteredOut),
                "{case}"
            );
        }
    }

    fn bound(
        node: &str,
        phase: &str,
        scheduler: &str,
        labels: &[(&str, &str)],
        annotations: &[(&str, &str)],
    ) -> Pod {
        let map = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        Pod {
            metadata: ObjectMeta {
                name: "p".into(),
                namespace: "ns".into(),
                labels: map(labels),
                annotations: map(annotations),
                ..ObjectMeta::default()
            },
            spec: PodSpec {
                node_name: node.into(),
                scheduler_name: scheduler.into(),
                ..PodSpec::default()
            },
            status: PodStatus {
                phase: phase.into(),
                ..PodStatus::default()
            },
        }
    }

    #[test]
    fn only_pods_kube_scheduler_placed_are_compared() {
        let cases = [
            (
                "running, default scheduler",
                bound("n1", "Running", "", &[], &[]),
                true,
            ),
            (
                "named default-scheduler",
                bound("n1", "Running", "default-scheduler", &[], &[]),
                true,
            ),
            ("pending", bound("", "Pending", "", &[], &[]), false),
            ("succeeded", bound("n1", "Succeeded", "", &[], &[]), false),
            (
                "custom scheduler",
                bound("n1", "Running", "my-scheduler", &[], &[]),
                false,
            ),
            (
                "volcano",
                bound("n1", "Running", "volcano", &[], &[]),
                false,
            ),
            (
                "a coscheduling gang's pod",
                bound(
                    "n1",
                    "Running",
                    "",
                    &[("scheduling.x-k8s.io/pod-group", "g")],
                    &[],
                ),
                false,
            ),
            (
                "a static pod's mirror",
                bound("n1", "Running", "", &[], &[(MIRROR_POD_ANNOTATION, "abc")]),
                false,
            ),
        ];
        for (case, pod, compared) in cases {
            assert_eq!(
                placed_by_kube_scheduler(&pod, &SchedulerRoutes::default()),
                compared,
                "{case}"
            );
        }
    }
}
