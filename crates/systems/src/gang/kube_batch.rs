//! kube-batch PodGroups (`scheduling.incubator.k8s.io/v1alpha1`, later
//! `scheduling.sigs.dev/v1alpha2`): pods join by the `scheduling.k8s.io/group-name`
//! annotation; the gang plugin admits a job once `minMember` of its tasks are allocated
//! (running ones counted), pod by pod, each seeing the ones allocated before it in the session.

use super::model::{Adapter, Gang, GangKind, GangObjects, JoinField, System};
use df_model::Pod;
use df_model::gang::{GROUP_NAME_ANNOTATION, KUBE_BATCH_V1ALPHA1, KUBE_BATCH_V1ALPHA2};

pub static KIND: GangKind = GangKind {
    id: "kube-batch",
    kind: "PodGroup",
    api_versions: &[KUBE_BATCH_V1ALPHA1, KUBE_BATCH_V1ALPHA2],
    joining: "annotation `scheduling.k8s.io/group-name: <group>`",
    join_field: JoinField::Annotation(GROUP_NAME_ANNOTATION),
    honoured_by: System::KubeBatch,
};

pub(crate) struct KubeBatch;

impl Adapter for KubeBatch {
    fn kind(&self) -> &'static GangKind {
        &KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects
            .pod_groups
            .iter()
            .filter(|g| KIND.api_versions.contains(&g.api_version.as_str()))
            .map(|g| {
                let min = g.spec.min_member.map_or(1, i64::from);
                let mut gang = Gang::new(&KIND, &g.api_version, &g.metadata, min);
                gang.min_resources = g.spec.min_resources.clone();
                gang.queue = g.spec.queue.clone();
                gang.priority_class_name = g.spec.priority_class_name.clone();
                gang
            })
            .collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        pod.metadata
            .annotations
            .get(GROUP_NAME_ANNOTATION)
            .map(ToString::to_string)
    }
}
