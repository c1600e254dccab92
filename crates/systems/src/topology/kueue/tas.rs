//! Kueue's topology assignment for one pod set, as `pkg/cache/scheduler/tas_flavor_snapshot.go`
//! computes it (`findTopologyAssignment`), on pod counts the caller has already worked out per
//! lowest-level domain. Pure: no nodes, no resources, only the domain tree and numbers.
//!
//! Phase 1 fills each domain with how many pods (and slices) fit in it, bottom up. Phase 2
//! picks the domains at the requested level (walking up a level at a time for a preferred
//! level, failing for a required one), then walks down level by level keeping as few domains
//! as possible: most free first (BestFit), with the last domain swapped for the tightest one
//! that still holds what is left. Unconstrained requests (and implied ones) use
//! LeastFreeCapacity instead (Kueue's `TASProfileMixed`, on by default since v0.15): least free
//! first, no best-fit swap. Leaders, multi-layer slices, balanced placement and preferred node
//! affinity (feature gates off by default) are not modelled.

use std::collections::BTreeMap;

/// How a pod set constrains its level: the annotations `podset-required-topology`,
/// `podset-preferred-topology`, or neither (`podset-unconstrained-topology`, slice-only or
/// implied requests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelMode {
    Required,
    Preferred,
    Unconstrained,
}

impl LevelMode {
    pub fn as_str(self) -> &'static str {
        match self {
            LevelMode::Required => "required",
            LevelMode::Preferred => "preferred",
            LevelMode::Unconstrained => "unconstrained",
        }
    }
}

/// One pod set's request, resolved against the Topology's levels (indexes, 0 = highest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodSetRequest {
    /// Pods in the pod set.
    pub count: i32,
    pub mode: LevelMode,
    pub level: usize,
    /// Pods of one slice and the level each slice must stay in (1 pod at the lowest level
    /// when no slice is asked for).
    pub slice_size: i32,
    pub slice_level: usize,
}

/// Nodes Kueue left out before counting, by why (upstream `ExclusionStats`), for the
/// not-fit message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exclusions {
    pub total_nodes: usize,
    pub node_selector: usize,
    pub affinity: usize,
    /// Untolerated taint (`key=value:Effect`) -> nodes.
    pub taints: BTreeMap<String, usize>,
    /// Resource that fits not even one pod -> nodes.
    pub resources: BTreeMap<String, usize>,
}

impl Exclusions {
    fn any(&self) -> bool {
        self.node_selector > 0
            || self.affinity > 0
            || !self.taints.is_empty()
            || !self.resources.is_empty()
    }

    /// Upstream `formatReasons`: every reason with its count, string-sorted.
    fn reasons(&self) -> String {
        let mut reasons = Vec::new();
        if self.node_selector > 0 {
            reasons.push(format!("nodeSelector: {}", self.node_selector));
        }
        if self.affinity > 0 {
            reasons.push(format!("affinity: {}", self.affinity));
        }
        for (taint, n) in &self.taints {
            reasons.push(format!("taint {taint:?}: {n}"));
        }
        for (resource, n) in &self.resources {
            reasons.push(format!("resource {resource:?}: {n}"));
        }
        reasons.sort();
        reasons.join(", ")
    }
}

/// One domain of the tree: its label values from the highest level down to its own.
#[derive(Debug, Clone)]
struct Domain {
    values: Vec<String>,
    children: Vec<usize>,
    /// Phase 1: pods that fit; phase 2: pods assigned.
    state: i32,
    /// Slices that fit (0 below the slice level).
    slice_state: i32,
}

/// What one domain at the constraining level could hold, for the explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainCapacity {
    pub values: Vec<String>,
    /// Pods that fit in it.
    pub pods: i32,
    /// Slices that fit in it (pods when no slice is asked for).
    pub slices: i32,
}

/// The assignment Kueue writes into the Workload's admission: pods per lowest-level domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The level the pods were fitted at (the requested one, or higher for a preferred level
    /// that no single domain could hold).
    pub fit_level: usize,
    /// Lowest-level domains (all level values) and their pod counts, sorted by values.
    pub domains: Vec<(Vec<String>, i32)>,
    /// Every domain of the requested level with what it can hold, most free first.
    pub candidates: Vec<DomainCapacity>,
}

/// Why no assignment exists, in upstream's words, with the candidates as for [`Assignment`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoFit {
    pub reason: String,
    pub candidates: Vec<DomainCapacity>,
}

/// The domain tree of one topology (a `TASFlavorSnapshot` without its resources).
#[derive(Debug, Clone)]
pub struct Tree {
    name: String,
    levels: Vec<String>,
    domains: Vec<Domain>,
    per_level: Vec<Vec<usize>>,
}

impl Tree {
    /// The tree of `leaves` (label values of every level, pods that fit there). Leaves with the
    /// same values must be merged by the caller (their free capacity adds up before counting).
    pub fn new(name: &str, levels: &[String], leaves: &[(Vec<String>, i32)]) -> Tree {
        let mut tree = Tree {
            name: name.to_string(),
            levels: levels.to_vec(),
            domains: Vec::new(),
            per_level: vec![Vec::new(); levels.len()],
        };
        let mut by_values: BTreeMap<Vec<String>, usize> = BTreeMap::new();
        for (values, fits) in leaves {
            let mut parent: Option<usize> = None;
            for depth in 1..=values.len() {
                let prefix = values[..depth].to_vec();
                let id = match by_values.get(&prefix) {
                    Some(&id) => id,
                    None => {
                        let id = tree.domains.len();
                        tree.domains.push(Domain {
                            values: prefix.clone(),
                            children: Vec::new(),
                            state: 0,
                            slice_state: 0,
                        });
                        tree.per_level[depth - 1].push(id);
                        if let Some(p) = parent {
                            tree.domains[p].children.push(id);
                        }
                        by_values.insert(prefix, id);
                        id
                    }
                };
                parent = Some(id);
            }
            if let Some(leaf) = parent {
                tree.domains[leaf].state += fits;
            }
        }
        tree
    }

    pub fn levels(&self) -> &[String] {
        &self.levels
    }

    /// Domains at `level`, with the pods each could hold before anything is assigned.
    pub fn capacities(&self, level: usize) -> Vec<(Vec<String>, i32)> {
        let mut tree = self.clone();
        tree.fill_counts(1, self.levels.len().saturating_sub(1));
        let mut out: Vec<(Vec<String>, i32)> = tree.per_level[level]
            .iter()
            .map(|&d| (tree.domains[d].values.clone(), tree.domains[d].state))
            .collect();
        out.sort();
        out
    }

    /// Phase 1: pods and slices that fit in every domain, from the leaves up.
    fn fill_counts(&mut self, slice_size: i32, slice_level: usize) {
        let last = self.levels.len().saturating_sub(1);
        for level in (0..self.levels.len()).rev() {
            for i in 0..self.per_level[level].len() {
                let id = self.per_level[level][i];
                let (state, slices) = if level == last {
                    (self.domains[id].state, 0)
                } else {
                    let children = &self.domains[id].children;
                    let state = children.iter().map(|&c| self.domains[c].state).sum();
                    let slices = children.iter().map(|&c| self.domains[c].slice_state).sum();
                    (state, slices)
                };
                let domain = &mut self.domains[id];
                domain.state = state;
                domain.slice_state = if level == slice_level {
                    state / slice_size
                } else {
                    slices
                };
            }
        }
    }

    /// Upstream `sortedDomains`: slices that fit descending (ascending for LeastFreeCapacity),
    /// then pods that fit ascending, then values.
    fn sorted(&self, mut ids: Vec<usize>, least_free: bool) -> Vec<usize> {
        ids.sort_by(|&a, &b| {
            let (a, b) = (&self.domains[a], &self.domains[b]);
            let slices = if least_free {
                a.slice_state.cmp(&b.slice_state)
            } else {
                b.slice_state.cmp(&a.slice_state)
            };
            slices
                .then(a.state.cmp(&b.state))
                .then_with(|| a.values.cmp(&b.values))
        });
        ids
    }

    /// Upstream `findBestFitDomainBy`: the first domain holding at least `needed` with the
    /// least room, else the first domain.
    fn best_fit(&self, ids: &[usize], needed: i32, slices: bool) -> usize {
        let mut best = ids[0];
        for &d in ids {
            let room = self.room(d, slices);
            if room >= needed && room < self.room(best, slices) {
                best = d;
            }
        }
        best
    }

    fn no_fit(&self, fit: i32, needed: i32, slice_size: i32, excluded: &Exclusions) -> String {
        let unit = if slice_size == 1 { "pod" } else { "slice" };
        let mut reason = if fit == 0 {
            format!(
                "topology {:?} doesn't allow to fit any of {needed} {unit}(s)",
                self.name
            )
        } else {
            format!(
                "topology {:?} allows to fit only {fit} out of {needed} {unit}(s)",
                self.name
            )
        };
        if excluded.any() {
            reason.push_str(&format!(
                ". Total nodes: {}; excluded: {}",
                excluded.total_nodes,
                excluded.reasons()
            ));
        }
        reason
    }

    /// Upstream `findLevelWithFitDomains`: the level and the domains there that take the pods.
    fn fit_domains(
        &self,
        level: usize,
        request: &PodSetRequest,
        excluded: &Exclusions,
    ) -> Result<(usize, Vec<usize>), String> {
        let least_free = request.mode == LevelMode::Unconstrained;
        if self.per_level[level].is_empty() {
            return Err(format!(
                "no topology domains at level: {}",
                self.levels[level]
            ));
        }
        let sorted = self.sorted(self.per_level[level].clone(), least_free);
        let needed = request.count / request.slice_size;
        let mut top = sorted[0];
        if !least_free && self.domains[top].slice_state >= needed {
            top = self.best_fit(&sorted, needed, true);
        }
        let fail = |fit: i32| self.no_fit(fit, needed, request.slice_size, excluded);
        let least_free_fit = sorted
            .iter()
            .find(|&&d| self.domains[d].slice_state >= needed);
        if let (true, Some(&d)) = (least_free, least_free_fit) {
            return Ok((level, vec![d]));
        }
        if self.domains[top].slice_state >= needed {
            return Ok((level, vec![top]));
        }
        if request.mode == LevelMode::Required {
            return Err(fail(self.domains[top].slice_state));
        }
        if level > 0 && !least_free {
            return self.fit_domains(level - 1, request, excluded);
        }
        let mut chosen = Vec::new();
        let mut remaining = needed;
        for i in 0..sorted.len() {
            if remaining <= 0 {
                break;
            }
            let mut d = sorted[i];
            if !least_free && self.domains[d].slice_state >= remaining {
                d = self.best_fit(&sorted[i..], remaining, true);
            }
            chosen.push(d);
            remaining -= self.domains[d].slice_state;
        }
        if remaining > 0 {
            return Err(fail(needed - remaining));
        }
        Ok((level, chosen))
    }

    /// Pods (or slices) `d` can hold.
    fn room(&self, d: usize, slices: bool) -> i32 {
        if slices {
            self.domains[d].slice_state
        } else {
            self.domains[d].state
        }
    }

    /// Upstream `updateCountsToMinimumGeneric`: take `count` pods (in slices of `slice_size`
    /// when `slices`) from `ids` in order, the last one swapped for the tightest that holds the
    /// rest (BestFit), and set each taken domain's state to what it got.
    fn take(
        &mut self,
        ids: &[usize],
        count: i32,
        slice_size: i32,
        least_free: bool,
        slices: bool,
    ) -> Vec<usize> {
        let mut taken = Vec::new();
        let mut remaining = if slices { count / slice_size } else { count };
        for i in 0..ids.len() {
            let mut d = ids[i];
            if !least_free && self.room(d, slices) >= remaining {
                d = self.best_fit(&ids[i..], remaining, slices);
            }
            taken.push(d);
            let room = self.room(d, slices);
            let got = room.min(remaining);
            let domain = &mut self.domains[d];
            if slices {
                domain.state = got * slice_size;
                domain.slice_state = got;
            } else {
                domain.state = got;
            }
            if room >= remaining {
                break;
            }
            remaining -= room;
        }
        taken
    }

    /// The assignment of `request`, or why there is none.
    pub fn assign(
        &self,
        request: &PodSetRequest,
        excluded: &Exclusions,
    ) -> Result<Assignment, NoFit> {
        let mut tree = self.clone();
        tree.fill_counts(request.slice_size, request.slice_level);
        let least_free = request.mode == LevelMode::Unconstrained;
        let mut candidates: Vec<DomainCapacity> = tree
            .sorted(tree.per_level[request.level].clone(), false)
            .into_iter()
            .map(|d| DomainCapacity {
                values: tree.domains[d].values.clone(),
                pods: tree.domains[d].state,
                slices: tree.domains[d].slice_state,
            })
            .collect();
        if request.slice_size == 1 {
            for c in &mut candidates {
                c.slices = c.pods;
            }
        }
        let (fit_level, fit) =
            tree.fit_domains(request.level, request, excluded)
                .map_err(|reason| NoFit {
                    reason,
                    candidates: candidates.clone(),
                })?;
        let last = tree.levels.len() - 1;
        let mut current = tree.take(&fit, request.count, request.slice_size, least_free, true);
        let mut level = fit_level;
        while level < last.min(request.slice_level) {
            let lower: Vec<usize> = current
                .iter()
                .flat_map(|&d| tree.domains[d].children.clone())
                .collect();
            let lower = tree.sorted(lower, least_free);
            current = tree.take(&lower, request.count, request.slice_size, least_free, true);
            level += 1;
        }
        while level < last {
            let mut next = Vec::new();
            for d in current {
                let children = tree.sorted(tree.domains[d].children.clone(), least_free);
                let count = tree.domains[d].state;
                next.extend(tree.take(&children, count, 1, least_free, false));
            }
            current = next;
            level += 1;
        }
        let mut domains: Vec<(Vec<String>, i32)> = current
            .into_iter()
            .filter(|&d| tree.domains[d].state > 0)
            .map(|d| (tree.domains[d].values.clone(), tree.domains[d].state))
            .collect();
        domains.sort();
        Ok(Assignment {
            fit_level,
            domains,
            candidates,
        })
    }
}

#[cfg(test)]
mod tests;
