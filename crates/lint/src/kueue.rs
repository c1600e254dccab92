//! Kueue rules: what Kueue's job webhook rejects in a Job's topology annotations (DF504),
//! levels the flavor's Topology lacks (DF503), and with a state, levels no node carries
//! (DF507), a queue chain with a missing link (DF510), requests no resource group covers
//! (DF511) and flavors no node matches (DF512).

use super::{Context, Finding, node_carries};
use df_engine::selector::node_selector_map_matches;
use df_manifest::Manifest;
use df_model::kueue::{
    self, ClusterQueue, KueueObjects, LEVEL_ANNOTATIONS, PREFERRED_TOPOLOGY, REQUIRED_TOPOLOGY,
    SLICE_REQUIRED_TOPOLOGY, SLICE_SIZE, UNCONSTRAINED_TOPOLOGY,
};
use df_model::{Annotations, Object, ObjectMeta, Pod, PodSpec, Workload};
use df_systems::topology::kueue::{Queues, asks_topology, candidates};

/// The Kueue objects of the inputs (the state's are read through the context).
pub(crate) struct Index {
    given: KueueObjects,
}

impl Index {
    pub fn new(manifests: &[Manifest]) -> Index {
        let mut given = KueueObjects::default();
        for m in manifests {
            given.add(&m.object);
        }
        Index { given }
    }

    /// Kueue's objects as admission looks them up: the inputs', then `state`'s.
    fn queues<'a>(&'a self, state: &'a KueueObjects) -> Queues<'a> {
        Queues {
            given: &self.given,
            state,
        }
    }
}

/// The ClusterQueue the job is admitted through: its namespace's LocalQueue named by its
/// queue-name label, then that LocalQueue's ClusterQueue.
fn cluster_queue<'a>(queues: Queues<'a>, job: &ObjectMeta) -> Option<&'a ClusterQueue> {
    let queue = &job.labels[kueue::QUEUE_NAME_LABEL];
    queues
        .local_queue(&job.namespace, queue)
        .and_then(|local| queues.cluster_queue(&local.spec.cluster_queue))
}

const ANNOTATIONS: &str = "spec.template.metadata.annotations";

/// What Kueue admits, with the queue label: a workload controller's pod template (a Job, and
/// through Kueue's integrations a StatefulSet or Deployment), a pod, or an operator object's
/// pod templates, each pod spec with its path.
fn managed(object: &Object) -> Option<(&ObjectMeta, Vec<(String, PodSpec)>)> {
    let (meta, templates) = match object {
        Object::Workload(w) if matches!(w.kind.as_str(), "Job" | "StatefulSet" | "Deployment") => {
            let spec = ("spec.template.spec".to_string(), w.template.spec.clone());
            (&w.metadata, vec![spec])
        }
        Object::Pod(pod) => (&pod.metadata, vec![("spec".to_string(), pod.spec.clone())]),
        Object::Operator(o) if df_systems::operators::kueue_managed(o) => {
            let mut copy = (**o).clone();
            let templates = copy
                .templates_mut()
                .into_iter()
                .map(|(path, t)| (format!("{path}.spec"), t.spec.clone()))
                .collect();
            (&o.metadata, templates)
        }
        _ => return None,
    };
    meta.labels
        .contains_key(kueue::QUEUE_NAME_LABEL)
        .then_some((meta, templates))
}

pub(crate) fn check(ctx: &mut Context<'_>, index: &Index, m: &Manifest) {
    let Some((meta, templates)) = managed(&m.object) else {
        return;
    };
    check_queue(ctx, index, m, meta);
    check_covered(ctx, index, m, meta, &templates);
    check_flavor_nodes(ctx, index, m, meta);
    let Object::Workload(job) = &m.object else {
        return;
    };
    if !job.is_kueue_job() {
        return;
    }
    let annotations = &job.template.metadata.annotations;
    for problem in webhook_problems(annotations, i64::from(job.replicas)) {
        ctx.emit(
            m,
            annotation_finding(m, "DF504", problem.key, problem.message),
        );
    }
    let unknown = check_levels(ctx, index, m, job);
    if let Some(state) = ctx.state.filter(|s| !s.nodes.is_empty()) {
        for key in LEVEL_ANNOTATIONS {
            let Some(level) = annotations.get(key) else {
                continue;
            };
            if unknown.contains(&key) || node_carries(state, level) {
                continue;
            }
            let message = format!(
                "no node of the {} in the state carries the label {level:?} that {key} names: \
                 Kueue finds no domain of that level",
                state.nodes.len()
            );
            ctx.emit(m, annotation_finding(m, "DF507", key, message));
        }
    }
}

/// DF510: the LocalQueue the job's label names, its ClusterQueue, flavors and Topologies, as
/// Kueue looks them up, when the state or the inputs hold some queue to look in.
fn check_queue(ctx: &mut Context<'_>, index: &Index, m: &Manifest, job: &ObjectMeta) {
    let Some(state) = ctx.state else {
        return;
    };
    let holds_queues =
        |k: &KueueObjects| !k.local_queues.is_empty() || !k.cluster_queues.is_empty();
    if !holds_queues(&index.given) && !holds_queues(&state.kueue) {
        return;
    }
    let queues = index.queues(&state.kueue);
    let queue = &job.labels[kueue::QUEUE_NAME_LABEL];
    if let Err(why) = candidates(queues, &job.namespace, queue, false) {
        ctx.emit(m, queue_label_finding(m, "DF510", why));
    }
}

/// DF511: each resource the job's containers request (non-zero; a limit stands in for a missing
/// request, as the API server defaults it) that no resource group of its ClusterQueue covers,
/// at the first container that asks for it.
fn check_covered(
    ctx: &mut Context<'_>,
    index: &Index,
    m: &Manifest,
    job: &ObjectMeta,
    templates: &[(String, PodSpec)],
) {
    let Some(state) = ctx.state else {
        return;
    };
    let queues = index.queues(&state.kueue);
    let Some(cq) = cluster_queue(queues, job) else {
        return;
    };
    let covered: Vec<&str> = cq
        .spec
        .resource_groups
        .iter()
        .flat_map(|g| &g.covered_resources)
        .map(String::as_str)
        .collect();
    let mut reported: Vec<&str> = Vec::new();
    let lists = templates.iter().flat_map(|(path, spec)| {
        [
            (path, "initContainers", &spec.init_containers),
            (path, "containers", &spec.containers),
        ]
    });
    for (path, list, containers) in lists {
        for (i, container) in containers.iter().enumerate() {
            let resources = &container.resources;
            let asked = resources.requests.iter().map(|r| ("requests", r)).chain(
                resources
                    .limits
                    .iter()
                    .filter(|(name, _)| !resources.requests.contains_key(name.as_str()))
                    .map(|r| ("limits", r)),
            );
            for (field, (name, quantity)) in asked {
                let name = name.as_str();
                if quantity.milli_value() == 0
                    || covered.contains(&name)
                    || reported.contains(&name)
                {
                    continue;
                }
                reported.push(name);
                let message = format!(
                    "ClusterQueue {:?} covers no {name} ({}): Kueue assigns the pod set no flavor (resource {name} unavailable in ClusterQueue) and keeps the {} suspended",
                    cq.metadata.name,
                    if covered.is_empty() {
                        "it covers nothing".to_string()
                    } else {
                        format!("it covers {}", covered.join(", "))
                    },
                    m.object.kind()
                );
                let list_path = format!("{path}.{list}[{i}].resources.{field}");
                let finding = Finding::at_map_entry(m, "DF511", &list_path, name, message);
                ctx.emit(m, finding);
            }
        }
    }
}

/// DF512: each ResourceFlavor of the job's ClusterQueue whose `nodeLabels` no node of the
/// state carries together, at the job's queue-name label.
fn check_flavor_nodes(ctx: &mut Context<'_>, index: &Index, m: &Manifest, job: &ObjectMeta) {
    let Some(state) = ctx.state.filter(|s| !s.nodes.is_empty()) else {
        return;
    };
    let queues = index.queues(&state.kueue);
    let Some(cq) = cluster_queue(queues, job) else {
        return;
    };
    for name in cq.flavor_names() {
        let Some(flavor) = queues.flavor(name) else {
            continue;
        };
        let wanted = &flavor.spec.node_labels;
        if wanted.is_empty()
            || state
                .nodes
                .iter()
                .any(|n| node_selector_map_matches(wanted, &n.metadata.labels))
        {
            continue;
        }
        let labels: Vec<String> = wanted.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let message = format!(
            "ResourceFlavor {name:?} of ClusterQueue {:?} puts its pods on nodes labelled {}; none of the state's {} nodes is: a Job admitted on it holds its quota while its pods stay pending",
            cq.metadata.name,
            labels.join(", "),
            state.nodes.len()
        );
        ctx.emit(m, queue_label_finding(m, "DF512", message));
    }
}

/// A finding at the value of the Job's `kueue.x-k8s.io/queue-name` label.
fn queue_label_finding(m: &Manifest, code: &'static str, message: String) -> Finding {
    Finding::at_map_entry(m, code, "metadata.labels", kueue::QUEUE_NAME_LABEL, message)
}

/// A finding at the value of the pod template's annotation `key`.
pub(crate) fn annotation_finding(
    m: &Manifest,
    code: &'static str,
    key: &str,
    message: String,
) -> Finding {
    Finding::at_map_entry(m, code, ANNOTATIONS, key, message)
}

/// DF503: level annotations naming no level of any Topology Kueue may admit the Job on, and a
/// slice level above the pod set's level. Returns the annotations reported.
fn check_levels(
    ctx: &mut Context<'_>,
    index: &Index,
    m: &Manifest,
    job: &Workload,
) -> Vec<&'static str> {
    let empty = KueueObjects::default();
    let queues = index.queues(ctx.state.map_or(&empty, |s| &s.kueue));
    let template = Pod {
        metadata: job.template.metadata.clone(),
        ..Pod::default()
    };
    let queue = &job.metadata.labels[kueue::QUEUE_NAME_LABEL];
    let Ok(flavors) = candidates(
        queues,
        &job.metadata.namespace,
        queue,
        asks_topology(&template),
    ) else {
        return Vec::new();
    };
    let topologies: Vec<(&str, &str, Vec<String>)> = flavors
        .iter()
        .filter_map(|c| {
            let t = c.topology?;
            Some((
                c.flavor.metadata.name.as_str(),
                t.metadata.name.as_str(),
                t.level_keys(),
            ))
        })
        .collect();
    if topologies.is_empty() {
        return Vec::new();
    }
    let annotations = &job.template.metadata.annotations;
    let mut reported = Vec::new();
    for key in LEVEL_ANNOTATIONS {
        let Some(level) = annotations.get(key) else {
            continue;
        };
        if topologies
            .iter()
            .any(|(_, _, levels)| levels.iter().any(|l| l == level))
        {
            continue;
        }
        let shown: Vec<String> = topologies
            .iter()
            .map(|(flavor, topology, levels)| {
                format!(
                    "Topology {topology} of ResourceFlavor {flavor} has {}",
                    levels.join(", ")
                )
            })
            .collect();
        let message = format!(
            "{key} {level:?} is not a level of the Job's topology ({}): Kueue never admits the Job",
            shown.join("; ")
        );
        ctx.emit(m, annotation_finding(m, "DF503", key, message));
        reported.push(key);
    }
    let pod_set_level = annotations
        .get(REQUIRED_TOPOLOGY)
        .or_else(|| annotations.get(PREFERRED_TOPOLOGY));
    if let (Some(level), Some(slice)) = (pod_set_level, annotations.get(SLICE_REQUIRED_TOPOLOGY)) {
        let position = |levels: &[String], key: &str| levels.iter().position(|l| l == key);
        let above = topologies.iter().find_map(|(_, topology, levels)| {
            let (level_at, slice_at) = (position(levels, level)?, position(levels, slice)?);
            (slice_at < level_at).then_some(*topology)
        });
        if let Some(topology) = above {
            let message = format!(
                "{SLICE_REQUIRED_TOPOLOGY} {slice:?} is above the pod set's level {level:?} in \
                 Topology {topology}: slices must lie inside the pod set's domain, and Kueue never \
                 admits the Job"
            );
            ctx.emit(
                m,
                annotation_finding(m, "DF503", SLICE_REQUIRED_TOPOLOGY, message),
            );
            reported.push(SLICE_REQUIRED_TOPOLOGY);
        }
    }
    reported
}

/// One annotation Kueue's job webhook rejects, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Problem {
    key: &'static str,
    message: String,
}

/// What Kueue's job webhook (`ValidateTASPodSetRequest` and the slice-size upper bound)
/// rejects in a pod template's topology annotations, for a pod set of `count` pods.
fn webhook_problems(annotations: &Annotations, count: i64) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut problem = |key: &'static str, message: String| problems.push(Problem { key, message });
    let modes: Vec<&'static str> = [
        REQUIRED_TOPOLOGY,
        PREFERRED_TOPOLOGY,
        UNCONSTRAINED_TOPOLOGY,
    ]
    .into_iter()
    .filter(|k| annotations.contains_key(k))
    .collect();
    if let [first, rest @ ..] = modes.as_slice() {
        for key in rest {
            problem(
                key,
                format!(
                    "{key} is set together with {first}: Kueue accepts only one of \
                     podset-required-topology, podset-preferred-topology and \
                     podset-unconstrained-topology"
                ),
            );
        }
    }
    for key in [
        REQUIRED_TOPOLOGY,
        PREFERRED_TOPOLOGY,
        SLICE_REQUIRED_TOPOLOGY,
    ] {
        if let Some(value) = annotations.get(key)
            && let Err(why) = label_name(value)
        {
            problem(
                key,
                format!("{key} {value:?} is not a valid label name: {why}"),
            );
        }
    }
    if let Some(value) = annotations.get(UNCONSTRAINED_TOPOLOGY)
        && !is_go_bool(value)
    {
        problem(
            UNCONSTRAINED_TOPOLOGY,
            format!("{UNCONSTRAINED_TOPOLOGY} {value:?} must be a boolean (true or false)"),
        );
    }
    let size = annotations.get(SLICE_SIZE);
    let slice_level = annotations.get(SLICE_REQUIRED_TOPOLOGY);
    if let Some(value) = size {
        match value.parse::<i32>() {
            Err(_) => problem(
                SLICE_SIZE,
                format!("{SLICE_SIZE} {value:?} must be an integer"),
            ),
            Ok(n) if n < 1 => problem(
                SLICE_SIZE,
                format!("{SLICE_SIZE} {value:?} must be at least 1"),
            ),
            Ok(n) if i64::from(n) > count => problem(
                SLICE_SIZE,
                format!("{SLICE_SIZE} {value:?} is more than the pod set's {count} pods"),
            ),
            Ok(_) => {}
        }
    }
    match (slice_level, size) {
        (Some(_), None) => problem(
            SLICE_REQUIRED_TOPOLOGY,
            format!("{SLICE_REQUIRED_TOPOLOGY} is set without {SLICE_SIZE}: both are needed"),
        ),
        (None, Some(_)) => problem(
            SLICE_SIZE,
            format!("{SLICE_SIZE} is set without {SLICE_REQUIRED_TOPOLOGY}: both are needed"),
        ),
        _ => {}
    }
    problems
}

/// The values Go's `strconv.ParseBool` accepts.
fn is_go_bool(value: &str) -> bool {
    matches!(
        value,
        "1" | "t" | "T" | "TRUE" | "true" | "True" | "0" | "f" | "F" | "FALSE" | "false" | "False"
    )
}

/// A label name as Kubernetes validates it (`IsQualifiedName`): an optional DNS subdomain
/// prefix and `/`, then 1-63 alphanumerics, `-`, `_` or `.`, starting and ending alphanumeric.
fn label_name(value: &str) -> Result<(), String> {
    let (prefix, name) = match value.split('/').collect::<Vec<_>>().as_slice() {
        [name] => (None, *name),
        [prefix, name] => (Some(*prefix), *name),
        _ => return Err("at most one '/' may separate a prefix from the name".into()),
    };
    if let Some(prefix) = prefix {
        let label_ok = |part: &str| {
            let bytes = part.as_bytes();
            !part.is_empty()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
                && bytes[0].is_ascii_alphanumeric()
                && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        };
        if prefix.len() > 253 || !prefix.split('.').all(label_ok) {
            return Err(format!(
                "the prefix {prefix:?} must be a lowercase DNS subdomain"
            ));
        }
    }
    let bytes = name.as_bytes();
    let inner_ok = bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if name.is_empty()
        || name.len() > 63
        || !inner_ok
        || !bytes[0].is_ascii_alphanumeric()
        || !bytes[bytes.len() - 1].is_ascii_alphanumeric()
    {
        return Err(format!(
            "the name {name:?} must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(pairs: &[(&str, &str)], count: i64) -> Vec<(&'static str, String)> {
        let annotations = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        webhook_problems(&annotations, count)
            .into_iter()
            .map(|p| (p.key, p.message))
            .collect()
    }

    const RACK: &str = "example.com/rack";

    /// Annotations as (key, value), and expected problems as (annotation, message).
    type Pairs = &'static [(&'static str, &'static str)];
    /// Name, annotations, pods in the pod set, expected problems.
    type Case = (&'static str, Pairs, i64, Pairs);

    /// Cases after kueue's `tas_validation_test.go` and the job webhook's slice-size tests,
    /// with this tool's own levels and messages.
    #[test]
    fn webhook_rules_match_kueue() {
        let cases: &[Case] = &[
            ("required alone", &[(REQUIRED_TOPOLOGY, RACK)], 4, &[]),
            (
                "unconstrained true",
                &[(UNCONSTRAINED_TOPOLOGY, "true")],
                4,
                &[],
            ),
            ("unconstrained T", &[(UNCONSTRAINED_TOPOLOGY, "T")], 4, &[]),
            (
                "slice pair",
                &[
                    (REQUIRED_TOPOLOGY, "example.com/block"),
                    (SLICE_REQUIRED_TOPOLOGY, RACK),
                    (SLICE_SIZE, "4"),
                ],
                8,
                &[],
            ),
            (
                "slice size equal to the count",
                &[(SLICE_REQUIRED_TOPOLOGY, RACK), (SLICE_SIZE, "8")],
                8,
                &[],
            ),
            (
                "required and preferred",
                &[(REQUIRED_TOPOLOGY, RACK), (PREFERRED_TOPOLOGY, RACK)],
                4,
                &[(
                    PREFERRED_TOPOLOGY,
                    "kueue.x-k8s.io/podset-preferred-topology is set together with \
                     kueue.x-k8s.io/podset-required-topology: Kueue accepts only one of \
                     podset-required-topology, podset-preferred-topology and \
                     podset-unconstrained-topology",
                )],
            ),
            (
                "all three modes",
                &[
                    (REQUIRED_TOPOLOGY, RACK),
                    (PREFERRED_TOPOLOGY, RACK),
                    (UNCONSTRAINED_TOPOLOGY, "true"),
                ],
                4,
                &[
                    (
                        PREFERRED_TOPOLOGY,
                        "kueue.x-k8s.io/podset-preferred-topology is set together with \
                         kueue.x-k8s.io/podset-required-topology: Kueue accepts only one of \
                         podset-required-topology, podset-preferred-topology and \
                         podset-unconstrained-topology",
                    ),
                    (
                        UNCONSTRAINED_TOPOLOGY,
                        "kueue.x-k8s.io/podset-unconstrained-topology is set together with \
                         kueue.x-k8s.io/podset-required-topology: Kueue accepts only one of \
                         podset-required-topology, podset-preferred-topology and \
                         podset-unconstrained-topology",
                    ),
                ],
            ),
            (
                "level not a label name",
                &[(REQUIRED_TOPOLOGY, "Rack Level")],
                4,
                &[(
                    REQUIRED_TOPOLOGY,
                    "kueue.x-k8s.io/podset-required-topology \"Rack Level\" is not a valid label \
                     name: the name \"Rack Level\" must be 1-63 letters, digits, '-', '_' or '.', \
                     starting and ending with a letter or digit",
                )],
            ),
            (
                "uppercase prefix",
                &[(PREFERRED_TOPOLOGY, "Example.com/rack")],
                4,
                &[(
                    PREFERRED_TOPOLOGY,
                    "kueue.x-k8s.io/podset-preferred-topology \"Example.com/rack\" is not a valid \
                     label name: the prefix \"Example.com\" must be a lowercase DNS subdomain",
                )],
            ),
            (
                "two slashes",
                &[(SLICE_REQUIRED_TOPOLOGY, "a/b/c"), (SLICE_SIZE, "2")],
                4,
                &[(
                    SLICE_REQUIRED_TOPOLOGY,
                    "kueue.x-k8s.io/podset-slice-required-topology \"a/b/c\" is not a valid label \
                     name: at most one '/' may separate a prefix from the name",
                )],
            ),
            (
                "unconstrained not a boolean",
                &[(UNCONSTRAINED_TOPOLOGY, "yes")],
                4,
                &[(
                    UNCONSTRAINED_TOPOLOGY,
                    "kueue.x-k8s.io/podset-unconstrained-topology \"yes\" must be a boolean (true \
                     or false)",
                )],
            ),
            (
                "slice level without size",
                &[
                    (REQUIRED_TOPOLOGY, "example.com/block"),
                    (SLICE_REQUIRED_TOPOLOGY, RACK),
                ],
                4,
                &[(
                    SLICE_REQUIRED_TOPOLOGY,
                    "kueue.x-k8s.io/podset-slice-required-topology is set without \
                     kueue.x-k8s.io/podset-slice-size: both are needed",
                )],
            ),
            (
                "size without slice level",
                &[(REQUIRED_TOPOLOGY, RACK), (SLICE_SIZE, "2")],
                4,
                &[(
                    SLICE_SIZE,
                    "kueue.x-k8s.io/podset-slice-size is set without \
                     kueue.x-k8s.io/podset-slice-required-topology: both are needed",
                )],
            ),
            (
                "size not a number",
                &[(SLICE_REQUIRED_TOPOLOGY, RACK), (SLICE_SIZE, "four")],
                4,
                &[(
                    SLICE_SIZE,
                    "kueue.x-k8s.io/podset-slice-size \"four\" must be an integer",
                )],
            ),
            (
                "size zero",
                &[(SLICE_REQUIRED_TOPOLOGY, RACK), (SLICE_SIZE, "0")],
                4,
                &[(
                    SLICE_SIZE,
                    "kueue.x-k8s.io/podset-slice-size \"0\" must be at least 1",
                )],
            ),
            (
                "size above the pod count",
                &[(SLICE_REQUIRED_TOPOLOGY, RACK), (SLICE_SIZE, "5")],
                4,
                &[(
                    SLICE_SIZE,
                    "kueue.x-k8s.io/podset-slice-size \"5\" is more than the pod set's 4 pods",
                )],
            ),
        ];
        for (name, annotations, count, expected) in cases {
            let expected: Vec<(&str, String)> =
                expected.iter().map(|(k, m)| (*k, m.to_string())).collect();
            assert_eq!(problems(annotations, *count), expected, "{name}");
        }
    }
}
