//! The cluster state placement is computed against: nodes, pods, namespaces and the Fluid and
//! gang objects, with the indexes the engine needs. It is pure data: whether it came from a
//! recorded file or a live cluster is invisible from here on.

pub mod live;
pub mod recorded;
pub mod snapshot;

use std::collections::{BTreeMap, HashMap};

use crate::model::{
    FluidOp, GodelPodGroup, Labels, Namespace, Node, Object, OpKind, Pod, VolcanoJob,
    VolcanoPodGroup,
};

#[derive(Debug, Default, Clone)]
pub struct ClusterState {
    pub nodes: Vec<Node>,
    /// Every pod that holds or wants a node: bound pods on existing nodes and pending pods.
    pub pods: Vec<Pod>,
    pub namespaces: Vec<Namespace>,
    pub fluid_ops: Vec<FluidOp>,
    pub godel_pod_groups: Vec<GodelPodGroup>,
    pub volcano_jobs: Vec<VolcanoJob>,
    pub volcano_pod_groups: Vec<VolcanoPodGroup>,
    /// Things in the input that were ignored, said once so users know.
    pub warnings: Vec<String>,
    node_by_name: HashMap<String, usize>,
    pods_by_node: Vec<Vec<usize>>,
    pods_by_namespace: BTreeMap<String, Vec<usize>>,
    namespace_by_name: HashMap<String, usize>,
}

impl ClusterState {
    /// Build the state and its indexes. Later objects replace earlier ones with the same
    /// kind, namespace and name (several `--state` files may overlap).
    pub fn from_objects(objects: impl IntoIterator<Item = Object>) -> ClusterState {
        let mut state = ClusterState::default();
        let mut seen: HashMap<(String, String, String), (usize, usize)> = HashMap::new();
        let mut unknown_kinds: BTreeMap<String, usize> = BTreeMap::new();
        for object in objects {
            let meta = object.metadata();
            let key = (
                object.kind().to_string(),
                meta.namespace.clone(),
                meta.name.clone(),
            );
            let slot = |state: &ClusterState, object: &Object| -> Option<(usize, usize)> {
                Some(match object {
                    Object::Node(_) => (0, state.nodes.len()),
                    Object::Pod(_) => (1, state.pods.len()),
                    Object::Namespace(_) => (2, state.namespaces.len()),
                    Object::FluidOp(_) => (3, state.fluid_ops.len()),
                    Object::GodelPodGroup(_) => (4, state.godel_pod_groups.len()),
                    Object::VolcanoJob(_) => (5, state.volcano_jobs.len()),
                    Object::VolcanoPodGroup(_) => (6, state.volcano_pod_groups.len()),
                    Object::Workload(_) | Object::Unknown { .. } => return None,
                })
            };
            let Some(new_slot) = slot(&state, &object) else {
                *unknown_kinds.entry(object.kind().to_string()).or_default() += 1;
                continue;
            };
            let existing = seen.get(&key).copied();
            let (_, index) = existing.unwrap_or(new_slot);
            if existing.is_none() {
                seen.insert(key, new_slot);
            }
            fn put<T>(list: &mut Vec<T>, index: usize, item: T) {
                if index < list.len() {
                    list[index] = item;
                } else {
                    list.push(item);
                }
            }
            match object {
                Object::Node(o) => put(&mut state.nodes, index, o),
                Object::Pod(o) => put(&mut state.pods, index, o),
                Object::Namespace(o) => put(&mut state.namespaces, index, o),
                Object::FluidOp(o) => put(&mut state.fluid_ops, index, o),
                Object::GodelPodGroup(o) => put(&mut state.godel_pod_groups, index, o),
                Object::VolcanoJob(o) => put(&mut state.volcano_jobs, index, o),
                Object::VolcanoPodGroup(o) => put(&mut state.volcano_pod_groups, index, o),
                Object::Workload(_) | Object::Unknown { .. } => unreachable!("skipped above"),
            }
        }
        for (kind, count) in unknown_kinds {
            state.warnings.push(format!(
                "ignored {count} {kind} object(s): placement does not depend on them"
            ));
        }
        state.rebuild_indexes();
        state
    }

    /// Recompute every index after the lists changed (what-if edits, assumed pods).
    pub fn rebuild_indexes(&mut self) {
        self.node_by_name = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.metadata.name.clone(), i))
            .collect();
        self.namespace_by_name = self
            .namespaces
            .iter()
            .enumerate()
            .map(|(i, n)| (n.metadata.name.clone(), i))
            .collect();
        let mut dangling = Vec::new();
        let node_by_name = &self.node_by_name;
        self.pods.retain(|pod| {
            let bound = &pod.spec.node_name;
            if bound.is_empty() || node_by_name.contains_key(bound) {
                true
            } else {
                dangling.push(format!(
                    "pod {}/{} is bound to node {bound:?}, which is not in the state; ignoring the pod",
                    pod.metadata.namespace, pod.metadata.name
                ));
                false
            }
        });
        self.warnings.extend(dangling);
        self.pods_by_node = vec![Vec::new(); self.nodes.len()];
        self.pods_by_namespace.clear();
        for (i, pod) in self.pods.iter().enumerate() {
            self.pods_by_namespace
                .entry(pod.metadata.namespace.clone())
                .or_default()
                .push(i);
            if pod.is_terminated() || pod.spec.node_name.is_empty() {
                continue;
            }
            let node = self.node_by_name[&pod.spec.node_name];
            self.pods_by_node[node].push(i);
        }
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.node_by_name.get(name).copied()
    }

    pub fn node(&self, name: &str) -> Option<&Node> {
        self.node_index(name).map(|i| &self.nodes[i])
    }

    /// Pods that occupy node `index` (bound and not terminated).
    pub fn pods_on(&self, index: usize) -> impl Iterator<Item = &Pod> {
        self.pods_by_node[index].iter().map(|&i| &self.pods[i])
    }

    pub fn pod_indexes_on(&self, index: usize) -> &[usize] {
        &self.pods_by_node[index]
    }

    pub fn pods_in_namespace(&self, namespace: &str) -> impl Iterator<Item = &Pod> {
        self.pods_by_namespace
            .get(namespace)
            .into_iter()
            .flatten()
            .map(|&i| &self.pods[i])
    }

    pub fn pod(&self, namespace: &str, name: &str) -> Option<&Pod> {
        self.pods_in_namespace(namespace)
            .find(|p| p.metadata.name == name)
    }

    /// Labels of a namespace; `None` when the state does not record it (namespaceSelector
    /// then matches it only through `kubernetes.io/metadata.name`, which the API server sets).
    pub fn namespace_labels(&self, name: &str) -> Option<&Labels> {
        self.namespace_by_name
            .get(name)
            .map(|&i| &self.namespaces[i].metadata.labels)
    }

    /// Names of every namespace known: recorded ones and those that hold pods.
    pub fn namespace_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .namespaces
            .iter()
            .map(|n| n.metadata.name.clone())
            .chain(self.pods_by_namespace.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    pub fn fluid_op(&self, kind: OpKind, namespace: &str, name: &str) -> Option<&FluidOp> {
        self.fluid_ops.iter().find(|op| {
            op.kind == kind && op.metadata.namespace == namespace && op.metadata.name == name
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ObjectMeta, PodSpec};

    fn node(name: &str) -> Object {
        Object::Node(Node {
            metadata: ObjectMeta {
                name: name.into(),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    fn pod(name: &str, node: &str, phase: &str) -> Object {
        Object::Pod(Pod {
            metadata: ObjectMeta {
                name: name.into(),
                namespace: "ns".into(),
                ..Default::default()
            },
            spec: PodSpec {
                node_name: node.into(),
                ..Default::default()
            },
            status: crate::model::PodStatus {
                phase: phase.into(),
            },
        })
    }

    #[test]
    fn indexes_pods_by_node_and_warns_on_dangling_pods() {
        let state = ClusterState::from_objects([
            node("n1"),
            node("n2"),
            pod("a", "n1", "Running"),
            pod("b", "gone", "Running"),
            pod("c", "n1", "Succeeded"),
            pod("d", "", "Pending"),
            node("n1"),
        ]);
        assert_eq!(state.nodes.len(), 2);
        let on_n1: Vec<_> = state.pods_on(0).map(|p| p.metadata.name.as_str()).collect();
        assert_eq!(on_n1, ["a"]);
        assert_eq!(state.pods.len(), 3);
        assert_eq!(
            state.warnings,
            ["pod ns/b is bound to node \"gone\", which is not in the state; ignoring the pod"]
        );
        assert_eq!(state.pods_in_namespace("ns").count(), 3);
    }
}
