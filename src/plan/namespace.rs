//! `-n NAMESPACE`: which objects a plan is about. The state stays the whole cluster (pods of
//! every namespace take node resources and count for affinity and spread); the namespace only
//! chooses what is planned and shown.

use super::Plan;
use super::batch::Member;

/// Keep the batch pods of `namespace`: the batch is placed pod by pod, so pods of other
/// namespaces must not be placed first and take the room.
pub(crate) fn batch_members(members: Vec<Member>, namespace: Option<&str>) -> Vec<Member> {
    match namespace {
        Some(ns) => members
            .into_iter()
            .filter(|m| m.pod.metadata.namespace == ns)
            .collect(),
        None => members,
    }
}

impl Plan {
    /// Why there is nothing to plan, when there is nothing (exit 1, as kubectl's "No resources
    /// found" is a finding for scripts that expected some).
    pub fn empty_reason(&self, namespace: Option<&str>) -> Option<String> {
        let empty = self.operations.is_empty()
            && self.groups.is_empty()
            && self.batch.as_ref().is_none_or(|b| b.pods.is_empty());
        empty.then(|| match namespace {
            Some(ns) => format!(
                "nothing to plan in namespace {ns:?}: no DataFlow operations, gangs or pods (-A plans every namespace)"
            ),
            None => "nothing to plan: no DataFlow operations, gangs or pods in the inputs or pending in the cluster state".to_string(),
        })
    }

    /// Keep the operations and gangs of `namespace`. Flows are planned whole (an operation
    /// may run after one of another namespace) and gangs each against the state alone, so
    /// keeping part of the result is the same as planning only that part.
    pub(crate) fn retain_namespace(&mut self, namespace: Option<&str>) {
        if let Some(ns) = namespace {
            self.operations.retain(|op| op.namespace == ns);
            self.groups.retain(|group| group.namespace == ns);
        }
    }
}
