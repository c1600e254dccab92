//! `explain-placement`: pick the pod to explain, schedule it, and keep everything the
//! explanation needs.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cluster::ClusterState;
use crate::manifest::ManifestSet;
use crate::model::{Object, ObjectMeta, Pod, PodStatus};
use crate::sched::{Decision, NodeDetail, Profile, Scheduler};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("{0}")]
    NotFound(String),
    #[error(
        "the inputs hold {count} objects that create pods ({names}); name one, e.g. `explain-placement {first}`"
    )]
    Ambiguous {
        count: usize,
        names: String,
        first: String,
    },
    #[error("node {0:?} is not in the cluster state")]
    UnknownNode(String),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PodRef {
    pub namespace: String,
    pub name: String,
}

/// The explain contract (DESIGN.md section 4), plus the tie and the node detail.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    pub pod: PodRef,
    #[serde(flatten)]
    pub decision: Decision,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_detail: Option<NodeDetail>,
    /// Nodes considered (the `N` of `0/N nodes are available`).
    pub total_nodes: usize,
    /// The score weights the totals were computed with.
    pub weights: BTreeMap<String, i64>,
}

/// A pod that an object in the inputs would create, with a name users recognise.
pub struct Candidate {
    /// `Pod/name`, `Deployment/name`...
    pub label: String,
    pub pod: Pod,
}

/// The pods the `-f` inputs would create: pods as they are, workloads from their templates.
pub fn candidates(manifests: &ManifestSet) -> Vec<Candidate> {
    manifests
        .manifests
        .iter()
        .filter_map(|m| match &m.object {
            Object::Pod(pod) => Some(Candidate {
                label: format!("Pod/{}", pod.metadata.name),
                pod: pod.clone(),
            }),
            Object::Workload(w) => Some(Candidate {
                label: format!("{}/{}", w.kind, w.metadata.name),
                pod: Pod {
                    metadata: ObjectMeta {
                        name: format!("{}-0", w.metadata.name),
                        namespace: w.metadata.namespace.clone(),
                        labels: w.template.metadata.labels.clone(),
                        annotations: w.template.metadata.annotations.clone(),
                    },
                    spec: w.template.spec.clone(),
                    status: PodStatus::default(),
                },
            }),
            _ => None,
        })
        .collect()
}

/// The pod chosen for explanation.
pub struct Target {
    pub pod: Pod,
    /// A pod read from the cluster state is explained as if it were pending again.
    pub from_state: bool,
}

/// Choose the pod to explain: `KIND/NAME` among the candidates, else `pod/NAME` from the
/// state, else the only candidate.
pub fn resolve_target(
    candidates: Vec<Candidate>,
    state: &ClusterState,
    target: Option<&str>,
    namespace: &str,
) -> Result<Target, TargetError> {
    let from_inputs = |pod: Pod| Target {
        pod,
        from_state: false,
    };
    let Some(target) = target else {
        let count = candidates.len();
        let mut candidates = candidates;
        return match count {
            0 => Err(TargetError::NotFound(
                "nothing to explain: give -f with a Pod, a workload or an operation, or name a pod as pod/NAME".into(),
            )),
            1 => Ok(from_inputs(candidates.remove(0).pod)),
            _ => Err(TargetError::Ambiguous {
                count,
                first: candidates[0].label.clone(),
                names: candidates
                    .iter()
                    .map(|c| c.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        };
    };
    let (kind, name) = target.split_once('/').unwrap_or(("pod", target));
    let same_kind = |label: &str| {
        let label_kind = label.split('/').next().unwrap_or("");
        label_kind.eq_ignore_ascii_case(kind)
            || (label_kind == "Pod" && matches!(kind.to_ascii_lowercase().as_str(), "pods" | "po"))
    };
    if let Some(found) = candidates
        .into_iter()
        .find(|c| same_kind(&c.label) && c.label.split('/').nth(1) == Some(name))
    {
        return Ok(from_inputs(found.pod));
    }
    if matches!(kind.to_ascii_lowercase().as_str(), "pod" | "pods" | "po") {
        if let Some(pod) = state.pod(namespace, name) {
            return Ok(Target {
                pod: pod.clone(),
                from_state: true,
            });
        }
        return Err(TargetError::NotFound(format!(
            "pod {namespace}/{name} is neither in the -f inputs nor in the cluster state"
        )));
    }
    Err(TargetError::NotFound(format!(
        "{target} is not in the -f inputs"
    )))
}

/// Schedule the target as if it were pending now. A pod from the state is first taken off its
/// node, so it does not compete with itself.
pub fn explain(
    state: &ClusterState,
    profile: Profile,
    target: &Target,
    node: Option<&str>,
) -> Result<Explanation, TargetError> {
    let pod = &target.pod;
    let weights = profile.score_weights.clone();
    let mut scheduler = Scheduler::new(state, profile);
    let mut pending = pod.clone();
    if target.from_state {
        scheduler.forget(&pod.metadata.namespace, &pod.metadata.name);
        pending.spec.node_name.clear();
    }
    let node_detail = match node {
        Some(name) => Some(
            scheduler
                .explain_node(&pending, name)
                .ok_or_else(|| TargetError::UnknownNode(name.to_string()))?,
        ),
        None => None,
    };
    Ok(Explanation {
        pod: PodRef {
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone(),
        },
        decision: scheduler.decide(&pending),
        node_detail,
        total_nodes: state.nodes.len(),
        weights,
    })
}
