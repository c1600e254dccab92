//! A 200-operation DataFlow over the generated 5,000-node / 150,000-pod state.
//! Run with `cargo bench --bench flow_plan`; the target is under 1 s for the plan, after load.

use std::sync::Arc;
use std::time::Instant;

use df_engine::Profiles;
use df_manifest::ManifestSet;
use df_manifest::parse_text;
use df_plan::{OpStatus, PlanOptions, plan_all};
use df_state::{ClusterState, recorded};
use df_synth::{SynthSpec, cluster_json};

#[path = "common/flow.rs"]
mod flow;

use flow::{OPERATIONS, flow};

fn main() {
    let started = Instant::now();
    let json = cluster_json(&SynthSpec::default());
    let generated = started.elapsed();

    let started = Instant::now();
    let state = ClusterState::from_objects(
        recorded::parse_state("synth.json", json.as_bytes()).expect("synthetic state loads"),
    );
    let loaded = started.elapsed();

    let (manifests, problems) = parse_text(&Arc::from("flow.yaml"), &flow());
    assert!(problems.is_empty(), "{problems:?}");
    let inputs = ManifestSet {
        manifests,
        ..ManifestSet::default()
    };

    let started = Instant::now();
    let result = plan_all(
        &inputs,
        &state,
        Profiles::default(),
        &PlanOptions::default(),
    )
    .expect("the flow plans");
    let planned = started.elapsed();

    let count = |status: OpStatus| {
        result
            .operations
            .iter()
            .filter(|o| o.status == status)
            .count()
    };
    println!(
        "state: {} nodes, {} pods (generated in {:.2?}, loaded in {:.2?})",
        state.nodes.len(),
        state.pods.len(),
        generated,
        loaded
    );
    println!(
        "flow_plan: {} operations planned in {:.3?} ({} placed, {} unschedulable, {} blocked)",
        result.operations.len(),
        planned,
        count(OpStatus::Planned),
        count(OpStatus::Unschedulable),
        count(OpStatus::Blocked)
    );
    assert_eq!(result.operations.len(), OPERATIONS);
}
