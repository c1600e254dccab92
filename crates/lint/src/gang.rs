//! Rules for every gang kind (DF208-DF214), read from the one gang model: pods joining a
//! group that exists nowhere or several groups, minimums below 1 or above the pods that can
//! exist, negative minResources and a scheduler that ignores the gang. Godel's own fields keep their DF20x rules.

use std::collections::{BTreeMap, BTreeSet};

use super::{Context, Finding, join, literal_key, node_at};
use df_engine::{Resources, pod_requests};
use df_manifest::{Manifest, ManifestSet};
use df_model::gang::VOLCANO_POD_GROUP_API_VERSION;
use df_model::resources::format_bytes;
use df_model::{Object, ObjectMeta, Pod, PodStatus, Quantity, ResourceList};
use df_state::ClusterState;
use df_systems::gang::model::{GangObjects, JoinField};
use df_systems::gang::{ADAPTERS, SchedulerRoutes, group_of, joined};

type Key = (usize, String, String);

/// Every gang defined by the manifests and the state, and how many pods can join each.
pub(crate) struct Index {
    defined: BTreeSet<Key>,
    /// Pods among the manifests (template replicas counted) and pods of the state, per gang,
    /// with the sum of their requests.
    members: BTreeMap<Key, (usize, Resources)>,
    has_state: bool,
}

/// A manifest's pod (or its template's) with where its metadata and spec sit, and how many
/// pods it stands for.
struct PodAt {
    pod: Pod,
    meta: String,
    spec: String,
    count: usize,
}

fn pod_at(m: &Manifest) -> Option<PodAt> {
    match &m.object {
        Object::Pod(p) => Some(PodAt {
            pod: p.clone(),
            meta: "metadata".into(),
            spec: "spec".into(),
            count: 1,
        }),
        Object::Workload(w) => {
            let prefix = if w.kind == "CronJob" {
                "spec.jobTemplate.spec.template"
            } else {
                "spec.template"
            };
            let pod = Pod {
                metadata: ObjectMeta {
                    namespace: w.metadata.namespace.clone(),
                    ..w.template.metadata.clone()
                },
                spec: w.template.spec.clone(),
                status: PodStatus::default(),
            };
            Some(PodAt {
                pod,
                meta: join(prefix, "metadata"),
                spec: join(prefix, "spec"),
                count: usize::try_from(w.replicas).unwrap_or(0),
            })
        }
        _ => None,
    }
}

impl Index {
    /// The pods joining the PodGroup of `api_version` named by `meta`, with their requests.
    fn members_of(&self, api_version: &str, meta: &ObjectMeta) -> Option<(usize, &Resources)> {
        let k = ADAPTERS.iter().position(|a| {
            a.kind().kind == "PodGroup" && a.kind().api_versions.contains(&api_version)
        })?;
        let key = (k, meta.namespace.clone(), meta.name.clone());
        self.members.get(&key).map(|(n, r)| (*n, r))
    }

    pub fn new(set: &ManifestSet, state: Option<&ClusterState>) -> Index {
        let mut defined = BTreeSet::new();
        let given = GangObjects::from_manifests(set);
        let stored = state.map(GangObjects::from_state).unwrap_or_default();
        for (k, adapter) in ADAPTERS.iter().enumerate() {
            for gang in adapter
                .define(&given)
                .into_iter()
                .chain(adapter.define(&stored))
            {
                defined.insert((k, gang.meta.namespace, gang.meta.name));
            }
        }
        let mut members: BTreeMap<Key, (usize, Resources)> = BTreeMap::new();
        let given_pods = set
            .manifests
            .iter()
            .filter_map(|m| pod_at(m).map(|p| (p.pod, p.count)));
        let state_pods = state
            .into_iter()
            .flat_map(|s| &s.pods)
            .filter(|p| !p.is_terminated())
            .map(|p| (p.clone(), 1));
        for (pod, count) in given_pods.chain(state_pods) {
            let requests = times(&pod_requests(&pod.spec, false), count);
            for (k, name) in joined(&pod) {
                let entry = members
                    .entry((k, pod.metadata.namespace.clone(), name))
                    .or_default();
                entry.0 += count;
                entry.1.add(&requests);
            }
        }
        Index {
            defined,
            members,
            has_state: state.is_some(),
        }
    }
}

pub(crate) fn check(ctx: &mut Context<'_>, index: &Index, m: &Manifest) {
    if let Some(at) = pod_at(m) {
        check_member(ctx, index, m, &at);
    }
    match &m.object {
        Object::PodGroup(g) => {
            let min_path = match &g.spec.scheduling_policy {
                Some(_) => "spec.schedulingPolicy.gang.minCount",
                None => "spec.minMember",
            };
            let min = match &g.spec.scheduling_policy {
                Some(policy) => policy.gang.as_ref().map(|g| i64::from(g.min_count)),
                None => g.spec.min_member.map(i64::from),
            };
            let group = (g.api_version.as_str(), &g.metadata);
            check_minimum(ctx, index, m, group, (min, GANG_LEAST), min_path);
            check_quantities(ctx, m, &g.spec.min_resources);
            check_min_resources(ctx, index, m, group, &g.spec.min_resources);
        }
        Object::VolcanoPodGroup(g) => {
            let min = (Some(i64::from(g.spec.min_member)), VOLCANO_LEAST);
            let group = (VOLCANO_POD_GROUP_API_VERSION, &g.metadata);
            check_minimum(ctx, index, m, group, min, "spec.minMember");
            check_quantities(ctx, m, &g.spec.min_resources);
            check_min_resources(ctx, index, m, group, &g.spec.min_resources);
        }
        Object::SchedulingWorkload(w) => {
            for (path, group) in w.pod_groups() {
                let Some(gang) = group.policy().and_then(|p| p.gang.as_ref()) else {
                    continue;
                };
                let policy = if group.policy.is_some() {
                    "policy"
                } else {
                    "schedulingPolicy"
                };
                if i64::from(gang.min_count) < GANG_LEAST.0 {
                    let path = format!("{path}.{policy}.gang.minCount");
                    let min = i64::from(gang.min_count);
                    ctx.emit(m, below_least(m, &path, min, GANG_LEAST));
                }
            }
        }
        Object::VolcanoJob(job) => check_job(ctx, m, job),
        _ => {}
    }
}

/// The least a gang minimum may be, and who says so.
#[derive(Clone, Copy)]
struct Least(i64, &'static str);

/// Gangs of Godel, kube-batch, coscheduling (its CRD says `Minimum=1`) and the Workload API.
const GANG_LEAST: Least = Least(1, "a gang needs");
/// Volcano's PodGroup CRD says `Minimum=0`: a group of 0 is valid and scheduled pod by pod.
const VOLCANO_LEAST: Least = Least(0, "Volcano's PodGroup CRD requires");

fn below_least(m: &Manifest, path: &str, value: i64, Least(least, who): Least) -> Finding {
    let field = path.rsplit('.').next().unwrap_or(path);
    Finding::at(
        m,
        "DF209",
        path,
        format!("{field} is {value}; {who} at least {least}"),
    )
}

/// DF209 below the group's least, DF211 above the pods that can ever join.
fn check_minimum(
    ctx: &mut Context<'_>,
    index: &Index,
    m: &Manifest,
    (api_version, meta): (&str, &ObjectMeta),
    (min, least): (Option<i64>, Least),
    path: &str,
) {
    let Some(min) = min else {
        return;
    };
    if min < least.0 {
        ctx.emit(m, below_least(m, path, min, least));
        return;
    }
    let Some((count, _)) = index.members_of(api_version, meta) else {
        return;
    };
    if (count as i64) < min {
        let field = path.rsplit('.').next().unwrap_or(path);
        let message = format!(
            "{field} is {min} but only {count} pod(s) join the group{}: it waits forever",
            if index.has_state {
                " in the manifests and the cluster state"
            } else {
                " in the manifests"
            }
        );
        ctx.emit(m, Finding::at(m, "DF211", path, message));
    }
}

/// DF213: minResources above what all the group's pods request together.
fn check_min_resources(
    ctx: &mut Context<'_>,
    index: &Index,
    m: &Manifest,
    (api_version, meta): (&str, &ObjectMeta),
    list: &ResourceList,
) {
    let Some((count, requested)) = index.members_of(api_version, meta) else {
        return;
    };
    for (name, quantity) in list {
        let (want, have) = (amount(name, *quantity), requested.get(name));
        if want <= have || quantity.milli_value() < 0 {
            continue;
        }
        let map = node_at(m, "spec.minResources");
        let pos =
            literal_key(map, name).map_or_else(|| m.pos_of("spec.minResources"), |(_, v)| v.pos);
        let message = format!(
            "minResources {name} is {} but the {count} pod(s) joining the group request {} \
             together: the group holds resources it never uses",
            show(name, want),
            show(name, have)
        );
        ctx.emit(
            m,
            Finding {
                code: "DF213",
                pos,
                path: format!("spec.minResources[{name}]"),
                message,
                hint: Some("lower minResources to what the minimum of pods requests".into()),
            },
        );
    }
}

/// `n` pods' worth of `r` (a template's replicas).
fn times(r: &Resources, n: usize) -> Resources {
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    Resources {
        milli_cpu: r.milli_cpu.saturating_mul(n),
        memory: r.memory.saturating_mul(n),
        ephemeral_storage: r.ephemeral_storage.saturating_mul(n),
        pods: r.pods.saturating_mul(n),
        scalar: r
            .scalar
            .iter()
            .map(|(name, v)| (name.clone(), v.saturating_mul(n)))
            .collect(),
    }
}

/// A quantity of resource `name` as the engine holds it (millicores, bytes, units).
fn amount(name: &str, quantity: Quantity) -> i64 {
    Resources::from_list(&ResourceList::from([(name.to_string(), quantity)])).get(name)
}

/// An amount as the engine holds it (millicores, bytes, units), as users write it.
fn show(name: &str, amount: i64) -> String {
    match name {
        "cpu" => Quantity::from_milli(amount).to_string(),
        "memory" | "ephemeral-storage" => format_bytes(amount),
        _ => amount.to_string(),
    }
}

/// DF210: a negative quantity in minResources.
fn check_quantities(ctx: &mut Context<'_>, m: &Manifest, list: &ResourceList) {
    for (name, quantity) in list {
        if quantity.milli_value() < 0 {
            let map = node_at(m, "spec.minResources");
            let pos = literal_key(map, name)
                .map_or_else(|| m.pos_of("spec.minResources"), |(_, v)| v.pos);
            ctx.emit(
                m,
                Finding {
                    code: "DF210",
                    pos,
                    path: format!("spec.minResources[{name}]"),
                    message: format!(
                        "minResources {name} is negative ({})",
                        show(name, amount(name, *quantity))
                    ),
                    hint: None,
                },
            );
        }
    }
}

/// Where a pod says it joins a group of adapter `k`.
fn joining_field(at: &PodAt, m: &Manifest, k: usize) -> (df_manifest::Pos, String) {
    let kind = ADAPTERS[k].kind();
    match kind.join_field {
        JoinField::Label(key) | JoinField::Annotation(key) => {
            let map = if matches!(kind.join_field, JoinField::Label(_)) {
                "labels"
            } else {
                "annotations"
            };
            let map_path = join(&at.meta, map);
            let pos = literal_key(node_at(m, &map_path), key)
                .map_or_else(|| m.pos_of(&map_path), |(_, v)| v.pos);
            (pos, format!("{map_path}[{key}]"))
        }
        JoinField::Spec(field) => {
            let path = join(&at.spec, field);
            (m.pos_of(&path), path)
        }
        JoinField::Own => (m.pos_of(&at.meta), at.meta.clone()),
    }
}

/// DF208 a group that exists nowhere, DF212 several groups, DF214 a scheduler that ignores it.
fn check_member(ctx: &mut Context<'_>, index: &Index, m: &Manifest, at: &PodAt) {
    let candidates = joined(&at.pod);
    let namespace = &at.pod.metadata.namespace;
    let key = |k: usize, name: &str| (k, namespace.clone(), name.to_string());
    let routes = SchedulerRoutes::default();
    let exists = |k: usize, name: &str| index.defined.contains(&key(k, name));
    let Some(chosen) = group_of(&at.pod, &routes, exists) else {
        return;
    };
    // Volcano and kube-batch read the same annotation: one field, one group.
    let mut fields: Vec<JoinField> = candidates
        .iter()
        .map(|(k, _)| ADAPTERS[*k].kind().join_field)
        .collect();
    fields.dedup();
    if fields.len() > 1 {
        let listed: Vec<String> = candidates
            .iter()
            .map(|(k, n)| format!("{} {n}", ADAPTERS[*k].kind().id))
            .collect();
        let (pos, path) = joining_field(at, m, candidates[1].0);
        let message = format!(
            "the pod joins {} groups ({}); the first found wins",
            candidates.len(),
            listed.join(", ")
        );
        ctx.emit(
            m,
            Finding {
                code: "DF212",
                pos,
                path,
                message,
                hint: Some("keep one joining label or annotation".into()),
            },
        );
    }
    let kind = ADAPTERS[chosen.0].kind();
    // Godel's missing group is DF203; a group its pods make by themselves (Kueue's pod
    // integration) exists once they do.
    let implied = ADAPTERS[chosen.0]
        .implied(&GangObjects::default(), &chosen.1, &at.pod)
        .is_some();
    if !index.defined.contains(&key(chosen.0, &chosen.1)) && kind.id != "godel" && !implied {
        let (pos, path) = joining_field(at, m, chosen.0);
        let where_ = if index.has_state {
            "among the manifests or in the cluster state"
        } else {
            "among the manifests"
        };
        let message = format!(
            "{} {} {namespace}/{} not found {where_}",
            kind.id, kind.kind, chosen.1
        );
        ctx.emit(
            m,
            Finding {
                code: "DF208",
                pos,
                path,
                message,
                hint: Some(format!(
                    "create the {} in the pod's namespace, or fix the reference (pods join by {})",
                    kind.kind, kind.joining
                )),
            },
        );
    }
    let scheduler = &at.pod.spec.scheduler_name;
    if let Some(system) = routes.system(scheduler)
        && system != kind.honoured_by
    {
        let path = join(&at.spec, "schedulerName");
        let shown = if scheduler.is_empty() {
            "default-scheduler (unset)"
        } else {
            scheduler.as_str()
        };
        let message = format!(
            "the pod joins {} {} {} but schedulerName {shown} is {system}, which does not \
             honour it: the pods are placed one by one",
            kind.id, kind.kind, chosen.1
        );
        ctx.emit(
            m,
            Finding::at(m, "DF214", &path, message).hint(format!(
                "send the pods to {} (or map the name to that system when planning)",
                kind.honoured_by
            )),
        );
    }
}

/// DF209: a negative job minAvailable (the webhook's other denials are the DF3xx rules).
fn check_job(ctx: &mut Context<'_>, m: &Manifest, job: &df_model::VolcanoJob) {
    if job.spec.min_available < 0 {
        ctx.emit(
            m,
            Finding::at(
                m,
                "DF209",
                "spec.minAvailable",
                format!(
                    "minAvailable is {}; Volcano's admission webhook requires at least 0",
                    job.spec.min_available
                ),
            ),
        );
    }
}
