//! Placed pods by label, for the selectors of pod (anti-)affinity terms and spread
//! constraints. A selector with `matchLabels` can only match pods that carry each of those
//! labels, so its candidates are the pods filed under the rarest of them, not every pod of its
//! namespaces: a term towards one app looks at that app's pods, not the cluster's 150,000.
//!
//! Pods are filed under a hash of each `key=value` label. Two labels of one hash only add
//! candidates, and the callers still match every candidate against the whole selector, so the
//! index narrows the search and never decides it.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};

use df_model::{LabelSelector, Labels};
use rustc_hash::{FxHashMap, FxHasher};

/// How many selectors have scanned the pods, which decides when the index is worth building;
/// shared by the threads that plan with one scheduler.
#[derive(Debug, Default)]
pub(crate) struct ScanCount(AtomicU32);

impl ScanCount {
    /// Count one more scan; the scans before it.
    pub(crate) fn count(&self) -> u32 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

impl Clone for ScanCount {
    fn clone(&self) -> Self {
        ScanCount(AtomicU32::new(self.0.load(Ordering::Relaxed)))
    }
}

/// Indexes into the scheduler's placed pods, by label.
#[derive(Debug, Clone, Default)]
pub(crate) struct LabelIndex {
    by_label: FxHashMap<u64, Vec<usize>>,
}

fn label_hash(key: &str, value: &str) -> u64 {
    let mut hasher = FxHasher::default();
    (key, value).hash(&mut hasher);
    hasher.finish()
}

impl LabelIndex {
    /// File `pod` (an index into the placed pods) under each of its `labels`.
    pub(crate) fn add(&mut self, pod: usize, labels: &Labels) {
        for (key, value) in labels.iter() {
            self.by_label
                .entry(label_hash(key, value))
                .or_default()
                .push(pod);
        }
    }

    /// The placed pods `selector` may match, in placing order, when its `matchLabels` narrow
    /// them: those filed under its rarest label. `None` when it has no `matchLabels` (every
    /// pod may match).
    pub(crate) fn candidates(&self, selector: &LabelSelector) -> Option<&[usize]> {
        selector
            .match_labels
            .iter()
            .map(|(key, value)| {
                self.by_label
                    .get(&label_hash(key, value))
                    .map_or(&[][..], Vec::as_slice)
            })
            .min_by_key(|pods| pods.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates are the pods under the selector's rarest label; a selector without
    /// matchLabels is not narrowed; a label no pod has leaves none.
    #[test]
    fn a_selector_narrows_to_the_pods_of_its_rarest_label() {
        let labels = |pairs: &[(&str, &str)]| {
            Labels::from_iter(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())))
        };
        let mut index = LabelIndex::default();
        index.add(0, &labels(&[("app", "web"), ("tier", "front")]));
        index.add(1, &labels(&[("app", "web"), ("tier", "back")]));
        index.add(2, &labels(&[("app", "db"), ("tier", "back")]));
        let selector = |pairs: &[(&str, &str)], expressions: bool| LabelSelector {
            match_labels: labels(pairs),
            match_expressions: if expressions {
                vec![df_model::LabelSelectorRequirement {
                    key: "tier".into(),
                    operator: "Exists".into(),
                    values: Vec::new(),
                }]
            } else {
                Vec::new()
            },
        };
        /// The selector's matchLabels, whether it has a matchExpressions too, the candidates.
        type Case<'c> = (&'c [(&'c str, &'c str)], bool, Option<&'c [usize]>);
        let cases: [Case; 5] = [
            (&[("app", "web")], false, Some(&[0, 1])),
            // tier=front (1 pod) is rarer than app=web (2 pods).
            (&[("app", "web"), ("tier", "front")], false, Some(&[0])),
            (&[("app", "cache")], false, Some(&[])),
            (&[], true, None),
            (&[("tier", "back")], true, Some(&[1, 2])),
        ];
        for (pairs, expressions, want) in cases {
            assert_eq!(
                index.candidates(&selector(pairs, expressions)),
                want,
                "{pairs:?}"
            );
        }
    }
}
