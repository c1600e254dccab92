//! scheduler-plugins coscheduling PodGroups (`scheduling.x-k8s.io/v1alpha1`): pods join by the
//! `scheduling.x-k8s.io/pod-group` label. Its PreFilter (pkg/coscheduling/core/core.go) turns
//! a pod away while fewer than `minMember` pods of the group exist, and while the group's
//! `minResources` (plus `minMember` pod slots) exceed what the cluster's nodes have free, the
//! group's own pods not counted as using anything; its Permit holds pods until `minMember`
//! are assigned.

use std::collections::BTreeMap;

use super::model::{Adapter, Gang, GangKind, GangObjects, JoinField, PlacementRule, System};
use df_engine::{Resources, Scheduler, pod_requests};
use df_model::gang::{COSCHEDULING_API_VERSION, COSCHEDULING_POD_GROUP_LABEL};
use df_model::resources::format_bytes;
use df_model::{Pod, Quantity};

pub static KIND: GangKind = GangKind {
    id: "coscheduling",
    kind: "PodGroup",
    api_versions: &[COSCHEDULING_API_VERSION],
    joining: "label `scheduling.x-k8s.io/pod-group: <group>`",
    join_field: JoinField::Label(COSCHEDULING_POD_GROUP_LABEL),
    honoured_by: System::Coscheduling,
};

pub struct Coscheduling;

impl Adapter for Coscheduling {
    fn kind(&self) -> &'static GangKind {
        &KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects
            .pod_groups
            .iter()
            .filter(|g| g.api_version == COSCHEDULING_API_VERSION)
            .map(|g| {
                let min = g.spec.min_member.map_or(1, i64::from);
                let mut gang = Gang::new(&KIND, &g.api_version, &g.metadata, min);
                gang.min_resources = g.spec.min_resources.clone();
                gang.rule = PlacementRule::Coscheduling;
                gang
            })
            .collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        pod.metadata
            .labels
            .get(COSCHEDULING_POD_GROUP_LABEL)
            .map(ToString::to_string)
    }
}

/// The PreFilter's cluster resource check: `None` when the nodes' free resources (with the
/// group's own running pods given back) cover `minResources` and `minMember` pod slots, else
/// upstream's `resource gap: ...` naming what is still missing.
pub(crate) fn resource_gap(scheduler: &Scheduler, gang: &Gang) -> Option<String> {
    if gang.min_resources.is_empty() {
        return None;
    }
    let mut wanted = Resources::from_list(&gang.min_resources);
    wanted.pods = gang.min_member;
    let mut free = Resources::default();
    for node in 0..scheduler.state().nodes.len() {
        if let Some(room) = scheduler.free(node) {
            free.add(&room);
        }
    }
    for pod in &gang.running {
        let mut own = pod_requests(&pod.spec, false);
        own.pods = 1;
        free.add(&own);
    }
    let mut gap: BTreeMap<String, String> = BTreeMap::new();
    let mut short = |name: &str, want: i64, have: i64, show: fn(i64) -> String| {
        if want > have {
            gap.insert(name.to_string(), show(want - have));
        }
    };
    let plain = |v: i64| v.to_string();
    short("cpu", wanted.milli_cpu, free.milli_cpu, |m| {
        Quantity::from_milli(m).to_string()
    });
    short("memory", wanted.memory, free.memory, format_bytes);
    short(
        "ephemeral-storage",
        wanted.ephemeral_storage,
        free.ephemeral_storage,
        format_bytes,
    );
    short("pods", wanted.pods, free.pods, plain);
    for (name, want) in &wanted.scalar {
        short(name, *want, free.scalar(name), plain);
    }
    (!gap.is_empty()).then(|| {
        let parts: Vec<String> = gap.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!(
            "resource gap: the cluster lacks {} for the group's minResources",
            parts.join(", ")
        )
    })
}
