//! Fluid's admission webhook for the pods of the inputs that are not DataFlow operations
//! (plain pods, workload replicas), and the dataset locality both kinds of pod report.
//!
//! A pod mounts a Fluid dataset through the PersistentVolumeClaim Fluid creates for it, named
//! like the dataset in the dataset's namespace. The webhook recognises that claim by the
//! labels Fluid puts on it; we do not read claims, so a claim counts as a dataset when the
//! state or the inputs hold a runtime of that name and namespace (every dataset is bound to a
//! runtime of its own name) or a node carries the dataset's cache label.

use df_manifest::Manifest;
use df_model::fluid::FluidRuntime;
use df_model::{Node, Object, Pod};
use df_state::ClusterState;
use df_systems::fluid::admission;
use df_systems::fluid::webhook::{self, MountedDataset};

use super::{DatasetLocality, WebhookAffinity};

/// Fluid runtimes of the state, then of the inputs: the state's first, since what the webhook
/// reads is the runtime's `status`, which only the cluster records.
pub fn runtimes<'a>(manifests: &'a [Manifest], state: &'a ClusterState) -> Vec<&'a FluidRuntime> {
    state
        .fluid_runtimes
        .iter()
        .chain(manifests.iter().filter_map(|m| match &m.object {
            Object::FluidRuntime(r) => Some(r),
            _ => None,
        }))
        .collect()
}

/// The runtime bound to a dataset: same namespace and name.
pub(crate) fn runtime_of<'a>(
    runtimes: &[&'a FluidRuntime],
    namespace: &str,
    dataset: &str,
) -> Option<&'a FluidRuntime> {
    runtimes
        .iter()
        .find(|r| r.metadata.namespace == namespace && r.metadata.name == dataset)
        .copied()
}

/// A dataset with the nodes that hold its cache, before placement.
pub(crate) fn cached_on(nodes: &[Node], namespace: &str, name: &str) -> DatasetLocality {
    let mut cache_nodes: Vec<String> = webhook::cache_nodes(nodes, namespace, name)
        .iter()
        .map(|n| n.metadata.name.clone())
        .collect();
    cache_nodes.sort();
    DatasetLocality {
        namespace: namespace.to_string(),
        name: name.to_string(),
        cache_nodes,
        locality: None,
    }
}

/// Say how close the planned `node` is to each dataset's cache.
pub fn locate(datasets: &mut [DatasetLocality], node: &Node, nodes: &[Node]) {
    for dataset in datasets {
        let cache = webhook::cache_nodes(nodes, &dataset.namespace, &dataset.name);
        dataset.locality = Some(webhook::locality(node, &cache).as_str().to_string());
    }
}

/// Each plugin's terms as a source of the plan.
pub fn sources(added: Vec<admission::Added>) -> Vec<WebhookAffinity> {
    added
        .into_iter()
        .map(|added| WebhookAffinity {
            plugin: added.plugin.to_string(),
            node_affinity: added.node_affinity,
        })
        .collect()
}

/// What the webhook did to a pod outside a flow.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Webhooked {
    pub webhook_affinity: Vec<WebhookAffinity>,
    /// The datasets it mounts, listed when cached somewhere or when the webhook sees the pod.
    pub datasets: Vec<DatasetLocality>,
    pub notes: Vec<String>,
}

/// Run the webhook on `pod` (its affinity is rewritten in place) against the runtimes and the
/// nodes of the state.
pub(crate) fn admit_pod(pod: &mut Pod, runtimes: &[&FluidRuntime], nodes: &[Node]) -> Webhooked {
    let namespace = pod.metadata.namespace.clone();
    let mut claims: Vec<&str> = Vec::new();
    for volume in &pod.spec.volumes {
        let Some(claim) = volume.claim_name() else {
            continue;
        };
        let is_dataset = runtime_of(runtimes, &namespace, claim).is_some()
            || !webhook::cache_nodes(nodes, &namespace, claim).is_empty();
        if is_dataset && !claims.contains(&claim) {
            claims.push(claim);
        }
    }
    let injected = admission::injection(&pod.metadata.labels).is_some();
    let datasets: Vec<DatasetLocality> = claims
        .iter()
        .map(|claim| cached_on(nodes, &namespace, claim))
        .filter(|d| injected || !d.cache_nodes.is_empty())
        .collect();
    let mounted: Vec<MountedDataset> = claims
        .iter()
        .map(|claim| {
            let runtime = runtime_of(runtimes, &namespace, claim);
            MountedDataset {
                name: claim,
                cache_affinity: runtime.and_then(|r| r.cache_affinity.as_ref()),
                fuse_node_selector: runtime.map(|r| &r.fuse_node_selector),
            }
        })
        .collect();
    let admitted = admission::admit(
        &namespace,
        &pod.metadata.labels,
        pod.spec.affinity.as_deref().cloned(),
        &pod.spec.node_selector,
        &mounted,
    );
    pod.spec.affinity = admitted.affinity.map(Box::new);
    Webhooked {
        webhook_affinity: sources(admitted.added),
        datasets,
        notes: admitted.notes,
    }
}
