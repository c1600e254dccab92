//! The API server's admission of a planned pod in its namespace, before any scheduler sees
//! it: LimitRanger ([`limit_range`]) sets each container's missing requests and limits from
//! the `type: Container` defaults, then rejects a pod outside a range's
//! min/max/maxLimitRequestRatio (per container, or over the pod's totals); ResourceQuota (`plugin/pkg/admission/resourcequota`, usage as
//! `pkg/quota/v1/evaluator/core/pods.go` counts it) rejects a pod whose usage would take a
//! quota of its namespace past `spec.hard`. Usage starts as the namespace's non-terminal pods
//! of the state and grows with every pod admitted earlier in the same plan.
//!
//! Quota scopes: `BestEffort`, `NotBestEffort` and `PriorityClass` (in `scopes` and in
//! `scopeSelector`) are applied; a quota with another scope (`Terminating`,
//! `CrossNamespacePodAffinity`, ...) is left out, said once in the pod's notes.

use std::collections::BTreeMap;

use df_model::quantity::Quantity;
use df_model::quota::ScopedResourceSelectorRequirement;
use df_model::{Container, LimitRange, Pod, ResourceQuota, resources};
use df_state::ClusterState;
use df_systems::gang::{Gang, PodSource, RejectedPod};

mod limit_range;

use limit_range::{apply_defaults, limit_violations};

/// Usage by quota resource name (`requests.cpu`, `pods`...), CPU in millicores as quantities.
type Usage = BTreeMap<String, Quantity>;

/// The resources a quota on which makes every container state its request or limit
/// (upstream's backward-compatibility rule: "must specify").
const MUST_SPECIFY: [&str; 6] = [
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];

/// What admission did to a pod it let through.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// LimitRanger's defaults and quotas left out, for the pod's notes.
    pub notes: Vec<String>,
}

/// The LimitRanges and ResourceQuotas of every namespace, with each quota's usage so far.
pub struct NamespaceAdmission<'a> {
    limit_ranges: Vec<&'a LimitRange>,
    quotas: Vec<(&'a ResourceQuota, Usage)>,
}

impl<'a> NamespaceAdmission<'a> {
    /// Each quota's usage: its namespace's non-terminal pods of `state` that it covers.
    pub fn new(state: &'a ClusterState) -> NamespaceAdmission<'a> {
        let mut limit_ranges: Vec<&LimitRange> = state.limit_ranges.iter().collect();
        limit_ranges.sort_by_key(|l| (&l.metadata.namespace, &l.metadata.name));
        let mut quotas: Vec<(&ResourceQuota, Usage)> = state
            .resource_quotas
            .iter()
            .map(|quota| {
                let mut used = Usage::new();
                for pod in state.pods_in_namespace(&quota.metadata.namespace) {
                    if !pod.is_terminated() && covers(quota, pod) == Some(true) {
                        add(&mut used, &pod_usage(pod));
                    }
                }
                (quota, used)
            })
            .collect();
        quotas.sort_by_key(|(q, _)| (&q.metadata.namespace, &q.metadata.name));
        NamespaceAdmission {
            limit_ranges,
            quotas,
        }
    }

    /// Admit `pod` as the API server would on create, in its order: the pod's defaulting
    /// (a request left unset takes the container's limit), LimitRanger's defaults (mutating
    /// admission), the pod's validation (a request above its limit: `Pod "NAME" is invalid:
    /// ...`), then LimitRanger's and ResourceQuota's checks (validating admission: `pods "NAME"
    /// is forbidden: ...`). What it sets is written into `pod`; an admitted pod's usage counts
    /// for the pods after it. `Err` is the API server's rejection in its words.
    pub fn admit(&mut self, pod: &mut Pod) -> Result<Admitted, String> {
        let namespace = pod.metadata.namespace.clone();
        let pod_name = pod.metadata.name.clone();
        let forbidden = |why: String| format!("pods {pod_name:?} is forbidden: {why}");
        let mut admitted = Admitted::default();
        default_requests_from_limits(pod);
        let ranges: Vec<&LimitRange> = self
            .limit_ranges
            .iter()
            .filter(|l| l.metadata.namespace == namespace)
            .copied()
            .collect();
        for range in &ranges {
            admitted.notes.extend(apply_defaults(range, pod));
        }
        if let Some(invalid) = aggregate(requests_above_limits(pod)) {
            return Err(format!("Pod {pod_name:?} is invalid: {invalid}"));
        }
        for range in &ranges {
            if let Some(why) = aggregate(limit_violations(range, pod)) {
                return Err(forbidden(why));
            }
        }
        let usage = pod_usage(pod);
        let mut charged = Vec::new();
        for (index, (quota, used)) in self.quotas.iter().enumerate() {
            if quota.metadata.namespace != namespace {
                continue;
            }
            let name = &quota.metadata.name;
            match covers(quota, pod) {
                None => {
                    admitted.notes.push(format!(
                        "ResourceQuota {name} has a scope not modelled: not applied"
                    ));
                    continue;
                }
                Some(false) => continue,
                Some(true) => {}
            }
            if let Some(missing) = missing_specification(quota, pod) {
                return Err(forbidden(format!(
                    "failed quota: {name}: must specify {missing}"
                )));
            }
            let exceeded: Vec<&str> = quota
                .spec
                .hard
                .iter()
                .filter(|(resource, hard)| {
                    usage.get(resource.as_str()).is_some_and(|asked| {
                        asked.milli_value() > 0
                            && sum(used.get(resource.as_str()), *asked).milli_value()
                                > hard.milli_value()
                    })
                })
                .map(|(resource, _)| resource.as_str())
                .collect();
            if !exceeded.is_empty() {
                let list = |value: &dyn Fn(&str) -> Quantity| {
                    exceeded
                        .iter()
                        .map(|r| format!("{r}={}", show(r, value(r))))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                return Err(forbidden(format!(
                    "exceeded quota: {name}, requested: {}, used: {}, limited: {}",
                    list(&|r| usage[r]),
                    list(&|r| used.get(r).copied().unwrap_or_default()),
                    list(&|r| quota.spec.hard[r]),
                )));
            }
            charged.push(index);
        }
        for index in charged {
            add(&mut self.quotas[index].1, &usage);
        }
        Ok(admitted)
    }
}

/// Admit the gang's pods of the inputs, in member order (those of the state exist already): a
/// rejected pod is never created, so it leaves `members` for `rejected`, and a gang left
/// with fewer pods than its minimum waits for them, saying why.
pub(crate) fn admit_gang(gang: &mut Gang, admission: &mut NamespaceAdmission) {
    for mut member in std::mem::take(&mut gang.members) {
        if matches!(member.source, PodSource::State) {
            gang.members.push(member);
            continue;
        }
        match admission.admit(&mut member.pod) {
            Ok(_) => gang.members.push(member),
            Err(reason) => gang.rejected.push(RejectedPod {
                pod: member.pod,
                reason,
            }),
        }
    }
}

/// Errors as upstream aggregates them: one alone, several in brackets; `None` for none.
fn aggregate(errors: Vec<String>) -> Option<String> {
    match errors.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(format!("[{}]", many.join(", "))),
    }
}

/// The API server's defaulting of a pod (SetDefaults_Pod), before any admission: each
/// container's (and init container's) resource with a limit and no request requests the limit.
fn default_requests_from_limits(pod: &mut Pod) {
    for container in pod
        .spec
        .containers
        .iter_mut()
        .chain(pod.spec.init_containers.iter_mut())
    {
        let resources = &mut container.resources;
        for (name, limit) in &resources.limits {
            resources.requests.entry(name.clone()).or_insert(*limit);
        }
    }
}

/// The pod's validation after mutating admission: a request above its container's limit
/// (LimitRanger's default limit can fall below a stated request), in the field error's words:
/// `spec.containers[0].resources.requests: Invalid value: "1Gi": must be less than or equal to
/// memory limit of 512Mi`.
fn requests_above_limits(pod: &Pod) -> Vec<String> {
    let containers = pod.spec.containers.iter().enumerate();
    let inits = pod.spec.init_containers.iter().enumerate();
    let fields = containers
        .map(|(i, c)| (format!("spec.containers[{i}]"), c))
        .chain(inits.map(|(i, c)| (format!("spec.initContainers[{i}]"), c)));
    let mut errors = Vec::new();
    for (field, container) in fields {
        let resources = &container.resources;
        for (name, request) in &resources.requests {
            if let Some(limit) = resources.limits.get(name).filter(|limit| request > *limit) {
                errors.push(format!(
                    "{field}.resources.requests: Invalid value: \"{}\": must be less than or equal to {name} limit of {}",
                    show(name, *request),
                    show(name, *limit)
                ));
            }
        }
    }
    errors
}

fn sum(a: Option<&Quantity>, b: Quantity) -> Quantity {
    Quantity::from_milli(a.map_or(0, |a| a.milli_value()) + b.milli_value())
}

fn add(total: &mut Usage, usage: &Usage) {
    for (resource, quantity) in usage {
        let entry = total.entry(resource.clone()).or_default();
        *entry = sum(Some(entry), *quantity);
    }
}

/// A quantity as upstream's `Quantity.String()` prints it. A quantity keeps the format it was
/// written in (`1Gi` binary, `1G` decimal), which [`Quantity`] does not hold, so it is told
/// from the value: bytes (memory, storage, hugepages) that are a whole number of KiB or more in
/// the largest binary unit that divides them (`2Gi`, `1536Mi`), everything else in decimal
/// units (`1500m`, `2`, `1G`, `2k`). A byte count written as a plain number that happens to be
/// a multiple of 1024 (`2048`) prints as `2Ki` where upstream prints `2048`.
fn show(resource: &str, quantity: Quantity) -> String {
    let milli = quantity.milli_value();
    let base = resource
        .strip_prefix("requests.")
        .or_else(|| resource.strip_prefix("limits."))
        .unwrap_or(resource);
    let bytes = matches!(base, "memory" | "ephemeral-storage" | "storage")
        || base.starts_with("hugepages-");
    if bytes && milli % 1000 == 0 {
        const BINARY: [(&str, u32); 6] = [
            ("Ei", 60),
            ("Pi", 50),
            ("Ti", 40),
            ("Gi", 30),
            ("Mi", 20),
            ("Ki", 10),
        ];
        let value = milli / 1000;
        if let Some((unit, shift)) = BINARY
            .iter()
            .find(|(_, shift)| value != 0 && value % (1i64 << shift) == 0)
        {
            return format!("{}{unit}", value >> shift);
        }
    }
    decimal(milli)
}

/// A quantity of `milli` thousandths in upstream's canonical decimal form: the largest power
/// of 1000 that keeps the number whole (`1500m`, `3`, `2k`, `1G`).
fn decimal(milli: i64) -> String {
    if milli % 1000 != 0 {
        return format!("{milli}m");
    }
    let mut value = milli / 1000;
    const DECIMAL: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    let mut exponent = 0;
    while value != 0 && value % 1000 == 0 && exponent + 1 < DECIMAL.len() {
        value /= 1000;
        exponent += 1;
    }
    format!("{value}{}", DECIMAL[exponent])
}

/// What one pod counts against a quota (upstream's PodUsageFunc): `pods` and `count/pods`,
/// its requests as `requests.<name>` (and bare `cpu`, `memory`, `ephemeral-storage`), its
/// limits as `limits.<name>` for those three.
fn pod_usage(pod: &Pod) -> Usage {
    let mut usage = Usage::from([
        ("pods".to_string(), Quantity::from_value(1)),
        ("count/pods".to_string(), Quantity::from_value(1)),
    ]);
    let requests = resources::pod_requests(&pod.spec, false);
    let limits = pod_limits(pod);
    let native = [
        (
            "cpu",
            Quantity::from_milli(requests.milli_cpu),
            Quantity::from_milli(limits.milli_cpu),
        ),
        (
            "memory",
            Quantity::from_value(requests.memory),
            Quantity::from_value(limits.memory),
        ),
        (
            "ephemeral-storage",
            Quantity::from_value(requests.ephemeral_storage),
            Quantity::from_value(limits.ephemeral_storage),
        ),
    ];
    for (name, request, limit) in native {
        usage.insert(name.to_string(), request);
        usage.insert(format!("requests.{name}"), request);
        usage.insert(format!("limits.{name}"), limit);
    }
    for (name, value) in &requests.scalar {
        usage.insert(format!("requests.{name}"), Quantity::from_value(*value));
    }
    usage
}

/// The pod's limits: the containers' sum, or an init container's if larger, plus overhead.
fn pod_limits(pod: &Pod) -> resources::Resources {
    let limits = |c: &Container| resources::Resources::from_list(&c.resources.limits);
    let mut total = resources::Resources::default();
    for container in &pod.spec.containers {
        total.add(&limits(container));
    }
    for init in &pod.spec.init_containers {
        let init = limits(init);
        total.milli_cpu = total.milli_cpu.max(init.milli_cpu);
        total.memory = total.memory.max(init.memory);
        total.ephemeral_storage = total.ephemeral_storage.max(init.ephemeral_storage);
    }
    total.add(&resources::Resources::from_list(&pod.spec.overhead));
    total
}

/// Whether `quota` counts `pod`; `None` when a scope it names is not modelled.
fn covers(quota: &ResourceQuota, pod: &Pod) -> Option<bool> {
    let scopes = quota
        .spec
        .scopes
        .iter()
        .map(|scope| ScopedResourceSelectorRequirement {
            scope_name: scope.clone(),
            operator: "Exists".to_string(),
            values: Vec::new(),
        });
    let selected = quota
        .spec
        .scope_selector
        .iter()
        .flat_map(|s| s.match_expressions.iter().cloned());
    let mut covered = true;
    for requirement in scopes.chain(selected) {
        covered &= scope_matches(&requirement, pod)?;
    }
    Some(covered)
}

/// One scope requirement against the pod (upstream `podMatchesScopeFunc`).
fn scope_matches(requirement: &ScopedResourceSelectorRequirement, pod: &Pod) -> Option<bool> {
    let best_effort = is_best_effort(pod);
    match requirement.scope_name.as_str() {
        "BestEffort" => Some(best_effort),
        "NotBestEffort" => Some(!best_effort),
        "PriorityClass" => {
            let class = &pod.spec.priority_class_name;
            let listed = requirement.values.contains(class);
            Some(match requirement.operator.as_str() {
                "In" => listed,
                "NotIn" => !listed,
                "Exists" => !class.is_empty(),
                "DoesNotExist" => class.is_empty(),
                _ => return None,
            })
        }
        _ => None,
    }
}

/// QoS class BestEffort: no container (init included) requests or limits CPU or memory.
fn is_best_effort(pod: &Pod) -> bool {
    pod.spec
        .containers
        .iter()
        .chain(&pod.spec.init_containers)
        .all(|c| {
            let r = &c.resources;
            ["cpu", "memory"]
                .iter()
                .all(|n| !r.requests.contains_key(n) && !r.limits.contains_key(n))
        })
}

/// `requests.cpu for: main,side; limits.memory for: main`: the compute resources `quota` holds
/// that a container leaves unset, or `None` when every container states them.
fn missing_specification(quota: &ResourceQuota, pod: &Pod) -> Option<String> {
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for resource in MUST_SPECIFY
        .iter()
        .filter(|r| quota.spec.hard.contains_key(r))
    {
        let (limits, name) = match resource.split_once('.') {
            Some(("limits", name)) => (true, name),
            Some((_, name)) => (false, name),
            None => (false, *resource),
        };
        for c in pod.spec.containers.iter().chain(&pod.spec.init_containers) {
            let list = if limits {
                &c.resources.limits
            } else {
                &c.resources.requests
            };
            if !list.contains_key(name) {
                missing.entry(resource).or_default().push(&c.name);
            }
        }
    }
    if missing.is_empty() {
        return None;
    }
    Some(
        missing
            .iter()
            .map(|(resource, containers)| {
                let mut containers = containers.clone();
                containers.sort();
                containers.dedup();
                format!("{resource} for: {}", containers.join(","))
            })
            .collect::<Vec<_>>()
            .join("; "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::Object;
    use df_state::recorded::parse_state;

    /// A state from YAML documents (namespace `ns` unless they say otherwise).
    fn state(yaml: &str) -> ClusterState {
        ClusterState::from_objects(parse_state("state.yaml", yaml.as_bytes()).unwrap())
    }

    /// A pod `p` in `ns` with one container `main` of these resources (YAML flow mapping).
    fn pod(spec_extra: &str, resources: &str) -> Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ns}}\nspec:\n{spec_extra}  containers:\n  - {{name: main, image: a, resources: {resources}}}\n"
        );
        match parse_state("pod.yaml", yaml.as_bytes()).unwrap().remove(0) {
            Object::Pod(pod) => pod,
            other => panic!("not a pod: {}", other.kind()),
        }
    }

    const RANGE: &str = "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: ns}\nspec:\n  limits:\n  - type: Container\n";

    fn quota(spec: &str) -> String {
        format!(
            "apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: q, namespace: ns}}\nspec:\n{spec}"
        )
    }

    /// A running pod of the state in `ns` with these resources and this phase.
    fn running(name: &str, phase: &str, extra: &str, resources: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: ns}}\nspec:\n  nodeName: n1\n{extra}  containers:\n  - {{name: main, image: a, resources: {resources}}}\nstatus: {{phase: {phase}}}\n"
        )
    }

    const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '64', memory: 256Gi}}\n";

    #[test]
    fn admission_in_upstream_words() {
        let cases: Vec<(&str, String, Pod, Result<&str, &str>)> = vec![
            (
                "defaults fill what the container leaves unset",
                format!(
                    "{RANGE}    default: {{cpu: 500m, memory: 512Mi}}\n    defaultRequest: {{cpu: 250m}}\n"
                ),
                pod("", "{requests: {memory: 256Mi}}"),
                Ok(
                    "LimitRange lr: LimitRanger plugin set: cpu request for container main; cpu, memory limit for container main",
                ),
            ),
            (
                "a limit above max",
                format!("{RANGE}    max: {{cpu: '2'}}\n"),
                pod("", "{limits: {cpu: '4'}}"),
                Err("maximum cpu usage per Container is 2, but limit is 4"),
            ),
            (
                "a request below min",
                format!("{RANGE}    min: {{memory: 256Mi}}\n"),
                pod("", "{requests: {memory: 128Mi}}"),
                Err("minimum memory usage per Container is 256Mi, but request is 128Mi"),
            ),
            (
                "a limit to request ratio above the maximum",
                format!("{RANGE}    maxLimitRequestRatio: {{cpu: '2'}}\n"),
                pod("", "{requests: {cpu: 250m}, limits: {cpu: '1'}}"),
                Err(
                    "cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000",
                ),
            ),
            (
                "two violations are listed together",
                format!("{RANGE}    max: {{cpu: '2', memory: 1Gi}}\n"),
                pod("", "{limits: {cpu: '4', memory: 2Gi}}"),
                Err(
                    "[maximum cpu usage per Container is 2, but limit is 4, maximum memory usage per Container is 1Gi, but limit is 2Gi]",
                ),
            ),
            (
                "requests past the quota with the running pods; a Succeeded pod counts for nothing",
                format!(
                    "{}---\n{}---\n{}",
                    quota("  hard: {requests.memory: 4Gi}\n"),
                    running("r1", "Running", "", "{requests: {memory: 3Gi}}"),
                    running("done", "Succeeded", "", "{requests: {memory: 3Gi}}")
                ),
                pod("", "{requests: {memory: 2Gi}}"),
                Err(
                    "exceeded quota: q, requested: requests.memory=2Gi, used: requests.memory=3Gi, limited: requests.memory=4Gi",
                ),
            ),
            (
                "a limit alone is the request too (the pod's defaulting): no default request",
                format!(
                    "{RANGE}    defaultRequest: {{cpu: 100m}}\n---\n{}",
                    quota("  hard: {requests.cpu: 500m}\n")
                ),
                pod("", "{limits: {cpu: '1'}}"),
                Err(
                    "exceeded quota: q, requested: requests.cpu=1, used: requests.cpu=0, limited: requests.cpu=500m",
                ),
            ),
            (
                "a default limit below the stated request makes the pod invalid",
                format!("{RANGE}    default: {{cpu: 500m, memory: 512Mi}}\n"),
                pod("", "{requests: {cpu: '1', memory: 1Gi}}"),
                Err(
                    "INVALID[spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or equal to cpu limit of 500m, spec.containers[0].resources.requests: Invalid value: \"1Gi\": must be less than or equal to memory limit of 512Mi]",
                ),
            ),
            (
                "a bare cpu quota, in whole cores",
                format!(
                    "{}---\n{}",
                    quota("  hard: {cpu: '4'}\n"),
                    running("r1", "Running", "", "{requests: {cpu: '3'}}")
                ),
                pod("", "{requests: {cpu: '2'}}"),
                Err("exceeded quota: q, requested: cpu=2, used: cpu=3, limited: cpu=4"),
            ),
            (
                "a quota on limits.cpu needs every container to set one",
                quota("  hard: {limits.cpu: '8', requests.cpu: '8'}\n"),
                pod("", "{requests: {cpu: '1'}}"),
                Err("failed quota: q: must specify limits.cpu for: main"),
            ),
            (
                "count/pods counts pods",
                format!(
                    "{}---\n{}",
                    quota("  hard: {count/pods: '1'}\n"),
                    running("r1", "Running", "", "{}")
                ),
                pod("", "{}"),
                Err(
                    "exceeded quota: q, requested: count/pods=1, used: count/pods=1, limited: count/pods=1",
                ),
            ),
            (
                "an extended resource is quota'd by its requests",
                format!(
                    "{}---\n{}",
                    quota("  hard: {requests.nvidia.com/gpu: '4'}\n"),
                    running("r1", "Running", "", "{limits: {nvidia.com/gpu: '3'}}")
                ),
                pod("", "{limits: {nvidia.com/gpu: '2'}}"),
                Err(
                    "exceeded quota: q, requested: requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=3, limited: requests.nvidia.com/gpu=4",
                ),
            ),
            (
                "a BestEffort quota ignores a pod with requests",
                format!(
                    "{}---\n{}",
                    quota("  hard: {pods: '1'}\n  scopes: [BestEffort]\n"),
                    running("r1", "Running", "", "{}")
                ),
                pod("", "{requests: {cpu: 100m}}"),
                Ok(""),
            ),
            (
                "a BestEffort quota counts a pod without any",
                format!(
                    "{}---\n{}",
                    quota("  hard: {pods: '1'}\n  scopes: [BestEffort]\n"),
                    running("r1", "Running", "", "{}")
                ),
                pod("", "{}"),
                Err("exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1"),
            ),
            (
                "a PriorityClass scope selector counts only its classes",
                format!(
                    "{}---\n{}---\n{}",
                    quota(
                        "  hard: {pods: '1'}\n  scopeSelector:\n    matchExpressions:\n    - {scopeName: PriorityClass, operator: In, values: [high]}\n"
                    ),
                    running("r1", "Running", "  priorityClassName: high\n", "{}"),
                    running("r2", "Running", "  priorityClassName: low\n", "{}")
                ),
                pod("  priorityClassName: high\n", "{}"),
                Err("exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1"),
            ),
            (
                "a scope not modelled leaves the quota out, said",
                quota("  hard: {pods: '0'}\n  scopes: [Terminating]\n"),
                pod("", "{}"),
                Ok("ResourceQuota q has a scope not modelled: not applied"),
            ),
        ];
        for (case, objects, mut pod, expected) in cases {
            let state = state(&format!("{NODE}---\n{objects}"));
            let got = NamespaceAdmission::new(&state)
                .admit(&mut pod)
                .map(|admitted| admitted.notes.join("\n"));
            let expected =
                expected
                    .map(str::to_string)
                    .map_err(|why| match why.strip_prefix("INVALID") {
                        Some(invalid) => format!("Pod \"p\" is invalid: {invalid}"),
                        None => format!("pods \"p\" is forbidden: {why}"),
                    });
            assert_eq!(got, expected, "{case}");
        }
    }

    /// Quantities in messages as upstream's `Quantity.String()` prints them.
    #[test]
    fn quantities_print_as_upstream() {
        let cases = [
            ("requests.cpu", "1500m", "1500m"),
            ("cpu", "2", "2"),
            ("cpu", "0.5", "500m"),
            ("cpu", "2000", "2k"),
            ("requests.memory", "2Gi", "2Gi"),
            ("memory", "1536Mi", "1536Mi"),
            ("limits.memory", "1G", "1G"),
            ("memory", "1500M", "1500M"),
            ("memory", "100", "100"),
            ("requests.ephemeral-storage", "10Gi", "10Gi"),
            ("hugepages-2Mi", "4Mi", "4Mi"),
            ("pods", "3", "3"),
            ("count/pods", "1000", "1k"),
            ("requests.nvidia.com/gpu", "4", "4"),
            ("memory", "0", "0"),
        ];
        for (resource, written, shown) in cases {
            let quantity = Quantity::parse(written).unwrap();
            assert_eq!(show(resource, quantity), shown, "{resource}={written}");
        }
    }

    #[test]
    fn defaults_become_the_pods_requests_and_admitted_pods_use_the_quota() {
        let state = state(&format!(
            "{NODE}---\n{RANGE}    defaultRequest: {{cpu: 300m}}\n---\n{}",
            quota("  hard: {requests.cpu: 500m}\n")
        ));
        let mut admission = NamespaceAdmission::new(&state);
        let mut first = pod("", "{}");
        assert!(admission.admit(&mut first).is_ok());
        assert_eq!(resources::pod_requests(&first.spec, false).milli_cpu, 300);
        let mut second = pod("", "{}");
        assert_eq!(
            admission.admit(&mut second),
            Err("pods \"p\" is forbidden: exceeded quota: q, requested: requests.cpu=300m, used: requests.cpu=300m, limited: requests.cpu=500m".to_string())
        );
    }
}
