//! LeaderWorkerSet (`leaderworkerset.x-k8s.io/v1`): per group a leader (the leader
//! StatefulSet's pod `<lws>-<g>`) and `size - 1` workers (the worker StatefulSet `<lws>-<g>`,
//! ordinals from 1), with the labels the controllers and the pod webhook set and the
//! exclusive (and subgroup-exclusive) placement the webhook injects, as kubernetes-sigs/lws
//! computes them (`leaderworkerset_controller.go`, `pod_controller.go`, `pod_webhook.go`).

use df_model::operators::LeaderWorkerSetSpec;
use df_model::{Object, ObjectMeta, POD_INDEX_LABEL, Pod, STATEFULSET_POD_NAME_LABEL};

use super::{Expansion, Follower, exclusive_terms, pod_of, sha1};

pub const NAME: &str = "leaderworkerset.sigs.k8s.io/name";
pub const WORKER_INDEX: &str = "leaderworkerset.sigs.k8s.io/worker-index";
pub const GROUP_INDEX: &str = "leaderworkerset.sigs.k8s.io/group-index";
pub const GROUP_KEY: &str = "leaderworkerset.sigs.k8s.io/group-key";
pub const SIZE: &str = "leaderworkerset.sigs.k8s.io/size";
pub const LEADER_NAME: &str = "leaderworkerset.sigs.k8s.io/leader-name";
pub const EXCLUSIVE_TOPOLOGY: &str = "leaderworkerset.sigs.k8s.io/exclusive-topology";
pub const SUBGROUP_EXCLUSIVE_TOPOLOGY: &str =
    "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology";
pub const SUBGROUP_SIZE: &str = "leaderworkerset.sigs.k8s.io/subgroup-size";
pub const SUBGROUP_POLICY_TYPE: &str = "leaderworkerset.sigs.k8s.io/subgroup-policy-type";
pub const SUBGROUP_INDEX: &str = "leaderworkerset.sigs.k8s.io/subgroup-index";
pub const SUBGROUP_KEY: &str = "leaderworkerset.sigs.k8s.io/subgroup-key";

/// The webhook's refusal... upstream creates the worker StatefulSet only once the leader is
/// scheduled: the workers do not exist before.
const LEADER_NOT_SCHEDULED: &str =
    "the worker StatefulSet is created once the leader pod is scheduled (exclusive placement)";

/// The pods of every group: leaders first, then the workers (created with the leader under
/// `LeaderCreated`, after it is Ready under `LeaderReady`, after it is scheduled with
/// exclusive placement).
pub fn expand(meta: &ObjectMeta, spec: &LeaderWorkerSetSpec) -> Expansion {
    let mut out = Expansion::default();
    let template = &spec.leader_worker_template;
    let size = template.size.unwrap_or(1).max(1);
    let groups = spec.replicas.unwrap_or(1).max(0);
    let subgroups = template.sub_group_policy.as_ref().and_then(|p| {
        let sgs = p.sub_group_size?;
        Some((
            sgs,
            p.sub_group_policy_type.as_deref().unwrap_or("LeaderWorker"),
        ))
    });
    if let Some((sgs, policy)) = subgroups {
        let refusal = if sgs < 1 || sgs > size {
            Some("subGroupSize must be between 1 and size".to_string())
        } else if policy == "LeaderExcluded" && (size - 1) % sgs != 0 {
            Some("size-1 must be divisible by subGroupSize when using LeaderExcluded".into())
        } else if size % sgs != 0 && (size - 1) % sgs != 0 {
            Some("size or size-1 must be divisible by subGroupSize".into())
        } else {
            None
        };
        if let Some(refusal) = refusal {
            out.note(format!(
                "LeaderWorkerSet {}: rejected by its webhook: {refusal}",
                meta.name
            ));
            return out;
        }
    } else if meta.annotations.contains_key(SUBGROUP_EXCLUSIVE_TOPOLOGY) {
        out.note(format!(
            "LeaderWorkerSet {}: rejected by its webhook: subgroup-exclusive-topology needs subGroupSize",
            meta.name
        ));
        return out;
    }
    if spec.startup_policy.as_deref() == Some("LeaderReady") {
        out.note(format!(
            "LeaderWorkerSet {}: workers are created once their leader is Ready (startupPolicy LeaderReady; assumed)",
            meta.name
        ));
    }
    let leader_template = template
        .leader_template
        .as_ref()
        .unwrap_or(&template.worker_template);
    let mut annotations: Vec<(&str, String)> = vec![(SIZE, size.to_string())];
    for key in [EXCLUSIVE_TOPOLOGY, SUBGROUP_EXCLUSIVE_TOPOLOGY] {
        if let Some(value) = meta.annotations.get(key) {
            annotations.push((key, value.to_string()));
        }
    }
    if let Some((sgs, policy)) = subgroups {
        annotations.push((SUBGROUP_SIZE, sgs.to_string()));
        annotations.push((SUBGROUP_POLICY_TYPE, policy.to_string()));
    }
    let mut leaders = Vec::new();
    let mut workers = Vec::new();
    for g in 0..groups {
        let leader_name = format!("{}-{g}", meta.name);
        let group_key = sha1::hex(&format!("{}/{leader_name}", meta.namespace));
        let member = |template, name: String, index: i32, ordinal: i32| {
            let mut pod = pod_of(template, &meta.namespace, name.clone());
            let labels = &mut pod.metadata.labels;
            labels.insert(NAME.into(), meta.name.as_str().into());
            labels.insert(GROUP_INDEX.into(), g.to_string().into());
            labels.insert(GROUP_KEY.into(), group_key.as_str().into());
            labels.insert(WORKER_INDEX.into(), index.to_string().into());
            labels.insert(STATEFULSET_POD_NAME_LABEL.into(), name.into());
            labels.insert(POD_INDEX_LABEL.into(), ordinal.to_string().into());
            for (key, value) in &annotations {
                pod.metadata
                    .annotations
                    .insert((*key).into(), value.as_str().into());
            }
            if let Some((sgs, policy)) = subgroups
                && !(index == 0 && policy == "LeaderExcluded")
            {
                let subgroup = if (size - 1) % sgs == 0 && size % sgs != 0 {
                    (index - 1).max(0) / sgs
                } else {
                    index / sgs
                };
                let labels = &mut pod.metadata.labels;
                labels.insert(SUBGROUP_INDEX.into(), subgroup.to_string().into());
                let key = sha1::hex(&format!("{leader_name}/{subgroup}"));
                labels.insert(SUBGROUP_KEY.into(), key.into());
            }
            pod
        };
        leaders.push(member(leader_template, leader_name.clone(), 0, g));
        for w in 1..size {
            let mut pod = member(
                &template.worker_template,
                format!("{leader_name}-{w}"),
                w,
                w,
            );
            pod.metadata
                .annotations
                .insert(LEADER_NAME.into(), leader_name.as_str().into());
            workers.push(pod);
        }
    }
    out.objects = leaders
        .into_iter()
        .chain(workers)
        .map(Object::Pod)
        .collect();
    out
}

/// The pod webhook (`SetExclusiveAffinities`): the leader of a group with exclusive placement
/// gets the group pair of terms, every pod of a subgroup with subgroup-exclusive placement the
/// subgroup pair, each skipped when the pod already has a required pair over that topology.
pub fn admit(pod: &mut Pod) -> Vec<String> {
    if !pod.metadata.labels.contains_key(NAME) {
        return Vec::new();
    }
    let mut injected = Vec::new();
    let leader = pod
        .metadata
        .labels
        .get(WORKER_INDEX)
        .is_some_and(|i| i == "0");
    let pairs = [
        (leader, EXCLUSIVE_TOPOLOGY, GROUP_KEY),
        (true, SUBGROUP_EXCLUSIVE_TOPOLOGY, SUBGROUP_KEY),
    ];
    for (applies, annotation, label) in pairs {
        let topology = pod
            .metadata
            .annotations
            .get(annotation)
            .map(ToString::to_string);
        let key = pod.metadata.labels.get(label).map(ToString::to_string);
        let (true, Some(topology), Some(key)) = (applies, topology, key) else {
            continue;
        };
        if applied(pod, &topology) {
            continue;
        }
        exclusive_terms(pod, label, &key, &topology, None, false);
        injected.push(format!(
            "LeaderWorkerSet webhook: podAffinity {label} In [{key}], podAntiAffinity other {}s @{topology}",
            if label == GROUP_KEY { "group" } else { "subgroup" }
        ));
    }
    injected
}

/// Upstream `exclusiveAffinityApplied`: a required pod affinity term and a required
/// anti-affinity term over `topology` already there.
fn applied(pod: &Pod, topology: &str) -> bool {
    let Some(affinity) = &pod.spec.affinity else {
        return false;
    };
    let over = |terms: Option<&df_model::PodAffinity>| {
        terms.is_some_and(|t| t.required.iter().any(|term| term.topology_key == topology))
    };
    over(affinity.pod_affinity.as_ref()) && over(affinity.pod_anti_affinity.as_ref())
}

/// A worker of a group with exclusive placement waits for its leader.
pub fn leader_of(pod: &Pod) -> Option<Follower> {
    if pod.metadata.labels.get(WORKER_INDEX)? == "0" {
        return None;
    }
    let topology = pod.metadata.annotations.get(EXCLUSIVE_TOPOLOGY)?;
    let leader = pod.metadata.annotations.get(LEADER_NAME)?;
    Some(Follower {
        leader: leader.to_string(),
        topology_key: topology.to_string(),
        waiting: LEADER_NOT_SCHEDULED,
    })
}
