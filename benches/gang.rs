//! A 1,000-pod Godel PodGroup (required bigPod, preferred miniPod and tor) planned on the
//! generated 5,000-node / 150,000-pod state. Prints load and plan times; the target is a plan
//! under 1 s after load. Run with `cargo bench --bench gang`.

use std::time::Instant;

use df_engine::{Profile, Scheduler};
use df_model::gang::{
    GODEL_POD_GROUP_LABEL, GodelAffinity, GodelPodGroupSpec, PodGroupAffinity, TopologyTerm,
};
use df_model::{GodelPodGroup, Labels, ObjectMeta};
use df_state::ClusterState;
use df_state::recorded::parse_state;
use df_synth::{SynthSpec, cluster_json};
use df_systems::gang::{Member, PodSource, godel};

#[path = "common/gang_pods.rs"]
mod gang_pods;
use gang_pods::member_pods;

const PODS: usize = 1_000;

fn main() {
    let started = Instant::now();
    let json = cluster_json(&SynthSpec::default());
    let generated = started.elapsed();
    let started = Instant::now();
    let objects = parse_state("synth.json", json.as_bytes()).expect("the generated state parses");
    let state = ClusterState::from_objects(objects);
    let loaded = started.elapsed();

    let term = |key: &str| TopologyTerm {
        topology_key: key.to_string(),
    };
    let group = GodelPodGroup {
        metadata: ObjectMeta {
            name: "bench".into(),
            namespace: "ns-00".into(),
            ..Default::default()
        },
        spec: GodelPodGroupSpec {
            min_member: PODS as i32,
            affinity: Some(GodelAffinity {
                pod_group_affinity: Some(PodGroupAffinity {
                    required: vec![term("bigPod")],
                    preferred: vec![term("miniPod"), term("tor")],
                    ..Default::default()
                }),
            }),
        },
    };
    let pods = member_pods(
        PODS,
        &Labels::from([
            (GODEL_POD_GROUP_LABEL.to_string(), "bench".to_string()),
            ("app".to_string(), "bench".to_string()),
        ]),
        "",
    );

    // The engine's cost per pod, which bounds any pod-by-pod gang plan.
    let started = Instant::now();
    let scheduler = Scheduler::new(&state, Profile::default());
    let built = started.elapsed();
    let started = Instant::now();
    let decision = scheduler.decide(&pods[0]);
    println!(
        "gang: engine setup {built:.2?}, one decision over all nodes {:.2?} ({:?})",
        started.elapsed(),
        decision.selected
    );
    eprintln!("gang: generated in {generated:.2?}, loaded in {loaded:.2?}; planning...");

    let mut gang = godel::gang(&group);
    gang.members = pods
        .into_iter()
        .map(|pod| Member {
            pod,
            task: None,
            source: PodSource::Manifest,
        })
        .collect();
    let started = Instant::now();
    let mut scheduler = Scheduler::new(&state, Profile::default());
    let plan = godel::plan_pod_group(&mut scheduler, &gang, &group, false)
        .expect("the bench unit has no running pods");
    let planned = started.elapsed();
    println!(
        "gang: {} nodes, {} pods; generate {:.2?}, load {:.2?}; plan {PODS}-pod PodGroup {:.3?} ({:.0} pods/s)",
        state.nodes.len(),
        state.pods.len(),
        generated,
        loaded,
        planned,
        PODS as f64 / planned.as_secs_f64()
    );
    println!("gang: {}", plan.summary);
    println!(
        "gang: node group {:?}, {} groups rejected",
        plan.node_group,
        plan.rejections.len()
    );
}
