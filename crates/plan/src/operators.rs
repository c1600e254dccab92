//! The operator kinds of the inputs (JobSet, LeaderWorkerSet, TrainJob, the Kubeflow v1 jobs,
//! RayCluster, RayJob) replaced by what their controllers create ([`df_systems::operators`]):
//! pods and PodGroups, each kept at its operator's manifest (its tree and position), so every
//! planner takes them as it takes any pod or PodGroup of the inputs, and a pod's row names the
//! object it came from.

use df_manifest::tree::Entry;
use df_manifest::{Manifest, ManifestSet, Node, Value};
use df_model::Object;
use df_model::operators::{OperatorObject, OperatorSpec};
use df_state::ClusterState;
use df_systems::gang::kueue;
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
        let managed = operators::kueue_managed(object);
        let mut expansion = if managed {
            operators::expand(&operators::unsuspended_by_kueue(object), &runtimes)
        } else {
            operators::expand(object, &runtimes)
        };
        let root = named_root(&manifest.root, &object.metadata.name);
        if managed {
            // Kueue admits the object as one workload, a gang of its pods.
            kueue_members(object, &mut expansion, state);
            expanded.manifests.push(Manifest {
                root: root.clone(),
                ..manifest.clone()
            });
        }
        notes.extend(expansion.notes);
        expanded
            .manifests
            .extend(expansion.objects.into_iter().map(|object| Manifest {
                file: manifest.file.clone(),
                document: manifest.document,
                root: root.clone(),
                object,
            }));
    }
    (expanded, notes)
}

/// Make the pods of `object`, which Kueue manages, the members of its workload: marked as
/// Kueue's pods are, each as the operators' pod webhooks admit it (a gang's members are not
/// the batch's, which runs them otherwise).
fn kueue_members(
    object: &OperatorObject,
    expansion: &mut operators::Expansion,
    state: &ClusterState,
) {
    for pod in expansion.objects.iter_mut().filter_map(|o| match o {
        Object::Pod(pod) => Some(pod),
        _ => None,
    }) {
        kueue::mark_operator_pod(object, pod);
        let priority = state.pod_priority(pod).value;
        operators::admit(pod, priority);
    }
}

/// `root` with `metadata.name` set to the name the object is planned under, when it has only a
/// `generateName` (`pi-<generated>`), placed at the `generateName`: the rows of its pods then
/// name the object as every other output does.
fn named_root(root: &Node, name: &str) -> Node {
    let mut root = root.clone();
    let Value::Map(entries) = &mut root.value else {
        return root;
    };
    let Some(Value::Map(metadata)) = entries
        .iter_mut()
        .find(|e| e.key == "metadata")
        .map(|e| &mut e.value.value)
    else {
        return root;
    };
    if metadata.iter().any(|e| e.key == "name") {
        return root;
    }
    let Some(generate) = metadata.iter().find(|e| e.key == "generateName") else {
        return root;
    };
    let (key_pos, pos) = (generate.key_pos, generate.value.pos);
    metadata.push(Entry {
        key: "name".to_string(),
        key_pos,
        value: Node {
            pos,
            value: Value::Str(name.to_string()),
        },
    });
    root
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
