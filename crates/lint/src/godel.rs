//! Godel PodGroup rules (DF2xx): the group's own fields, pods joining it, and with a state,
//! whether its topology keys describe the cluster.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::{Context, Finding, node_carries};
use df_engine::{Resources, pod_requests, resources::node_allocatable, selector};
use df_manifest::Manifest;
use df_model::gang::GODEL_POD_GROUP_LABEL;
use df_model::{GodelPodGroup, Labels, Object, PodSpec};
use df_state::ClusterState;

/// Every Godel PodGroup by namespace and name, from the manifests and the state.
pub(crate) struct Index<'a> {
    groups: HashSet<(&'a str, &'a str)>,
    /// Member pod specs among the manifests by group, each with how many pods it stands for.
    members: HashMap<(&'a str, &'a str), Vec<(&'a PodSpec, usize)>>,
    has_state: bool,
}

impl<'a> Index<'a> {
    pub fn new(manifests: &'a [Manifest], state: Option<&'a ClusterState>) -> Index<'a> {
        let from_state = state.into_iter().flat_map(|s| &s.godel_pod_groups);
        let from_manifests = manifests.iter().filter_map(|m| match &m.object {
            Object::GodelPodGroup(g) => Some(g),
            _ => None,
        });
        let mut members: HashMap<_, Vec<_>> = HashMap::new();
        for m in manifests {
            let (meta, spec, count) = match &m.object {
                Object::Pod(p) => (&p.metadata, &p.spec, 1),
                Object::Workload(w) => (
                    &w.template.metadata,
                    &w.template.spec,
                    usize::try_from(w.replicas).unwrap_or(0),
                ),
                _ => continue,
            };
            if let Some(group) = meta.labels.get(GODEL_POD_GROUP_LABEL) {
                let namespace = m.object.metadata().namespace.as_str();
                members
                    .entry((namespace, group.as_str()))
                    .or_default()
                    .push((spec, count));
            }
        }
        Index {
            groups: from_state
                .chain(from_manifests)
                .map(|g| (g.metadata.namespace.as_str(), g.metadata.name.as_str()))
                .collect(),
            members,
            has_state: state.is_some(),
        }
    }
}

pub(crate) fn check(ctx: &mut Context<'_>, index: &Index<'_>, m: &Manifest) {
    match &m.object {
        Object::GodelPodGroup(group) => {
            check_group(ctx, m, group);
            if let Some(state) = ctx.state {
                check_topology(ctx, m, group, state);
                check_unit_fits(ctx, index, m, group, state);
            }
        }
        Object::Pod(pod) => check_member(ctx, index, m, "metadata", &pod.metadata.labels),
        Object::Workload(w) => {
            let prefix = if w.kind == "CronJob" {
                "spec.jobTemplate.spec.template.metadata"
            } else {
                "spec.template.metadata"
            };
            check_member(ctx, index, m, prefix, &w.template.metadata.labels);
        }
        _ => {}
    }
}

const SORT_FIELDS: [(&str, &[&str], bool); 3] = [
    ("resource", &["CPU", "Memory", "GPU"], false),
    ("dimension", &["Capacity", "Available"], true),
    ("order", &["Ascending", "Descending"], false),
];

fn check_group(ctx: &mut Context<'_>, m: &Manifest, group: &GodelPodGroup) {
    if group.spec.min_member < 1 {
        let message = format!(
            "minMember is {}; it must be at least 1",
            group.spec.min_member
        );
        ctx.emit(m, Finding::at(m, "DF202", "spec.minMember", message));
    }
    let Some(affinity) = group.pod_group_affinity() else {
        return;
    };
    for (i, rule) in affinity.sort_rules.iter().enumerate() {
        for (field, allowed, may_be_empty) in SORT_FIELDS {
            let value = match field {
                "resource" => &rule.resource,
                "dimension" => &rule.dimension,
                _ => &rule.order,
            };
            if allowed.contains(&value.as_str()) || (may_be_empty && value.is_empty()) {
                continue;
            }
            let path = format!("spec.affinity.podGroupAffinity.sortRules[{i}].{field}");
            let message = format!(
                "invalid sortRules {field} {value:?}: must be {}{}",
                allowed.join(", "),
                if may_be_empty { " or empty" } else { "" }
            );
            let mut finding = Finding::at(m, "DF201", &path, message);
            if let Some(fixed) = allowed.iter().find(|a| a.eq_ignore_ascii_case(value)) {
                finding = finding.hint(format!("values are case-sensitive: write {fixed}"));
            }
            ctx.emit(m, finding);
        }
    }
}

fn check_member(
    ctx: &mut Context<'_>,
    index: &Index<'_>,
    m: &Manifest,
    meta: &str,
    labels: &Labels,
) {
    let Some(group) = labels.get(GODEL_POD_GROUP_LABEL) else {
        return;
    };
    let namespace = m.object.metadata().namespace.as_str();
    if index.groups.contains(&(namespace, group.as_str())) {
        return;
    }
    let where_ = if index.has_state {
        "among the manifests or in the cluster state"
    } else {
        "among the manifests"
    };
    let message = format!("PodGroup {namespace}/{group} not found {where_}");
    let labels_path = format!("{meta}.labels");
    let finding = Finding::at_map_entry(m, "DF203", &labels_path, GODEL_POD_GROUP_LABEL, message)
        .hint("create the PodGroup in the pod's namespace, or fix the label value");
    ctx.emit(m, finding);
}

fn check_topology(
    ctx: &mut Context<'_>,
    m: &Manifest,
    group: &GodelPodGroup,
    state: &ClusterState,
) {
    let Some(affinity) = group.pod_group_affinity() else {
        return;
    };
    if state.nodes.is_empty() {
        return;
    }
    let carried = |key: &str| node_carries(state, key);
    let base = "spec.affinity.podGroupAffinity";
    for (list, terms, code) in [
        ("required", &affinity.required, "DF204"),
        ("preferred", &affinity.preferred, "DF205"),
    ] {
        for (i, term) in terms.iter().enumerate() {
            if !carried(&term.topology_key) {
                let path = format!("{base}.{list}[{i}].topologyKey");
                let message = format!(
                    "no node of the {} in the state carries the label {:?}",
                    state.nodes.len(),
                    term.topology_key
                );
                ctx.emit(m, Finding::at(m, code, &path, message));
            }
        }
    }
    // Each preferred level must lie inside the previous one: the required keys together,
    // then the preferred keys in order.
    let required: Vec<&str> = affinity
        .required
        .iter()
        .map(|t| t.topology_key.as_str())
        .filter(|k| carried(k))
        .collect();
    let mut previous: Vec<&str> = required;
    for (i, term) in affinity.preferred.iter().enumerate() {
        let key = term.topology_key.as_str();
        if !carried(key) {
            continue;
        }
        if !previous.is_empty()
            && let Some((value, outer)) = straddling_domain(state, key, &previous)
        {
            let path = format!("{base}.preferred[{i}].topologyKey");
            let message = format!(
                "nodes with {key}={value} span {} domains of the previous level ({}): {}",
                outer.len(),
                previous.join(", "),
                outer.into_iter().collect::<Vec<_>>().join(", ")
            );
            ctx.emit(m, Finding::at(m, "DF206", &path, message));
        }
        previous = vec![key];
    }
}

/// A value of `key` whose nodes carry several different combinations of `outer` keys.
fn straddling_domain(
    state: &ClusterState,
    key: &str,
    outer: &[&str],
) -> Option<(String, BTreeSet<String>)> {
    let mut domains: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for node in &state.nodes {
        let labels = &node.metadata.labels;
        let Some(value) = labels.get(key) else {
            continue;
        };
        let Some(outer_values) = outer
            .iter()
            .map(|k| labels.get(k).map(|v| v.as_str()))
            .collect::<Option<Vec<&str>>>()
        else {
            continue;
        };
        domains
            .entry(value)
            .or_default()
            .insert(outer_values.join("/"));
    }
    domains
        .into_iter()
        .find(|(_, outer)| outer.len() > 1)
        .map(|(value, outer)| (value.to_string(), outer))
}

/// A lower bound of what the unit asks for: per resource, the `min_member` smallest member
/// requests (the smallest repeated when fewer members are known). Never overestimates, so the
/// rule never reports a unit that could fit.
fn unit_request(members: &[(&PodSpec, usize)], min_member: usize) -> Resources {
    let requests: Vec<Resources> = members
        .iter()
        .flat_map(|(spec, count)| {
            std::iter::repeat_n(pod_requests(spec, false), (*count).min(min_member))
        })
        .collect();
    let mut names: BTreeSet<String> = ["cpu", "memory"].map(String::from).into();
    names.extend(requests.iter().flat_map(|r| r.scalar.keys().cloned()));
    let mut unit = Resources::default();
    for name in names {
        let mut values: Vec<i64> = requests.iter().map(|r| r.get(&name)).collect();
        values.sort_unstable();
        let smallest = values.first().copied().unwrap_or(0);
        let total: i64 = values
            .iter()
            .copied()
            .chain(std::iter::repeat(smallest))
            .take(min_member)
            .sum();
        match name.as_str() {
            "cpu" => unit.milli_cpu = total,
            "memory" => unit.memory = total,
            _ => {
                unit.scalar.insert(name, total);
            }
        }
    }
    unit
}

fn check_unit_fits(
    ctx: &mut Context<'_>,
    index: &Index<'_>,
    m: &Manifest,
    group: &GodelPodGroup,
    state: &ClusterState,
) {
    let Some(affinity) = group.pod_group_affinity() else {
        return;
    };
    let keys: Vec<&str> = affinity
        .required
        .iter()
        .map(|t| t.topology_key.as_str())
        .collect();
    let key = (
        group.metadata.namespace.as_str(),
        group.metadata.name.as_str(),
    );
    let (Some(members), Ok(min_member)) = (
        index.members.get(&key),
        usize::try_from(group.spec.min_member),
    ) else {
        return;
    };
    if keys.is_empty() || min_member == 0 {
        return;
    }
    let unit = unit_request(members, min_member);
    let mut domains: BTreeMap<Vec<&str>, Resources> = BTreeMap::new();
    for node in &state.nodes {
        let labels = &node.metadata.labels;
        if let Some(node_selector) = &affinity.node_selector
            && !selector::node_selector_matches(node_selector, &node.metadata.name, labels).0
        {
            continue;
        }
        let Some(domain) = keys
            .iter()
            .map(|k| labels.get(k).map(|v| v.as_str()))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        domains
            .entry(domain)
            .or_default()
            .add(&node_allocatable(node));
    }
    let short = |capacity: &Resources| {
        ["cpu", "memory"]
            .into_iter()
            .chain(unit.scalar.keys().map(String::as_str))
            .find(|name| unit.get(name) > capacity.get(name))
    };
    if domains.values().any(|capacity| short(capacity).is_none()) {
        return;
    }
    let Some((largest, capacity)) = domains.iter().max_by_key(|(_, c)| c.milli_cpu) else {
        return;
    };
    let resource = short(capacity).unwrap_or("cpu");
    let domain = keys.join("/");
    let message = format!(
        "the unit ({min_member} pods) needs at least {} of {resource}, more than any {domain} domain holds (largest: {domain}={} with {})",
        amount(resource, unit.get(resource)),
        largest.join("/"),
        amount(resource, capacity.get(resource)),
    );
    let finding = Finding::at(m, "DF207", "spec.minMember", message);
    ctx.emit(m, finding);
}

/// An amount as users write it: CPU in cores, memory in MiB, the rest as counts.
fn amount(resource: &str, value: i64) -> String {
    match resource {
        "cpu" if value % 1000 == 0 => format!("{} cores", value / 1000),
        "cpu" => format!("{value}m"),
        "memory" => format!("{}Mi", value / (1024 * 1024)),
        _ => value.to_string(),
    }
}
