//! `plan --how-many-nodes`: how many more nodes like node-00000 a 1,000-pod Godel PodGroup
//! (required bigPod, 8 CPU and 16 GiB per pod) needs on the generated 5,000-node / 150,000-pod
//! state. Every trial is a whole plan with the engine; the nodes are added to the loaded state
//! and dropped again, never re-parsed. Run with
//! `cargo bench --profile profiling --bench capacity`.

use std::sync::Arc;
use std::time::Instant;

use df_engine::Profiles;
use df_manifest::{ManifestSet, parse_text};
use df_plan::PlanOptions;
use df_plan::capacity::how_many_nodes;
use df_state::{ClusterState, recorded};
use df_synth::{SynthSpec, cluster_json};

const PODS: usize = 1_000;
const TEMPLATE: &str = "node-00000";
const MAX: usize = 5_000;

/// The PodGroup and its pods as manifests, as a user would write them.
fn gang() -> String {
    let mut docs = vec![format!(
        "apiVersion: scheduling.godel.kubewharf.io/v1alpha1\nkind: PodGroup\nmetadata: {{name: bench, namespace: ns-00}}\nspec:\n  minMember: {PODS}\n  affinity:\n    podGroupAffinity:\n      required: [{{topologyKey: bigPod}}]\n      preferred: [{{topologyKey: miniPod}}, {{topologyKey: tor}}]\n"
    )];
    docs.extend((0..PODS).map(|i| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: bench-{i}, namespace: ns-00, labels: {{godel.bytedance.com/pod-group-name: bench, app: bench}}}}\nspec:\n  schedulerName: godel-scheduler\n  containers: [{{name: worker, image: worker, resources: {{requests: {{cpu: \"8\", memory: 16Gi}}}}}}]\n"
        )
    }));
    docs.join("---\n")
}

fn main() {
    let started = Instant::now();
    let json = cluster_json(&SynthSpec::default());
    let mut state = ClusterState::from_objects(
        recorded::parse_state("synth.json", json.as_bytes()).expect("the generated state parses"),
    );
    let loaded = started.elapsed();
    let (manifests, problems) = parse_text(&Arc::from("gang.yaml"), &gang());
    assert!(problems.is_empty(), "{problems:?}");
    let set = ManifestSet {
        manifests,
        ..ManifestSet::default()
    };

    let started = Instant::now();
    let mut trials = 0;
    let count = how_many_nodes(
        &set,
        &mut state,
        TEMPLATE,
        MAX,
        &Profiles::default(),
        &PlanOptions::default(),
        &mut |trial| {
            trials += 1;
            eprintln!(
                "capacity: {} new nodes: fits {} ({} unplaced) at {:.2?}",
                trial.nodes,
                trial.fits,
                trial.unplaced,
                started.elapsed()
            );
        },
    )
    .expect("the search runs");
    let searched = started.elapsed();
    println!(
        "capacity: {} nodes, {} pods, generated and loaded in {loaded:.2?}; {PODS}-pod PodGroup needs {:?} more nodes like {TEMPLATE} (found in {trials} plans, {searched:.2?}, {:.2?} per plan)",
        state.nodes.len(),
        state.pods.len(),
        count.nodes,
        searched / trials.max(1),
    );
    assert!(count.nodes.is_some(), "{:?}", count.blocking_reason);
}
