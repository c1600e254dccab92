//! Pod affinity terms resolved once per pod: namespaces made explicit and `matchLabelKeys`
//! folded into the selector, so matching an existing pod is a cheap check.

use std::collections::BTreeSet;

use super::selector::{SelectorError, label_selector_matches};
use df_model::{LabelSelector, LabelSelectorRequirement, Labels, Pod, PodAffinityTerm};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Term {
    /// `None` matches no pod (a term without a labelSelector selects nothing).
    pub selector: Option<LabelSelector>,
    pub namespaces: BTreeSet<String>,
    /// `Some(empty)` selects every namespace.
    pub namespace_selector: Option<LabelSelector>,
    pub topology_key: String,
    pub weight: i64,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct PodTerms {
    pub required_affinity: Vec<Term>,
    pub required_anti_affinity: Vec<Term>,
    pub preferred_affinity: Vec<Term>,
    pub preferred_anti_affinity: Vec<Term>,
}

/// The four roles a pod affinity term can play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TermKind {
    Required,
    RequiredAnti,
    Preferred,
    PreferredAnti,
}

impl TermKind {
    pub const ALL: [TermKind; 4] = [
        TermKind::Required,
        TermKind::RequiredAnti,
        TermKind::Preferred,
        TermKind::PreferredAnti,
    ];
}

impl PodTerms {
    /// Every term list with its role.
    pub(crate) fn by_kind(&self) -> [(TermKind, &[Term]); 4] {
        [
            (TermKind::Required, &self.required_affinity),
            (TermKind::RequiredAnti, &self.required_anti_affinity),
            (TermKind::Preferred, &self.preferred_affinity),
            (TermKind::PreferredAnti, &self.preferred_anti_affinity),
        ]
    }

    /// Every term with its role, consuming the set.
    pub(crate) fn into_kinds(self) -> impl Iterator<Item = (TermKind, Term)> {
        let PodTerms {
            required_affinity,
            required_anti_affinity,
            preferred_affinity,
            preferred_anti_affinity,
        } = self;
        TermKind::ALL
            .into_iter()
            .zip([
                required_affinity,
                required_anti_affinity,
                preferred_affinity,
                preferred_anti_affinity,
            ])
            .flat_map(|(kind, terms)| terms.into_iter().map(move |t| (kind, t)))
    }

    pub fn of(pod: &Pod) -> PodTerms {
        let affinity = pod.spec.affinity.as_ref();
        let resolve = |term: &PodAffinityTerm, weight: i64| resolve_term(pod, term, weight);
        let mut out = PodTerms::default();
        if let Some(a) = affinity.and_then(|a| a.pod_affinity.as_ref()) {
            out.required_affinity = a.required.iter().map(|t| resolve(t, 1)).collect();
            out.preferred_affinity = a
                .preferred
                .iter()
                .map(|w| resolve(&w.pod_affinity_term, i64::from(w.weight)))
                .collect();
        }
        if let Some(a) = affinity.and_then(|a| a.pod_anti_affinity.as_ref()) {
            out.required_anti_affinity = a.required.iter().map(|t| resolve(t, 1)).collect();
            out.preferred_anti_affinity = a
                .preferred
                .iter()
                .map(|w| resolve(&w.pod_affinity_term, i64::from(w.weight)))
                .collect();
        }
        out
    }
}

fn resolve_term(owner: &Pod, term: &PodAffinityTerm, weight: i64) -> Term {
    let mut namespaces: BTreeSet<String> = term.namespaces.iter().cloned().collect();
    if namespaces.is_empty() && term.namespace_selector.is_none() {
        namespaces.insert(owner.metadata.namespace.clone());
    }
    let selector = term.label_selector.clone().map(|mut selector| {
        let labels = &owner.metadata.labels;
        for (keys, operator) in [
            (&term.match_label_keys, "In"),
            (&term.mismatch_label_keys, "NotIn"),
        ] {
            for key in keys {
                if let Some(value) = labels.get(key) {
                    selector.match_expressions.push(LabelSelectorRequirement {
                        key: key.clone(),
                        operator: operator.into(),
                        values: vec![value.to_string()],
                    });
                }
            }
        }
        selector
    });
    Term {
        selector,
        namespaces,
        namespace_selector: term.namespace_selector.clone(),
        topology_key: term.topology_key.clone(),
        weight,
    }
}

impl Term {
    /// Whether `pod` is selected by this term. The namespace's labels are looked up only when
    /// a namespaceSelector needs them: this runs once per existing pod per decision.
    pub fn matches<'l>(
        &self,
        pod: &Pod,
        namespace_labels: impl FnOnce() -> &'l Labels,
    ) -> Result<bool, SelectorError> {
        let Some(selector) = &self.selector else {
            return Ok(false);
        };
        let in_namespace = self.namespaces.contains(&pod.metadata.namespace)
            || match &self.namespace_selector {
                Some(ns) => label_selector_matches(ns, namespace_labels())?,
                None => false,
            };
        if !in_namespace {
            return Ok(false);
        }
        label_selector_matches(selector, &pod.metadata.labels)
    }
}
