//! Tracing one pod through a plan: `explain-placement` asks the plan for its pod's decision
//! instead of deciding a second time. The scheduler that plans is told which pod to watch;
//! every decision it makes for that pod is kept with what the plan had assumed at that moment
//! (and the node detail of one node, when asked, from the same candidates), and so are its
//! preemption preview and the kubelet's admission verdict. The decision that explains the pod
//! is the one the plan acted on: the last one followed by assuming the pod on a node, else the
//! first one (a pod that fits nowhere is decided once; later probes with edited copies of it,
//! as the Fluid walk makes to test an inherited term, do not replace it).

use std::sync::{Arc, Mutex, MutexGuard};

use super::preemption::Preemption;
use super::{Decision, NodeDetail, Scheduler};
use df_model::Pod;

/// A pod the plan placed before the traced decision, and where.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Assumed {
    /// `namespace/name`.
    pub pod: String,
    pub node: String,
}

/// One decision the plan made for the traced pod, with what it saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Traced {
    pub decision: Decision,
    /// The requested node's detail, from the same candidates (`None` when not asked for).
    pub node_detail: Option<NodeDetail>,
    /// The preemption preview run after this decision, when no node fitted.
    pub preemption: Option<Preemption>,
    /// The pods the plan had assumed when it decided, in the order they were assumed.
    pub assumed: Vec<Assumed>,
    /// Whether the decision ran over a subset of the nodes (a gang's node group or domain).
    pub restricted: bool,
}

/// What the plan did with the traced pod.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodTrace {
    /// The decision the plan acted on (see the module doc).
    pub decided: Option<Traced>,
    /// The kubelet's verdict, for a pod that names its node: `Err` holds the reasons.
    pub admission: Option<Result<(), Vec<String>>>,
}

#[derive(Debug, Clone, Default)]
struct Log {
    namespace: String,
    name: String,
    /// The node to explain in full in each decision.
    node: Option<String>,
    decisions: Vec<Traced>,
    /// Index of the decision last followed by an assume of the pod.
    acted_on: Option<usize>,
    admission: Option<Result<(), Vec<String>>>,
}

/// The trace a scheduler and its [`fork`](Scheduler::fork)s share ([`branch`](Scheduler::branch)es
/// copy it). A plain clone traces nothing: clones are comparisons and previews (`--compare`),
/// not the plan.
#[derive(Debug, Default)]
pub(super) struct Tracer(Option<Arc<Mutex<Log>>>);

impl Clone for Tracer {
    fn clone(&self) -> Tracer {
        Tracer(None)
    }
}

impl Tracer {
    /// The log, when `pod` is the traced one.
    fn of(&self, pod: &Pod) -> Option<MutexGuard<'_, Log>> {
        let log = self.0.as_ref()?.lock().unwrap_or_else(|e| e.into_inner());
        (log.name == pod.metadata.name && log.namespace == pod.metadata.namespace).then_some(log)
    }
}

impl Scheduler<'_> {
    /// Watch the pod `namespace/name` through the plan this scheduler makes; `node`, when
    /// given, is explained in full in each of its decisions.
    pub fn trace(&mut self, namespace: &str, name: &str, node: Option<&str>) {
        self.trace = Tracer(Some(Arc::new(Mutex::new(Log {
            namespace: namespace.to_string(),
            name: name.to_string(),
            node: node.map(str::to_string),
            ..Log::default()
        }))));
    }

    /// A copy that plans on behalf of this scheduler (a batch solver's working copy): it
    /// shares the trace, unlike a plain clone.
    pub fn fork(&self) -> Self {
        let mut fork = self.clone();
        fork.trace = Tracer(self.trace.0.clone());
        fork
    }

    /// A copy that may replace this scheduler (a topology domain tried on its own, the best
    /// kept): it traces into a copy of the trace, so the copy that is kept carries the trace
    /// of what it decided, and the ones dropped take theirs with them.
    pub fn branch(&self) -> Self {
        let mut branch = self.clone();
        branch.trace = Tracer(self.trace.0.as_ref().map(|log| {
            let copy = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
            Arc::new(Mutex::new(copy))
        }));
        branch
    }

    /// Whether `pod` is the pod being traced.
    pub fn is_traced(&self, pod: &Pod) -> bool {
        self.trace.of(pod).is_some()
    }

    /// What the plan did with the traced pod so far.
    pub fn traced(&self) -> Option<PodTrace> {
        let log = self
            .trace
            .0
            .as_ref()?
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let index = log
            .acted_on
            .or_else(|| (!log.decisions.is_empty()).then_some(0));
        Some(PodTrace {
            decided: index.map(|i| log.decisions[i].clone()),
            admission: log.admission.clone(),
        })
    }

    /// Keep `decision` (over `candidates`) when `pod` is traced.
    pub(super) fn record_decision(&self, pod: &Pod, candidates: &[usize], decision: &Decision) {
        let Some(mut log) = self.trace.of(pod) else {
            return;
        };
        let node_detail = log.node.as_deref().and_then(|node| {
            self.decide_explained(pod, Some(candidates), node)
                .map(|(_, detail)| detail)
        });
        let assumed = self
            .placed
            .iter()
            .filter(|p| !p.removed && matches!(p.pod, super::PodHandle::Assumed(_)))
            .map(|p| Assumed {
                pod: format!("{}/{}", p.pod.metadata.namespace, p.pod.metadata.name),
                node: self.state.nodes[p.node].metadata.name.clone(),
            })
            .collect();
        log.decisions.push(Traced {
            decision: decision.clone(),
            node_detail,
            preemption: None,
            assumed,
            restricted: candidates.len() < self.nodes.len(),
        });
    }

    /// The traced pod is assumed: the decision just made is the one the plan acted on.
    pub(super) fn record_assumed(&self, pod: &Pod) {
        if let Some(mut log) = self.trace.of(pod) {
            log.acted_on = log.decisions.len().checked_sub(1);
        }
    }

    /// Preemption ran after the last decision for the traced pod (and completed its summary).
    pub(super) fn record_preemption(
        &self,
        pod: &Pod,
        decision: &Decision,
        preemption: &Preemption,
    ) {
        if let Some(mut log) = self.trace.of(pod)
            && let Some(last) = log.decisions.last_mut()
        {
            last.decision.summary.clone_from(&decision.summary);
            last.preemption = Some(preemption.clone());
        }
    }

    /// The kubelet admitted (or refused) the traced pod.
    pub(super) fn record_admission(&self, pod: &Pod, verdict: &Result<(), Vec<String>>) {
        if let Some(mut log) = self.trace.of(pod) {
            log.admission = Some(verdict.clone());
        }
    }
}
