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
