//! `-n NAMESPACE`: which objects a plan is about. The state stays the whole cluster (pods of
//! every namespace take node resources and count for affinity and spread); the namespace only
//! chooses what is planned and shown.

use super::Plan;

impl Plan {
    /// Why there is nothing to plan, when there is nothing (exit 1, as kubectl's "No resources
    /// found" is a finding for scripts that expected some).
    pub fn empty_reason(&self, namespace: Option<&str>) -> Option<String> {
        let empty = self.operations.is_empty()
            && self.groups.is_empty()
            && self.batch.as_ref().is_none_or(|b| b.pods.is_empty())
            && self.drift.is_none();
        empty.then(|| match namespace {
            Some(ns) => format!(
                "nothing to plan in namespace {ns:?}: no DataFlow operations, gangs or pods (-A plans every namespace)"
            ),
            None => "nothing to plan: no DataFlow operations, gangs or pods in the inputs or pending in the cluster state".to_string(),
        })
    }

    /// Keep the operations, gangs and batch pods of `namespace`. Everything is planned first,
    /// in one assumed state, as the schedulers would take it: pods of other namespaces take
    /// room and count for affinity and spread, so keeping part of the whole result is what
    /// `-n` must show (the same as the namespace's part of `-A`). The batch's cost and
    /// `--compare` metrics stay those of the whole batch.
    pub(crate) fn retain_namespace(&mut self, namespace: Option<&str>) {
        if let Some(ns) = namespace {
            self.operations.retain(|op| op.namespace == ns);
            self.groups.retain(|group| group.namespace == ns);
            if let Some(batch) = &mut self.batch {
                batch.pods.retain(|pod| pod.namespace == ns);
                batch.placed = batch.pods.iter().filter(|pod| pod.node.is_some()).count();
                batch.not_modelled = batch.pods.iter().filter(|pod| pod.not_modelled()).count();
            }
            self.batch.take_if(|batch| batch.pods.is_empty());
        }
    }
}
