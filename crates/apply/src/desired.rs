//! What each object should carry, from the plan, and whether Kubernetes lets a live object
//! take it. Pure: no I/O, so every rule here is tested on plain values.
//!
//! - An operation gets the plan's merged affinity (its own plus what it inherits), with
//!   repeated preferred terms dropped: Fluid appends the inherited preferred terms again when
//!   the operation starts, so writing them once keeps a second `patch` a no-op.
//! - A pod gets its own affinity pinned to the node the plan puts it on (as `plan` shows it, a
//!   gang's or the batch's decision included): `metadata.name In [node]` is added to each
//!   required term (as the DaemonSet controller pins its pods).
//!   Adding to every term is exactly the narrowing the API allows for a gated pod.

use df_model::{
    Affinity, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod,
};
use df_plan::{OpStatus, OperationPlan, Plan};

/// Why an object gets no affinity from the plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DesiredError {
    #[error(
        "{op} has no affinity to write yet: {why}; plan it with `kubectl dataflow plan` to see what it waits for"
    )]
    Blocked { op: String, why: String },
    #[error("{op} already ran ({status}): its affinity no longer matters")]
    Finished { op: String, status: &'static str },
    #[error("pod {pod} gets no node in the plan, so there is no node to pin it to: {summary}")]
    Unschedulable { pod: String, summary: String },
    #[error("pod {pod} is not in the plan: no gang, batch or scheduling queue takes it")]
    NotPlanned { pod: String },
}

/// The affinity an operation should carry, from its plan.
pub fn for_operation(plan: &OperationPlan) -> Result<Option<Affinity>, DesiredError> {
    let op = format!("{}/{}/{}", plan.kind, plan.namespace, plan.name);
    match plan.status {
        OpStatus::Planned | OpStatus::Unschedulable => {}
        OpStatus::Blocked => {
            return Err(DesiredError::Blocked {
                op,
                why: if plan.warnings.is_empty() {
                    "it never starts".to_string()
                } else {
                    plan.warnings.join("; ")
                },
            });
        }
        OpStatus::Complete | OpStatus::Failed => {
            return Err(DesiredError::Finished {
                op,
                status: plan.status.as_str(),
            });
        }
    }
    Ok(plan.affinity.clone().map(|mut affinity| {
        if let Some(node_affinity) = &mut affinity.node_affinity {
            let mut seen = Vec::new();
            node_affinity.preferred.retain(|term| {
                let first = !seen.contains(term);
                if first {
                    seen.push(term.clone());
                }
                first
            });
        }
        affinity
    }))
}

/// The node the plan puts `pod` on, and the pod's affinity pinned to it: the decision `plan`
/// shows and `explain-placement` explains (a gang member where its gang's plan puts it, a pod
/// of the batch where the batch puts it, a Pending pod of the state where the scheduling queue
/// puts it), never a second decision made for the pod alone.
pub fn for_planned_pod(plan: &Plan, pod: &Pod) -> Result<(String, Affinity), DesiredError> {
    let (namespace, name) = (&pod.metadata.namespace, &pod.metadata.name);
    let planned = planned_node(plan, namespace, name).ok_or_else(|| DesiredError::NotPlanned {
        pod: format!("{namespace}/{name}"),
    })?;
    let node = planned.map_err(|why| DesiredError::Unschedulable {
        pod: format!("{namespace}/{name}"),
        summary: why,
    })?;
    let affinity = pin(pod.spec.affinity.as_deref(), &node);
    Ok((node, affinity))
}

/// Where the plan puts the pod `namespace/name`: its node, or why it stays pending; `None` when
/// no planner took it.
fn planned_node(plan: &Plan, namespace: &str, name: &str) -> Option<Result<String, String>> {
    let in_gang = plan
        .groups
        .iter()
        .filter(|g| g.namespace == namespace)
        .find_map(|g| {
            let node = g.placements.get(name)?;
            Some(node.clone().ok_or_else(|| {
                let row = g.pods.iter().find(|row| row.pod == name);
                let reason = row.and_then(|row| row.reason.clone());
                let gang = format!("{} {}/{}", g.kind, g.namespace, g.name);
                format!("{gang}: {}", reason.unwrap_or_else(|| g.summary.clone()))
            }))
        });
    let in_batch = || {
        let pods = plan.batch.iter().flat_map(|b| &b.pods);
        pods.into_iter()
            .find(|p| p.namespace == namespace && p.name == name)
            .map(|p| p.node.clone().ok_or_else(|| p.note.clone()))
    };
    in_gang.or_else(in_batch)
}

/// `affinity` with every required term narrowed to `node`; a term already pinned to it is
/// left alone, so pinning twice changes nothing.
pub fn pin(affinity: Option<&Affinity>, node: &str) -> Affinity {
    let requirement = NodeSelectorRequirement {
        key: "metadata.name".into(),
        operator: "In".into(),
        values: vec![node.to_string()],
    };
    let mut affinity = affinity.cloned().unwrap_or_default();
    let selector = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default)
        .required
        .get_or_insert_with(NodeSelector::default);
    if selector.node_selector_terms.is_empty() {
        selector
            .node_selector_terms
            .push(NodeSelectorTerm::default());
    }
    for term in &mut selector.node_selector_terms {
        if !term.match_fields.contains(&requirement) {
            term.match_fields.push(requirement.clone());
        }
    }
    affinity
}

/// Whether a gated pod may go from `old` to `new`: the API server allows, while a pod is
/// gated, only additions to each existing required term (terms are ORed, expressions ANDed,
/// so additions can only narrow), any change to preferred terms, and nothing else.
pub fn check_narrowing(old: Option<&Affinity>, new: Option<&Affinity>) -> Result<(), String> {
    let empty = Affinity::default();
    let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    if old.pod_affinity != new.pod_affinity || old.pod_anti_affinity != new.pod_anti_affinity {
        return Err("pod (anti-)affinity cannot change on an existing pod".into());
    }
    let terms = |a: &Affinity| -> Vec<NodeSelectorTerm> {
        a.node_affinity
            .as_ref()
            .and_then(|n| n.required.as_ref())
            .map(|r| r.node_selector_terms.clone())
            .unwrap_or_default()
    };
    let (old_terms, new_terms) = (terms(old), terms(new));
    if old_terms.is_empty() {
        return Ok(());
    }
    if old_terms.len() != new_terms.len() {
        return Err(format!(
            "the pod has {} required node selector term(s) and the new affinity {}: terms are ORed, so adding or removing one is not a narrowing",
            old_terms.len(),
            new_terms.len()
        ));
    }
    for (i, (old_term, new_term)) in old_terms.iter().zip(&new_terms).enumerate() {
        let keeps = |old: &[NodeSelectorRequirement], new: &[NodeSelectorRequirement]| {
            new.len() >= old.len() && new[..old.len()] == *old
        };
        if !keeps(&old_term.match_expressions, &new_term.match_expressions)
            || !keeps(&old_term.match_fields, &new_term.match_fields)
        {
            return Err(format!(
                "required term {} changes or drops what the pod already requires: only additions to a term narrow it",
                i + 1
            ));
        }
    }
    Ok(())
}

/// Why a live pod's affinity cannot be patched, with what to do instead; `None` when it can.
pub fn pod_unpatchable(pod: &Pod) -> Option<String> {
    let name = &pod.metadata.name;
    let namespace = &pod.metadata.namespace;
    let why = if !pod.spec.node_name.is_empty() {
        format!("it is already scheduled on {}", pod.spec.node_name)
    } else if pod.spec.scheduling_gates.is_empty() {
        "it is not held by a scheduling gate, and Kubernetes lets only a gated pod's node affinity change".to_string()
    } else {
        return None;
    };
    Some(format!(
        "cannot patch pod {namespace}/{name}: {why}. Recreate it with the affinity instead: \
         `kubectl get pod {name} -n {namespace} -o yaml > pod.yaml`, \
         `kubectl dataflow patch -f pod.yaml --write`, then `kubectl replace --force -f pod.yaml`"
    ))
}

/// Why a live operation's affinity cannot be patched; `None` while it has not started.
pub fn operation_unpatchable(
    kind: &str,
    namespace: &str,
    name: &str,
    phase: &str,
) -> Option<String> {
    if matches!(phase, "" | "Pending") {
        return None;
    }
    Some(format!(
        "cannot patch {kind} {namespace}/{name}: it has started (phase {phase}) and Fluid reads the affinity only when it starts. \
         Create it again with the affinity instead: `kubectl delete {} {name} -n {namespace}`, then `kubectl dataflow launch -f op.yaml`",
        kind.to_ascii_lowercase()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::{PreferredSchedulingTerm, SchedulingGate};

    fn req(key: &str, value: &str) -> NodeSelectorRequirement {
        NodeSelectorRequirement {
            key: key.into(),
            operator: "In".into(),
            values: vec![value.into()],
        }
    }

    fn required(terms: Vec<Vec<NodeSelectorRequirement>>) -> Affinity {
        Affinity {
            node_affinity: Some(NodeAffinity {
                required: Some(NodeSelector {
                    node_selector_terms: terms
                        .into_iter()
                        .map(|match_expressions| NodeSelectorTerm {
                            match_expressions,
                            match_fields: Vec::new(),
                        })
                        .collect(),
                }),
                preferred: Vec::new(),
            }),
            ..Affinity::default()
        }
    }

    #[test]
    fn pinning_adds_the_node_to_every_term_once() {
        let zone = req("zone", "a");
        let pinned_term = |exprs: Vec<NodeSelectorRequirement>| NodeSelectorTerm {
            match_expressions: exprs,
            match_fields: vec![req("metadata.name", "n1")],
        };
        let cases = [
            (None, vec![pinned_term(vec![])]),
            (
                Some(required(vec![vec![zone.clone()], vec![]])),
                vec![pinned_term(vec![zone.clone()]), pinned_term(vec![])],
            ),
        ];
        for (old, terms) in cases {
            let pinned = pin(old.as_ref(), "n1");
            let got = pinned.node_affinity.clone().unwrap().required.unwrap();
            assert_eq!(got.node_selector_terms, terms);
            assert_eq!(pin(Some(&pinned), "n1"), pinned, "pinning twice");
            assert_eq!(check_narrowing(old.as_ref(), Some(&pinned)), Ok(()));
        }
    }

    #[test]
    fn only_additions_to_required_terms_are_a_narrowing() {
        let a = req("zone", "a");
        let b = req("zone", "b");
        let rack = req("rack", "r1");
        let preferred = Affinity {
            node_affinity: Some(NodeAffinity {
                required: None,
                preferred: vec![PreferredSchedulingTerm {
                    weight: 5,
                    preference: NodeSelectorTerm::default(),
                }],
            }),
            ..Affinity::default()
        };
        let added_term = "the pod has 1 required node selector term(s) and the new affinity 2: terms are ORed, so adding or removing one is not a narrowing";
        let changed = "required term 1 changes or drops what the pod already requires: only additions to a term narrow it";
        type Case = (Option<Affinity>, Option<Affinity>, Result<(), &'static str>);
        let cases: Vec<Case> = vec![
            (None, Some(required(vec![vec![a.clone()]])), Ok(())),
            (None, Some(preferred.clone()), Ok(())),
            (Some(preferred), None, Ok(())),
            (
                Some(required(vec![vec![a.clone()]])),
                Some(required(vec![vec![a.clone(), rack.clone()]])),
                Ok(()),
            ),
            (
                Some(required(vec![vec![a.clone()]])),
                Some(required(vec![vec![a.clone()], vec![b.clone()]])),
                Err(added_term),
            ),
            (
                Some(required(vec![vec![a.clone()]])),
                Some(required(vec![vec![b.clone(), rack]])),
                Err(changed),
            ),
            (
                Some(required(vec![vec![a.clone()]])),
                None,
                Err(
                    "the pod has 1 required node selector term(s) and the new affinity 0: terms are ORed, so adding or removing one is not a narrowing",
                ),
            ),
            (
                None,
                Some(Affinity {
                    pod_anti_affinity: Some(Default::default()),
                    ..Affinity::default()
                }),
                Err("pod (anti-)affinity cannot change on an existing pod"),
            ),
        ];
        for (i, (old, new, expected)) in cases.into_iter().enumerate() {
            assert_eq!(
                check_narrowing(old.as_ref(), new.as_ref()),
                expected.map_err(String::from),
                "case {i}"
            );
        }
    }

    #[test]
    fn only_gated_unscheduled_pods_can_be_patched() {
        let pod = |node: &str, gates: &[&str]| {
            let mut pod = Pod::default();
            pod.metadata.name = "web-0".into();
            pod.metadata.namespace = "shop".into();
            pod.spec.node_name = node.into();
            pod.spec.scheduling_gates = gates
                .iter()
                .map(|g| SchedulingGate {
                    name: g.to_string(),
                })
                .collect();
            pod
        };
        let advice = "Recreate it with the affinity instead: `kubectl get pod web-0 -n shop -o yaml > pod.yaml`, `kubectl dataflow patch -f pod.yaml --write`, then `kubectl replace --force -f pod.yaml`";
        let cases = [
            (pod("", &["g"]), None),
            (
                pod("node-a", &[]),
                Some(format!(
                    "cannot patch pod shop/web-0: it is already scheduled on node-a. {advice}"
                )),
            ),
            (
                pod("", &[]),
                Some(format!(
                    "cannot patch pod shop/web-0: it is not held by a scheduling gate, and Kubernetes lets only a gated pod's node affinity change. {advice}"
                )),
            ),
        ];
        for (pod, expected) in cases {
            assert_eq!(pod_unpatchable(&pod), expected);
        }
    }

    #[test]
    fn only_operations_that_have_not_started_can_be_patched() {
        let cases = [
            ("", None),
            ("Pending", None),
            (
                "Executing",
                Some(
                    "cannot patch DataLoad data/warm: it has started (phase Executing) and Fluid reads the affinity only when it starts. Create it again with the affinity instead: `kubectl delete dataload warm -n data`, then `kubectl dataflow launch -f op.yaml`",
                ),
            ),
        ];
        for (phase, expected) in cases {
            assert_eq!(
                operation_unpatchable("DataLoad", "data", "warm", phase),
                expected.map(String::from),
                "{phase}"
            );
        }
    }
}
