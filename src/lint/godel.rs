//! Godel PodGroup rules (DF2xx): the group's own fields, pods joining it, and with a state,
//! whether its topology keys describe the cluster.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::{Context, Finding, literal_key, node_at};
use crate::cluster::ClusterState;
use crate::manifest::Manifest;
use crate::model::gang::GODEL_POD_GROUP_LABEL;
use crate::model::{GodelPodGroup, Labels, Object};

/// Every Godel PodGroup by namespace and name, from the manifests and the state.
pub(crate) struct Index<'a> {
    groups: HashSet<(&'a str, &'a str)>,
    has_state: bool,
}

impl<'a> Index<'a> {
    pub fn new(manifests: &'a [Manifest], state: Option<&'a ClusterState>) -> Index<'a> {
        let from_state = state.into_iter().flat_map(|s| &s.godel_pod_groups);
        let from_manifests = manifests.iter().filter_map(|m| match &m.object {
            Object::GodelPodGroup(g) => Some(g),
            _ => None,
        });
        Index {
            groups: from_state
                .chain(from_manifests)
                .map(|g| (g.metadata.namespace.as_str(), g.metadata.name.as_str()))
                .collect(),
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
        let message = format!("minMember is {}; it must be at least 1", group.spec.min_member);
        ctx.emit(m, Finding::at(m, "DF202", "spec.minMember", message));
    }
    let Some(affinity) = group
        .spec
        .affinity
        .as_ref()
        .and_then(|a| a.pod_group_affinity.as_ref())
    else {
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

fn check_member(ctx: &mut Context<'_>, index: &Index<'_>, m: &Manifest, meta: &str, labels: &Labels) {
    let Some(group) = labels.get(GODEL_POD_GROUP_LABEL) else {
        return;
    };
    let namespace = m.object.metadata().namespace.as_str();
    if index.groups.contains(&(namespace, group.as_str())) {
        return;
    }
    let labels_path = format!("{meta}.labels");
    let pos = literal_key(node_at(m, &labels_path), GODEL_POD_GROUP_LABEL)
        .map_or_else(|| m.pos_of(&labels_path), |(_, value)| value.pos);
    let where_ = if index.has_state {
        "among the manifests or in the --state"
    } else {
        "among the manifests"
    };
    let finding = Finding {
        code: "DF203",
        pos,
        path: format!("{labels_path}[{GODEL_POD_GROUP_LABEL}]"),
        message: format!("PodGroup {namespace}/{group} not found {where_}"),
        hint: Some("create the PodGroup in the pod's namespace, or fix the label value".into()),
    };
    ctx.emit(m, finding);
}

fn check_topology(ctx: &mut Context<'_>, m: &Manifest, group: &GodelPodGroup, state: &ClusterState) {
    let Some(affinity) = group
        .spec
        .affinity
        .as_ref()
        .and_then(|a| a.pod_group_affinity.as_ref())
    else {
        return;
    };
    if state.nodes.is_empty() {
        return;
    }
    let carried = |key: &str| state.nodes.iter().any(|n| n.metadata.labels.contains_key(key));
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
            .map(|k| labels.get(*k).map(String::as_str))
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
