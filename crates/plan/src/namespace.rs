//! `-n NAMESPACE`, `-l` and `--field-selector`: which objects a plan is about. The state stays
//! the whole cluster (pods of every namespace take node resources and count for affinity and
//! spread); the scope only chooses what is planned and shown.

use std::collections::HashMap;

use super::batch::Member;
use super::explain::Candidate;
use super::{Plan, PlanOptions};
use df_engine::object_selector::{ObjectSelector, SelectedObject};
use df_manifest::ManifestSet;
use df_state::ClusterState;

impl Plan {
    /// Why there is nothing to plan, when there is nothing (exit 1, as kubectl's "No resources
    /// found" is a finding for scripts that expected some). A plan of notes alone (a suspended
    /// job, the Workloads Kueue keeps suspended) has something to say.
    pub fn empty_reason(&self, opts: &PlanOptions) -> Option<String> {
        let empty = self.operations.is_empty()
            && self.groups.is_empty()
            && self.batch.as_ref().is_none_or(|b| b.pods.is_empty())
            && self.drift.is_none()
            && self.notes.is_empty();
        let selected = if opts.selector.is_everything() {
            ""
        } else {
            " selected by the label and field selectors"
        };
        empty.then(|| match &opts.namespace {
            Some(ns) => format!(
                "nothing to plan in namespace {ns:?}: no DataFlow operations, gangs or pods{selected}"
            ),
            None if !selected.is_empty() => format!("nothing to plan: no DataFlow operations, gangs or pods{selected}"),
            None => "nothing to plan: no DataFlow operations, gangs or pods in the inputs or pending in the cluster state".to_string(),
        })
    }

    /// Keep the operations, gangs and batch pods of `namespace` that `selector` selects (an
    /// operation or gang by its own object, a batch pod by the pod). Everything is planned
    /// first, in one assumed state, as the schedulers would take it: pods of other namespaces
    /// take room and count for affinity and spread, so keeping part of the whole result is
    /// what `-n` must show (the same as the namespace's part of `-A`), and `-l` the same way.
    /// The batch's cost and `--compare` metrics stay those of the whole batch.
    pub(crate) fn retain_selected(
        &mut self,
        namespace: Option<&str>,
        selector: &ObjectSelector,
        origins: &Origins,
    ) {
        if namespace.is_none() && selector.is_everything() {
            return;
        }
        let keep = |kind: &str, ns: &str, name: &str| {
            namespace.is_none_or(|wanted| wanted == ns)
                && (selector.is_everything() || selector.matches(&origins.get(kind, ns, name)))
        };
        self.operations
            .retain(|op| keep(&op.kind, &op.namespace, &op.name));
        self.groups
            .retain(|group| keep(group.kind, &group.namespace, &group.name));
        if let Some(batch) = &mut self.batch {
            batch
                .pods
                .retain(|pod| keep("Pod", &pod.namespace, &pod.name));
            batch.placed = batch.pods.iter().filter(|pod| pod.node.is_some()).count();
            batch.not_modelled = batch.pods.iter().filter(|pod| pod.not_modelled()).count();
        }
        self.batch.take_if(|batch| batch.pods.is_empty());
    }
}

/// The objects a plan's rows come from (inputs over the state), by kind, namespace and name,
/// as selectors see them. Built only when a selector needs labels or fields.
pub(crate) struct Origins<'a> {
    objects: HashMap<(&'a str, &'a str, &'a str), SelectedObject<'a>>,
}

impl<'a> Origins<'a> {
    pub(crate) fn new(
        selector: &ObjectSelector,
        manifests: &'a ManifestSet,
        state: &'a ClusterState,
        members: &'a [Member],
    ) -> Self {
        let mut objects = HashMap::new();
        if selector.is_everything() {
            return Origins { objects };
        }
        let mut add = |kind: &'a str, object: SelectedObject<'a>| {
            objects.insert((kind, object.namespace, object.name), object);
        };
        for pod in &state.pods {
            add("Pod", SelectedObject::of_pod(pod));
        }
        for op in &state.fluid_ops {
            add(
                op.kind.as_str(),
                SelectedObject::of_meta(&op.metadata, &op.status.phase),
            );
        }
        let gangs = (state
            .godel_pod_groups
            .iter()
            .map(|g| ("PodGroup", &g.metadata)))
        .chain(
            state
                .volcano_pod_groups
                .iter()
                .map(|g| ("PodGroup", &g.metadata)),
        )
        .chain(state.pod_groups.iter().map(|g| ("PodGroup", &g.metadata)))
        .chain(state.volcano_jobs.iter().map(|j| ("Job", &j.metadata)))
        .chain(
            state
                .scheduling_workloads
                .iter()
                .map(|w| ("Workload", &w.metadata)),
        );
        for (kind, meta) in gangs {
            add(kind, SelectedObject::of_meta(meta, ""));
        }
        for manifest in &manifests.manifests {
            add(manifest.object.kind(), SelectedObject::of(&manifest.object));
        }
        for member in members {
            add("Pod", SelectedObject::of_pod(&member.pod));
        }
        Origins { objects }
    }

    /// The object of a row; one the inputs and the state do not hold (a gang its pods name
    /// but nobody defines) has no labels and no fields beyond its name.
    fn get<'b>(&'b self, kind: &'b str, namespace: &'b str, name: &'b str) -> SelectedObject<'b> {
        let objects: &HashMap<(&'b str, &'b str, &'b str), SelectedObject<'b>> = &self.objects;
        objects
            .get(&(kind, namespace, name))
            .copied()
            .unwrap_or(SelectedObject {
                namespace,
                name,
                labels: &NO_LABELS,
                node_name: "",
                phase: "",
            })
    }
}

static NO_LABELS: df_model::Labels = df_model::Labels::new();

/// The candidates of `explain-placement` that `selector` selects, by the pod each would
/// create (without a KIND/NAME, the one left is explained).
pub fn select_candidates(candidates: &mut Vec<Candidate>, selector: &ObjectSelector) {
    candidates.retain(|candidate| selector.matches(&SelectedObject::of_pod(&candidate.pod)));
}
