//! The cluster state placement is computed against: one list per registered kind, with the
//! indexes the engine needs, and its recorded forms: the JSON and YAML loaders, the binary
//! cache, and `snapshot`'s writer with its redaction. It is pure data: whether it came from a
//! recorded file or a live cluster is invisible from here on.
//!
//! Above `model`, `manifest` and `parallel`; it must not import the engine, the network (the
//! live read is `df-live`'s) or anything above.

pub mod cache;
mod item;
mod json_scan;
mod msgpack;
pub mod recorded;
pub mod snapshot;
mod yaml_state;

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use df_model::policy::{self, PodPriority};
use df_model::resources::{self, Resources};
use df_model::{FluidOp, KindObject, Labels, Node, Object, ObjectLists, OpKind, Pod};

/// Decoded objects as a loader hands them over, in the order read.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    Objects(Vec<Object>),
    /// Pods alone: the cache decodes them straight into one list (only the order within a
    /// kind matters to the state), and computes each one's requests while it is at hand
    /// (aligned with `pods`, as [`resources::pod_requests_and_non_zero`] gives them).
    /// `distinct`: no two of them share a namespace and name (the cache checked when it was
    /// written), so none replaces another.
    Pods {
        pods: Vec<Pod>,
        requests: Vec<(Resources, Resources)>,
        distinct: bool,
    },
}

#[derive(Debug, Default, Clone)]
pub struct ClusterState {
    /// The objects, one list per kind; the state derefs to them (`state.pods`).
    pub objects: ObjectLists,
    /// Set when a live read was not allowed to list PriorityClasses: a class a pod names may
    /// exist all the same, so its absence says nothing about admission.
    pub priority_classes_unread: bool,
    /// Things in the input that were ignored, said once so users know.
    pub warnings: Vec<String>,
    /// The API server's version (`v1.34.2`) when the state was read from one.
    pub server_version: Option<String>,
    /// Per pod (aligned with `pods`): its requests, and the same as the scorers count them.
    /// Computed once at load: reading them through each pod's containers is slow at 150,000
    /// pods, and every scheduler built on this state needs them.
    pod_resources: Vec<(Resources, Resources)>,
    /// Per pod (aligned with `pods`): the node it occupies, if bound and not terminated.
    pod_node: Vec<Option<usize>>,
    node_by_name: FxHashMap<String, usize>,
    pods_by_node: Vec<Vec<usize>>,
    pods_by_namespace: BTreeMap<String, Vec<usize>>,
    namespace_by_name: FxHashMap<String, usize>,
}

impl std::ops::Deref for ClusterState {
    type Target = ObjectLists;

    fn deref(&self) -> &ObjectLists {
        &self.objects
    }
}

impl std::ops::DerefMut for ClusterState {
    fn deref_mut(&mut self) -> &mut ObjectLists {
        &mut self.objects
    }
}

/// Per-list code from the one table of kinds ([`df_model::object_kinds`]).
macro_rules! each_list {
    ($($variant:ident($ty:ty) $(in $($list:ident).+)?;)*) => {
        /// Of objects with one identity in a list (several `--state` files may overlap), keep
        /// the last one read.
        fn keep_last_of_each(lists: &mut ObjectLists) {
            $($(keep_last(&mut lists.$($list).+);)?)*
        }
    };
}

df_model::object_kinds!(each_list);

impl ClusterState {
    /// Build the state and its indexes. Of objects with the same kind, namespace and name (several
    /// `--state` files may overlap), the last one read wins.
    pub fn from_objects(objects: impl IntoIterator<Item = Object>) -> ClusterState {
        let mut state = ClusterState::default();
        let mut unknown_kinds = BTreeMap::new();
        for object in objects {
            state.push(object, &mut unknown_kinds);
        }
        state.finish(unknown_kinds, None)
    }

    /// [`Self::from_objects`] over runs of decoded objects, as a loader produces them: the
    /// node and pod lists are sized first, so the 150,000 pods of a large state are not
    /// copied again each time their list doubles. Each run is freed once its objects moved.
    /// A run of pods that holds every pod (the cache decodes them in place) becomes the list
    /// as it is.
    pub(crate) fn from_runs(runs: Vec<Run>) -> ClusterState {
        let mut state = ClusterState::default();
        let count = |is: fn(&Object) -> bool| {
            let in_run = |run: &Run| match run {
                Run::Objects(objects) => objects.iter().filter(|o| is(o)).count(),
                Run::Pods { .. } => 0,
            };
            runs.iter().map(in_run).sum::<usize>()
        };
        let listed_pods = |run: &Run| match run {
            Run::Objects(_) => 0,
            Run::Pods { pods, .. } => pods.len(),
        };
        let pods =
            count(|o| matches!(o, Object::Pod(_))) + runs.iter().map(listed_pods).sum::<usize>();
        state
            .nodes
            .reserve_exact(count(|o| matches!(o, Object::Node(_))));
        let whole = |run: &Run| matches!(run, Run::Pods { pods: list, .. } if list.len() == pods);
        if !runs.iter().any(whole) {
            state.objects.pods.reserve_exact(pods);
        }
        let mut unknown_kinds = BTreeMap::new();
        // The requests of every pod, when one run of distinct pods holds them all.
        let mut known_requests = None;
        for run in runs {
            match run {
                Run::Objects(objects) => {
                    for object in objects {
                        state.push(object, &mut unknown_kinds);
                    }
                }
                Run::Pods {
                    pods: list,
                    requests,
                    distinct,
                } if list.len() == pods => {
                    state.objects.pods = list;
                    known_requests = (distinct && requests.len() == pods).then_some(requests);
                }
                Run::Pods { pods: list, .. } => state.objects.pods.extend(list),
            }
        }
        state.finish(unknown_kinds, known_requests)
    }

    /// Add one object to its list; kinds placement ignores are only counted, by kind.
    fn push(&mut self, object: Object, unknown_kinds: &mut BTreeMap<String, usize>) {
        if let Some(other) = self.objects.push(object) {
            *unknown_kinds.entry(other.kind().to_string()).or_default() += 1;
        }
    }

    /// Drop replaced objects, say what was ignored and build the indexes, once every object
    /// is in its list. `known_requests`: every pod's requests, given when no pod replaces
    /// another (looking is a pass over every pod, and would misalign them).
    fn finish(
        mut self,
        unknown_kinds: BTreeMap<String, usize>,
        known_requests: Option<Vec<(Resources, Resources)>>,
    ) -> ClusterState {
        let state = &mut self;
        // The pods' requests are aligned with them: when given, no pod replaces another.
        let pods = known_requests
            .is_some()
            .then(|| std::mem::take(&mut state.objects.pods));
        keep_last_of_each(&mut state.objects);
        if let Some(pods) = pods {
            state.objects.pods = pods;
        }
        for (kind, count) in unknown_kinds {
            state.warnings.push(ignored_kind(&kind, count));
        }
        state.index(known_requests);
        self
    }

    /// Recompute every index after the lists changed (what-if edits, assumed pods).
    pub fn rebuild_indexes(&mut self) {
        self.index(None);
    }

    /// Build every index; the pods' requests are computed unless `known_requests` gives
    /// them, aligned with the pods.
    fn index(&mut self, known_requests: Option<Vec<(Resources, Resources)>>) {
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
        // One lookup of each pod's node, which both drops the pods bound to a missing node
        // and records the node of the others.
        let mut dangling = Vec::new();
        let mut pod_node = Vec::with_capacity(self.objects.pods.len());
        let mut kept = Vec::with_capacity(self.objects.pods.len());
        let node_by_name = &self.node_by_name;
        self.objects.pods.retain(|pod| {
            let bound = &pod.spec.node_name;
            let node = if bound.is_empty() {
                None
            } else if let Some(&node) = node_by_name.get(bound) {
                Some(node)
            } else {
                dangling.push(format!(
                    "pod {}/{} is bound to node {bound:?}, which is not in the state; ignoring the pod",
                    pod.metadata.namespace, pod.metadata.name
                ));
                kept.push(false);
                return false;
            };
            pod_node.push(node.filter(|_| !pod.is_terminated()));
            kept.push(true);
            true
        });
        self.warnings.extend(dangling);
        self.pod_node = pod_node;
        self.pod_resources = match known_requests {
            Some(mut known) if known.len() == kept.len() => {
                let mut keep = kept.into_iter();
                known.retain(|_| keep.next().unwrap_or(true));
                known
            }
            _ => pod_resources(&self.objects.pods),
        };
        self.pods_by_node = vec![Vec::new(); self.objects.nodes.len()];
        for (i, node) in self.pod_node.iter().enumerate() {
            if let Some(node) = node {
                self.pods_by_node[*node].push(i);
            }
        }
        self.pods_by_namespace.clear();
        // Pods come grouped by namespace (`kubectl get -A` lists them so): one map lookup per
        // run of pods of one namespace, not per pod.
        let mut start = 0;
        while start < self.objects.pods.len() {
            let namespace = &self.objects.pods[start].metadata.namespace;
            let len = self.objects.pods[start..]
                .iter()
                .take_while(|pod| pod.metadata.namespace == *namespace)
                .count();
            self.pods_by_namespace
                .entry(namespace.clone())
                .or_default()
                .extend(start..start + len);
            start += len;
        }
    }

    /// Append a node that holds no pods, keeping every index current without rebuilding them:
    /// the node-count search adds and drops nodes many times over a 150,000-pod state. Its name
    /// must not be taken.
    pub fn push_empty_node(&mut self, node: Node) {
        debug_assert!(!self.node_by_name.contains_key(&node.metadata.name));
        self.node_by_name
            .insert(node.metadata.name.clone(), self.objects.nodes.len());
        self.objects.nodes.push(node);
        self.pods_by_node.push(Vec::new());
    }

    /// Drop the nodes from `len` on, which must hold no pods (as those `push_empty_node` adds).
    pub fn truncate_empty_nodes(&mut self, len: usize) {
        debug_assert!(
            self.pods_by_node[len.min(self.objects.nodes.len())..]
                .iter()
                .all(Vec::is_empty)
        );
        for node in self
            .objects
            .nodes
            .drain(len.min(self.objects.nodes.len())..)
        {
            self.node_by_name.remove(&node.metadata.name);
        }
        self.pods_by_node.truncate(len);
    }

    /// Pods that occupy a node, as (pod index, node index), in the order of `pods`: walking
    /// them in memory order is what keeps indexing 150,000 pods cheap.
    pub fn bound_pods(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.pod_node
            .iter()
            .enumerate()
            .filter_map(|(pod, node)| node.map(|node| (pod, node)))
    }

    /// Every namespace that holds pods, with the indexes of its pods.
    pub fn pod_indexes_by_namespace(&self) -> impl Iterator<Item = (&str, &[usize])> {
        self.pods_by_namespace
            .iter()
            .map(|(namespace, pods)| (namespace.as_str(), pods.as_slice()))
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.node_by_name.get(name).copied()
    }

    pub fn node(&self, name: &str) -> Option<&Node> {
        self.node_index(name).map(|i| &self.objects.nodes[i])
    }

    /// Pods that occupy node `index` (bound and not terminated).
    pub fn pods_on(&self, index: usize) -> impl Iterator<Item = &Pod> {
        self.pods_by_node[index]
            .iter()
            .map(|&i| &self.objects.pods[i])
    }

    /// Requests of pod `index` (into `pods`): as declared, and with the scorers' defaults.
    pub fn pod_resources(&self, index: usize) -> &(Resources, Resources) {
        &self.pod_resources[index]
    }

    pub fn pods_in_namespace(&self, namespace: &str) -> impl Iterator<Item = &Pod> {
        self.pods_by_namespace
            .get(namespace)
            .into_iter()
            .flatten()
            .map(|&i| &self.objects.pods[i])
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
            .map(|&i| &self.objects.namespaces[i].metadata.labels)
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

    /// A pod's priority and preemption policy, resolved against the state's PriorityClasses.
    pub fn pod_priority(&self, pod: &Pod) -> PodPriority {
        policy::pod_priority(&pod.spec, &self.objects.priority_classes)
    }

    pub fn fluid_op(&self, kind: OpKind, namespace: &str, name: &str) -> Option<&FluidOp> {
        self.objects.fluid_ops.iter().find(|op| {
            op.kind == kind && op.metadata.namespace == namespace && op.metadata.name == name
        })
    }
}

/// Pods per share of [`pod_resources`] work.
const PODS_PER_SHARE: usize = 8192;

/// Each pod's requests, as declared and as the scorers count them, computed on every core:
/// walking every container of 150,000 pods was a tenth of the main thread's work when the
/// state comes from the binary cache.
fn pod_resources(pods: &[Pod]) -> Vec<(Resources, Resources)> {
    let shares: Vec<&[Pod]> = pods.chunks(PODS_PER_SHARE).collect();
    let computed = df_parallel::map(&shares, |share| {
        share
            .iter()
            .map(|pod| resources::pod_requests_and_non_zero(&pod.spec))
            .collect::<Vec<_>>()
    });
    let mut all = Vec::with_capacity(pods.len());
    for share in computed {
        all.extend(share);
    }
    all
}

/// Drop every object that a later one with the same identity replaces.
fn keep_last<T: KindObject>(items: &mut Vec<T>) {
    let mut seen: FxHashSet<(&str, &str, &str)> =
        FxHashSet::with_capacity_and_hasher(items.len(), Default::default());
    let mut keep = vec![true; items.len()];
    for (i, item) in items.iter().enumerate().rev() {
        keep[i] = seen.insert(item.identity());
    }
    if keep.iter().all(|k| *k) {
        return;
    }
    let mut flags = keep.into_iter();
    items.retain(|_| flags.next().unwrap_or(true));
}

/// Kinds some kube-scheduler plugin reads that the state does not keep, with who reads them.
const READ_BUT_NOT_MODELLED: [(&str, &str); 1] = [(
    "ReplicationController",
    "PodTopologySpread's default constraints select a controller's pods by its selector",
)];

/// What the state says of `count` objects of a kind it does not keep: not modelled, naming the
/// plugin that reads them, or read by no modelled scheduler. Never that placement does not
/// depend on them: a scheduler the tool does not model may read anything.
fn ignored_kind(kind: &str, count: usize) -> String {
    match READ_BUT_NOT_MODELLED.iter().find(|(k, _)| *k == kind) {
        Some((_, reader)) => {
            format!("ignored {count} {kind} object(s): not modelled, though {reader}")
        }
        None => format!("ignored {count} {kind} object(s): no modelled scheduler reads them"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::quantity::Quantity;
    use df_model::{ObjectMeta, PodSpec};

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
            status: df_model::PodStatus {
                phase: phase.into(),
                ..Default::default()
            },
        })
    }

    /// Pods listed by namespace in runs, interleaved or not: each namespace's pods in the
    /// order of `pods`, and each pod's requests beside it.
    #[test]
    fn indexes_pods_by_namespace_in_order_across_interleaved_runs() {
        let in_namespace = |name: &str, namespace: &str, cpu: &str| {
            let Object::Pod(mut pod) = pod(name, "n1", "Running") else {
                unreachable!()
            };
            pod.metadata.namespace = namespace.into();
            pod.spec.containers = vec![df_model::Container {
                resources: df_model::ResourceRequirements {
                    requests: [("cpu".to_string(), Quantity::parse(cpu).unwrap())]
                        .into_iter()
                        .collect(),
                    ..Default::default()
                },
                ..Default::default()
            }];
            Object::Pod(pod)
        };
        let state = ClusterState::from_objects([
            node("n1"),
            in_namespace("a1", "a", "100m"),
            in_namespace("a2", "a", "200m"),
            in_namespace("b1", "b", "300m"),
            in_namespace("a3", "a", "400m"),
            in_namespace("c1", "c", "500m"),
            in_namespace("b2", "b", "600m"),
        ]);
        let by_namespace: Vec<(&str, Vec<&str>)> = state
            .pod_indexes_by_namespace()
            .map(|(namespace, pods)| {
                let names = pods
                    .iter()
                    .map(|&i| state.pods[i].metadata.name.as_str())
                    .collect();
                (namespace, names)
            })
            .collect();
        assert_eq!(
            by_namespace,
            [
                ("a", vec!["a1", "a2", "a3"]),
                ("b", vec!["b1", "b2"]),
                ("c", vec!["c1"]),
            ]
        );
        let cpu: Vec<i64> = (0..state.pods.len())
            .map(|i| state.pod_resources(i).0.milli_cpu)
            .collect();
        assert_eq!(cpu, [100, 200, 300, 400, 500, 600]);
        let bound: Vec<(usize, usize)> = state.bound_pods().collect();
        assert_eq!(bound, [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)]);
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
        let names: Vec<_> = state
            .nodes
            .iter()
            .map(|n| n.metadata.name.as_str())
            .collect();
        assert_eq!(names, ["n2", "n1"], "the last n1 wins");
        let on_n1: Vec<_> = state.pods_on(1).map(|p| p.metadata.name.as_str()).collect();
        assert_eq!(on_n1, ["a"]);
        assert_eq!(state.pods.len(), 3);
        assert_eq!(
            state.warnings,
            ["pod ns/b is bound to node \"gone\", which is not in the state; ignoring the pod"]
        );
        assert_eq!(state.pods_in_namespace("ns").count(), 3);
    }

    /// Kinds the state does not keep are counted by kind; a kind a default-profile plugin reads
    /// says it is not modelled and who reads it; no kind is said not to matter.
    #[test]
    fn warns_of_each_ignored_kind_once_with_its_reader() {
        let unknown = |kind: &str, name: &str| Object::Unknown {
            type_meta: df_model::TypeMeta {
                api_version: "v1".into(),
                kind: kind.into(),
            },
            metadata: ObjectMeta {
                name: name.into(),
                ..Default::default()
            },
        };
        let state = ClusterState::from_objects([
            node("n1"),
            unknown("ReplicationController", "rc-a"),
            unknown("Secret", "s"),
            unknown("ReplicationController", "rc-b"),
        ]);
        assert_eq!(
            state.warnings,
            [
                "ignored 2 ReplicationController object(s): not modelled, though \
                 PodTopologySpread's default constraints select a controller's pods by its selector",
                "ignored 1 Secret object(s): no modelled scheduler reads them",
            ]
        );
    }
}
