//! Plans: one planning request (manifests, state, profile, routes, what-ifs) into one planned
//! result: where each operation of a DataFlow lands and what it inherits, each gang and batch
//! pod, the Pending pods of the state, what-ifs, drift and capacity, through the one engine.
//! The `Plan` structs are the `plan -o json|yaml` contract of DESIGN.md section 4: field names
//! are fixed.
//!
//! Above the systems; it must not import lint, the reports, the network or clap.

pub mod batch;
pub mod capacity;
pub mod datasets;
pub mod diff;
pub mod drift;
pub mod explain;
pub mod flow;
pub mod graph;
mod namespace;
mod operators;
pub mod orchestrate;
pub mod pending;
pub mod quota;
pub mod release;
pub mod what_if;
pub mod workload;

use serde::Serialize;

pub use batch::{BatchPlan, Solver};
use df_engine::object_selector::ObjectSelector;
use df_model::{Affinity, NodeAffinity};
use df_systems::fluid::OpKey;
use df_systems::gang::{GangError, GroupPlan, System};
pub use graph::{FlowError, FlowErrors};
pub use namespace::select_candidates;
pub use orchestrate::plan_all;
pub use what_if::{WhatIf, WhatIfError};

/// Why a plan could not be made (exit 2); each problem is one line.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Flow(#[from] FlowErrors),
    #[error(transparent)]
    WhatIf(#[from] WhatIfError),
    #[error(transparent)]
    AssumeCached(#[from] df_systems::fluid::webhook::AssumeCachedError),
    #[error(transparent)]
    Gang(#[from] GangError),
    #[error(transparent)]
    Target(#[from] explain::TargetError),
    #[error(transparent)]
    Capacity(#[from] capacity::CapacityError),
    #[error(transparent)]
    NotServed(#[from] release::NotServed),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub operations: Vec<OperationPlan>,
    /// Gang placements (PodGroups, Volcano Jobs).
    pub groups: Vec<GroupPlan>,
    /// Plain pods and workload replicas of the inputs, when there are any.
    pub batch: Option<BatchPlan>,
    /// With what-if edits: what they change against the plan on the unedited state.
    #[serde(rename = "whatIfEffect")]
    pub what_if_effect: Option<diff::PlanDiff>,
    /// `--pending --compare`: the running pods that sit where the engine would not put them.
    pub drift: Option<drift::DriftSummary>,
    /// From 100 nodes up: how many feasible nodes kube-scheduler scores for each pod, where
    /// the plan scores every feasible node and takes the best.
    pub sampling: Option<df_engine::sampling::SampleSize>,
    /// What the operators' controllers do that the planned pods cannot show: suspended,
    /// created later, not modelled.
    pub notes: Vec<String>,
    /// `--pending`: the state's Workloads Kueue keeps suspended (each has a note): pending
    /// work, as a Pending pod is.
    #[serde(skip)]
    pub held_by_kueue: usize,
    /// Every node of the planned state, in its order, with the room the plan leaves on it:
    /// how full each node is once every pod the plan places is assumed (the HTML report's
    /// picture). Not part of the JSON contract: scripts have the placements.
    #[serde(skip)]
    pub nodes: Vec<NodeRoom>,
}

/// A node once the plan is applied: its labels (as the plan saw them, what-if edits
/// included), what it can hold, and what the pods on it (bound and planned) leave free
/// ([`df_engine::Scheduler::free`]). An operation that completes before a later step starts
/// no longer counts, as in the plan itself.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRoom {
    pub name: String,
    pub labels: df_model::Labels,
    pub allocatable: df_engine::Resources,
    pub free: df_engine::Resources,
}

impl Plan {
    /// Exit 1: an operation cannot be placed or never gets to run, a gang leaves pods pending
    /// (below its minimum, waiting for pods, or joined to a missing group), a pod of the
    /// batch stays pending, Kueue keeps a Workload of the state suspended (`--pending`), or
    /// (`--pending --compare`) a running pod drifted.
    pub fn has_findings(&self) -> bool {
        self.operations
            .iter()
            .any(|o| matches!(o.status, OpStatus::Unschedulable | OpStatus::Blocked))
            || self.groups.iter().any(GroupPlan::leaves_pods_pending)
            || self.batch.as_ref().is_some_and(|b| b.pending() > 0)
            || self.drift.as_ref().is_some_and(|d| d.drifted > 0)
            || self.held_by_kueue > 0
    }
}

/// What `plan` is asked beyond the inputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// `--replicas N`: copies of each pod template that joins a PodGroup.
    pub replicas: Option<usize>,
    /// `--compare`: gangs against the default scheduler, the batch greedy against flow, and
    /// with `pending` the drift of the running pods.
    pub compare: bool,
    pub solver: Solver,
    /// `--scheduler-name NAME=SYSTEM`, on top of the default routes.
    pub routes: Vec<(String, System)>,
    /// `-n`: plan only the objects of this namespace (the state stays the whole cluster).
    pub namespace: Option<String>,
    /// `--pending`: also plan the Pending pods of the state, in queue order, before the inputs.
    pub pending: bool,
    /// `-l` and `--field-selector`: plan only the objects they select (as `namespace`).
    pub selector: ObjectSelector,
}

/// `{kind, namespace, name}` of a referenced operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpRef {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl From<&OpKey> for OpRef {
    fn from(key: &OpKey) -> OpRef {
        OpRef {
            kind: key.kind.to_string(),
            namespace: key.namespace.clone(),
            name: key.name.clone(),
        }
    }
}

/// What happens to an operation in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum OpStatus {
    /// Its pod is placed on `node`.
    Planned,
    /// No node fits its pod (`summary` says why).
    Unschedulable,
    /// It never starts: what it waits for is missing, Failed, or never completes.
    Blocked,
    /// Already Complete in the cluster state: its recorded affinity is used as is.
    Complete,
    /// Already Failed in the cluster state, or Fluid would fail it outright.
    Failed,
}

impl OpStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OpStatus::Planned => "Planned",
            OpStatus::Unschedulable => "Unschedulable",
            OpStatus::Blocked => "Blocked",
            OpStatus::Complete => "Complete",
            OpStatus::Failed => "Failed",
        }
    }
}

/// One operation of the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationPlan {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub after: Option<OpRef>,
    pub policy: String,
    pub inherited_affinity: Option<NodeAffinity>,
    pub affinity: Option<Affinity>,
    pub node: Option<String>,
    pub recorded_node_affinity: Option<NodeAffinity>,
    pub warnings: Vec<String>,
    /// 1-based index of the flow (weakly connected part of the graph).
    pub flow: usize,
    /// 1-based position in the flow's run order.
    pub step: usize,
    pub status: OpStatus,
    /// Where the inherited affinity comes from when `dependOn` overrides `runAfter`.
    pub depend_on: Option<OpRef>,
    /// Weighted score of the chosen node.
    pub score: Option<i64>,
    pub zone: Option<String>,
    /// Other nodes with the same top score (we pick the smallest name; upstream picks one).
    pub tied: Vec<String>,
    /// `0/N nodes are available: ...` when unschedulable.
    pub summary: Option<String>,
    /// `file:line:column` of the manifest, or `cluster state`.
    pub source: String,
    /// Terms Fluid's admission webhook adds to the pod, per plugin, in the order they ran.
    pub webhook_affinity: Vec<WebhookAffinity>,
    /// The datasets the pod mounts, where each is cached, and how close the planned node is.
    pub datasets: Vec<DatasetLocality>,
}

/// Affinity added by one of Fluid's webhook plugins.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookAffinity {
    /// The plugin: `RequireNodeWithFuse`, `NodeAffinityWithCache` or `PreferNodesWithoutCache`.
    pub plugin: String,
    pub node_affinity: NodeAffinity,
}

/// One dataset a pod mounts, against the planned node.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetLocality {
    pub namespace: String,
    pub name: String,
    /// Nodes labelled `fluid.io/s-<namespace>-<name>=true`, sorted.
    pub cache_nodes: Vec<String>,
    /// `hit`, `same-zone`, `same-region`, `miss` or `not-cached`; `null` when not placed.
    pub locality: Option<String>,
}
