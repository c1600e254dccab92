//! Kueue's classical preemption (upstream `pkg/scheduler/preemption/classical`): lower-priority
//! workloads of the same ClusterQueue (`withinClusterQueue`) and workloads of borrowing queues
//! in the cohort tree (`reclaimWithinCohort`, `borrowWithinCohort`), tried in upstream's order,
//! removed greedily until the preemptor fits and then given back, in reverse, while it still
//! fits. The same search answers the flavor assigner's "could preemption help?" ([`Oracle`]).

use std::collections::BTreeMap;

use super::assign::{Oracle, Pm, QueueShape};
use super::quota::{Fr, Tree};

/// A policy of `spec.preemption`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Policy {
    #[default]
    Never,
    LowerPriority,
    LowerOrNewerEqualPriority,
    Any,
}

impl Policy {
    pub fn parse(text: Option<&str>) -> Policy {
        match text {
            Some("LowerPriority") => Policy::LowerPriority,
            Some("LowerOrNewerEqualPriority") => Policy::LowerOrNewerEqualPriority,
            Some("Any") => Policy::Any,
            _ => Policy::Never,
        }
    }

    fn allows(self, preemptor: &Preemptor, candidate: &Reserved) -> bool {
        match self {
            Policy::Never => false,
            Policy::Any => true,
            Policy::LowerPriority => candidate.priority < preemptor.priority,
            Policy::LowerOrNewerEqualPriority => {
                candidate.priority < preemptor.priority
                    || (candidate.priority == preemptor.priority
                        && preemptor.created < candidate.created)
            }
        }
    }
}

/// A ClusterQueue's preemption policies.
#[derive(Debug, Clone, Copy, Default)]
pub struct Policies {
    pub within_cluster_queue: Policy,
    pub reclaim_within_cohort: Policy,
    /// `borrowWithinCohort.policy: LowerPriority`, with its `maxPriorityThreshold`.
    pub borrow_within_cohort: Option<Option<i32>>,
}

/// A workload holding quota: from the state's admitted Workloads, or admitted by this plan.
#[derive(Debug, Clone)]
pub struct Reserved {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub cq: usize,
    pub priority: i32,
    pub created: String,
    /// When its quota was reserved; empty sorts as "now" (the most recent).
    pub reserved_at: String,
    pub usage: BTreeMap<Fr, i64>,
}

/// The workload that needs room.
#[derive(Debug, Clone, Default)]
pub struct Preemptor {
    pub cq: usize,
    pub priority: i32,
    pub created: String,
}

/// Why a victim is preempted (`Preempted` condition reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    InClusterQueue,
    HierarchicalReclaim,
    ReclaimWithoutBorrowing,
    ReclaimWhileBorrowing,
}

impl Variant {
    pub fn reason(self) -> &'static str {
        match self {
            Variant::InClusterQueue => "InClusterQueue",
            Variant::HierarchicalReclaim | Variant::ReclaimWithoutBorrowing => {
                "InCohortReclamation"
            }
            Variant::ReclaimWhileBorrowing => "InCohortReclaimWhileBorrowing",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Variant::InClusterQueue => "prioritization in the ClusterQueue",
            Variant::HierarchicalReclaim | Variant::ReclaimWithoutBorrowing => {
                "reclamation within the cohort"
            }
            Variant::ReclaimWhileBorrowing => "reclamation within the cohort while borrowing",
        }
    }
}

/// A victim: index into the reserved workloads and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub index: usize,
    pub variant: Variant,
}

/// The search's inputs.
pub struct Search<'a> {
    pub tree: &'a Tree,
    pub reserved: &'a [Reserved],
    /// Indexes of `reserved` already evicted or gone: not candidates, not usage.
    pub gone: &'a [usize],
    pub policies: &'a BTreeMap<usize, Policies>,
}

impl Search<'_> {
    fn policies(&self, cq: usize) -> Policies {
        self.policies.get(&cq).copied().unwrap_or_default()
    }

    fn uses(&self, r: &Reserved, frs: &[Fr]) -> bool {
        frs.iter().any(|fr| r.usage.get(fr).is_some_and(|v| *v > 0))
    }

    /// Upstream `GetTargets` (classical): the victims that make `request` fit in the
    /// preemptor's ClusterQueue, or none.
    pub fn targets(
        &self,
        preemptor: &Preemptor,
        request: &BTreeMap<Fr, i64>,
        frs: &[Fr],
    ) -> Vec<Target> {
        let tree = self.tree;
        let cq = preemptor.cq;
        let policies = self.policies(cq);
        let live = |i: &usize| !self.gone.contains(i);
        let mut same_cq: Vec<Target> = Vec::new();
        if policies.within_cluster_queue != Policy::Never {
            for (i, r) in self.reserved.iter().enumerate() {
                if live(&i)
                    && r.cq == cq
                    && self.uses(r, frs)
                    && policies.within_cluster_queue.allows(preemptor, r)
                {
                    same_cq.push(Target {
                        index: i,
                        variant: Variant::InClusterQueue,
                    });
                }
            }
        }
        let mut hierarchy: Vec<Target> = Vec::new();
        let mut priority: Vec<Target> = Vec::new();
        if tree.nodes[cq].parent.is_some() && policies.reclaim_within_cohort != Policy::Never {
            let mut has_advantage = request
                .iter()
                .all(|(fr, v)| tree.nominal(cq, fr) >= tree.usage(cq, fr).saturating_add(*v));
            let mut seen: Vec<usize> = vec![cq];
            for ancestor in tree.ancestors(cq) {
                for other in tree.cluster_queues_under(ancestor) {
                    if seen.contains(&other) || tree.within_nominal(other, frs) {
                        continue;
                    }
                    seen.push(other);
                    for (i, r) in self.reserved.iter().enumerate() {
                        if !live(&i)
                            || r.cq != other
                            || !self.uses(r, frs)
                            || !policies.reclaim_within_cohort.allows(preemptor, r)
                        {
                            continue;
                        }
                        let variant = if has_advantage {
                            Variant::HierarchicalReclaim
                        } else {
                            match policies.borrow_within_cohort {
                                None => Variant::ReclaimWithoutBorrowing,
                                Some(threshold)
                                    if r.priority >= preemptor.priority
                                        || threshold.is_some_and(|t| r.priority > t) =>
                                {
                                    Variant::ReclaimWithoutBorrowing
                                }
                                Some(_) => Variant::ReclaimWhileBorrowing,
                            }
                        };
                        let target = Target { index: i, variant };
                        if has_advantage {
                            hierarchy.push(target);
                        } else {
                            priority.push(target);
                        }
                    }
                }
                has_advantage = has_advantage
                    || request.iter().all(|(fr, v)| {
                        tree.subtree_quota(ancestor, fr)
                            >= tree.usage(ancestor, fr).saturating_add(*v)
                    });
            }
        }
        for list in [&mut hierarchy, &mut priority, &mut same_cq] {
            self.order(list, cq);
        }
        let candidates: Vec<Target> = hierarchy
            .iter()
            .chain(&priority)
            .chain(&same_cq)
            .copied()
            .collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        let forbidden = policies.borrow_within_cohort.is_none();
        let under_nominal = frs
            .iter()
            .all(|fr| tree.usage(cq, fr) < tree.nominal(cq, fr));
        let attempts: &[bool] = if forbidden && !under_nominal {
            &[true]
        } else if forbidden && hierarchy.is_empty() {
            &[false, true]
        } else {
            &[true, false]
        };
        for &allow_borrowing in attempts {
            if let Some(targets) =
                self.try_candidates(cq, request, frs, &candidates, allow_borrowing)
            {
                return targets;
            }
        }
        Vec::new()
    }

    /// Upstream `CandidatesOrdering`: other queues first, lower priority first, the most
    /// recently reserved first, then by name.
    fn order(&self, list: &mut [Target], cq: usize) {
        list.sort_by(|a, b| {
            let (x, y) = (&self.reserved[a.index], &self.reserved[b.index]);
            let now = |r: &Reserved| r.reserved_at.is_empty();
            (x.cq == cq)
                .cmp(&(y.cq == cq))
                .then(x.priority.cmp(&y.priority))
                .then(now(y).cmp(&now(x)))
                .then(y.reserved_at.cmp(&x.reserved_at))
                .then((&x.namespace, &x.name).cmp(&(&y.namespace, &y.name)))
        });
    }

    fn try_candidates(
        &self,
        cq: usize,
        request: &BTreeMap<Fr, i64>,
        frs: &[Fr],
        candidates: &[Target],
        allow_borrowing: bool,
    ) -> Option<Vec<Target>> {
        let mut tree = self.tree.clone();
        let fits = |tree: &Tree| {
            request.iter().all(|(fr, v)| {
                (allow_borrowing || !tree.borrowing_with(cq, fr, *v))
                    && *v <= tree.available(cq, fr)
            })
        };
        let mut targets: Vec<Target> = Vec::new();
        for candidate in candidates {
            let r = &self.reserved[candidate.index];
            if candidate.variant != Variant::InClusterQueue {
                if allow_borrowing && candidate.variant == Variant::ReclaimWithoutBorrowing {
                    continue;
                }
                if tree.within_nominal(r.cq, frs) {
                    continue;
                }
            }
            tree.remove_usage(r.cq, &r.usage);
            targets.push(*candidate);
            if fits(&tree) {
                // Fill back: give back every target but the last, latest first, that is
                // not needed after all.
                let mut i = targets.len().saturating_sub(1);
                while i > 0 {
                    i -= 1;
                    let back = &self.reserved[targets[i].index];
                    tree.add_usage(back.cq, &back.usage);
                    if fits(&tree) {
                        targets.remove(i);
                    } else {
                        tree.remove_usage(back.cq, &back.usage);
                    }
                }
                return Some(targets);
            }
        }
        None
    }
}

/// The flavor assigner's oracle: the same search on one (flavor, resource).
pub struct SearchOracle<'a> {
    pub search: Search<'a>,
    pub preemptor: Preemptor,
}

impl Oracle for SearchOracle<'_> {
    fn simulate(&self, tree: &Tree, queue: &QueueShape, fr: &Fr, qty: i64) -> (Pm, usize) {
        let request = BTreeMap::from([(fr.clone(), qty)]);
        let frs = [fr.clone()];
        let targets = self.search.targets(&self.preemptor, &request, &frs);
        if targets.is_empty() {
            return (
                Pm::NoCandidates,
                tree.lowest_fitting_height(queue.node, fr, qty).0,
            );
        }
        let mut after = tree.clone();
        for t in &targets {
            let r = &self.search.reserved[t.index];
            after.remove_usage(r.cq, &r.usage);
        }
        let borrow = after.lowest_fitting_height(queue.node, fr, qty).0;
        let own = targets
            .iter()
            .any(|t| self.search.reserved[t.index].cq == queue.node);
        (if own { Pm::Preempt } else { Pm::Reclaim }, borrow)
    }
}
