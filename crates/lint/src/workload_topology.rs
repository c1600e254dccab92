//! Kubernetes workload topology (KEP-5732) rules, with a state: a `scheduling.k8s.io/v1alpha2`
//! PodGroup or Workload pod group template whose topology constraint names a label no node
//! carries (DF508), and a PodGroup whose largest domain of that label cannot hold its
//! minimum (DF509). Domains and their capacity come from the planner itself
//! ([`df_systems::topology::workload`] and [`df_systems::topology::pods_that_fit`]), so lint and plan
//! agree on what fits.

use std::collections::BTreeMap;

use super::topology::{GangKey, largest_too_small, measure_gangs, planned_request};
use super::{Context, Finding, node_at, node_carries};
use df_engine::Scheduler;
use df_manifest::{Manifest, ManifestSet};
use df_model::Object;
use df_model::gang::{POD_GROUP_API_VERSIONS, SchedulingConstraints};
use df_state::ClusterState;
use df_systems::gang::Gang;
use df_systems::gang::workload::POD_GROUP_KIND;

/// PodGroups whose largest domain cannot hold them, with the message.
pub(crate) struct Index {
    too_small: BTreeMap<GangKey, String>,
}

impl Index {
    pub fn new(set: &ManifestSet, state: Option<&ClusterState>) -> Index {
        let too_small = match state {
            Some(state) => shortfalls(set, state),
            None => BTreeMap::new(),
        };
        Index { too_small }
    }
}

/// Every PodGroup of the inputs with a topology constraint, against the planner's domains.
fn shortfalls(set: &ManifestSet, state: &ClusterState) -> BTreeMap<GangKey, String> {
    let asks = |g: &Gang| std::ptr::eq(g.kind, &POD_GROUP_KIND) && !g.topology.is_empty();
    measure_gangs(set, state, asks, shortfall)
}

/// Why even the largest domain of the group's topology key cannot hold its minimum; `None`
/// when one can, when the group has no pods to place, or when no node carries the key
/// (DF508 says so).
fn shortfall(scheduler: &Scheduler, gang: &Gang) -> Option<String> {
    let (request, needed) = planned_request(gang, scheduler.state())?;
    let round = request.rounds.first()?;
    let largest = largest_too_small(scheduler, gang, round, "domain", needed)?;
    Some(format!(
        "{largest}: kube-scheduler finds no placement for the group and it stays pending"
    ))
}

/// The path of the first topology constraint's key, in the spelling the manifest uses
/// (`topology[0].key`, or the development branch's `topologyConstraints[0].topologyKey`).
fn key_path(m: &Manifest, base: &str) -> String {
    let development = format!("{base}.schedulingConstraints.topologyConstraints[0]");
    if node_at(m, &development).is_some() {
        let key = format!("{development}.topologyKey");
        if node_at(m, &key).is_some() {
            return key;
        }
        return format!("{development}.key");
    }
    format!("{base}.schedulingConstraints.topology[0].key")
}

pub(crate) fn check(ctx: &mut Context<'_>, index: &Index, m: &Manifest) {
    match &m.object {
        Object::PodGroup(group) if POD_GROUP_API_VERSIONS.contains(&group.api_version.as_str()) => {
            let Some(constraints) = &group.spec.scheduling_constraints else {
                return;
            };
            let path = key_path(m, "spec");
            check_label(ctx, m, constraints, &path);
            let meta = &group.metadata;
            if let Some(message) =
                index
                    .too_small
                    .get(&(POD_GROUP_KIND.id, meta.namespace.clone(), meta.name.clone()))
            {
                ctx.emit(m, Finding::at(m, "DF509", &path, message.clone()));
            }
        }
        Object::SchedulingWorkload(workload)
            if POD_GROUP_API_VERSIONS.contains(&workload.api_version.as_str()) =>
        {
            for (base, group) in workload.pod_groups() {
                if let Some(constraints) = &group.scheduling_constraints {
                    let path = key_path(m, &base);
                    check_label(ctx, m, constraints, &path);
                }
            }
        }
        _ => {}
    }
}

/// DF508: the label of the constraint kube-scheduler reads (the first) is on no node.
fn check_label(
    ctx: &mut Context<'_>,
    m: &Manifest,
    constraints: &SchedulingConstraints,
    path: &str,
) {
    let Some(state) = ctx.state.filter(|s| !s.nodes.is_empty()) else {
        return;
    };
    let Some(key) = constraints.topology.first().map(|c| c.key.as_str()) else {
        return;
    };
    if key.is_empty() || node_carries(state, key) {
        return;
    }
    let message = format!(
        "no node of the {} in the state carries the label {key:?}: kube-scheduler's \
         TopologyPlacement finds no placement and the group stays pending",
        state.nodes.len()
    );
    ctx.emit(m, Finding::at(m, "DF508", path, message));
}
