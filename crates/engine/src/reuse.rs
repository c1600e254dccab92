//! The per-node work of one cycle, kept for the next pod of the same template. The replicas of
//! a Job, a gang or a backlog differ only in name, and between two of them the plan assumed a
//! few pods: every node those pods did not change gives the next replica the same filter
//! verdict and the same raw scores. Only NormalizeScore, which looks at every feasible node,
//! runs over all of them again.
//!
//! A node's verdict and raw scores change when a pod is assumed on it or taken off it, and
//! beyond that node only through the domain of that pod's node: when the template's own
//! (anti-)affinity terms select the pod, when the pod's terms select the template, and when
//! a DoNotSchedule spread constraint of the template counts the pod, as long as that
//! constraint's minimum over the domains is where it was (the work is judged again in full
//! when it moved). Work that depends on the whole cluster is never kept: ScheduleAnyway
//! spreading (its domains are the feasible nodes'), required pod affinity (the first pod of a
//! group may go anywhere until one matches), volumes and DRA claims (their state is not per
//! node).

use std::sync::{Arc, Mutex};

use df_model::{Node, Pod};
use rustc_hash::FxHashMap as HashMap;

use crate::NodeVerdict;
use crate::framework::Context;
use crate::plugins::pod_topology_spread::HardSpread;
use crate::terms::TermKind;

/// Templates remembered at once. A backlog interleaves a few; more would mostly keep work of
/// one-off pods (each a verdict per node).
const TEMPLATES: usize = 16;

/// Verdicts kept in all (about 200 bytes each with their raw scores): 16 templates of 10,000
/// nodes; on larger clusters fewer templates are kept, the latest always.
const KEPT_VERDICTS: usize = 160_000;

/// Past one change per this many candidate nodes since the work was kept (and past
/// [`FEW_CHANGES`]), finding the nodes the changes touched costs more than judging every
/// node again.
const CANDIDATES_PER_CHANGE: usize = 8;

/// Changes always worth going through, however few the candidates.
const FEW_CHANGES: usize = 32;

/// Changes kept before the log starts over: kept work that old is judged again in full
/// anyway (past [`FEW_CHANGES`] and one change per [`CANDIDATES_PER_CHANGE`] nodes), and
/// preemption's what-ifs take pods off and put them back by the thousand.
pub(crate) const LOGGED_CHANGES: usize = 1 << 16;

/// Every placed pod (its index among the placed pods) assumed, taken off or put back, in order:
/// what changed since a template's work was kept. Bounded: past [`LOGGED_CHANGES`] the log
/// starts over, and work kept before that is judged again.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChangeLog {
    /// Changes dropped by starting over.
    dropped: usize,
    changes: Vec<usize>,
}

impl ChangeLog {
    pub fn push(&mut self, placed: usize) {
        if self.changes.len() == LOGGED_CHANGES {
            self.dropped += self.changes.len();
            self.changes.clear();
        }
        self.changes.push(placed);
    }

    /// How many changes there have been.
    pub fn len(&self) -> usize {
        self.dropped + self.changes.len()
    }

    /// The changes after the first `seen`, unless some were dropped.
    pub(crate) fn since(&self, seen: usize) -> Option<&[usize]> {
        self.changes.get(seen.checked_sub(self.dropped)?..)
    }
}

/// One template's work over its candidates, by candidate position.
pub(crate) struct Kept {
    /// The verdicts, without scores.
    pub verdicts: Vec<NodeVerdict>,
    /// Each score plugin's raw scores, in the profile's order (meaningful on feasible nodes).
    pub raw: Vec<Vec<i64>>,
    /// The minimum of each DoNotSchedule spread constraint: while it holds, a node's verdict
    /// changes only with its own domain's count.
    pub spread_minimum: Vec<i64>,
}

struct Entry {
    template: Pod,
    candidates: Vec<usize>,
    /// How many changes the scheduler had recorded when the work was kept.
    seen: usize,
    kept: Kept,
}

/// The kept work of the latest templates, most recent first. A cycle runs on a shared
/// scheduler, hence the lock; a cloned scheduler starts with nothing kept.
#[derive(Default)]
pub(crate) struct CycleMemory {
    entries: Mutex<Vec<Entry>>,
    /// Every cycle judges every node (the straightforward path the fast one is checked against).
    pub off: bool,
}

impl Clone for CycleMemory {
    fn clone(&self) -> Self {
        CycleMemory {
            entries: Mutex::default(),
            off: self.off,
        }
    }
}

impl std::fmt::Debug for CycleMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.entries.lock().map_or(0, |e| e.len());
        write!(f, "CycleMemory({kept} templates)")
    }
}

impl CycleMemory {
    /// Forget everything: what the plugins look up beyond the placed pods changed.
    pub fn clear(&mut self) {
        if let Ok(entries) = self.entries.get_mut() {
            entries.clear();
        }
    }

    /// The work kept for `pod`'s template over `candidates`, taken out, with the number of
    /// changes it has seen.
    pub fn take(&self, pod: &Pod, candidates: &[usize]) -> Option<(usize, Kept)> {
        if self.off {
            return None;
        }
        let mut entries = self.entries.lock().ok()?;
        let at = entries
            .iter()
            .position(|e| same_template(&e.template, pod) && e.candidates == candidates)?;
        let entry = entries.remove(at);
        Some((entry.seen, entry.kept))
    }

    /// Keep `kept`, up to date with `seen` changes, for `pod`'s template.
    pub fn keep(&self, pod: &Pod, candidates: &[usize], seen: usize, kept: Kept) {
        if self.off {
            return;
        }
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        let mut template = pod.clone();
        template.metadata.name.clear();
        entries.insert(
            0,
            Entry {
                template,
                candidates: candidates.to_vec(),
                seen,
                kept,
            },
        );
        let mut verdicts = 0;
        let within_budget = entries
            .iter()
            .take(TEMPLATES)
            .take_while(|e| {
                verdicts += e.candidates.len();
                verdicts <= KEPT_VERDICTS
            })
            .count();
        entries.truncate(within_budget.max(1));
    }
}

/// Whether two pods are scheduled alike: all but their names (and annotations, which no
/// plugin reads) are the same.
fn same_template(a: &Pod, b: &Pod) -> bool {
    a.spec == b.spec
        && a.metadata.namespace == b.metadata.namespace
        && a.metadata.labels == b.metadata.labels
        && a.metadata.controller == b.metadata.controller
        && a.metadata.deletion_timestamp == b.metadata.deletion_timestamp
        && a.status == b.status
}

/// The candidates (by position) whose verdict or raw scores the changes after the first
/// `seen` may have changed for the cycle's pod; `None` when every node must be judged again.
pub(crate) fn changed_since(
    cx: &Context,
    spread: &HardSpread,
    seen: usize,
    candidates: &[usize],
) -> Option<Vec<bool>> {
    let sched = cx.sched;
    let changes = sched.changes.since(seen)?;
    if changes.len() > FEW_CHANGES.max(candidates.len() / CANDIDATES_PER_CHANGE) {
        return None;
    }
    let mut touched = vec![false; sched.nodes.len()];
    let mut domains: Vec<(&str, usize)> = Vec::new();
    for &placed in changes {
        let placed = &sched.placed[placed];
        touched[placed.node] = true;
        for (kind, terms) in cx.terms.by_kind() {
            for term in terms.iter().filter(|t| cx.term_matches(t, &placed.pod)) {
                if kind == TermKind::Required {
                    return None;
                }
                domains.push((&term.topology_key, placed.node));
            }
        }
        for key in spread.keys_counting(cx, &placed.pod) {
            domains.push((key, placed.node));
        }
        for &group in placed.term_groups.iter() {
            let term = &sched.term_groups[group].term;
            if cx.term_matches(term, cx.pod) {
                domains.push((&term.topology_key, placed.node));
            }
        }
    }
    domains.sort_unstable();
    domains.dedup();
    for (key, node) in domains {
        // A pod on a node without the key counts in no domain.
        let Some(value) = sched.node_labels(node).get(key) else {
            continue;
        };
        let by_value = sched.domains.of(&sched.state.nodes, key);
        for &member in by_value.get(value.as_str()).into_iter().flatten() {
            touched[member] = true;
        }
    }
    Some(candidates.iter().map(|&c| touched[c]).collect())
}

/// The nodes of one topology key's domains, by label value, in node order.
type DomainNodes = HashMap<String, Vec<usize>>;

/// The nodes of each topology domain, built for a key the first time a change asks for it:
/// a change in a zone touches a third of the nodes, found without reading every node's labels.
#[derive(Default)]
pub(crate) struct Domains(Mutex<HashMap<String, Arc<DomainNodes>>>);

impl Clone for Domains {
    fn clone(&self) -> Self {
        Domains::default()
    }
}

impl std::fmt::Debug for Domains {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = self.0.lock().map_or(0, |d| d.len());
        write!(f, "Domains({keys} keys)")
    }
}

impl Domains {
    fn of(&self, nodes: &[Node], key: &str) -> Arc<DomainNodes> {
        let mut by_key = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(by_value) = by_key.get(key) {
            return Arc::clone(by_value);
        }
        let mut by_value = DomainNodes::default();
        for (index, node) in nodes.iter().enumerate() {
            if let Some(value) = node.metadata.labels.get(key) {
                by_value.entry(value.to_string()).or_default().push(index);
            }
        }
        let by_value = Arc::new(by_value);
        by_key.insert(key.to_string(), Arc::clone(&by_value));
        by_value
    }
}

#[cfg(test)]
mod tests;
