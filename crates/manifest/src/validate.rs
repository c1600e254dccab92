//! Values the API server's validation rejects (kubernetes pkg/apis/core/validation), checked
//! once an object has decoded. Such an object could never be created, so planning it would
//! show a placement that cannot happen: it is refused like a decode error, positioned at the
//! field (lint reports it as DF002, every other command exits 2).
//!
//! A few such values have lint rules of their own, which say more than a decode error can
//! (DF405 weights, DF202/DF209 gang sizes): lint keeps reading those objects, and every other
//! command refuses them through [`refused_for_planning`].

use df_model::TopologySpreadConstraint;
use df_model::{
    Affinity, DecodeError, Object, PodSpec, ResourceList, Taint, Toleration, gang::SchedulingPolicy,
};

const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];
const TOLERATION_OPERATORS: &[&str] = &["Equal", "Exists"];
const WHEN_UNSATISFIABLE: &[&str] = &["DoNotSchedule", "ScheduleAnyway"];

/// The first value of `object` the API server would reject.
pub fn validate(object: &Object) -> Result<(), DecodeError> {
    match object {
        Object::Node(node) => node
            .spec
            .taints
            .iter()
            .enumerate()
            .try_for_each(|(i, t)| taint(&format!("spec.taints[{i}]"), t)),
        _ => pod_specs(object)
            .into_iter()
            .try_for_each(|(path, spec)| pod_spec(&path, spec)),
    }
}

/// Every pod spec an object carries, with its path.
fn pod_specs(object: &Object) -> Vec<(String, &PodSpec)> {
    match object {
        Object::Pod(pod) => vec![("spec".into(), &pod.spec)],
        Object::Workload(w) if w.kind == "CronJob" => vec![(
            "spec.jobTemplate.spec.template.spec".into(),
            &w.template.spec,
        )],
        Object::Workload(w) => vec![("spec.template.spec".into(), &w.template.spec)],
        Object::VolcanoJob(job) => job
            .spec
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("spec.tasks[{i}].template.spec"), &t.template.spec))
            .collect(),
        Object::FluidOp(op) => op
            .spec
            .processor
            .as_ref()
            .and_then(|p| p.job.as_ref())
            .map(|job| vec![("spec.processor.job.podSpec".into(), &job.pod_spec)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn invalid(path: String, message: impl Into<String>) -> Result<(), DecodeError> {
    Err(DecodeError {
        path,
        message: message.into(),
    })
}

fn unsupported(path: String, value: &str, supported: &[&str]) -> Result<(), DecodeError> {
    let supported: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    invalid(
        path,
        format!(
            "Unsupported value: {value:?}: supported values: {}",
            supported.join(", ")
        ),
    )
}

fn pod_spec(path: &str, spec: &PodSpec) -> Result<(), DecodeError> {
    for (field, containers) in [
        ("containers", &spec.containers),
        ("initContainers", &spec.init_containers),
    ] {
        for (i, container) in containers.iter().enumerate() {
            resources(
                &format!("{path}.{field}[{i}].resources"),
                &container.resources.requests,
                &container.resources.limits,
            )?;
        }
    }
    for (i, t) in spec.tolerations.iter().enumerate() {
        toleration(&format!("{path}.tolerations[{i}]"), t)?;
    }
    for (i, c) in spec.topology_spread_constraints.iter().enumerate() {
        spread(&format!("{path}.topologySpreadConstraints[{i}]"), c)?;
    }
    Ok(())
}

/// ValidateResourceRequirements: quantities are not negative, and a request is at most its
/// limit.
fn resources(
    path: &str,
    requests: &ResourceList,
    limits: &ResourceList,
) -> Result<(), DecodeError> {
    for (field, list) in [("limits", limits), ("requests", requests)] {
        for (name, quantity) in list {
            if quantity.milli_value() < 0 {
                return invalid(
                    format!("{path}.{field}.{name}"),
                    format!("{quantity}: must be greater than or equal to 0"),
                );
            }
        }
    }
    for (name, request) in requests {
        if let Some(limit) = limits.get(name)
            && request.milli_value() > limit.milli_value()
        {
            return invalid(
                format!("{path}.requests.{name}"),
                format!("{request}: must be less than or equal to {name} limit of {limit}"),
            );
        }
    }
    Ok(())
}

/// validateTaints: the effect is required and one of the three.
fn taint(path: &str, taint: &Taint) -> Result<(), DecodeError> {
    if taint.effect.is_empty() {
        return invalid(format!("{path}.effect"), "Required value");
    }
    if !TAINT_EFFECTS.contains(&taint.effect.as_str()) {
        return unsupported(format!("{path}.effect"), &taint.effect, TAINT_EFFECTS);
    }
    Ok(())
}

/// ValidateTolerations.
fn toleration(path: &str, t: &Toleration) -> Result<(), DecodeError> {
    if t.key.is_empty() && t.operator != "Exists" {
        return invalid(
            format!("{path}.operator"),
            format!(
                "{:?}: operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
                t.operator
            ),
        );
    }
    if t.toleration_seconds.is_some() && t.effect != "NoExecute" {
        return invalid(
            format!("{path}.effect"),
            format!(
                "{:?}: effect must be 'NoExecute' when `tolerationSeconds` is set",
                t.effect
            ),
        );
    }
    match t.operator.as_str() {
        "" | "Equal" => {}
        "Exists" if !t.value.is_empty() => {
            return invalid(
                format!("{path}.operator"),
                format!(
                    "{:?}: value must be empty when `operator` is 'Exists'",
                    t.value
                ),
            );
        }
        "Exists" => {}
        other => return unsupported(format!("{path}.operator"), other, TOLERATION_OPERATORS),
    }
    if !t.effect.is_empty() && !TAINT_EFFECTS.contains(&t.effect.as_str()) {
        return unsupported(format!("{path}.effect"), &t.effect, TAINT_EFFECTS);
    }
    Ok(())
}

/// validateTopologySpreadConstraints (the value checks; the selector is lint's).
fn spread(path: &str, c: &TopologySpreadConstraint) -> Result<(), DecodeError> {
    if c.max_skew <= 0 {
        return invalid(
            format!("{path}.maxSkew"),
            format!("{}: must be greater than zero", c.max_skew),
        );
    }
    if !WHEN_UNSATISFIABLE.contains(&c.when_unsatisfiable.as_str()) {
        return unsupported(
            format!("{path}.whenUnsatisfiable"),
            &c.when_unsatisfiable,
            WHEN_UNSATISFIABLE,
        );
    }
    if let Some(min_domains) = c.min_domains {
        if min_domains <= 0 {
            return invalid(
                format!("{path}.minDomains"),
                format!("{min_domains}: must be greater than zero"),
            );
        }
        if c.when_unsatisfiable != "DoNotSchedule" {
            return invalid(
                format!("{path}.minDomains"),
                format!(
                    "{min_domains}: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {}",
                    c.when_unsatisfiable
                ),
            );
        }
    }
    Ok(())
}

/// The first value that lint reports under its own rule and the API server (or the gang
/// scheduler's admission webhook) rejects: preferred affinity weights outside 1..100, and gang
/// sizes below their minimum. Planning such an object would show a placement that cannot
/// happen.
pub(crate) fn refused_for_planning(object: &Object) -> Result<(), DecodeError> {
    for (path, spec) in pod_specs(object) {
        if let Some(affinity) = &spec.affinity {
            affinity_weights(&format!("{path}.affinity"), affinity)?;
        }
    }
    gang_sizes(object)
}

/// validatePreferredSchedulingTerms and validateWeightedPodAffinityTerms: weights are 1..100.
fn affinity_weights(path: &str, affinity: &Affinity) -> Result<(), DecodeError> {
    const PREFERRED: &str = "preferredDuringSchedulingIgnoredDuringExecution";
    let node = affinity.node_affinity.iter().flat_map(|node| {
        let terms = node.preferred.iter().enumerate();
        terms.map(|(i, term)| (format!("nodeAffinity.{PREFERRED}[{i}]"), term.weight))
    });
    let pod = [
        ("podAffinity", &affinity.pod_affinity),
        ("podAntiAffinity", &affinity.pod_anti_affinity),
    ]
    .into_iter()
    .filter_map(|(field, terms)| terms.as_ref().map(|terms| (field, terms)))
    .flat_map(|(field, terms)| {
        let terms = terms.preferred.iter().enumerate();
        terms.map(move |(i, term)| (format!("{field}.{PREFERRED}[{i}]"), term.weight))
    });
    for (term, weight) in node.chain(pod) {
        if !(1..=100).contains(&weight) {
            return invalid(
                format!("{path}.{term}.weight"),
                format!("{weight}: must be in the range 1-100"),
            );
        }
    }
    Ok(())
}

/// A gang of fewer than one pod means nothing (Godel, kube-batch, coscheduling and Workload pod
/// groups: coscheduling's CRD says `Minimum=1`). Volcano's PodGroup CRD says `Minimum=0` (a
/// group of 0 is scheduled pod by pod) and its job webhook refuses a negative `minAvailable`.
fn gang_sizes(object: &Object) -> Result<(), DecodeError> {
    let gang_min = |policy: Option<&SchedulingPolicy>| {
        policy
            .and_then(|p| p.gang.as_ref())
            .map(|gang| gang.min_count)
    };
    let sizes: Vec<(String, i32, i32)> = match object {
        Object::GodelPodGroup(g) => vec![("spec.minMember".into(), g.spec.min_member, 1)],
        Object::VolcanoPodGroup(g) => vec![("spec.minMember".into(), g.spec.min_member, 0)],
        Object::VolcanoJob(job) => vec![("spec.minAvailable".into(), job.spec.min_available, 0)],
        Object::PodGroup(g) => match &g.spec.scheduling_policy {
            Some(policy) => gang_min(Some(policy))
                .map(|min| ("spec.schedulingPolicy.gang.minCount".into(), min, 1))
                .into_iter()
                .collect(),
            None => g
                .spec
                .min_member
                .map(|min| ("spec.minMember".into(), min, 1))
                .into_iter()
                .collect(),
        },
        Object::SchedulingWorkload(w) => w
            .pod_groups()
            .filter_map(|(path, group)| {
                let field = match group.policy {
                    Some(_) => "policy",
                    None => "schedulingPolicy",
                };
                gang_min(group.policy())
                    .map(|min| (format!("{path}.{field}.gang.minCount"), min, 1))
            })
            .collect(),
        _ => Vec::new(),
    };
    for (path, value, least) in sizes {
        if value < least {
            return invalid(path, format!("{value}: must be at least {least}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::refused_for_planning;
    use crate::parse_text;

    const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    resources:\n      requests: {cpu: 500m}\n      limits: {cpu: \"1\"}\n";

    /// The first load problem of a text, as commands print it.
    fn refusal(text: &str) -> Option<String> {
        let (_, problems) = parse_text(&Arc::from("m.yaml"), text);
        problems.first().map(ToString::to_string)
    }

    #[test]
    fn values_the_api_server_rejects_are_positioned_errors() {
        let with = |extra: &str| format!("{POD}{extra}");
        let cases = [
            (
                POD.replace("cpu: 500m", "cpu: -100m"),
                "m.yaml:9:23: spec.containers[0].resources.requests.cpu: -100m: must be greater than or equal to 0",
            ),
            (
                POD.replace("cpu: \"1\"", "cpu: 100m"),
                "m.yaml:9:23: spec.containers[0].resources.requests.cpu: 500m: must be less than or equal to cpu limit of 100m",
            ),
            (
                with("  topologySpreadConstraints:\n  - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"),
                "m.yaml:12:15: spec.topologySpreadConstraints[0].maxSkew: 0: must be greater than zero",
            ),
            (
                with("  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Never}\n"),
                "m.yaml:12:56: spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
            ),
            (
                with("  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}\n"),
                "m.yaml:12:84: spec.topologySpreadConstraints[0].minDomains: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
            ),
            (
                with("  tolerations:\n  - {key: gpu, operator: Exists, effect: NoScheduled}\n"),
                "m.yaml:12:42: spec.tolerations[0].effect: Unsupported value: \"NoScheduled\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
            ),
            (
                with("  tolerations:\n  - {key: gpu, operator: Exists, value: x}\n"),
                "m.yaml:12:26: spec.tolerations[0].operator: \"x\": value must be empty when `operator` is 'Exists'",
            ),
            (
                with("  tolerations:\n  - {effect: NoSchedule}\n"),
                "m.yaml:12:5: spec.tolerations[0].operator: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ),
            (
                with("  tolerations:\n  - {key: k, effect: NoSchedule, tolerationSeconds: 5}\n"),
                "m.yaml:12:22: spec.tolerations[0].effect: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
            ),
            (
                "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n  taints:\n  - {key: k, effect: Sometimes}\n".into(),
                "m.yaml:6:22: spec.taints[0].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
            ),
            (
                "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n  taints:\n  - {key: k}\n".into(),
                "m.yaml:6:5: spec.taints[0].effect: Required value",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(refusal(&text).as_deref(), Some(expected), "{text}");
        }
        // The valid forms pass.
        for text in [POD.to_string(), with_valid_extras()] {
            assert_eq!(refusal(&text), None, "{text}");
        }
    }

    /// Lint reads these objects (its own rules report them); planning refuses them.
    #[test]
    fn values_with_lint_rules_of_their_own_are_refused_for_planning() {
        let pod_affinity = |field: &str, weight: i32| {
            format!(
                "{POD}  affinity:\n    {field}:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: {weight}\n        podAffinityTerm: {{topologyKey: zone}}\n"
            )
        };
        let node_affinity = |weight: i32| {
            format!(
                "{POD}  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - {{weight: {weight}, preference: {{}}}}\n"
            )
        };
        let volcano_job = |min_available: i32, weight: i32| {
            format!(
                "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {{name: j}}\nspec:\n  minAvailable: {min_available}\n  tasks:\n  - name: t\n    replicas: 1\n    template:\n      spec:\n        containers: [{{name: c}}]\n        affinity:\n          podAntiAffinity:\n            preferredDuringSchedulingIgnoredDuringExecution:\n            - {{weight: {weight}, podAffinityTerm: {{topologyKey: zone}}}}\n"
            )
        };
        let group = |api_version: &str, kind: &str, spec: &str| {
            format!(
                "apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: g}}\nspec: {spec}\n"
            )
        };
        let cases = [
            (
                node_affinity(101),
                "m.yaml:14:18: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 101: must be in the range 1-100",
            ),
            (
                node_affinity(0),
                "m.yaml:14:18: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 0: must be in the range 1-100",
            ),
            (
                pod_affinity("podAffinity", 101),
                "m.yaml:14:17: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 101: must be in the range 1-100",
            ),
            (
                pod_affinity("podAntiAffinity", -5),
                "m.yaml:14:17: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: -5: must be in the range 1-100",
            ),
            (
                volcano_job(1, 101),
                "m.yaml:15:24: spec.tasks[0].template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 101: must be in the range 1-100",
            ),
            (
                volcano_job(-1, 50),
                "m.yaml:5:17: spec.minAvailable: -1: must be at least 0",
            ),
            (
                group(
                    "scheduling.volcano.sh/v1beta1",
                    "PodGroup",
                    "{minMember: -1}",
                ),
                "m.yaml:4:19: spec.minMember: -1: must be at least 0",
            ),
            (
                group("scheduling.x-k8s.io/v1alpha1", "PodGroup", "{minMember: 0}"),
                "m.yaml:4:19: spec.minMember: 0: must be at least 1",
            ),
            (
                group(
                    "scheduling.godel.kubewharf.io/v1alpha1",
                    "PodGroup",
                    "{minMember: 0}",
                ),
                "m.yaml:4:19: spec.minMember: 0: must be at least 1",
            ),
            (
                group(
                    "scheduling.x-k8s.io/v1alpha1",
                    "PodGroup",
                    "{minMember: -3}",
                ),
                "m.yaml:4:19: spec.minMember: -3: must be at least 1",
            ),
            (
                group(
                    "scheduling.k8s.io/v1alpha2",
                    "PodGroup",
                    "{schedulingPolicy: {gang: {minCount: 0}}}",
                ),
                "m.yaml:4:44: spec.schedulingPolicy.gang.minCount: 0: must be at least 1",
            ),
            (
                group(
                    "scheduling.k8s.io/v1alpha1",
                    "Workload",
                    "{podGroups: [{name: a, policy: {gang: {minCount: 2}}}, {name: b, policy: {gang: {minCount: -1}}}]}",
                ),
                "m.yaml:4:98: spec.podGroups[1].policy.gang.minCount: -1: must be at least 1",
            ),
        ];
        for (text, expected) in &cases {
            let (manifests, problems) = parse_text(&Arc::from("m.yaml"), text);
            assert_eq!(problems, [], "lint still reads it: {text}");
            let set = crate::ManifestSet {
                sources: Vec::new(),
                manifests,
                problems,
                skipped: Vec::new(),
            };
            let refused = set.into_plannable().err().unwrap_or_default();
            let refused: Vec<String> = refused.iter().map(ToString::to_string).collect();
            assert_eq!(refused, [*expected], "{text}");
        }
        // The boundaries pass.
        for text in [
            node_affinity(1),
            pod_affinity("podAffinity", 100),
            volcano_job(0, 100),
            group(
                "scheduling.volcano.sh/v1beta1",
                "PodGroup",
                "{minMember: 0}",
            ),
            group("scheduling.x-k8s.io/v1alpha1", "PodGroup", "{}"),
        ] {
            let (manifests, problems) = parse_text(&Arc::from("m.yaml"), &text);
            let refused: Vec<_> = manifests
                .iter()
                .filter_map(|m| refused_for_planning(&m.object).err())
                .collect();
            assert_eq!((problems, refused), (vec![], vec![]), "{text}");
        }
    }

    fn with_valid_extras() -> String {
        format!(
            "{POD}  tolerations:\n  - {{operator: Exists}}\n  - {{key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 5}}\n  topologySpreadConstraints:\n  - {{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3}}\n"
        )
    }
}
