//! Kubeflow Trainer v2 (`trainer.kubeflow.org/v1alpha1`): a TrainJob is the JobSet its
//! runtime's template builds (`pkg/runtime/core/trainingruntime.go`, the ML-policy and
//! pod-group plugins, `JobSet.Build`), expanded as [`super::jobset`] expands any JobSet, with
//! the PodGroup its `podGroupPolicy` makes. Runtime patches (v2.2+) and the older override
//! fields are not applied.

use df_model::ObjectMeta;
use df_model::gang::{
    COSCHEDULING_API_VERSION, COSCHEDULING_POD_GROUP_LABEL, GROUP_NAME_ANNOTATION,
    VOLCANO_POD_GROUP_API_VERSION,
};
use df_model::operators::{OperatorObject, OperatorSpec, TrainJobSpec, TrainingRuntimeSpec};
use serde_json::json;

use super::{Expansion, jobset, pod_group};

pub const ANCESTOR: &str = "trainer.kubeflow.org/trainjob-ancestor-step";

/// The JobSet a TrainJob becomes, expanded; the runtime it names must be among `runtimes`.
pub fn expand(meta: &ObjectMeta, spec: &TrainJobSpec, runtimes: &[&OperatorObject]) -> Expansion {
    let kind = spec
        .runtime_ref
        .kind
        .as_deref()
        .unwrap_or("ClusterTrainingRuntime");
    let runtime = runtimes.iter().find_map(|r| {
        let same = r.metadata.name == spec.runtime_ref.name;
        match &r.spec {
            OperatorSpec::ClusterTrainingRuntime(s) if kind == "ClusterTrainingRuntime" && same => {
                Some(s)
            }
            OperatorSpec::TrainingRuntime(s)
                if kind == "TrainingRuntime" && same && r.metadata.namespace == meta.namespace =>
            {
                Some(s)
            }
            _ => None,
        }
    });
    let Some(runtime) = runtime else {
        let mut out = Expansion::default();
        out.note(format!(
            "TrainJob {}: not modelled: runtime {kind} {} not in the inputs or the state (the trainer reports: TrainingRuntime specified in TrainJob is not found)",
            meta.name, spec.runtime_ref.name
        ));
        return out;
    };
    build(meta, spec, runtime)
}

fn build(meta: &ObjectMeta, spec: &TrainJobSpec, runtime: &TrainingRuntimeSpec) -> Expansion {
    let mut jobset = runtime.template.spec.clone();
    let ml = runtime.ml_policy.as_ref();
    let launcher_as_node = ml
        .and_then(|m| m.mpi.as_ref())
        .and_then(|m| m.run_launcher_as_node)
        .unwrap_or(false);
    let trainer = spec.trainer.as_ref();
    let policy = runtime.pod_group_policy.as_ref();
    let mut members = 0;
    for rjob in &mut jobset.replicated_jobs {
        let ancestor = rjob
            .template
            .metadata
            .labels
            .get(ANCESTOR)
            .map(ToString::to_string);
        let is_trainer = ancestor.as_deref() == Some("trainer");
        let mut count = rjob.template.spec.parallelism.unwrap_or(1);
        if is_trainer && let Some(ml) = ml {
            count = ml.num_nodes.unwrap_or(1);
        }
        if let Some(nodes) = trainer.and_then(|t| t.num_nodes) {
            if ml.is_some_and(|m| m.mpi.is_some()) {
                if rjob.name == "node" {
                    count = if launcher_as_node {
                        (nodes - 1).max(1)
                    } else {
                        nodes
                    };
                }
            } else if is_trainer {
                count = nodes;
            }
        }
        let count = count.max(1);
        let merge_resources =
            (is_trainer && ml.is_some()) || (launcher_as_node && rjob.name == "node");
        if let (true, Some(resources)) = (
            merge_resources,
            trainer.and_then(|t| t.resources_per_node.as_ref()),
        ) {
            let pod = &mut rjob.template.spec.template.spec;
            if let Some(node) = pod.containers.iter_mut().find(|c| c.name == "node") {
                for (key, value) in resources.requests.iter() {
                    node.resources.requests.insert(key.clone(), *value);
                }
                for (key, value) in resources.limits.iter() {
                    node.resources.limits.insert(key.clone(), *value);
                }
            }
        }
        if ancestor.is_some() {
            rjob.replicas = Some(1);
        }
        rjob.template.spec.parallelism = Some(count);
        rjob.template.spec.completions = Some(count);
        members += count * rjob.replicas.unwrap_or(1).max(0);
        let pod_meta = &mut rjob.template.spec.template.metadata;
        if policy.is_some_and(|p| p.coscheduling.is_some()) {
            pod_meta.labels.insert(
                COSCHEDULING_POD_GROUP_LABEL.into(),
                meta.name.as_str().into(),
            );
        } else if policy.is_some_and(|p| p.volcano.is_some()) {
            pod_meta
                .annotations
                .insert(GROUP_NAME_ANNOTATION.into(), meta.name.as_str().into());
        }
    }
    jobset.suspend = spec.suspend.or(jobset.suspend);
    let jobset_meta = ObjectMeta {
        name: meta.name.clone(),
        namespace: meta.namespace.clone(),
        labels: runtime.template.metadata.labels.clone(),
        annotations: runtime.template.metadata.annotations.clone(),
        ..ObjectMeta::default()
    };
    let mut out = jobset::expand(&jobset_meta, &jobset);
    if jobset.suspend == Some(true) {
        return out;
    }
    let group = |api_version: &str, spec: serde_json::Value| {
        pod_group(
            api_version,
            json!({"metadata": {"name": meta.name, "namespace": meta.namespace}, "spec": spec}),
        )
    };
    let made = match policy {
        Some(p) if p.coscheduling.is_some() => {
            let timeout = p
                .coscheduling
                .as_ref()
                .and_then(|c| c.schedule_timeout_seconds)
                .unwrap_or(60);
            group(
                COSCHEDULING_API_VERSION,
                json!({"minMember": members, "scheduleTimeoutSeconds": timeout}),
            )
        }
        Some(p) if p.volcano.is_some() => {
            group(VOLCANO_POD_GROUP_API_VERSION, json!({"minMember": members}))
        }
        _ => None,
    };
    if let Some(made) = made {
        let staged = jobset
            .replicated_jobs
            .iter()
            .any(|r| !r.depends_on.is_empty())
            || jobset_meta
                .annotations
                .contains_key(jobset::EXCLUSIVE_TOPOLOGY);
        if staged {
            out.note(format!(
                "TrainJob {}: predicted deadlock: its PodGroup counts {members} pods, but some are created only after others complete or are scheduled (dependsOn or exclusive placement)",
                meta.name
            ));
        }
        out.objects.push(made);
    }
    out
}
