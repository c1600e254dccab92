//! A round whose domains kube-scheduler scores ([`super::Order::BestScore`]): the gang is
//! placed in each domain on a copy of the scheduler, and the best placement score wins.
//!
//! A domain's score can be bounded before placing anything: pods placed score at most 100,
//! and bin packing is highest when every pending pod lands there, which is known from their
//! requests. Domains are tried from the highest bound down, and once a domain that took every
//! pod scores at least the next bound, no domain left can win (ties go to the first by name):
//! they are reported as not tried, with their bound, instead of being placed. The chosen
//! domain is the one trying them all would choose.

use std::cmp::Reverse;

use super::score::{self, MAX_SCORE, Score};
use super::{Domain, RejectedDomain};
use crate::gang::GroupPlan;
use df_engine::{Resources, Scheduler, pod_requests};
use df_model::Pod;

/// A domain that took the gang, placed on a copy of the scheduler.
pub(super) struct Trial<'d, 'a> {
    /// Its position among the round's domains (the tie break).
    index: usize,
    pub domain: &'d Domain,
    pub plan: GroupPlan,
    pub scheduler: Scheduler<'a>,
}

pub(super) struct ScoredRound<'d, 'a> {
    domains: &'d [Domain],
    /// Per domain: the best score it could reach.
    ceilings: Vec<Score>,
    bound: usize,
    pending: usize,
    trials: Vec<Trial<'d, 'a>>,
    /// Domains left untried (index, pods that fit by capacity).
    untried: Vec<(usize, usize)>,
    /// The best score of a domain that took every pod, and its index.
    settled_by: Option<(i64, usize)>,
}

impl<'d, 'a> ScoredRound<'d, 'a> {
    /// A round over `domains` for `pending` pods (and `bound` running ones), bounded against
    /// `scheduler`'s current state.
    pub fn new(
        scheduler: &Scheduler<'a>,
        pending: &[&Pod],
        bound: usize,
        domains: &'d [Domain],
    ) -> Self {
        let mut asks = Resources::default();
        for pod in pending {
            asks.add(&pod_requests(&pod.spec, true));
        }
        let ceilings = domains
            .iter()
            .map(|d| {
                let bin_packing = score::bin_packing(scheduler, &d.nodes, &asks);
                Score::new(scheduler.profile(), MAX_SCORE, bin_packing)
            })
            .collect();
        ScoredRound {
            domains,
            ceilings,
            bound,
            pending: pending.len(),
            trials: Vec::new(),
            untried: Vec::new(),
            settled_by: None,
        }
    }

    /// The domains, highest bound first (ties in the given order).
    pub fn order(&self) -> Vec<&'d Domain> {
        let mut order: Vec<usize> = (0..self.domains.len()).collect();
        order.sort_by_key(|&i| Reverse(self.ceilings[i].total));
        order.into_iter().map(|i| &self.domains[i]).collect()
    }

    fn index(&self, domain: &Domain) -> usize {
        self.domains
            .iter()
            .position(|d| std::ptr::eq(d, domain))
            .expect("a domain of this round")
    }

    /// Whether a domain tried so far already beats whatever `domain` could score.
    pub(crate) fn settled(&self, domain: &Domain) -> bool {
        let i = self.index(domain);
        let ceiling = self.ceilings[i].total;
        self.settled_by
            .is_some_and(|(total, at)| total > ceiling || (total == ceiling && at < i))
    }

    /// `domain` is left untried; `fit` pods fit its free capacity.
    pub(crate) fn untried(&mut self, domain: &Domain, fit: usize) {
        let i = self.index(domain);
        self.untried.push((i, fit));
    }

    /// `domain` took the gang: `plan`, leaving `scheduler`.
    pub fn took(&mut self, domain: &'d Domain, plan: GroupPlan, scheduler: Scheduler<'a>) {
        let index = self.index(domain);
        if plan.scheduled >= self.pending {
            let bin_packing = score::bin_packing(&scheduler, &domain.nodes, &Resources::default());
            let total = Score::new(scheduler.profile(), MAX_SCORE, bin_packing).total;
            if self
                .settled_by
                .is_none_or(|(best, at)| (total, Reverse(index)) > (best, Reverse(at)))
            {
                self.settled_by = Some((total, index));
            }
        }
        self.trials.push(Trial {
            index,
            domain,
            plan,
            scheduler,
        });
    }

    /// The trial with the highest score (the first by name on a tie); every other domain
    /// that took the gang, and every domain left untried, joins `rejected` with its score.
    /// `None` when no domain took the gang.
    pub fn best(
        self,
        needed: usize,
        level: &str,
        rejected: &mut Vec<RejectedDomain>,
    ) -> Option<Trial<'d, 'a>> {
        let bound = self.bound;
        let placements: Vec<score::Placement> = self
            .trials
            .iter()
            .map(|t| score::Placement {
                pods: bound + t.plan.scheduled,
                nodes: &t.domain.nodes,
                scheduler: &t.scheduler,
            })
            .collect();
        let scores = score::score(&placements);
        let best = (0..self.trials.len())
            .max_by_key(|&i| (scores[i].total, Reverse(self.trials[i].index)))?;
        let (top, best_name) = (scores[best].total, self.trials[best].domain.name.clone());
        let tie_note = |total: i64| {
            if total == top {
                " (kube-scheduler breaks the tie at random; the plan keeps the first by name)"
            } else {
                ""
            }
        };
        let mut reject = |domain: &Domain, fit: usize, reason: String| {
            rejected.push(RejectedDomain {
                level: level.to_string(),
                domain: domain.name.clone(),
                fit,
                needed,
                reason,
            });
        };
        for (i, trial) in self.trials.iter().enumerate().filter(|&(i, _)| i != best) {
            let fit = bound + trial.plan.scheduled;
            let verb = if scores[i].total == top {
                "ties"
            } else {
                "is below"
            };
            let reason = format!(
                "{fit} pods fit, {needed} needed; placement score {} {verb} {best_name}'s \
                 {top}{}",
                scores[i],
                tie_note(scores[i].total)
            );
            reject(trial.domain, fit, reason);
        }
        for &(i, fit) in &self.untried {
            let ceiling = self.ceilings[i];
            let reason = format!(
                "{fit} pods fit, {needed} needed; not placed: its placement score would be at \
                 most {ceiling}, and {best_name}'s is {top}{}",
                tie_note(ceiling.total)
            );
            reject(&self.domains[i], fit, reason);
        }
        self.trials.into_iter().nth(best)
    }
}
