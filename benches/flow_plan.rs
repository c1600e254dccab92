//! A 200-operation DataFlow over the generated 5,000-node / 150,000-pod state.
//! Run with `cargo bench --bench flow_plan`; the target is under 1 s for the plan, after load.

use std::sync::Arc;
use std::time::Instant;

use kubectl_dataflow::cluster::{ClusterState, recorded};
use kubectl_dataflow::manifest::parse_text;
use kubectl_dataflow::plan::{OpStatus, plan};
use kubectl_dataflow::sched::Profile;
use kubectl_dataflow::synth::{SynthSpec, cluster_json};

const OPERATIONS: usize = 200;

/// A binary fan-out tree of operations cycling through the policies and the kinds.
fn flow() -> String {
    let kinds = ["DataLoad", "DataProcess", "DataLoad", "DataMigrate"];
    let strategies = [
        "{policy: Require}",
        "{policy: Prefer, prefers: [{name: topology.kubernetes.io/zone, weight: 80}, {name: kubernetes.io/hostname, weight: 20}]}",
        "{policy: Require, requires: [{name: topology.kubernetes.io/zone}, {name: tor}]}",
        "{policy: Prefer}",
        "{policy: \"\"}",
    ];
    let mut docs = Vec::with_capacity(OPERATIONS);
    for i in 0..OPERATIONS {
        let kind = kinds[i % kinds.len()];
        let mut doc = format!(
            "apiVersion: data.fluid.io/v1alpha1\nkind: {kind}\nmetadata: {{name: op-{i:03}, namespace: bench, annotations: {{affinity.dataflow.fluid.io/labels: tor}}}}\nspec:\n"
        );
        if kind == "DataProcess" {
            doc.push_str("  processor: {script: {image: worker, resources: {requests: {cpu: 500m, memory: 1Gi}}}}\n");
        } else {
            doc.push_str("  resources: {requests: {cpu: 500m, memory: 1Gi}}\n");
        }
        if i > 0 {
            let parent = (i - 1) / 2;
            doc.push_str(&format!(
                "  runAfter: {{kind: {}, name: op-{parent:03}, affinityStrategy: {}}}\n",
                kinds[parent % kinds.len()],
                strategies[i % strategies.len()]
            ));
        }
        docs.push(doc);
    }
    docs.join("---\n")
}

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

    let started = Instant::now();
    let result = plan(&manifests, &state, Profile::default()).expect("the flow plans");
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
