//! The operator kinds' placement annotations, with a state: an exclusive-topology label (JobSet,
//! LeaderWorkerSet) that no node carries (DF513). The operators turn the annotation into
//! required pod (anti-)affinity on that label, which a node without it never satisfies.

use super::{Context, Finding, node_carries};
use df_manifest::Manifest;
use df_model::Object;
use df_model::operators::OperatorSpec;
use df_systems::operators::{jobset, lws};

pub(crate) fn check(ctx: &mut Context<'_>, m: &Manifest) {
    let Object::Operator(object) = &m.object else {
        return;
    };
    let Some(state) = ctx.state.filter(|s| !s.nodes.is_empty()) else {
        return;
    };
    let keys: &[&str] = match object.spec {
        OperatorSpec::JobSet(_) => &[jobset::EXCLUSIVE_TOPOLOGY],
        OperatorSpec::LeaderWorkerSet(_) => {
            &[lws::EXCLUSIVE_TOPOLOGY, lws::SUBGROUP_EXCLUSIVE_TOPOLOGY]
        }
        _ => return,
    };
    for &key in keys {
        let Some(label) = object.metadata.annotations.get(key) else {
            continue;
        };
        if node_carries(state, label) {
            continue;
        }
        let message = format!(
            "no node of the {} in the state carries the label {label:?} that {key} names: \
             the pods' required (anti-)affinity on it matches no node and they stay pending",
            state.nodes.len()
        );
        let finding = Finding::at_map_entry(m, "DF513", "metadata.annotations", key, message);
        ctx.emit(m, finding);
    }
}
