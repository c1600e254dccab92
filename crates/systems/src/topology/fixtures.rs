//! A two-spine cluster and a kube-batch gang to place over its domains: the fixture of the
//! topology tests here and of the report's rendering of a topology placement.

use std::sync::Arc;

use df_engine::{Profile, Scheduler};
use df_model::{Object, ObjectMeta};
use df_state::ClusterState;

use super::{Domain, Mode, Order, Request, Round, plan_in_domains};
use crate::gang::{Gang, GroupPlan, Member, PodSource, kube_batch, place};

/// Spine s0 holds rack r1 (n1, n2: 4 CPU each) and rack r2 (n3, n4: 2 CPU each); spine s1
/// holds rack r3 (n5: 4 CPU, tainted NoSchedule).
pub fn cluster() -> ClusterState {
    let node = |name: &str, cpu: &str, taint: &str| {
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{kubernetes.io/hostname: {name}}}\nspec:\n  taints: [{taint}]\nstatus:\n  allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}\n---\n"
        )
    };
    let yaml = [
        node("n1", "4", ""),
        node("n2", "4", ""),
        node("n3", "2", ""),
        node("n4", "2", ""),
        node("n5", "4", "{key: gpu, effect: NoSchedule}"),
    ]
    .concat();
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("cluster.yaml"), &yaml);
    assert!(problems.is_empty(), "{problems:?}");
    ClusterState::from_objects(manifests.into_iter().map(|m| m.object))
}

/// A kube-batch gang `train` of `pods` pods of 2 CPU each, `min` of which must fit.
pub fn gang(pods: usize, min: i64) -> Gang {
    cpu_gang("train", pods, 2, min)
}

/// A kube-batch gang `name` of `pods` pods `<name>-<i>` of `cpu` CPU each, `min` of which must
/// fit.
pub fn cpu_gang(name: &str, pods: usize, cpu: u32, min: i64) -> Gang {
    let meta = ObjectMeta {
        name: name.into(),
        namespace: "default".into(),
        ..ObjectMeta::default()
    };
    let mut gang = Gang::new(&kube_batch::KIND, "", &meta, min);
    gang.members = (0..pods)
        .map(|i| {
            let yaml = format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}-{i}\n  namespace: default\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n"
            );
            let (mut parsed, _) = df_manifest::parse_text(&Arc::from("pod.yaml"), &yaml);
            let Some(Object::Pod(pod)) = parsed.pop().map(|m| m.object) else {
                panic!("pod")
            };
            Member {
                pod,
                task: None,
                source: PodSource::Manifest,
            }
        })
        .collect();
    gang
}

/// Levels tier2 (spines) and tier1 (racks); rounds up to `highest` tier, racks in the order
/// r2, r1, r3 (the order a system would prefer them in).
pub fn request(mode: Mode, highest: usize) -> Request {
    let domains = |names: &[(&str, &[usize])]| -> Vec<Domain> {
        names
            .iter()
            .map(|(name, nodes)| Domain {
                name: name.to_string(),
                nodes: nodes.to_vec(),
            })
            .collect()
    };
    let racks = Round {
        level: "tier1".into(),
        domains: domains(&[("r2", &[2, 3]), ("r1", &[0, 1]), ("r3", &[4])]),
        order: Order::Given,
    };
    let spines = Round {
        level: "tier2".into(),
        domains: domains(&[("s0", &[0, 1, 2, 3]), ("s1", &[4])]),
        order: Order::Given,
    };
    let path = |spine: &str, rack: &str| vec![Some(spine.to_string()), Some(rack.to_string())];
    Request {
        system: "test-topology",
        mode,
        constraint: format!("highestTierAllowed {highest}"),
        levels: vec!["tier2".into(), "tier1".into()],
        node_domains: vec![
            path("s0", "r1"),
            path("s0", "r1"),
            path("s0", "r2"),
            path("s0", "r2"),
            path("s1", "r3"),
        ],
        rounds: [racks, spines].into_iter().take(highest).collect(),
        warnings: Vec::new(),
        pinned: None,
    }
}

pub fn plan(state: &ClusterState, gang: &Gang, request: &Request) -> GroupPlan {
    let mut scheduler = Scheduler::new(state, Profile::default());
    plan_in_domains(&mut scheduler, gang, request, false, &mut |s, within| {
        Ok(place::plan_pod_by_pod(s, gang, false, None, within))
    })
    .unwrap()
}
