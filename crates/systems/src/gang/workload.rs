//! The Kubernetes Workload API (KEP-4671), in both versions a cluster may serve:
//! - v1.35, `scheduling.k8s.io/v1alpha1` `Workload`: `spec.podGroups[]` with `policy.gang.
//!   minCount`; a pod joins through `spec.workloadRef {name, podGroup}`;
//! - v1.36, `scheduling.k8s.io/v1alpha2` (v1.37: v1alpha3 and v1beta1, the same fields): the
//!   `Workload` only holds `podGroupTemplates`; the runtime `PodGroup` carries
//!   `schedulingPolicy.gang.minCount` (and, with TopologyAwareWorkloadScheduling,
//!   `schedulingConstraints.topology[].key`, planned by `topology::workload`); a pod joins
//!   through `spec.schedulingGroup.podGroupName`.
//!
//! The GangScheduling plugin holds a gang's pods until `minCount` exist, then admits the gang
//! only when `minCount` of them can be placed together. A `basic` pod group is no gang: its
//! pods are placed one by one (minimum 0).

use super::model::{Adapter, Gang, GangKind, GangObjects, JoinField, System};
use df_model::Pod;
use df_model::gang::{
    POD_GROUP_API_VERSIONS, SchedulingPolicy, TopologyTerm, WORKLOAD_API_V1ALPHA1,
};

pub(crate) static WORKLOAD_KIND: GangKind = GangKind {
    id: "workload",
    kind: "Workload",
    api_versions: &[WORKLOAD_API_V1ALPHA1],
    joining: "`spec.workloadRef: {name: <workload>, podGroup: <group>}` (v1.35)",
    join_field: JoinField::Spec("workloadRef.podGroup"),
    honoured_by: System::KubeScheduler,
};

pub static POD_GROUP_KIND: GangKind = GangKind {
    id: "workload-podgroup",
    kind: "PodGroup",
    api_versions: POD_GROUP_API_VERSIONS,
    joining: "`spec.schedulingGroup.podGroupName: <group>` (v1.36+)",
    join_field: JoinField::Spec("schedulingGroup.podGroupName"),
    honoured_by: System::KubeScheduler,
};

/// The gang minimum a policy asks for: `gang.minCount`, or 0 for `basic`.
fn min_count(policy: Option<&SchedulingPolicy>) -> i64 {
    policy
        .and_then(|p| p.gang.as_ref())
        .map_or(0, |g| i64::from(g.min_count))
}

/// v1.35 Workloads: one gang per pod group, named `<workload>/<podGroup>`.
pub struct Workloads;

impl Adapter for Workloads {
    fn kind(&self) -> &'static GangKind {
        &WORKLOAD_KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects
            .workloads
            .iter()
            .filter(|w| w.api_version == WORKLOAD_API_V1ALPHA1)
            .flat_map(|w| {
                w.spec.pod_groups.iter().map(|group| {
                    let mut meta = w.metadata.clone();
                    meta.name = format!("{}/{}", w.metadata.name, group.name);
                    let min = min_count(group.policy());
                    Gang::new(&WORKLOAD_KIND, &w.api_version, &meta, min)
                })
            })
            .collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        let reference = pod.spec.workload_ref.as_ref()?;
        Some(format!("{}/{}", reference.name, reference.pod_group))
    }
}

/// v1.36+ runtime PodGroups.
pub struct WorkloadPodGroups;

impl Adapter for WorkloadPodGroups {
    fn kind(&self) -> &'static GangKind {
        &POD_GROUP_KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects
            .pod_groups
            .iter()
            .filter(|g| POD_GROUP_API_VERSIONS.contains(&g.api_version.as_str()))
            .map(|g| {
                let min = min_count(g.spec.scheduling_policy.as_ref());
                let mut gang = Gang::new(&POD_GROUP_KIND, &g.api_version, &g.metadata, min);
                gang.topology = g
                    .spec
                    .scheduling_constraints
                    .as_ref()
                    .into_iter()
                    .flat_map(|c| &c.topology)
                    .map(|t| TopologyTerm {
                        topology_key: t.key.clone(),
                    })
                    .collect();
                gang
            })
            .collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        pod.spec.scheduling_group.as_ref()?.pod_group_name.clone()
    }
}
