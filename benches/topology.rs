//! A 1,000-pod Volcano PodGroup with `networkTopology: hard` planned over the generated
//! 5,000-node / 150,000-pod state, its nodes grouped into a 3-tier HyperNode tree built from
//! the state's own topology labels: tors (tier 1, by labelMatch), miniPods (tier 2) and bigPods
//! (tier 3). Prints load, one decision over all nodes (what `explain-placement` costs) and the
//! plan time; the target (issue 20) is a plan within one decision + 0.5 s. Run with
//! `cargo bench --profile profiling --bench topology`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use kubectl_dataflow::cluster::ClusterState;
use kubectl_dataflow::cluster::recorded::parse_state;
use kubectl_dataflow::model::gang::NetworkTopologySpec;
use kubectl_dataflow::model::hypernode::{
    ExactMatch, HyperNodeMember, HyperNodeSpec, MemberSelector,
};
use kubectl_dataflow::model::{HyperNode, LabelSelector, ObjectMeta};
use kubectl_dataflow::sched::{Profile, Scheduler};
use kubectl_dataflow::synth::{SynthSpec, cluster_json};
use kubectl_dataflow::systems::gang::{
    self, Adapter, Gang, Member, PodSource, SchedulerRoutes, volcano,
};

#[path = "common/gang_pods.rs"]
mod gang_pods;
use gang_pods::member_pods;

const PODS: usize = 1_000;

/// A HyperNode at `tier` whose members are the given selectors.
fn hyper_node(name: &str, tier: i32, members: Vec<(&str, MemberSelector)>) -> HyperNode {
    HyperNode {
        metadata: ObjectMeta {
            name: name.to_string(),
            ..Default::default()
        },
        spec: HyperNodeSpec {
            tier,
            members: members
                .into_iter()
                .map(|(member_type, selector)| HyperNodeMember {
                    member_type: member_type.to_string(),
                    selector,
                })
                .collect(),
        },
    }
}

fn exact(name: &str) -> MemberSelector {
    MemberSelector {
        exact_match: Some(ExactMatch {
            name: name.to_string(),
        }),
        ..Default::default()
    }
}

/// tor -> miniPod -> bigPod, as the synthetic nodes' labels say.
fn hyper_nodes(state: &ClusterState) -> Vec<HyperNode> {
    let mut tors: BTreeMap<String, String> = BTreeMap::new();
    let mut mini_pods: BTreeMap<String, String> = BTreeMap::new();
    for node in &state.nodes {
        let label = |key: &str| node.metadata.labels.get(key).cloned().unwrap_or_default();
        tors.insert(label("tor"), label("miniPod"));
        mini_pods.insert(label("miniPod"), label("bigPod"));
    }
    let big_pods: BTreeSet<&String> = mini_pods.values().collect();
    let mut out = Vec::new();
    for tor in tors.keys() {
        let selector = MemberSelector {
            label_match: Some(LabelSelector {
                match_labels: BTreeMap::from([("tor".to_string(), tor.clone())]),
                ..Default::default()
            }),
            ..Default::default()
        };
        out.push(hyper_node(tor, 1, vec![("Node", selector)]));
    }
    for mini in mini_pods.keys() {
        let members = tors
            .iter()
            .filter(|(_, m)| *m == mini)
            .map(|(tor, _)| ("HyperNode", exact(tor)))
            .collect();
        out.push(hyper_node(mini, 2, members));
    }
    for big in big_pods {
        let members = mini_pods
            .iter()
            .filter(|(_, b)| *b == big)
            .map(|(mini, _)| ("HyperNode", exact(mini)))
            .collect();
        out.push(hyper_node(big, 3, members));
    }
    out
}

fn main() {
    let started = Instant::now();
    let json = cluster_json(&SynthSpec::default());
    let objects = parse_state("synth.json", json.as_bytes()).expect("the generated state parses");
    let mut state = ClusterState::from_objects(objects);
    state.hyper_nodes = hyper_nodes(&state);
    let loaded = started.elapsed();

    let pods = member_pods(PODS, &BTreeMap::new(), "volcano");

    let scheduler = Scheduler::new(&state, Profile::default());
    let started = Instant::now();
    scheduler.decide(&pods[0]);
    let decision = started.elapsed();

    let meta = ObjectMeta {
        name: "bench".into(),
        namespace: "ns-00".into(),
        ..Default::default()
    };
    let mut gang = Gang::new(
        volcano::VolcanoPodGroups.kind(),
        "scheduling.volcano.sh/v1beta1",
        &meta,
        PODS as i64,
    );
    gang.network_topology = Some(NetworkTopologySpec {
        mode: "hard".into(),
        highest_tier_allowed: Some(3),
    });
    gang.members = pods
        .into_iter()
        .map(|pod| Member {
            pod,
            task: None,
            source: PodSource::Manifest,
        })
        .collect();
    let started = Instant::now();
    let plan = gang::plan_alone(
        &state,
        &Profile::default(),
        &gang,
        &SchedulerRoutes::default(),
    )
    .expect("the bench topology builds");
    let planned = started.elapsed();
    println!(
        "topology: {} nodes, {} pods, {} HyperNodes; load {loaded:.2?}; one decision {decision:.3?}; \
         plan {PODS}-pod hard-topology PodGroup {planned:.3?}",
        state.nodes.len(),
        state.pods.len(),
        state.hyper_nodes.len(),
    );
    println!("topology: {}", plan.summary);
    println!(
        "topology: chosen {:?}, {} domains rejected",
        plan.topology.as_ref().map(|t| &t.chosen),
        plan.rejected.len()
    );
}
