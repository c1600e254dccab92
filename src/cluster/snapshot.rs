//! `snapshot`: write a `ClusterState` back as the `v1 List` that `--state` reads.
//!
//! The items are the slim model objects, so a snapshot holds exactly what placement depends on:
//! no managedFields, no env, no secrets. Redaction works on the typed objects, so every place a
//! name or label value can appear (nodeName, selectors, runAfter, images) is rewritten with the
//! same hash and the redacted state places pods exactly like the original.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ClusterState;
use crate::model::fluid::{self, OpSpec, OpStatus};
use crate::model::gang::{
    GODEL_API_VERSION, VOLCANO_AFFINITY_ANNOTATION, VOLCANO_ANTI_AFFINITY_ANNOTATION,
    VOLCANO_JOB_API_VERSION, VOLCANO_POD_GROUP_API_VERSION, VOLCANO_TASK_ORDER_ANNOTATION,
};
use crate::model::{
    Affinity, LabelSelector, Labels, NodeSelector, NodeSelectorTerm, ObjectMeta, PodAffinity,
    PodSpec,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

#[derive(Debug, thiserror::Error)]
#[error("cannot render the snapshot: {0}")]
pub struct RenderError(String);

/// Annotations placement reads; a redacted snapshot keeps only these (others may hold anything).
const PLACEMENT_ANNOTATIONS: &[&str] = &[
    fluid::AFFINITY_LABELS_ANNOTATION,
    VOLCANO_AFFINITY_ANNOTATION,
    VOLCANO_ANTI_AFFINITY_ANNOTATION,
    VOLCANO_TASK_ORDER_ANNOTATION,
];

/// One list item: `apiVersion` and `kind`, then the object's own fields.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a, T: Serialize> {
    api_version: &'a str,
    kind: &'a str,
    #[serde(flatten)]
    body: &'a T,
}

#[derive(Serialize)]
struct FluidBody<'a> {
    metadata: &'a ObjectMeta,
    spec: &'a OpSpec,
    status: &'a OpStatus,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    api_version: &'static str,
    kind: &'static str,
    items: Items<'a>,
    metadata: BTreeMap<String, String>,
}

struct Items<'a>(&'a ClusterState);

impl Serialize for Items<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let state = self.0;
        let mut seq = s.serialize_seq(None)?;
        for o in &state.nodes {
            seq.serialize_element(&item("v1", "Node", o))?;
        }
        for o in &state.namespaces {
            seq.serialize_element(&item("v1", "Namespace", o))?;
        }
        for o in &state.pods {
            seq.serialize_element(&item("v1", "Pod", o))?;
        }
        for op in &state.fluid_ops {
            let body = FluidBody {
                metadata: &op.metadata,
                spec: &op.spec,
                status: &op.status,
            };
            seq.serialize_element(&item(fluid::API_VERSION, op.kind.as_str(), &body))?;
        }
        for o in &state.godel_pod_groups {
            seq.serialize_element(&item(GODEL_API_VERSION, "PodGroup", o))?;
        }
        for o in &state.volcano_jobs {
            seq.serialize_element(&item(VOLCANO_JOB_API_VERSION, "Job", o))?;
        }
        for o in &state.volcano_pod_groups {
            seq.serialize_element(&item(VOLCANO_POD_GROUP_API_VERSION, "PodGroup", o))?;
        }
        for o in &state.priority_classes {
            seq.serialize_element(&item("scheduling.k8s.io/v1", "PriorityClass", o))?;
        }
        for o in &state.pod_disruption_budgets {
            seq.serialize_element(&item("policy/v1", "PodDisruptionBudget", o))?;
        }
        seq.end()
    }
}

fn item<'a, T: Serialize>(api_version: &'a str, kind: &'a str, body: &'a T) -> Item<'a, T> {
    Item {
        api_version,
        kind,
        body,
    }
}

/// Render the state as a `v1 List`, sorted so the same cluster gives the same bytes.
pub fn render(state: &ClusterState, format: Format, redact: bool) -> Result<String, RenderError> {
    let mut state = state.clone();
    if redact {
        redact_state(&mut state);
    }
    sort_state(&mut state);
    let list = List {
        api_version: "v1",
        kind: "List",
        items: Items(&state),
        metadata: BTreeMap::new(),
    };
    match format {
        Format::Json => serde_json::to_string_pretty(&list)
            .map(|mut text| {
                text.push('\n');
                text
            })
            .map_err(|e| RenderError(e.to_string())),
        Format::Yaml => serde_saphyr::to_string(&list).map_err(|e| RenderError(e.to_string())),
    }
}

fn sort_state(state: &mut ClusterState) {
    fn key(meta: &ObjectMeta) -> (String, String) {
        (meta.namespace.clone(), meta.name.clone())
    }
    state.nodes.sort_by_key(|o| key(&o.metadata));
    state.namespaces.sort_by_key(|o| key(&o.metadata));
    state.pods.sort_by_key(|o| key(&o.metadata));
    state.fluid_ops.sort_by_key(|o| (o.kind, key(&o.metadata)));
    state.godel_pod_groups.sort_by_key(|o| key(&o.metadata));
    state.volcano_jobs.sort_by_key(|o| key(&o.metadata));
    state.volcano_pod_groups.sort_by_key(|o| key(&o.metadata));
    state.priority_classes.sort_by_key(|o| key(&o.metadata));
    state
        .pod_disruption_budgets
        .sort_by_key(|o| key(&o.metadata));
    state.rebuild_indexes();
}

/// A stable stand-in for a name or label value: the same input always gives the same output,
/// in every object, so references (nodeName, selectors, runAfter) still resolve. Integers are
/// kept because `Gt`/`Lt` selectors compare them; empty stays empty.
pub fn redact(text: &str) -> String {
    if text.is_empty() || text.parse::<i64>().is_ok() {
        return text.to_string();
    }
    // FNV-1a: tiny, fixed by its spec, so hashes stay the same across versions of the tool.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("x{hash:016x}")
}

fn redact_all(values: &mut [String]) {
    for value in values {
        *value = redact(value);
    }
}

fn redact_labels(labels: &mut Labels) {
    for value in labels.values_mut() {
        *value = redact(value);
    }
}

fn redact_meta(meta: &mut ObjectMeta) {
    meta.name = redact(&meta.name);
    meta.namespace = redact(&meta.namespace);
    redact_labels(&mut meta.labels);
    meta.annotations
        .retain(|key, _| PLACEMENT_ANNOTATIONS.contains(&key.as_str()));
}

fn redact_term(term: &mut NodeSelectorTerm) {
    for requirement in term
        .match_expressions
        .iter_mut()
        .chain(term.match_fields.iter_mut())
    {
        redact_all(&mut requirement.values);
    }
}

fn redact_node_selector(selector: &mut NodeSelector) {
    selector
        .node_selector_terms
        .iter_mut()
        .for_each(redact_term);
}

fn redact_label_selector(selector: &mut LabelSelector) {
    redact_labels(&mut selector.match_labels);
    for requirement in &mut selector.match_expressions {
        redact_all(&mut requirement.values);
    }
}

fn redact_pod_affinity(affinity: &mut PodAffinity) {
    let terms = affinity.required.iter_mut().chain(
        affinity
            .preferred
            .iter_mut()
            .map(|weighted| &mut weighted.pod_affinity_term),
    );
    for term in terms {
        term.label_selector
            .iter_mut()
            .for_each(redact_label_selector);
        term.namespace_selector
            .iter_mut()
            .for_each(redact_label_selector);
        redact_all(&mut term.namespaces);
    }
}

fn redact_affinity(affinity: &mut Affinity) {
    if let Some(node) = &mut affinity.node_affinity {
        node.required.iter_mut().for_each(redact_node_selector);
        for preferred in &mut node.preferred {
            redact_term(&mut preferred.preference);
        }
    }
    affinity
        .pod_affinity
        .iter_mut()
        .for_each(redact_pod_affinity);
    affinity
        .pod_anti_affinity
        .iter_mut()
        .for_each(redact_pod_affinity);
}

fn redact_pod_spec(spec: &mut PodSpec) {
    spec.node_name = redact(&spec.node_name);
    redact_labels(&mut spec.node_selector);
    spec.affinity.iter_mut().for_each(redact_affinity);
    for container in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut())
    {
        container.image = redact(&container.image);
    }
    for constraint in &mut spec.topology_spread_constraints {
        constraint
            .label_selector
            .iter_mut()
            .for_each(redact_label_selector);
    }
}

fn redact_state(state: &mut ClusterState) {
    for node in &mut state.nodes {
        redact_meta(&mut node.metadata);
        for image in &mut node.status.images {
            redact_all(&mut image.names);
        }
    }
    for namespace in &mut state.namespaces {
        redact_meta(&mut namespace.metadata);
    }
    for pod in &mut state.pods {
        redact_meta(&mut pod.metadata);
        redact_pod_spec(&mut pod.spec);
    }
    for op in &mut state.fluid_ops {
        redact_meta(&mut op.metadata);
        let spec = &mut op.spec;
        if let Some(dataset) = &mut spec.dataset {
            dataset.name = redact(&dataset.name);
            dataset.namespace = redact(&dataset.namespace);
        }
        if let Some(after) = &mut spec.run_after {
            after.name = redact(&after.name);
            after.namespace = redact(&after.namespace);
            if let Some(source) = &mut after.affinity_strategy.depend_on {
                source.name = redact(&source.name);
                source.namespace = redact(&source.namespace);
            }
        }
        spec.affinity.iter_mut().for_each(redact_affinity);
        redact_labels(&mut spec.node_selector);
        spec.image = redact(&spec.image);
        if let Some(processor) = &mut spec.processor {
            if let Some(job) = &mut processor.job {
                redact_pod_spec(&mut job.pod_spec);
            }
            if let Some(script) = &mut processor.script {
                script.image = redact(&script.image);
            }
        }
        if let Some(recorded) = &mut op.status.node_affinity {
            recorded.required.iter_mut().for_each(redact_node_selector);
        }
    }
    for group in &mut state.godel_pod_groups {
        redact_meta(&mut group.metadata);
        let selector = group
            .spec
            .affinity
            .as_mut()
            .and_then(|a| a.pod_group_affinity.as_mut())
            .and_then(|a| a.node_selector.as_mut());
        selector.into_iter().for_each(redact_node_selector);
    }
    for job in &mut state.volcano_jobs {
        redact_meta(&mut job.metadata);
        job.spec.queue = redact(&job.spec.queue);
        for task in &mut job.spec.tasks {
            redact_labels(&mut task.template.metadata.labels);
            task.template.metadata.annotations.clear();
            redact_pod_spec(&mut task.template.spec);
        }
    }
    for group in &mut state.volcano_pod_groups {
        redact_meta(&mut group.metadata);
        group.spec.queue = redact(&group.spec.queue);
    }
    for budget in &mut state.pod_disruption_budgets {
        redact_meta(&mut budget.metadata);
        budget
            .spec
            .selector
            .iter_mut()
            .for_each(redact_label_selector);
        budget.status.disrupted_pods = std::mem::take(&mut budget.status.disrupted_pods)
            .into_iter()
            .map(|(pod, time)| (redact(&pod), time))
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::recorded::parse_state;

    const STATE: &str = r#"{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "loader-0", "namespace": "team",
     "labels": {"app": "loader"}, "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
   "spec": {"nodeName": "node-b", "containers": [{"name": "c", "image": "registry.corp/loader:1",
     "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
     "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
       {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-b"]},
                             {"key": "gpu-count", "operator": "Gt", "values": ["2"]}]}]}}}},
   "status": {"phase": "Running"}},
  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-b",
     "labels": {"kubernetes.io/hostname": "node-b", "gpu-count": "4"}},
   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team",
     "labels": {"kubernetes.io/metadata.name": "team"}}},
  {"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataProcess", "metadata": {"name": "train", "namespace": "team",
     "annotations": {"affinity.dataflow.fluid.io/labels": "gpu-count"}},
   "spec": {"runAfter": {"kind": "DataLoad", "name": "warmup", "affinityStrategy": {"policy": "Require"}}},
   "status": {"phase": "Pending"}}
]}"#;

    fn state() -> ClusterState {
        ClusterState::from_objects(parse_state("s.json", STATE.as_bytes()).unwrap())
    }

    #[test]
    fn json_and_yaml_snapshots_read_back_as_the_same_objects() {
        let state = state();
        for format in [Format::Json, Format::Yaml] {
            let text = render(&state, format, false).unwrap();
            let back = ClusterState::from_objects(parse_state("snap", text.as_bytes()).unwrap());
            assert_eq!(back.nodes, state.nodes, "{format:?}");
            assert_eq!(back.pods, state.pods, "{format:?}");
            assert_eq!(back.namespaces, state.namespaces, "{format:?}");
            assert_eq!(back.fluid_ops, state.fluid_ops, "{format:?}");
        }
    }

    #[test]
    fn redaction_hashes_names_and_label_values_consistently() {
        let text = render(&state(), Format::Json, true).unwrap();
        let back = ClusterState::from_objects(parse_state("snap", text.as_bytes()).unwrap());
        let node = redact("node-b");
        let team = redact("team");
        assert_eq!(back.nodes[0].metadata.name, node);
        assert_eq!(
            back.nodes[0].metadata.labels["kubernetes.io/hostname"],
            node
        );
        assert_eq!(back.nodes[0].metadata.labels["gpu-count"], "4");
        let pod = &back.pods[0];
        assert_eq!(pod.metadata.name, redact("loader-0"));
        assert_eq!(pod.metadata.namespace, team);
        assert_eq!(pod.metadata.labels["app"], redact("loader"));
        assert!(pod.metadata.annotations.is_empty());
        assert_eq!(pod.spec.node_name, node);
        assert_eq!(
            pod.spec.containers[0].image,
            redact("registry.corp/loader:1")
        );
        let required = &pod
            .spec
            .affinity
            .as_ref()
            .unwrap()
            .node_affinity
            .as_ref()
            .unwrap();
        let values: Vec<&str> = required.required.as_ref().unwrap().node_selector_terms[0]
            .match_expressions
            .iter()
            .map(|e| e.values[0].as_str())
            .collect();
        assert_eq!(values, [node.as_str(), "2"]);
        assert_eq!(
            back.namespaces[0].metadata.labels["kubernetes.io/metadata.name"],
            team
        );
        let op = &back.fluid_ops[0];
        assert_eq!(op.spec.run_after.as_ref().unwrap().name, redact("warmup"));
        assert_eq!(
            op.metadata.annotations[fluid::AFFINITY_LABELS_ANNOTATION],
            "gpu-count"
        );
        assert!(!text.contains("node-b") && !text.contains("team") && !text.contains("loader"));
    }

    #[test]
    fn redaction_is_stable_and_keeps_integers() {
        let cases = [
            ("", ""),
            ("42", "42"),
            ("-7", "-7"),
            ("a", "xaf63dc4c8601ec8c"),
            ("node-1", "xe696ecc2207879c3"),
        ];
        for (input, expected) in cases {
            assert_eq!(redact(input), expected, "{input}");
        }
    }
}
