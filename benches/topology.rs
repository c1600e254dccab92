//! Three 1,000-pod topology gangs planned over the generated 5,000-node / 150,000-pod state:
//! - a Volcano PodGroup with `networkTopology: hard`, its nodes grouped into a 3-tier HyperNode
//!   tree built from the state's own topology labels: tors (tier 1, by labelMatch), miniPods
//!   (tier 2) and bigPods (tier 3);
//! - a Kueue Job pod set with `podset-required-topology` on the rack level of a Kueue Topology
//!   over the same labels (block = bigPod, rack = miniPod, then the hostname), admitted through
//!   a LocalQueue, ClusterQueue and ResourceFlavor naming that Topology;
//! - a Kubernetes v1.36 PodGroup (KEP-5732) whose `schedulingConstraints.topology` keeps it in
//!   one rack (`miniPod`) of the nodes' 3-level zone / bigPod / miniPod labels, chosen by
//!   kube-scheduler's placement score among the racks that take it.
//!
//! Prints load, one decision over all nodes (what `explain-placement` costs) and each plan
//! time; the target (issue 20) is a plan within one decision + 0.5 s. Run with
//! `cargo bench --profile profiling --bench topology`. `TOPOLOGY_BENCH_DIVISOR=N` divides the
//! nodes, pods and gang sizes by N, to check the bench quickly
//! (`TOPOLOGY_BENCH_DIVISOR=50 cargo test --bench topology` runs it in a debug build).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use df_engine::{Profile, Scheduler};
use df_model::gang::{NetworkTopologySpec, TopologyTerm, WORKLOAD_API_V1ALPHA2};
use df_model::hypernode::{ExactMatch, HyperNodeMember, HyperNodeSpec, MemberSelector};
use df_model::kueue::{
    ClusterQueue, ClusterQueueSpec, FlavorQuotas, KueueObjects, LocalQueue, LocalQueueSpec,
    REQUIRED_TOPOLOGY, ResourceFlavor, ResourceFlavorSpec, ResourceGroup, ResourceQuotaLimits,
    Topology, TopologyLevel, TopologySpec,
};
use df_model::{HyperNode, LabelSelector, Labels, ObjectMeta, Pod, Quantity};
use df_state::ClusterState;
use df_state::recorded::parse_state;
use df_synth::{SynthSpec, cluster_json};
use df_systems::gang::model::PlacementRule;
use df_systems::gang::{
    self, Adapter, Gang, GangOptions, Member, PodSource, kueue, volcano, workload,
};

#[path = "common/gang_pods.rs"]
mod gang_pods;
use gang_pods::member_pods;

const PODS: usize = 1_000;

/// `TOPOLOGY_BENCH_DIVISOR` (default 1): the state's nodes and pods and the gangs' sizes are
/// divided by it.
fn divisor() -> usize {
    std::env::var("TOPOLOGY_BENCH_DIVISOR")
        .map(|d| {
            d.parse()
                .expect("TOPOLOGY_BENCH_DIVISOR is a positive integer")
        })
        .unwrap_or(1)
        .max(1)
}

/// A HyperNode at `tier` whose members are the given selectors.
fn hyper_node(name: &str, tier: i32, members: Vec<(&str, MemberSelector)>) -> HyperNode {
    HyperNode {
        metadata: ObjectMeta {
            name: name.to_string(),
            ..Default::default()
        },
        spec: HyperNodeSpec {
            tier,
            tier_name: String::new(),
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
        let label = |key: &str| {
            node.metadata
                .labels
                .get(key)
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        tors.insert(label("tor"), label("miniPod"));
        mini_pods.insert(label("miniPod"), label("bigPod"));
    }
    let big_pods: BTreeSet<&String> = mini_pods.values().collect();
    let mut out = Vec::new();
    for tor in tors.keys() {
        let selector = MemberSelector {
            label_match: Some(LabelSelector {
                match_labels: Labels::from([("tor".to_string(), tor.clone())]),
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

/// Named objects of the bench, cluster-scoped unless a namespace is given.
fn meta(name: &str, namespace: &str) -> ObjectMeta {
    ObjectMeta {
        name: name.into(),
        namespace: namespace.into(),
        ..Default::default()
    }
}

/// The Kueue chain `ns-00/bench-queue` -> `bench-cq` -> `bench-flavor` -> Topology `bench`
/// (block = bigPod, rack = miniPod, hostname).
fn kueue_objects() -> KueueObjects {
    let levels = ["bigPod", "miniPod", "kubernetes.io/hostname"];
    KueueObjects {
        topologies: vec![Topology {
            api_version: "kueue.x-k8s.io/v1beta1".into(),
            metadata: meta("bench", ""),
            spec: TopologySpec {
                levels: levels
                    .iter()
                    .map(|l| TopologyLevel {
                        node_label: l.to_string(),
                    })
                    .collect(),
            },
        }],
        flavors: vec![ResourceFlavor {
            api_version: "kueue.x-k8s.io/v1beta1".into(),
            metadata: meta("bench-flavor", ""),
            spec: ResourceFlavorSpec {
                topology_name: Some("bench".into()),
                ..Default::default()
            },
        }],
        cluster_queues: vec![ClusterQueue {
            api_version: "kueue.x-k8s.io/v1beta1".into(),
            metadata: meta("bench-cq", ""),
            spec: ClusterQueueSpec {
                // Quota far above the pod set's (1,000 pods): admission is not what this
                // bench measures. The pods ask for CPU and memory, so both are covered.
                resource_groups: vec![ResourceGroup {
                    covered_resources: vec!["cpu".into(), "memory".into()],
                    flavors: vec![FlavorQuotas {
                        name: "bench-flavor".into(),
                        resources: ["cpu", "memory"]
                            .into_iter()
                            .map(|name| ResourceQuotaLimits {
                                name: name.into(),
                                nominal_quota: Quantity::from_value(1 << 50),
                                ..Default::default()
                            })
                            .collect(),
                    }],
                }],
                namespace_selector: Some(Default::default()),
                ..Default::default()
            },
        }],
        local_queues: vec![LocalQueue {
            api_version: "kueue.x-k8s.io/v1beta1".into(),
            metadata: meta("bench-queue", "ns-00"),
            spec: LocalQueueSpec {
                cluster_queue: "bench-cq".into(),
                ..Default::default()
            },
        }],
        ..Default::default()
    }
}

fn members(pods: Vec<Pod>) -> Vec<Member> {
    pods.into_iter()
        .map(|pod| Member {
            pod,
            task: None,
            source: PodSource::Manifest,
        })
        .collect()
}

/// Plan `gang` alone on `state` and print the time it took, its summary and its domains.
fn plan_and_report(state: &ClusterState, what: &str, gang: &Gang) {
    let started = Instant::now();
    let mut scheduler = Scheduler::new(state, Profile::default());
    let plan = gang::plan_gangs(
        std::slice::from_ref(gang),
        &mut scheduler,
        &GangOptions::default(),
    )
    .expect("the bench topology builds")
    .remove(0);
    let planned = started.elapsed();
    println!("topology: plan {what} {planned:.3?}");
    println!("topology: {}", plan.summary);
    println!(
        "topology: chosen {:?}, {} domains rejected",
        plan.topology.as_ref().map(|t| &t.chosen),
        plan.rejected.len()
    );
}

fn main() {
    let divisor = divisor();
    let full = SynthSpec::default();
    let spec = SynthSpec {
        nodes: full.nodes / divisor,
        pods: full.pods / divisor,
        ..full
    };
    let gang_size = PODS / divisor;
    let started = Instant::now();
    let json = cluster_json(&spec);
    let objects = parse_state("synth.json", json.as_bytes()).expect("the generated state parses");
    let mut state = ClusterState::from_objects(objects);
    state.hyper_nodes = hyper_nodes(&state);
    let loaded = started.elapsed();

    let pods = member_pods(gang_size, &Labels::new(), "volcano");

    let scheduler = Scheduler::new(&state, Profile::default());
    let started = Instant::now();
    scheduler.decide(&pods[0]);
    let decision = started.elapsed();
    println!(
        "topology: {} nodes, {} pods, {} HyperNodes; load {loaded:.2?}; one decision {decision:.3?}",
        state.nodes.len(),
        state.pods.len(),
        state.hyper_nodes.len(),
    );

    let mut volcano_gang = Gang::new(
        volcano::VolcanoPodGroups.kind(),
        "scheduling.volcano.sh/v1beta1",
        &meta("bench", "ns-00"),
        gang_size as i64,
    );
    volcano_gang.network_topology = Some(NetworkTopologySpec {
        mode: "hard".into(),
        highest_tier_allowed: Some(3),
        ..NetworkTopologySpec::default()
    });
    volcano_gang.members = members(pods);
    plan_and_report(
        &state,
        &format!("{gang_size}-pod hard-topology Volcano PodGroup"),
        &volcano_gang,
    );

    let mut kueue_pods = member_pods(gang_size, &Labels::new(), "");
    for pod in &mut kueue_pods {
        let annotations = &mut pod.metadata.annotations;
        annotations.insert(REQUIRED_TOPOLOGY.into(), "miniPod".into());
    }
    let mut kueue_gang = Gang::new(
        kueue::KueueJobs.kind(),
        "batch/v1",
        &meta("bench", "ns-00"),
        gang_size as i64,
    );
    kueue_gang.queue = "bench-queue".into();
    kueue_gang.rule = PlacementRule::Kueue(Box::new(kueue_objects()));
    kueue_gang.members = members(kueue_pods);
    plan_and_report(
        &state,
        &format!("{gang_size}-pod Kueue pod set required in one rack (miniPod)"),
        &kueue_gang,
    );

    let mut pod_group = Gang::new(
        workload::WorkloadPodGroups.kind(),
        WORKLOAD_API_V1ALPHA2,
        &meta("bench", "ns-00"),
        gang_size as i64,
    );
    pod_group.topology = vec![TopologyTerm {
        topology_key: "miniPod".into(),
    }];
    pod_group.members = members(member_pods(gang_size, &Labels::new(), ""));
    plan_and_report(
        &state,
        &format!("{gang_size}-pod KEP-5732 PodGroup required in one rack (miniPod)"),
        &pod_group,
    );
}
