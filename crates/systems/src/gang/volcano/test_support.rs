//! What the Volcano tests that plan end to end (`gangs` then `plan_gangs`) share: manifests
//! from YAML, the plans of the given objects on a state, and a pod's row as they assert it.

use std::sync::Arc;

use df_engine::{Profile, Scheduler};
use df_manifest::{Manifest, ManifestSet};
use df_state::ClusterState;

use crate::gang::outcome::PodRow;
use crate::gang::{GangOptions, GroupPlan, gangs, plan_gangs};

/// The manifests of `yaml`, which must parse without problems.
pub(super) fn parse(yaml: &str) -> Vec<Manifest> {
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("test.yaml"), yaml);
    assert!(problems.is_empty(), "{problems:?}");
    manifests
}

/// The state of the objects of `yaml`.
pub(super) fn state_of(yaml: &str) -> ClusterState {
    ClusterState::from_objects(parse(yaml).into_iter().map(|m| m.object))
}

/// Every gang of `yaml` planned on `state`, with the default options.
pub(super) fn plan_given(state: &ClusterState, yaml: &str) -> Vec<GroupPlan> {
    let manifests = ManifestSet {
        manifests: parse(yaml),
        ..ManifestSet::default()
    };
    let opts = GangOptions::default();
    let mut scheduler = Scheduler::new(state, Profile::default());
    plan_gangs(&gangs(&manifests, state, &opts), &mut scheduler, &opts).unwrap()
}

/// A pod as `pod@node`, or `pod: reason` when it is not placed.
pub(super) fn pod_row(row: &PodRow) -> String {
    match (&row.node, &row.reason) {
        (Some(node), _) => format!("{}@{node}", row.pod),
        (None, reason) => format!("{}: {}", row.pod, reason.as_deref().unwrap_or("")),
    }
}
