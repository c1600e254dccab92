//! Kubernetes topology-aware workload scheduling (KEP-5732, alpha in v1.36 behind
//! `TopologyAwareWorkloadScheduling`) as a [`TopologySystem`]: a `scheduling.k8s.io/v1alpha2`
//! PodGroup's `spec.schedulingConstraints.topology[0].key` names a node label, and every pod of
//! the group must land in one domain of it (one value of that label).
//!
//! As kube-scheduler's `TopologyPlacement` generator and pod-group cycle do it: each distinct
//! value of the label is a candidate placement holding the nodes that carry it (nodes without
//! the label are in none); when pods of the group already run, only their domain is a
//! candidate (pods in two domains, or on a node without the label, stop the group). The group
//! is placed in every candidate; those where it reaches its minimum are scored ([`score`]:
//! pods placed + bin packing) and the highest wins. No candidate takes it: it stays pending.
//! Only the first constraint counts (the API allows one).
//!
//! [`score`]: super::score

use std::collections::BTreeMap;

use super::{Constraint, Domain, Mode, Order, Request, Round, TopologySystem};
use crate::gang::Gang;
use crate::gang::workload::POD_GROUP_KIND;
use df_state::ClusterState;

/// `groups[].topology.system` for KEP-5732 pod group topology.
pub const SYSTEM: &str = "workload-topology";

/// The topology constraint of Workload API PodGroups.
pub(crate) struct PodGroupTopology;

impl TopologySystem for PodGroupTopology {
    fn constraint(&self, gang: &Gang, state: &ClusterState) -> Result<Option<Constraint>, String> {
        if !std::ptr::eq(gang.kind, &POD_GROUP_KIND) {
            return Ok(None);
        }
        let Some(first) = gang.topology.first() else {
            return Ok(None);
        };
        let key = first.topology_key.as_str();
        let node_domains: Vec<Vec<Option<String>>> = state
            .nodes
            .iter()
            .map(|n| vec![n.metadata.labels.get(key).map(ToString::to_string)])
            .collect();
        let pinned = running_domain(gang, state, key)?;
        let mut domains: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (n, node) in node_domains.iter().enumerate() {
            if let Some(domain) = &node[0]
                && pinned.as_ref().is_none_or(|p| p == domain)
            {
                domains.entry(domain).or_default().push(n);
            }
        }
        let round = Round {
            level: key.to_string(),
            domains: domains
                .into_iter()
                .map(|(name, nodes)| Domain {
                    name: name.to_string(),
                    nodes,
                })
                .collect(),
            order: Order::BestScore,
        };
        let mut warnings = Vec::new();
        if let Some(pinned) = &pinned {
            warnings.push(format!(
                "pods of the group already run in {pinned} ({key}): kube-scheduler keeps the \
                 rest there"
            ));
        }
        if gang.topology.len() > 1 {
            warnings.push(format!(
                "spec.schedulingConstraints.topology has {} constraints; kube-scheduler reads \
                 the first ({key}) only",
                gang.topology.len()
            ));
        }
        Ok(Some(Constraint::Planned(Request {
            system: SYSTEM,
            mode: Mode::Required,
            constraint: format!("topology key {key}"),
            levels: vec![key.to_string()],
            node_domains,
            rounds: vec![round],
            warnings,
            pinned: None,
        })))
    }
}

/// The domain the group's bound pods run in (`None` when none runs), or why the rest of the
/// group cannot be placed: a bound pod on a node without the label, or pods in two domains.
fn running_domain(gang: &Gang, state: &ClusterState, key: &str) -> Result<Option<String>, String> {
    let mut pinned: Option<(String, &str)> = None;
    for pod in &gang.running {
        let node = pod.spec.node_name.as_str();
        let domain = state
            .node_index(node)
            .and_then(|n| state.nodes[n].metadata.labels.get(key))
            .ok_or_else(|| {
                format!(
                    "pod {} runs on node {node}, which has no {key} label: kube-scheduler \
                     cannot find the group's domain",
                    pod.metadata.name
                )
            })?;
        match &pinned {
            Some((first, other)) if first != domain => {
                return Err(format!(
                    "pods of the group run in two {key} domains ({first} for pod {other}, \
                     {domain} for pod {}): kube-scheduler places no more of them",
                    pod.metadata.name
                ));
            }
            Some(_) => {}
            None => pinned = Some((domain.to_string(), pod.metadata.name.as_str())),
        }
    }
    Ok(pinned.map(|(domain, _)| domain))
}

#[cfg(test)]
#[path = "workload_tests.rs"]
mod tests;
