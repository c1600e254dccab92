//! What a live read says when RBAC hides part of the cluster: the read goes on with what the
//! user may list, and one note names what the answer may be missing, in terms of what the
//! engine then assumes (not which request failed).

use crate::Resource;

/// Which lists the read could not make, gathered while reading and said once at the end.
#[derive(Debug, Default)]
pub(crate) struct Unread {
    /// Kinds read from the one namespace instead of all (`pods`, `poddisruptionbudgets.policy`).
    narrowed: Vec<String>,
    /// Pods among them: then the other namespaces' pods are missing, not only their objects.
    pods_narrowed: bool,
    /// What each kind not read at all leaves out of the answer.
    skipped: Vec<String>,
    /// The kinds not read at all.
    skipped_kinds: Vec<&'static str>,
}

impl Unread {
    /// `resource` was listed in `namespace` only.
    pub fn narrowed(&mut self, resource: &Resource) {
        self.narrowed.push(resource.display());
        self.pods_narrowed |= resource.group.is_empty() && resource.kind == "Pod";
    }

    /// `resource` could not be listed at all; false when the answer cannot go on without it
    /// (nodes, pods): the read then fails with the API server's refusal.
    pub fn skipped(&mut self, resource: &Resource) -> bool {
        let Some(consequence) = consequence(resource) else {
            return false;
        };
        self.skipped.push(consequence);
        self.skipped_kinds.push(resource.kind);
        true
    }

    /// Whether objects of `kind` could not be listed at all.
    pub(crate) fn skipped_kind(&self, kind: &str) -> bool {
        self.skipped_kinds.contains(&kind)
    }

    /// Something else the read could not get, with what that leaves out.
    pub fn other(&mut self, consequence: String) {
        self.skipped.push(consequence);
    }

    /// The one note for everything not read (`namespace` is where narrowed kinds were read),
    /// or `None` when everything was.
    pub fn note(&self, namespace: &str) -> Option<String> {
        let mut missing = Vec::new();
        if !self.narrowed.is_empty() {
            let what = if self.pods_narrowed {
                "pods of other namespaces (their resource use, affinity and spread) and their objects are missing from this answer"
            } else {
                "objects of other namespaces are missing from this answer"
            };
            missing.push(format!(
                "not allowed to list {} in all namespaces; read namespace {namespace:?} only: {what}",
                self.narrowed.join(", ")
            ));
        }
        missing.extend(self.skipped.iter().cloned());
        match missing.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            many => Some(format!(
                "not allowed to read all the cluster; this answer may be missing:\n  {}",
                many.join("\n  ")
            )),
        }
    }
}

/// What planning without `resource` assumes, or `None` for the kinds no answer goes without.
fn consequence(resource: &Resource) -> Option<String> {
    let text = match (resource.group, resource.kind) {
        ("", "Node" | "Pod") => return None,
        ("", "Namespace") => {
            "namespaces: Namespaces could not be read (forbidden): a namespaceSelector sees only each namespace's kubernetes.io/metadata.name label"
        }
        ("scheduling.k8s.io", "PriorityClass") => {
            "preemption: PriorityClasses could not be read (forbidden): pod priorities are taken from the pods' spec.priority; a planned pod's priorityClassName counts as priority 0"
        }
        ("policy", "PodDisruptionBudget") => {
            "preemption: PodDisruptionBudgets could not be read (forbidden): evicting a pod never counts as a budget violation"
        }
        ("", "ResourceQuota") => {
            "admission: ResourceQuotas could not be read (forbidden): planned pods are not checked against quotas"
        }
        ("", "LimitRange") => {
            "admission: LimitRanges could not be read (forbidden): planned pods get no LimitRange defaults, minimums or maximums"
        }
        _ => {
            return Some(format!(
                "{} ({}) could not be read (forbidden): the plan takes the cluster to have none",
                resource.display(),
                resource.api_version()
            ));
        }
    };
    Some(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources;

    fn resource(kind: &str) -> &'static Resource {
        resources().iter().find(|r| r.kind == kind).unwrap()
    }

    #[test]
    fn one_note_names_what_the_answer_may_be_missing() {
        let cases: [(&[&str], &[&str], Option<&str>); 5] = [
            (&[], &[], None),
            (
                &["Pod"],
                &[],
                Some(
                    "not allowed to list pods in all namespaces; read namespace \"team\" only: pods of other namespaces (their resource use, affinity and spread) and their objects are missing from this answer",
                ),
            ),
            (
                &[],
                &["PriorityClass"],
                Some(
                    "preemption: PriorityClasses could not be read (forbidden): pod priorities are taken from the pods' spec.priority; a planned pod's priorityClassName counts as priority 0",
                ),
            ),
            (
                &["PodDisruptionBudget"],
                &["ResourceQuota", "HyperNode"],
                Some(
                    "not allowed to read all the cluster; this answer may be missing:
  not allowed to list poddisruptionbudgets.policy in all namespaces; read namespace \"team\" only: objects of other namespaces are missing from this answer
  admission: ResourceQuotas could not be read (forbidden): planned pods are not checked against quotas
  hypernodes.topology.volcano.sh (topology.volcano.sh/v1alpha1) could not be read (forbidden): the plan takes the cluster to have none",
                ),
            ),
            (
                &[],
                &["Namespace", "LimitRange"],
                Some(
                    "not allowed to read all the cluster; this answer may be missing:
  namespaces: Namespaces could not be read (forbidden): a namespaceSelector sees only each namespace's kubernetes.io/metadata.name label
  admission: LimitRanges could not be read (forbidden): planned pods get no LimitRange defaults, minimums or maximums",
                ),
            ),
        ];
        for (narrowed, skipped, want) in cases {
            let mut unread = Unread::default();
            for kind in narrowed {
                unread.narrowed(resource(kind));
            }
            for kind in skipped {
                assert!(unread.skipped(resource(kind)), "{kind}");
            }
            assert_eq!(
                unread.note("team").as_deref(),
                want,
                "{narrowed:?} {skipped:?}"
            );
        }
    }

    #[test]
    fn nodes_and_pods_are_never_skipped() {
        let mut unread = Unread::default();
        assert!(!unread.skipped(resource("Node")));
        assert!(!unread.skipped(resource("Pod")));
        assert_eq!(unread.note("team"), None);
    }
}
