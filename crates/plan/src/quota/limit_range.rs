//! LimitRanger (`plugin/pkg/admission/limitranger`): a LimitRange's `type: Container` items
//! default each container's missing requests and limits, then the `Container` items bound
//! every container and the `type: Pod` items bound the pod's totals, with `min`, `max` and
//! `maxLimitRequestRatio`. Pod items set no defaults (upstream has none at pod level).

use super::show;
use df_model::quantity::Quantity;
use df_model::quota::LimitRangeItem;
use df_model::{Container, LimitRange, Pod, ResourceList};

/// LimitRanger's defaulting: each container's (init containers' too) missing limits from the
/// `Container` items' `default`, missing requests from their `defaultRequest`; what it set, in
/// the words of the annotation upstream writes on the pod.
pub(super) fn apply_defaults(range: &LimitRange, pod: &mut Pod) -> Option<String> {
    let (default_limits, default_requests) = container_defaults(range);
    let mut set_for = Vec::new();
    let containers = pod.spec.containers.iter_mut().map(|c| ("container", c));
    let inits = pod.spec.init_containers.iter_mut();
    for (what, container) in containers.chain(inits.map(|c| ("init container", c))) {
        let requests = fill(&default_requests, &mut container.resources.requests);
        let limits = fill(&default_limits, &mut container.resources.limits);
        let name = &container.name;
        if !requests.is_empty() {
            set_for.push(format!("{} request for {what} {name}", requests.join(", ")));
        }
        if !limits.is_empty() {
            set_for.push(format!("{} limit for {what} {name}", limits.join(", ")));
        }
    }
    (!set_for.is_empty()).then(|| {
        format!(
            "LimitRange {}: LimitRanger plugin set: {}",
            range.metadata.name,
            set_for.join("; ")
        )
    })
}

/// The default limits and requests of the `Container` items, after the API server's
/// defaulting of each item (SetDefaults_LimitRangeItem, for ranges written by hand): the
/// default limit falls back to `max`, the default request to the default limit, then to `min`.
fn container_defaults(range: &LimitRange) -> (ResourceList, ResourceList) {
    let mut default_limits = ResourceList::new();
    let mut default_requests = ResourceList::new();
    for item in range.spec.limits.iter().filter(|l| l.kind == "Container") {
        let mut limits = item.default.clone();
        for (name, max) in &item.max {
            limits.entry(name.clone()).or_insert(*max);
        }
        let mut requests = item.default_request.clone();
        for (name, quantity) in limits.iter().chain(&item.min) {
            requests.entry(name.clone()).or_insert(*quantity);
        }
        default_limits.extend(limits);
        default_requests.extend(requests);
    }
    (default_limits, default_requests)
}

/// Set the `defaults` `list` lacks; the names it set.
fn fill(defaults: &ResourceList, list: &mut ResourceList) -> Vec<String> {
    let mut names = Vec::new();
    for (name, quantity) in defaults {
        if !list.contains_key(name) {
            list.insert(name.clone(), *quantity);
            names.push(name.to_string());
        }
    }
    names
}

/// LimitRanger's checks, in upstream's words (`maximum cpu usage per Container is 2, but limit
/// is 4`; v1.34 ends them without a period): each `Container` item over every container (init containers after), each `Pod`
/// item over the pod's totals.
pub(super) fn limit_violations(range: &LimitRange, pod: &Pod) -> Vec<String> {
    let mut errors = Vec::new();
    for item in &range.spec.limits {
        match item.kind.as_str() {
            "Container" => {
                for c in pod.spec.containers.iter().chain(&pod.spec.init_containers) {
                    check(
                        item,
                        &c.resources.requests,
                        &c.resources.limits,
                        &mut errors,
                    );
                }
            }
            "Pod" => {
                let requests = pod_totals(pod, |c| &c.resources.requests);
                let limits = pod_totals(pod, |c| &c.resources.limits);
                check(item, &requests, &limits, &mut errors);
            }
            _ => {}
        }
    }
    errors
}

/// One item's `min`, `max` and `maxLimitRequestRatio` against one set of requests and limits
/// (a container's, or the pod's totals), each failure appended to `errors`.
fn check(
    item: &LimitRangeItem,
    requests: &ResourceList,
    limits: &ResourceList,
    errors: &mut Vec<String>,
) {
    let per = &item.kind;
    for (name, min) in &item.min {
        let enforced = show(name, *min);
        let why = match (requests.get(name), limits.get(name)) {
            (None, _) => format!("is {enforced}.  No request is specified"),
            (Some(r), _) if r < min => format!("is {enforced}, but request is {}", show(name, *r)),
            (_, Some(l)) if l < min => format!("is {enforced}, but limit is {}", show(name, *l)),
            _ => continue,
        };
        errors.push(format!("minimum {name} usage per {per} {why}"));
    }
    for (name, max) in &item.max {
        let enforced = show(name, *max);
        let why = match (requests.get(name), limits.get(name)) {
            (_, None) => format!("is {enforced}.  No limit is specified"),
            (_, Some(l)) if l > max => format!("is {enforced}, but limit is {}", show(name, *l)),
            (Some(r), _) if r > max => format!("is {enforced}, but request is {}", show(name, *r)),
            _ => continue,
        };
        errors.push(format!("maximum {name} usage per {per} {why}"));
    }
    for (name, ratio) in &item.max_limit_request_ratio {
        let enforced = show(name, *ratio);
        let request = requests.get(name).map_or(0, |q| q.milli_value());
        let limit = limits.get(name).map_or(0, |q| q.milli_value());
        let why = if request == 0 {
            "no request is specified or request is 0".to_string()
        } else if limit == 0 {
            "no limit is specified or limit is 0".to_string()
        } else {
            let observed = limit as f64 / request as f64;
            if observed * 1000.0 <= ratio.milli_value() as f64 {
                continue;
            }
            format!("provided ratio is {observed:.6}")
        };
        errors.push(format!(
            "{name} max limit to request ratio per {per} is {enforced}, but {why}"
        ));
    }
}

/// The pod's requests or limits as LimitRanger totals them for `type: Pod` items: the
/// containers' sum of each resource any of them states, or more if an init container (with
/// the sidecars started before it) needs more; sidecars (`restartPolicy: Always`) add to the
/// sum. No overhead, no defaults of its own.
fn pod_totals(pod: &Pod, list: fn(&Container) -> &ResourceList) -> ResourceList {
    let mut total = ResourceList::new();
    for container in &pod.spec.containers {
        add(&mut total, list(container));
    }
    let mut sidecars = ResourceList::new();
    let mut init_peak = ResourceList::new();
    for init in &pod.spec.init_containers {
        let during = if init.restart_policy.as_deref() == Some("Always") {
            add(&mut total, list(init));
            add(&mut sidecars, list(init));
            sidecars.clone()
        } else {
            let mut during = list(init).clone();
            add(&mut during, &sidecars);
            during
        };
        for (name, quantity) in during {
            let peak = init_peak.entry(name).or_default();
            *peak = (*peak).max(quantity);
        }
    }
    for (name, peak) in init_peak {
        let entry = total.entry(name).or_default();
        *entry = (*entry).max(peak);
    }
    total
}

fn add(total: &mut ResourceList, more: &ResourceList) {
    for (name, quantity) in more {
        let entry = total.entry(name.clone()).or_default();
        *entry = Quantity::from_milli(entry.milli_value().saturating_add(quantity.milli_value()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::Object;
    use df_state::recorded::parse_state;

    /// The objects of one YAML text.
    fn objects(yaml: &str) -> Vec<Object> {
        parse_state("test.yaml", yaml.as_bytes()).unwrap()
    }

    /// A LimitRange `lr` of these items (YAML flow sequence).
    fn range(items: &str) -> LimitRange {
        let yaml = format!(
            "apiVersion: v1\nkind: LimitRange\nmetadata: {{name: lr, namespace: ns}}\nspec: {{limits: {items}}}\n"
        );
        match objects(&yaml).remove(0) {
            Object::LimitRange(range) => range,
            other => panic!("not a LimitRange: {}", other.kind()),
        }
    }

    /// A pod of these containers and init containers (YAML flow sequences).
    fn pod(containers: &str, init: &str) -> Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ns}}\nspec: {{containers: {containers}, initContainers: {init}}}\n"
        );
        match objects(&yaml).remove(0) {
            Object::Pod(pod) => pod,
            other => panic!("not a pod: {}", other.kind()),
        }
    }

    /// Pod items bound the pod's totals (upstream's admission_test.go cases, in our data):
    /// the containers' sum, an init container's peak when larger, sidecars added, and the
    /// messages LimitRanger writes.
    #[test]
    fn pod_items_bound_the_pods_totals() {
        let two = "[{name: a, resources: {requests: {cpu: '1', memory: 1Gi}, limits: {cpu: '2', memory: 2Gi}}}, {name: b, resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: '1', memory: 1Gi}}}]";
        let cases: Vec<(&str, &str, &str, &str, Vec<&str>)> = vec![
            (
                "within max: 3 CPUs of limits across two containers",
                "[{type: Pod, max: {cpu: '3', memory: 4Gi}}]",
                two,
                "[]",
                vec![],
            ),
            (
                "the containers' limits summed pass max, each alone does not",
                "[{type: Pod, max: {cpu: 2500m, memory: 2Gi}}]",
                two,
                "[]",
                vec![
                    "maximum cpu usage per Pod is 2500m, but limit is 3",
                    "maximum memory usage per Pod is 2Gi, but limit is 3Gi",
                ],
            ),
            (
                "the summed requests fall short of min",
                "[{type: Pod, min: {cpu: '2'}}]",
                two,
                "[]",
                vec!["minimum cpu usage per Pod is 2, but request is 1500m"],
            ),
            (
                "an init container larger than the containers' sum sets the total",
                "[{type: Pod, max: {cpu: '4'}}]",
                two,
                "[{name: setup, resources: {requests: {cpu: '1'}, limits: {cpu: '5'}}}]",
                vec!["maximum cpu usage per Pod is 4, but limit is 5"],
            ),
            (
                "a sidecar adds to the containers' sum",
                "[{type: Pod, max: {cpu: '3'}}]",
                two,
                "[{name: proxy, restartPolicy: Always, resources: {requests: {cpu: 100m}, limits: {cpu: 500m}}}]",
                vec!["maximum cpu usage per Pod is 3, but limit is 3500m"],
            ),
            (
                "no container states a limit: no limit is specified",
                "[{type: Pod, max: {memory: 1Gi}}]",
                "[{name: a, resources: {requests: {memory: 512Mi}}}]",
                "[]",
                vec!["maximum memory usage per Pod is 1Gi.  No limit is specified"],
            ),
            (
                "no container states a request: no request is specified",
                "[{type: Pod, min: {cpu: 100m}}]",
                "[{name: a}]",
                "[]",
                vec!["minimum cpu usage per Pod is 100m.  No request is specified"],
            ),
            (
                "the pod's limit to request ratio",
                "[{type: Pod, maxLimitRequestRatio: {cpu: '1500m'}}]",
                two,
                "[]",
                vec![
                    "cpu max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000",
                ],
            ),
            (
                "a container item and a pod item both fail, container first",
                "[{type: Container, max: {cpu: 1500m}}, {type: Pod, max: {cpu: '2'}}]",
                two,
                "[]",
                vec![
                    "maximum cpu usage per Container is 1500m, but limit is 2",
                    "maximum cpu usage per Pod is 2, but limit is 3",
                ],
            ),
            (
                "a container item reads init containers too",
                "[{type: Container, min: {memory: 64Mi}}]",
                "[{name: a, resources: {requests: {memory: 64Mi}}}]",
                "[{name: setup, resources: {requests: {memory: 32Mi}}}]",
                vec!["minimum memory usage per Container is 64Mi, but request is 32Mi"],
            ),
            (
                "bytes in decimal units read back in decimal units",
                "[{type: Pod, max: {memory: 1G}}]",
                "[{name: a, resources: {limits: {memory: 1500M}}}]",
                "[]",
                vec!["maximum memory usage per Pod is 1G, but limit is 1500M"],
            ),
        ];
        for (case, items, containers, init, expected) in cases {
            let got = limit_violations(&range(items), &pod(containers, init));
            assert_eq!(got, expected, "{case}");
        }
    }

    /// Pod items set no defaults; Container items default init containers as well.
    #[test]
    fn defaults_come_from_container_items_only() {
        let mut with_init = pod("[{name: a}]", "[{name: setup}]");
        let note = apply_defaults(
            &range(
                "[{type: Pod, max: {cpu: '4'}}, {type: Container, defaultRequest: {cpu: 100m}}]",
            ),
            &mut with_init,
        );
        assert_eq!(
            note.as_deref(),
            Some(
                "LimitRange lr: LimitRanger plugin set: cpu request for container a; cpu request for init container setup"
            )
        );
        let mut alone = pod("[{name: a}]", "[]");
        assert_eq!(
            apply_defaults(&range("[{type: Pod, max: {cpu: '4'}}]"), &mut alone),
            None
        );
        assert!(alone.spec.containers[0].resources.limits.is_empty());
    }
}
