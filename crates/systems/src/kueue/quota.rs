//! Kueue's quota tree (upstream `pkg/cache/scheduler/resource_node.go`): ClusterQueues are the
//! leaves, Cohorts the inner nodes, and every (flavor, resource) has a subtree quota, a usage
//! and, from them, what is available now and what could ever be. Amounts are CPU millicores
//! and whole units of everything else, as Kueue counts them; `UNLIMITED` saturates.
//!
//! Usage is stored on the ClusterQueues only; a cohort's is computed from its children
//! (`Usage(cohort) = Σ max(0, Usage(child) − localQuota(child))`), which is what upstream's
//! incremental `addUsage`/`removeUsage` maintain, so a simulation is a clone of the leaves.

use std::collections::BTreeMap;

/// What an overflowing quota becomes (`<unlimited>` upstream).
pub const UNLIMITED: i64 = i64::MAX;

/// A (flavor, resource) pair.
pub type Fr = (String, String);

/// One node's own quota for one (flavor, resource).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    pub nominal: i64,
    pub borrowing: Option<i64>,
    pub lending: Option<i64>,
}

#[derive(Debug, Clone, Default)]
pub struct Node {
    pub name: String,
    pub is_cluster_queue: bool,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub quota: BTreeMap<Fr, Limits>,
    /// ClusterQueues only: the quota their admitted workloads reserve.
    pub usage: BTreeMap<Fr, i64>,
}

/// The forest of ClusterQueues and Cohorts. Cohorts that no object defines but some queue or
/// cohort names are implicit empty cohorts, as upstream.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The node named `name` (a ClusterQueue when `cq`), added empty when missing.
    pub fn node(&mut self, name: &str, cq: bool) -> usize {
        if let Some(i) = self.find(name, cq) {
            return i;
        }
        self.nodes.push(Node {
            name: name.to_string(),
            is_cluster_queue: cq,
            ..Node::default()
        });
        self.nodes.len() - 1
    }

    pub fn find(&self, name: &str, cq: bool) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.name == name && n.is_cluster_queue == cq)
    }

    /// Hang `child` under `parent`, unless that closes a cycle (then the child stays a root;
    /// the caller reports the cycle).
    pub fn attach(&mut self, child: usize, parent: usize) -> bool {
        let mut at = Some(parent);
        while let Some(i) = at {
            if i == child {
                return false;
            }
            at = self.nodes[i].parent;
        }
        self.nodes[child].parent = Some(parent);
        self.nodes[parent].children.push(child);
        true
    }

    fn limits(&self, n: usize, fr: &Fr) -> Limits {
        self.nodes[n].quota.get(fr).copied().unwrap_or_default()
    }

    pub fn nominal(&self, n: usize, fr: &Fr) -> i64 {
        self.limits(n, fr).nominal
    }

    /// The node's own quota plus what its children lend it.
    pub fn subtree_quota(&self, n: usize, fr: &Fr) -> i64 {
        let node = &self.nodes[n];
        if node.is_cluster_queue {
            return self.nominal(n, fr);
        }
        node.children.iter().fold(self.nominal(n, fr), |sum, &c| {
            sum.saturating_add(self.subtree_quota(c, fr) - self.local_quota(c, fr))
        })
    }

    /// What a node keeps from its parent: `subtree − lendingLimit` when lending is limited.
    pub fn local_quota(&self, n: usize, fr: &Fr) -> i64 {
        match self.limits(n, fr).lending {
            Some(lending) => (self.subtree_quota(n, fr).saturating_sub(lending)).max(0),
            None => 0,
        }
    }

    pub fn usage(&self, n: usize, fr: &Fr) -> i64 {
        let node = &self.nodes[n];
        if node.is_cluster_queue {
            return node.usage.get(fr).copied().unwrap_or(0);
        }
        node.children.iter().fold(0i64, |sum, &c| {
            sum.saturating_add((self.usage(c, fr) - self.local_quota(c, fr)).max(0))
        })
    }

    fn local_available(&self, n: usize, fr: &Fr) -> i64 {
        (self.local_quota(n, fr) - self.usage(n, fr)).max(0)
    }

    fn available_raw(&self, n: usize, fr: &Fr) -> i64 {
        let Some(parent) = self.nodes[n].parent else {
            return self.subtree_quota(n, fr).saturating_sub(self.usage(n, fr));
        };
        let mut from_parent = self.available_raw(parent, fr);
        if let Some(borrowing) = self.limits(n, fr).borrowing {
            let local = self.local_quota(n, fr);
            let stored = self.subtree_quota(n, fr) - local;
            let used = (self.usage(n, fr) - local).max(0);
            from_parent = from_parent.min((stored - used).saturating_add(borrowing));
        }
        self.local_available(n, fr).saturating_add(from_parent)
    }

    /// What fits in the ClusterQueue now (`insufficient unused quota ... more needed`).
    pub fn available(&self, n: usize, fr: &Fr) -> i64 {
        self.available_raw(n, fr).max(0)
    }

    /// What would fit with nothing running (`maximum capacity`).
    pub fn potential_available(&self, n: usize, fr: &Fr) -> i64 {
        let Some(parent) = self.nodes[n].parent else {
            return self.subtree_quota(n, fr);
        };
        let mut v = self
            .local_quota(n, fr)
            .saturating_add(self.potential_available(parent, fr));
        if let Some(borrowing) = self.limits(n, fr).borrowing {
            v = v.min(self.subtree_quota(n, fr).saturating_add(borrowing));
        }
        v
    }

    /// Whether adding `v` takes the node over its own subtree quota.
    pub fn borrowing_with(&self, n: usize, fr: &Fr, v: i64) -> bool {
        self.subtree_quota(n, fr) < self.usage(n, fr).saturating_add(v)
    }

    /// Upstream `FindHeightOfLowestSubtreeThatFits`: the height of the lowest node whose
    /// subtree holds `v` without borrowing (0: the ClusterQueue itself), and whether that node
    /// has a parent (reclaiming in the hierarchy may still help).
    pub fn lowest_fitting_height(&self, cq: usize, fr: &Fr, v: i64) -> (usize, bool) {
        let parent = self.nodes[cq].parent;
        if !self.borrowing_with(cq, fr, v) || parent.is_none() {
            return (0, parent.is_some());
        }
        let mut remaining = v - self.local_available(cq, fr);
        let mut at = parent;
        let mut last = cq;
        while let Some(a) = at {
            if !self.borrowing_with(a, fr, remaining) {
                return (self.height(a), self.nodes[a].parent.is_some());
            }
            remaining -= self.local_available(a, fr);
            last = a;
            at = self.nodes[a].parent;
        }
        (self.height(last), false)
    }

    /// 0 for a ClusterQueue; a cohort is one above its tallest child.
    pub fn height(&self, n: usize) -> usize {
        let node = &self.nodes[n];
        if node.is_cluster_queue {
            return 0;
        }
        node.children
            .iter()
            .map(|&c| self.height(c) + 1)
            .max()
            .unwrap_or(0)
    }

    /// Whether every `frs` of the node is within its subtree quota.
    pub fn within_nominal(&self, n: usize, frs: &[Fr]) -> bool {
        frs.iter()
            .all(|fr| self.subtree_quota(n, fr) >= self.usage(n, fr))
    }

    pub fn add_usage(&mut self, cq: usize, usage: &BTreeMap<Fr, i64>) {
        for (fr, v) in usage {
            let e = self.nodes[cq].usage.entry(fr.clone()).or_default();
            *e = e.saturating_add(*v);
        }
    }

    pub fn remove_usage(&mut self, cq: usize, usage: &BTreeMap<Fr, i64>) {
        for (fr, v) in usage {
            let e = self.nodes[cq].usage.entry(fr.clone()).or_default();
            *e = (*e - v).max(0);
        }
    }

    pub fn root(&self, mut n: usize) -> usize {
        while let Some(p) = self.nodes[n].parent {
            n = p;
        }
        n
    }

    /// `/root/.../cq`, as preemption messages name queues.
    pub fn path(&self, mut n: usize) -> String {
        let mut names = vec![self.nodes[n].name.clone()];
        while let Some(p) = self.nodes[n].parent {
            names.push(self.nodes[p].name.clone());
            n = p;
        }
        names.reverse();
        format!("/{}", names.join("/"))
    }

    /// The ancestors of `n`, parent first.
    pub fn ancestors(&self, n: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.nodes[n].parent;
        while let Some(a) = at {
            out.push(a);
            at = self.nodes[a].parent;
        }
        out
    }

    /// The ClusterQueues under `n` (itself when it is one).
    pub fn cluster_queues_under(&self, n: usize) -> Vec<usize> {
        if self.nodes[n].is_cluster_queue {
            return vec![n];
        }
        self.nodes[n]
            .children
            .iter()
            .flat_map(|&c| self.cluster_queues_under(c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fr() -> Fr {
        ("on-demand".into(), "cpu".into())
    }

    fn limits(nominal: i64, borrowing: Option<i64>, lending: Option<i64>) -> Limits {
        Limits {
            nominal,
            borrowing,
            lending,
        }
    }

    /// The spec's worked check (upstream scheduler_test "lendingLimit"): lender 10/ll=3,
    /// borrower 5/bl=10 using 5, both in `child` under `root`. localQuota(lender) = 7, so
    /// child's subtree is 3 + 5 = 8 with 5 used: the borrower has 3 available, 4 is 1 short.
    #[test]
    fn lending_limit_keeps_the_rest_private() {
        let mut t = Tree::default();
        let root = t.node("root", false);
        let child = t.node("child", false);
        let lender = t.node("lender", true);
        let borrower = t.node("borrower", true);
        t.attach(child, root);
        t.attach(lender, child);
        t.attach(borrower, child);
        t.nodes[lender]
            .quota
            .insert(fr(), limits(10, None, Some(3)));
        t.nodes[borrower]
            .quota
            .insert(fr(), limits(5, Some(10), None));
        t.nodes[borrower].usage.insert(fr(), 5);
        assert_eq!(t.local_quota(lender, &fr()), 7);
        assert_eq!(t.subtree_quota(child, &fr()), 8);
        assert_eq!(t.usage(child, &fr()), 5);
        assert_eq!(t.available(borrower, &fr()), 3);
        assert_eq!(t.potential_available(borrower, &fr()), 8);
        assert_eq!(t.lowest_fitting_height(borrower, &fr(), 4), (2, false));
    }
}
