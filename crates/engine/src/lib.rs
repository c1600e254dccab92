//! The placement engine: the kube-scheduler framework (typed statuses, extension points, one
//! file per upstream plugin in [`plugins`], profiles, preemption) over a [`ClusterState`]. Pure
//! and synchronous; `plan`, `lint` and `explain-placement` all decide through [`Scheduler`],
//! and nothing else in the project matches selectors or scores nodes.
//!
//! Above `model`, `manifest`, `state` and `parallel`; it must not import the systems, the
//! planner, the network or anything above.

mod admission;
pub mod config;
mod cycle;
mod decision;
pub mod framework;
mod label_index;
pub mod object_selector;
pub mod plugins;
pub mod preemption;
pub mod profile;
mod reuse;
pub mod sampling;
pub mod selector;
mod terms;
mod trace;
pub mod versions;
mod volumes;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

pub use cycle::{FilterOutcome, NodeDetail, ScoreOutcome};
pub use decision::{Decision, NodeScores, NodeVerdict, Reasons};
pub use df_model::resources::{self, Resources, pod_requests};
use df_model::{LabelSelector, Labels, Node, Pod};
use df_state::ClusterState;
pub use framework::Code;
pub use profile::{Profile, Profiles};
use terms::{PodTerms, Term, TermKind};
pub use trace::{Assumed, PodTrace, Traced};

/// Per-node bookkeeping, as the scheduler cache's NodeInfo.
#[derive(Debug, Clone)]
struct NodeInfo {
    allocatable: Resources,
    /// Allocatable `pods`, or the kubelet's default when unset: read once, since the resource
    /// fit asks it for every node of every decision.
    max_pods: i64,
    requested: Resources,
    non_zero_requested: Resources,
    pods: Vec<usize>,
    /// (protocol, hostIP, hostPort) in use.
    used_ports: Vec<(String, String, i32)>,
}

impl NodeInfo {
    /// Take what `pod` asks of this node; it is the `placed`-th placed pod.
    fn count(&mut self, pod: &Pod, requests: &(Resources, Resources), placed: usize) {
        self.requested.add(&requests.0);
        self.non_zero_requested.add(&requests.1);
        self.used_ports.extend(host_ports(pod));
        self.pods.push(placed);
    }
}

/// A pod from the state is borrowed; one assumed during a plan is owned. Boxed, so that the
/// 150,000 entries of a large state stay small.
#[derive(Debug, Clone)]
enum PodHandle<'a> {
    State(&'a Pod),
    Assumed(Box<Pod>),
}

impl std::ops::Deref for PodHandle<'_> {
    type Target = Pod;
    fn deref(&self) -> &Pod {
        match self {
            PodHandle::State(pod) => pod,
            PodHandle::Assumed(pod) => pod,
        }
    }
}

#[derive(Debug, Clone)]
enum Requests<'a> {
    State(&'a (Resources, Resources)),
    Assumed(Box<(Resources, Resources)>),
}

impl std::ops::Deref for Requests<'_> {
    type Target = (Resources, Resources);
    fn deref(&self) -> &(Resources, Resources) {
        match self {
            Requests::State(r) => r,
            Requests::Assumed(r) => r,
        }
    }
}

/// A pod that occupies a node: from the state, or assumed during a plan.
#[derive(Debug, Clone)]
struct PlacedPod<'a> {
    pod: PodHandle<'a>,
    node: usize,
    /// Its requests as declared and as the scorers count them: borrowed from the state for
    /// state pods (copying them made each scheduler allocate tens of MB), owned when assumed.
    requests: Requests<'a>,
    /// The [`TermGroup`]s this pod's (anti-)affinity terms count in.
    term_groups: Box<[usize]>,
    removed: bool,
}

/// Identical (anti-)affinity terms of placed pods, counted per node. Replicas of an app share
/// their terms, so a decision checks each distinct term once instead of every pod's copy.
#[derive(Debug, Clone)]
struct TermGroup {
    kind: TermKind,
    term: Term,
    /// Node index -> number of placed pods with this term there.
    nodes: HashMap<usize, i64>,
}

/// Selectors that scan the placed pods before the label index is built. Building it costs
/// about as much as a few scans of every pod (26 ms at 150,000 pods, profiled): one explain
/// asks once or twice and never pays for it; a plan of many pods builds it early.
const LABEL_INDEX_AFTER: u32 = 8;

/// Decides placements against a borrowed state, plus the pods assumed so far.
#[derive(Debug, Clone)]
pub struct Scheduler<'a> {
    state: &'a ClusterState,
    profiles: Profiles,
    nodes: Vec<NodeInfo>,
    /// The nodes' names, interned for every verdict on them.
    node_names: Vec<&'static str>,
    /// Each node's position in name order: ties go to the smallest name, and comparing
    /// these is cheaper than comparing names.
    name_rank: Vec<usize>,
    placed: Vec<PlacedPod<'a>>,
    /// The placed pods' resolved priorities (by index), read when preemption first needs them.
    placed_priority: Vec<i32>,
    term_groups: Vec<TermGroup>,
    /// Term -> its group index per [`TermKind`] (in `TermKind::ALL` order).
    term_group_index: HashMap<Term, [Option<usize>; 4]>,
    /// Indexes into `placed` by namespace: a term looks only at the namespaces it can select.
    placed_by_namespace: HashMap<String, Vec<usize>>,
    /// Indexes into `placed` by label, built once selectors have asked
    /// [`LABEL_INDEX_AFTER`] times, then kept up to date as pods are placed.
    placed_by_label: std::sync::OnceLock<label_index::LabelIndex>,
    /// Selectors that scanned the pods before the label index was built.
    label_scans: label_index::ScanCount,
    /// Image name as the nodes list it -> the nodes that hold it, in node order, with its size
    /// there. One entry per image rather than a map per node: 5,000 nodes each list dozens of
    /// images, mostly the same ones.
    images: HashMap<&'a str, Vec<(usize, i64)>>,
    namespace_labels: HashMap<String, Labels>,
    /// The DRA claims as the plan sees them, and the devices they take.
    dra: plugins::dynamic_resources::Ledger,
    /// The pod `explain-placement` asks about, when this scheduler plans for it.
    trace: trace::Tracer,
    /// Objects of the inputs that the scheduler's listers would see by the time their pods are
    /// scheduled, over the state's ([`Scheduler::give`]).
    given: Given,
    /// The storage objects the volume plugins look up.
    storage: volumes::StorageIndex<'a>,
    /// The volumes and provisioning nodes the pods assumed so far took for their claims.
    assumed_volumes: volumes::AssumedVolumes,
    /// What changed since a template's work was kept.
    changes: reuse::ChangeLog,
    /// The per-node work of recent cycles, for the next pod of the same template.
    memory: reuse::CycleMemory,
    /// The nodes of each topology domain, for what a change touches.
    domains: reuse::Domains,
}

/// The planned inputs' Services and pod controllers (a Deployment's ReplicaSet included), which
/// default topology spreading selects by; they replace the state's objects of the same name.
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub services: Vec<df_model::Service>,
    pub controllers: Vec<df_model::Workload>,
}

/// The pods a node takes: its allocatable `pods` (`allocatable`, as read from it), else the
/// kubelet's default of 110.
fn max_pods(node: &Node, allocatable: &Resources) -> i64 {
    const DEFAULT_MAX_PODS: i64 = 110;
    if node.allocatable().contains_key("pods") {
        allocatable.pods
    } else {
        DEFAULT_MAX_PODS
    }
}

impl<'a> Scheduler<'a> {
    /// A scheduler of `state` with one profile for every pod, or the profiles of a
    /// configuration by scheduler name.
    pub fn new(state: &'a ClusterState, profiles: impl Into<Profiles>) -> Scheduler<'a> {
        let profiles = profiles.into();
        // Three steps that need nothing of each other, shared out on the cores: the nodes'
        // images, what the bound pods take of each node, and the bound pods themselves with
        // their affinity terms. Bound pods are placed in the order of `bound`.
        let bound: Vec<(usize, usize)> = state.bound_pods().collect();
        let (images, (nodes, mut scheduler)) = df_parallel::join(
            || image_holders(state),
            || {
                df_parallel::join(
                    || Self::nodes_with_bound_pods(state, &bound),
                    || Self::with_bound_pods(state, profiles, &bound),
                )
            },
        );
        scheduler.images = images;
        scheduler.nodes = nodes;
        scheduler.node_names = state
            .nodes
            .iter()
            .map(|n| decision::intern(&n.metadata.name))
            .collect();
        let mut by_name: Vec<usize> = (0..state.nodes.len()).collect();
        by_name.sort_unstable_by_key(|&i| &state.nodes[i].metadata.name);
        scheduler.name_rank = vec![0; by_name.len()];
        for (rank, index) in by_name.into_iter().enumerate() {
            scheduler.name_rank[index] = rank;
        }
        scheduler
    }

    /// Every node with what the `bound` pods take of it.
    fn nodes_with_bound_pods(state: &ClusterState, bound: &[(usize, usize)]) -> Vec<NodeInfo> {
        let mut nodes: Vec<NodeInfo> = state
            .nodes
            .iter()
            .map(|n| {
                let allocatable = resources::node_allocatable(n);
                NodeInfo {
                    max_pods: max_pods(n, &allocatable),
                    allocatable,
                    requested: Resources::default(),
                    non_zero_requested: Resources::default(),
                    pods: Vec::new(),
                    used_ports: Vec::new(),
                }
            })
            .collect();
        for (placed, &(pod, node)) in bound.iter().enumerate() {
            nodes[node].count(&state.pods[pod], state.pod_resources(pod), placed);
        }
        nodes
    }

    /// The scheduler with the `bound` pods placed, in order, with their affinity terms; its
    /// nodes and image index still empty.
    fn with_bound_pods(
        state: &'a ClusterState,
        profiles: Profiles,
        bound: &[(usize, usize)],
    ) -> Scheduler<'a> {
        let mut scheduler = Scheduler {
            state,
            profiles,
            nodes: Vec::new(),
            node_names: Vec::new(),
            name_rank: Vec::new(),
            placed: Vec::with_capacity(bound.len()),
            placed_priority: Vec::new(),
            term_groups: Vec::new(),
            term_group_index: HashMap::default(),
            placed_by_namespace: HashMap::default(),
            placed_by_label: std::sync::OnceLock::new(),
            label_scans: label_index::ScanCount::default(),
            images: HashMap::default(),
            namespace_labels: HashMap::default(),
            dra: plugins::dynamic_resources::Ledger::new(state),
            trace: trace::Tracer::default(),
            given: Given::default(),
            storage: volumes::StorageIndex::new(state),
            assumed_volumes: volumes::AssumedVolumes::default(),
            changes: reuse::ChangeLog::default(),
            memory: reuse::CycleMemory::default(),
            domains: reuse::Domains::default(),
        };
        for namespace in state.namespace_names() {
            let labels = state
                .namespace_labels(&namespace)
                .cloned()
                .unwrap_or_else(|| {
                    Labels::from([("kubernetes.io/metadata.name".to_string(), namespace.clone())])
                });
            scheduler.namespace_labels.insert(namespace, labels);
        }
        let mut placed_of_pod = vec![None; state.pods.len()];
        // Replicas come one after another with the same terms: the groups of the previous
        // pod's terms, when this pod's terms are the same, spare resolving and hashing them.
        let mut previous: Option<(&Pod, Box<[usize]>)> = None;
        for &(pod_index, node) in bound {
            let pod = &state.pods[pod_index];
            let term_groups = match previous {
                Some((before, groups)) if same_terms(before, pod) => {
                    scheduler.count_groups(&groups, node);
                    groups
                }
                _ => scheduler.count_terms(pod, node),
            };
            previous = Some((pod, term_groups.clone()));
            placed_of_pod[pod_index] = Some(scheduler.push_placed(
                PodHandle::State(pod),
                node,
                Requests::State(state.pod_resources(pod_index)),
                term_groups,
            ));
        }
        for (namespace, pods) in state.pod_indexes_by_namespace() {
            let placed: Vec<usize> = pods.iter().filter_map(|&p| placed_of_pod[p]).collect();
            if !placed.is_empty() {
                scheduler
                    .placed_by_namespace
                    .insert(namespace.to_string(), placed);
            }
        }
        scheduler
    }

    /// Count `pod` on `node`: what it takes of the node, and the pod itself with its terms.
    fn place(
        &mut self,
        pod: PodHandle<'a>,
        node: usize,
        requests: Requests<'a>,
        nodes: &mut [NodeInfo],
    ) -> usize {
        nodes[node].count(&pod, &requests, self.placed.len());
        self.changes.push(self.placed.len());
        self.record(pod, node, requests)
    }

    /// Add `pod`, on `node`, to the placed pods, counting its affinity terms; its index there.
    fn record(&mut self, pod: PodHandle<'a>, node: usize, requests: Requests<'a>) -> usize {
        let term_groups = self.count_terms(&pod, node);
        self.push_placed(pod, node, requests, term_groups)
    }

    /// Count `pod`'s affinity terms on `node`; the groups they count in.
    fn count_terms(&mut self, pod: &Pod, node: usize) -> Box<[usize]> {
        let has_terms = pod
            .spec
            .affinity
            .as_ref()
            .is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some());
        if !has_terms {
            return Box::default();
        }
        PodTerms::of(pod)
            .into_kinds()
            .map(|(kind, term)| self.count_term(kind, term, node))
            .collect()
    }

    /// Count once more, on `node`, terms already in `groups`.
    fn count_groups(&mut self, groups: &[usize], node: usize) {
        for &group in groups {
            *self.term_groups[group].nodes.entry(node).or_default() += 1;
        }
    }

    /// Add a pod whose terms were counted in `term_groups`; its index among the placed pods.
    fn push_placed(
        &mut self,
        pod: PodHandle<'a>,
        node: usize,
        requests: Requests<'a>,
        term_groups: Box<[usize]>,
    ) -> usize {
        let index = self.placed.len();
        if let Some(by_label) = self.placed_by_label.get_mut() {
            by_label.add(index, &pod.metadata.labels);
        }
        self.placed.push(PlacedPod {
            pod,
            node,
            requests,
            term_groups,
            removed: false,
        });
        index
    }

    /// Count one placed pod's term on `node`, in the group of identical terms.
    fn count_term(&mut self, kind: TermKind, term: Term, node: usize) -> usize {
        let slot = TermKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        let existing = self
            .term_group_index
            .get(&term)
            .and_then(|groups| groups[slot]);
        let group = match existing {
            Some(group) => group,
            None => {
                let group = self.term_groups.len();
                self.term_group_index.entry(term.clone()).or_default()[slot] = Some(group);
                self.term_groups.push(TermGroup {
                    kind,
                    term,
                    nodes: HashMap::default(),
                });
                group
            }
        };
        self.count_groups(&[group], node);
        group
    }

    pub fn state(&self) -> &'a ClusterState {
        self.state
    }

    /// Add the inputs' Services and pod controllers to what the plugins look up.
    pub fn give(&mut self, given: Given) {
        self.given = given;
        self.memory.clear();
    }

    /// Add the claims the inputs' controllers create before their pods (a StatefulSet's, from
    /// its `volumeClaimTemplates`) to what the volume plugins look up, over a state's claim of
    /// the same name. Borrowed for as long as the state: the plugins hold claims as they hold
    /// the state's.
    pub fn give_claims(&mut self, claims: &'a [df_model::storage::PersistentVolumeClaim]) {
        self.storage.add_claims(claims);
        self.memory.clear();
    }

    /// The Services of `namespace`: the given ones, then the state's not replaced by them.
    pub(crate) fn services_in<'s>(
        &'s self,
        namespace: &'s str,
    ) -> impl Iterator<Item = &'s df_model::Service> {
        let given = &self.given.services;
        let replaced = move |s: &df_model::Service| {
            given
                .iter()
                .any(|g| g.metadata.name == s.metadata.name && g.metadata.namespace == namespace)
        };
        given
            .iter()
            .chain(self.state.services.iter().filter(move |s| !replaced(s)))
            .filter(move |s| s.metadata.namespace == namespace)
    }

    /// The controller `kind` named `name` in `namespace`, given or in the state.
    pub(crate) fn controller(
        &self,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Option<&df_model::Workload> {
        let is = |w: &&df_model::Workload| {
            w.kind == kind && w.metadata.namespace == namespace && w.metadata.name == name
        };
        self.given
            .controllers
            .iter()
            .find(is)
            .or_else(|| self.state.workloads.iter().find(is))
    }

    /// The default scheduler's profile.
    pub fn profile(&self) -> &Profile {
        self.profiles.default_scheduler()
    }

    /// Every profile, by scheduler name.
    pub fn profiles(&self) -> &Profiles {
        &self.profiles
    }

    /// The profile that schedules `pod`: its `schedulerName`'s.
    pub fn profile_for(&self, pod: &Pod) -> &Profile {
        self.profiles.for_scheduler(&pod.spec.scheduler_name)
    }

    /// Count `pod` on `node` for every later decision: its resources, ports, labels and
    /// affinity terms. Unknown node names are ignored (the caller planned against this state).
    pub fn assume(&mut self, pod: Pod, node: &str) {
        let Some(index) = self.state.node_index(node) else {
            return;
        };
        self.record_assumed(&pod);
        self.assume_volumes(&pod, index);
        self.reserve_claims(&pod, index);
        let mut nodes = std::mem::take(&mut self.nodes);
        let mut pod = pod;
        pod.spec.node_name = node.to_string();
        if !self.namespace_labels.contains_key(&pod.metadata.namespace) {
            let name = pod.metadata.namespace.clone();
            let labels = Labels::from([("kubernetes.io/metadata.name".to_string(), name.clone())]);
            self.namespace_labels.insert(name, labels);
            // Namespace selectors may now select the templates of that namespace.
            self.memory.clear();
        }
        let requests = Requests::Assumed(Box::new(resources::pod_requests_and_non_zero(&pod.spec)));
        let namespace = pod.metadata.namespace.clone();
        let placed = self.place(
            PodHandle::Assumed(Box::new(pod)),
            index,
            requests,
            &mut nodes,
        );
        self.placed_by_namespace
            .entry(namespace)
            .or_default()
            .push(placed);
        self.nodes = nodes;
    }

    /// DynamicResources' Reserve and PreBind for `pod` on `node`: its claims get the devices
    /// the allocator gives them there and reserve the pod, for every later decision.
    fn reserve_claims(&mut self, pod: &Pod, node: usize) {
        if pod.spec.resource_claims.is_empty() {
            return;
        }
        let reserved = {
            let cx = framework::Context::new(self, pod);
            let plugin: plugins::dynamic_resources::DynamicResources =
                framework::PreFilter::pre_filter(&cx);
            plugin.reserve(&cx, node)
        };
        let Some((claims, allocations)) = reserved else {
            return;
        };
        self.dra.write(pod, &claims, allocations);
    }

    /// The claims the plan allocated or reserved, for the property tests.
    #[cfg(test)]
    pub(crate) fn dra_claims(&self) -> impl Iterator<Item = &df_model::ResourceClaim> {
        self.dra.written()
    }

    /// Undo an [`assume`](Self::assume) (or remove a state pod, as a drain would).
    pub fn forget(&mut self, namespace: &str, name: &str) -> bool {
        let placed = &self.placed;
        let Some(index) = self
            .placed_by_namespace
            .get(namespace)
            .and_then(|list| {
                list.iter()
                    .rev()
                    .find(|&&i| !placed[i].removed && placed[i].pod.metadata.name == name)
            })
            .copied()
        else {
            return false;
        };
        self.take_off(index);
        self.dra.forget(namespace, name);
        if let Some(list) = self.placed_by_namespace.get_mut(namespace) {
            list.retain(|&p| p != index);
        }
        self.assumed_volumes.forget(namespace, name);
        true
    }

    /// What VolumeBinding's Reserve assumes for `pod` on `node`: each claim it matched takes
    /// its volume, each claim it provisions is for that node, for every later decision.
    fn assume_volumes(&mut self, pod: &Pod, node: usize) {
        let volumes::PreFiltered::Run(claims) = plugins::volume_binding::pre_filter(self, pod)
        else {
            return;
        };
        let Ok((reasons, bindings)) = claims.find(self, &self.state.nodes[node]) else {
            return;
        };
        if !reasons.is_empty() {
            return;
        }
        let key = |meta: &df_model::ObjectMeta| (meta.namespace.clone(), meta.name.clone());
        let by = key(&pod.metadata);
        for (claim, volume) in bindings.matched {
            self.assumed_volumes.bind(
                &volume.metadata.common.name,
                key(&claim.metadata.common),
                by.clone(),
            );
        }
        let node_name = &self.state.nodes[node].metadata.name;
        for claim in bindings.provisioned {
            self.assumed_volumes
                .provision(key(&claim.metadata.common), node_name, by.clone());
        }
    }

    /// Take placed pod `index` off its node: its resources, ports and affinity terms stop
    /// counting. Preemption uses it (with [`put_back`](Self::put_back)) to try victims.
    fn take_off(&mut self, index: usize) {
        self.changes.push(index);
        let placed = &mut self.placed[index];
        placed.removed = true;
        let info = &mut self.nodes[placed.node];
        info.requested.sub(&placed.requests.0);
        info.non_zero_requested.sub(&placed.requests.1);
        info.pods.retain(|&p| p != index);
        for port in host_ports(&placed.pod) {
            if let Some(i) = info.used_ports.iter().position(|p| *p == port) {
                info.used_ports.remove(i);
            }
        }
        let node = placed.node;
        for &group in placed.term_groups.iter() {
            let nodes = &mut self.term_groups[group].nodes;
            if let Some(count) = nodes.get_mut(&node) {
                *count -= 1;
                if *count <= 0 {
                    nodes.remove(&node);
                }
            }
        }
    }

    /// Undo [`take_off`](Self::take_off): the pod counts on its node again.
    fn put_back(&mut self, index: usize) {
        self.changes.push(index);
        let placed = &mut self.placed[index];
        placed.removed = false;
        let info = &mut self.nodes[placed.node];
        info.requested.add(&placed.requests.0);
        info.non_zero_requested.add(&placed.requests.1);
        // Pods stay in placement order: victims of equal importance are tried in that order.
        let at = info.pods.partition_point(|&p| p < index);
        info.pods.insert(at, index);
        info.used_ports.extend(host_ports(&placed.pod));
        let node = placed.node;
        for &group in placed.term_groups.iter() {
            *self.term_groups[group].nodes.entry(node).or_default() += 1;
        }
    }

    /// Schedule `pod` against every node. A Pending pod that a preemption nominated
    /// (`status.nominatedNodeName`) goes to that node whenever it still passes the filters
    /// there, whatever the other nodes score: kube-scheduler evaluates the nominated node
    /// first and skips the search when it fits (KEP-1923).
    pub fn decide(&self, pod: &Pod) -> Decision {
        let all: Vec<usize> = (0..self.nodes.len()).collect();
        let mut decision = self.decide_over(pod, &all);
        if let Some(nominated) = pod.status.nominated_node_name.as_deref()
            && decision.verdict(nominated).is_some_and(|v| v.feasible)
            && decision.selected.as_deref() != Some(nominated)
        {
            decision.selected = Some(nominated.to_string());
            decision.tied.clear();
        }
        self.record_decision(pod, &all, &decision);
        decision
    }

    /// Schedule `pod` against a subset of nodes (indexes into the state's nodes), as gang
    /// planners do when they restrict a unit to one topology domain.
    pub fn decide_within(&self, pod: &Pod, candidates: &[usize]) -> Decision {
        let decision = self.decide_over(pod, candidates);
        self.record_decision(pod, candidates, &decision);
        decision
    }

    /// One scheduling cycle over `candidates`, not traced: the engine's own probes
    /// (preemption's what-ifs, a node explained after the fact) are no decisions of the plan.
    fn decide_over(&self, pod: &Pod, candidates: &[usize]) -> Decision {
        cycle::Cycle::new(self, pod).run(candidates, None).0
    }

    /// Decide among `candidates` (all nodes when `None`) and explain `node` from the same
    /// plugin calls: every filter's verdict (without stopping at the first failure) and, when
    /// it is feasible, every score with its inputs. `None` when `node` is not in the state.
    pub(crate) fn decide_explained(
        &self,
        pod: &Pod,
        candidates: Option<&[usize]>,
        node: &str,
    ) -> Option<(Decision, NodeDetail)> {
        let index = self.state.node_index(node)?;
        let all: Vec<usize>;
        let candidates = match candidates {
            Some(candidates) => candidates,
            None => {
                all = (0..self.nodes.len()).collect();
                &all
            }
        };
        let mut candidates = candidates.to_vec();
        let outside = !candidates.contains(&index);
        if outside {
            candidates.push(index);
        }
        let (mut decision, detail) = cycle::Cycle::new(self, pod).run(&candidates, Some(index));
        if outside {
            // Explained only: the decision is over the candidates asked for.
            decision = self.decide_over(pod, &candidates[..candidates.len() - 1]);
        }
        Some((decision, detail?))
    }

    /// Node `index`'s position among the nodes in name order (for ties broken by name).
    pub fn name_rank(&self, index: usize) -> usize {
        self.name_rank[index]
    }

    /// A node's room for new pods: allocatable minus the requests of the pods on it (from the
    /// state and assumed), with `pods` counting free pod slots as NodeResourcesFit does. Batch
    /// solvers size their capacities from it instead of keeping a second ledger.
    pub fn free(&self, node: usize) -> Option<Resources> {
        let info = self.nodes.get(node)?;
        let mut free = info.allocatable.clone();
        free.sub(&info.requested);
        free.pods = self.max_pods(node) - info.pods.len() as i64;
        Some(free)
    }

    /// A node's allocatable and what its pods request as the scorers count it (CPU and memory
    /// defaults for pods that set none).
    pub fn scored_usage(&self, node: usize) -> Option<(&Resources, &Resources)> {
        let info = self.nodes.get(node)?;
        Some((&info.allocatable, &info.non_zero_requested))
    }

    /// Pods without an allocatable `pods` count get the kubelet's default (hand-written states
    /// often leave it out; a real node always reports it).
    fn max_pods(&self, node: usize) -> i64 {
        self.nodes[node].max_pods
    }

    fn namespace_labels(&self, namespace: &str) -> &Labels {
        static EMPTY: std::sync::OnceLock<Labels> = std::sync::OnceLock::new();
        self.namespace_labels
            .get(namespace)
            .unwrap_or_else(|| EMPTY.get_or_init(Labels::new))
    }

    /// Placed pods `term` may select: those its `matchLabels` allow, else those of the
    /// namespaces it can select (the term itself still decides).
    fn pods_selectable_by<'s>(
        &'s self,
        term: &'s Term,
    ) -> Box<dyn Iterator<Item = &'s PlacedPod<'a>> + 's> {
        if let Some(candidates) = term.selector.as_ref().and_then(|s| self.labelled(s)) {
            return Box::new(candidates);
        }
        let namespaces: Vec<&String> = match &term.namespace_selector {
            None => term.namespaces.iter().collect(),
            Some(_) => self.placed_by_namespace.keys().collect(),
        };
        Box::new(self.pods_in_namespaces(namespaces))
    }

    /// The placed pods of `namespace` `selector` may match (it still decides).
    fn pods_in_namespace_selectable_by<'s>(
        &'s self,
        namespace: &'s str,
        selector: &LabelSelector,
    ) -> Box<dyn Iterator<Item = &'s PlacedPod<'a>> + 's> {
        match self.labelled(selector) {
            Some(candidates) => {
                Box::new(candidates.filter(move |p| p.pod.metadata.namespace == namespace))
            }
            None => Box::new(self.pods_in_namespace(namespace)),
        }
    }

    /// The placed pods carrying `selector`'s rarest `matchLabels` label, in any namespace;
    /// `None` when it has none, or when the index is not built yet (the caller scans).
    fn labelled<'s>(
        &'s self,
        selector: &LabelSelector,
    ) -> Option<impl Iterator<Item = &'s PlacedPod<'a>> + 's> {
        if selector.match_labels.is_empty() {
            return None;
        }
        if self.placed_by_label.get().is_none() && self.label_scans.count() < LABEL_INDEX_AFTER {
            return None;
        }
        let index = self.placed_by_label.get_or_init(|| {
            let mut index = label_index::LabelIndex::default();
            for (i, placed) in self.placed.iter().enumerate() {
                index.add(i, &placed.pod.metadata.labels);
            }
            index
        });
        let candidates = index.candidates(selector)?;
        Some(
            candidates
                .iter()
                .map(|&i| &self.placed[i])
                .filter(|p| !p.removed),
        )
    }

    /// The placed pods of `namespace`, from the state and assumed.
    fn pods_in_namespace<'s>(&'s self, namespace: &str) -> impl Iterator<Item = &'s PlacedPod<'a>> {
        self.placed_by_namespace
            .get(namespace)
            .into_iter()
            .flatten()
            .map(|&i| &self.placed[i])
            .filter(|p| !p.removed)
    }

    fn pods_in_namespaces<'s>(
        &'s self,
        namespaces: Vec<&'s String>,
    ) -> impl Iterator<Item = &'s PlacedPod<'a>> {
        namespaces
            .into_iter()
            .flat_map(|ns| self.pods_in_namespace(ns))
    }

    /// The pods on `node`, from the state and assumed.
    fn pods_on(&self, node: usize) -> impl Iterator<Item = &Pod> {
        self.nodes[node].pods.iter().map(|&i| &*self.placed[i].pod)
    }

    /// The placed pods of `namespace`, from the state and assumed.
    fn placed_pods_in<'s>(&'s self, namespace: &'s str) -> impl Iterator<Item = &'s Pod> {
        self.pods_in_namespace(namespace).map(|p| &*p.pod)
    }

    fn node_labels(&self, node: usize) -> &Labels {
        &self.state.nodes[node].metadata.labels
    }
}

/// Host ports a pod claims, with defaults filled in (TCP, all addresses): its containers' and
/// its sidecars' (init containers with `restartPolicy: Always`, which run for the pod's whole
/// life); a plain init container has exited before they bind (upstream `GetHostPorts`).
fn host_ports(pod: &Pod) -> Vec<(String, String, i32)> {
    pod.spec
        .init_containers
        .iter()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
        .chain(&pod.spec.containers)
        .flat_map(|c| &c.ports)
        .filter_map(|p| {
            let port = p.host_port.filter(|&h| h > 0)?;
            let protocol = if p.protocol.is_empty() {
                "TCP".to_string()
            } else {
                p.protocol.clone()
            };
            let ip = if p.host_ip.is_empty() {
                "0.0.0.0".to_string()
            } else {
                p.host_ip.clone()
            };
            Some((protocol, ip, port))
        })
        .collect()
}

/// Whether two pods' affinity terms are the same: none for either, or the same terms read in
/// the same namespace with the same labels (which `matchLabelKeys` take values from).
fn same_terms(a: &Pod, b: &Pod) -> bool {
    match (&a.spec.affinity, &b.spec.affinity) {
        (None, None) => true,
        (Some(a_terms), Some(b_terms)) => {
            a_terms == b_terms
                && a.metadata.namespace == b.metadata.namespace
                && a.metadata.labels == b.metadata.labels
        }
        _ => false,
    }
}

/// Every image the nodes hold, with the nodes that hold it and its size on each. Names are
/// kept exactly as the nodes list them (upstream's image states are keyed so; only the pod's
/// names are normalised). A node that lists a name twice counts once, with the size listed
/// last (the node's image states are a map by name upstream).
fn image_holders(state: &ClusterState) -> HashMap<&str, Vec<(usize, i64)>> {
    // Sized for every name listed: most are distinct in a cluster of image digests.
    let listed = state.nodes.iter().flat_map(|node| &node.status.images);
    let names = listed.map(|image| image.names.len()).sum();
    let mut images: HashMap<&str, Vec<(usize, i64)>> =
        HashMap::with_capacity_and_hasher(names, Default::default());
    for (i, node) in state.nodes.iter().enumerate() {
        for image in &node.status.images {
            for name in &image.names {
                let holders = images.entry(name.as_str()).or_default();
                match holders.last_mut() {
                    Some((node, size)) if *node == i => *size = image.size_bytes,
                    _ => holders.push((i, image.size_bytes)),
                }
            }
        }
    }
    images
}

/// Upstream's `FitError` message: counts per reason, string-sorted.
pub(crate) fn unschedulable_summary(total_nodes: usize, verdicts: &[NodeVerdict]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for verdict in verdicts.iter().filter(|v| !v.feasible) {
        for reason in &verdict.reasons {
            *counts.entry(reason.as_str()).or_default() += 1;
        }
    }
    let mut parts: Vec<String> = counts
        .into_iter()
        .map(|(reason, count)| format!("{count} {reason}"))
        .collect();
    parts.sort();
    if parts.is_empty() {
        format!("0/{total_nodes} nodes are available.")
    } else {
        format!("0/{total_nodes} nodes are available: {}.", parts.join(", "))
    }
}

#[cfg(test)]
mod fidelity;
#[cfg(test)]
mod tests;
