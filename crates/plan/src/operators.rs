//! The operator kinds of the inputs (JobSet, LeaderWorkerSet, TrainJob, the Kubeflow v1 jobs,
//! RayCluster, RayJob) replaced by what their controllers create ([`df_systems::operators`]):
//! pods and PodGroups, each kept at its operator's manifest (its tree and position), so every
//! planner takes them as it takes any pod or PodGroup of the inputs, and a pod's row names the
//! object it came from.

use df_manifest::{Manifest, ManifestSet, Node};
use df_model::Object;
use df_model::operators::{OperatorObject, OperatorSpec};
use df_state::ClusterState;
use df_systems::operators;

/// `manifests` with each operator object replaced by its pods and PodGroups, and what the
/// controllers do that pods cannot show (suspended, created later, not modelled).
pub fn expand(manifests: &ManifestSet, state: &ClusterState) -> (ManifestSet, Vec<String>) {
    let runtimes: Vec<&OperatorObject> = manifests
        .manifests
        .iter()
        .filter_map(|m| match &m.object {
            Object::Operator(o) => Some(&**o),
            _ => None,
        })
        .chain(state.objects.operators.iter())
        .filter(|o| {
            matches!(
                o.spec,
                OperatorSpec::TrainingRuntime(_) | OperatorSpec::ClusterTrainingRuntime(_)
            )
        })
        .collect();
    let mut notes = Vec::new();
    let mut expanded = manifests.without_manifests();
    for manifest in &manifests.manifests {
        let Object::Operator(object) = &manifest.object else {
            expanded.manifests.push(manifest.clone());
            continue;
        };
        let expansion = operators::expand(object, &runtimes);
        notes.extend(expansion.notes);
        expanded
            .manifests
            .extend(expansion.objects.into_iter().map(|object| Manifest {
                file: manifest.file.clone(),
                document: manifest.document,
                root: manifest.root.clone(),
                object,
            }));
    }
    (expanded, notes)
}

/// `KIND/NAME` of the input a pod of the batch comes from: its operator's, when an operator
/// created it (its manifest's tree is the operator's), else the pod's own.
pub(crate) fn origin(manifest: &Manifest, pod_name: &str) -> String {
    let text = |node: Option<&Node>| node.and_then(Node::as_str).map(ToString::to_string);
    let kind = text(manifest.root.get("kind"));
    match kind.filter(|k| k != "Pod") {
        Some(kind) => {
            let name = manifest
                .root
                .get("metadata")
                .and_then(|m| text(m.get("name")))
                .unwrap_or_default();
            format!("{kind}/{name}")
        }
        None => format!("Pod/{pod_name}"),
    }
}
