//! JobSet (`jobset.x-k8s.io/v1alpha2`): the controller's child Jobs (`constructJob`) and
//! their Indexed pods, and the pod webhook's exclusive placement (`pkg/webhooks/pod_webhook.go`),
//! as kubernetes-sigs/jobset computes them.

use df_model::operators::JobSetSpec;
use df_model::{JobCounts, LabelSelectorRequirement, Object, ObjectMeta, Pod, Toleration};

use super::{Expansion, Follower, JOB_COMPLETION_INDEX, exclusive_terms, indexed_job_pods, sha1};

pub const JOBSET_NAME: &str = "jobset.sigs.k8s.io/jobset-name";
pub const REPLICATED_JOB_NAME: &str = "jobset.sigs.k8s.io/replicatedjob-name";
pub const RESTART_ATTEMPT: &str = "jobset.sigs.k8s.io/restart-attempt";
pub const REPLICATED_JOB_REPLICAS: &str = "jobset.sigs.k8s.io/replicatedjob-replicas";
pub const GLOBAL_REPLICAS: &str = "jobset.sigs.k8s.io/global-replicas";
pub const JOB_INDEX: &str = "jobset.sigs.k8s.io/job-index";
pub const JOB_KEY: &str = "jobset.sigs.k8s.io/job-key";
pub const JOB_GLOBAL_INDEX: &str = "jobset.sigs.k8s.io/job-global-index";
pub const GROUP_NAME: &str = "jobset.sigs.k8s.io/group-name";
pub const GROUP_REPLICAS: &str = "jobset.sigs.k8s.io/group-replicas";
pub const JOB_GROUP_INDEX: &str = "jobset.sigs.k8s.io/job-group-index";
pub const COORDINATOR: &str = "jobset.sigs.k8s.io/coordinator";
pub const PRIORITY: &str = "jobset.sigs.k8s.io/priority";
pub const EXCLUSIVE_TOPOLOGY: &str = "alpha.jobset.sigs.k8s.io/exclusive-topology";
pub const NODE_SELECTOR_STRATEGY: &str = "alpha.jobset.sigs.k8s.io/node-selector";
pub const NAMESPACED_JOB: &str = "alpha.jobset.sigs.k8s.io/namespaced-job";
pub const NO_SCHEDULE_TAINT: &str = "alpha.jobset.sigs.k8s.io/no-schedule";

/// The validating webhook's refusal of a follower created before its leader is bound.
const LEADER_NOT_SCHEDULED: &str =
    "leader pod not yet scheduled, not creating follower pod. this is an expected, transient error";

/// The JobSet `meta` names, with `spec`: its Jobs' pods, leaders of exclusive placement
/// first (followers are refused until their leader is bound), each replicated Job after the
/// ones its startup policy or `dependsOn` waits for.
pub fn expand(meta: &ObjectMeta, spec: &JobSetSpec) -> Expansion {
    let mut out = Expansion::default();
    let name = &meta.name;
    let jobs: i32 = spec.replicated_jobs.iter().map(replicas).sum();
    if spec.suspend == Some(true) {
        out.note(format!("JobSet suspended: {jobs} Jobs, 0 pods"));
        return out;
    }
    let in_order = spec
        .startup_policy
        .as_ref()
        .is_some_and(|p| p.startup_policy_order == "InOrder");
    let mut global_index = 0;
    let mut group_index: Vec<(String, i32)> = Vec::new();
    let mut leaders = Vec::new();
    let mut followers = Vec::new();
    for (r, rjob) in spec.replicated_jobs.iter().enumerate() {
        let group = rjob.group_name.clone().unwrap_or_else(|| "default".into());
        let group_replicas: i32 = spec
            .replicated_jobs
            .iter()
            .filter(|o| o.group_name.as_deref().unwrap_or("default") == group)
            .map(replicas)
            .sum();
        if let Some(wait) = rjob.depends_on.first() {
            out.note(format!(
                "{name}: replicated Job {} is created once {} is {} (assumed; its pods are still shown)",
                rjob.name, wait.name, wait.status
            ));
        } else if in_order && r > 0 {
            out.note(format!(
                "{name}: replicated Job {} is created once {} is Ready (startupPolicyOrder InOrder; assumed)",
                rjob.name,
                spec.replicated_jobs[r - 1].name
            ));
        }
        let exclusive = exclusive_annotations(meta, &rjob.template.metadata);
        for j in 0..replicas(rjob) {
            let job = format!("{name}-{}-{j}", rjob.name);
            let in_group = group_index.iter_mut().find(|(g, _)| *g == group);
            let job_group_index = match in_group {
                Some((_, next)) => {
                    *next += 1;
                    *next - 1
                }
                None => {
                    group_index.push((group.clone(), 1));
                    0
                }
            };
            let mut keys: Vec<(&str, String)> = vec![
                (JOBSET_NAME, name.clone()),
                (REPLICATED_JOB_NAME, rjob.name.clone()),
                (RESTART_ATTEMPT, "0".into()),
                (REPLICATED_JOB_REPLICAS, replicas(rjob).to_string()),
                (GLOBAL_REPLICAS, jobs.to_string()),
                (JOB_INDEX, j.to_string()),
                (JOB_KEY, sha1::hex(&format!("{}/{job}", meta.namespace))),
                (JOB_GLOBAL_INDEX, global_index.to_string()),
                (GROUP_NAME, group.clone()),
                (GROUP_REPLICAS, group_replicas.to_string()),
                (JOB_GROUP_INDEX, job_group_index.to_string()),
            ];
            global_index += 1;
            if let Some(c) = &spec.coordinator {
                let subdomain = spec
                    .network
                    .as_ref()
                    .map(|n| n.subdomain.clone())
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| name.clone());
                let endpoint = format!(
                    "{name}-{}-{}-{}.{subdomain}",
                    c.replicated_job, c.job_index, c.pod_index
                );
                keys.push((COORDINATOR, endpoint));
            }
            let mut template = rjob.template.spec.template.clone();
            for (key, value) in &keys {
                template
                    .metadata
                    .labels
                    .insert((*key).into(), value.as_str().into());
                template
                    .metadata
                    .annotations
                    .insert((*key).into(), value.as_str().into());
            }
            for (key, value) in &exclusive {
                template
                    .metadata
                    .annotations
                    .insert((*key).into(), value.as_str().into());
            }
            if exclusive.len() == 2 {
                let spec = &mut template.spec;
                spec.node_selector.insert(
                    NAMESPACED_JOB.into(),
                    format!("{}_{job}", meta.namespace).into(),
                );
                spec.tolerations.push(Toleration {
                    key: NO_SCHEDULE_TAINT.into(),
                    operator: "Exists".into(),
                    effect: "NoSchedule".into(),
                    ..Toleration::default()
                });
            }
            let job_spec = &rjob.template.spec;
            let (parallelism, completions) = match (job_spec.parallelism, job_spec.completions) {
                (None, None) => (Some(1), Some(1)),
                counts => counts,
            };
            let indexed = job_spec.completion_mode.as_deref().unwrap_or("Indexed") == "Indexed";
            if indexed && completions.is_none() {
                out.note(format!(
                    "Job {job}: not created: spec.completions: Required value: when completion mode is Indexed"
                ));
                continue;
            }
            let counts = JobCounts {
                parallelism,
                completions,
                succeeded: 0,
                suspend: job_spec.suspend == Some(true),
            };
            let pods = indexed_job_pods(&template, &meta.namespace, &job, counts.active());
            for pod in pods {
                if leader_of(&pod).is_some() {
                    followers.push(pod);
                } else {
                    leaders.push(pod);
                }
            }
        }
    }
    out.objects = leaders
        .into_iter()
        .chain(followers)
        .map(Object::Pod)
        .collect();
    out
}

/// `replicas` with the CRD's default of 1.
fn replicas(rjob: &df_model::operators::ReplicatedJob) -> i32 {
    rjob.replicas.unwrap_or(1).max(0)
}

/// The exclusive-placement annotations a replicated Job's Jobs and pods get
/// (`labelAndAnnotateObject`): the JobSet's topology and node-selector strategy, overridden
/// by the Job template's topology (and its strategy, when it has one).
fn exclusive_annotations(jobset: &ObjectMeta, job: &ObjectMeta) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let from = if job.annotations.contains_key(EXCLUSIVE_TOPOLOGY) {
        job
    } else {
        jobset
    };
    if let Some(topology) = from.annotations.get(EXCLUSIVE_TOPOLOGY) {
        out.push((EXCLUSIVE_TOPOLOGY, topology.to_string()));
        let strategy = job
            .annotations
            .get(NODE_SELECTOR_STRATEGY)
            .or(jobset.annotations.get(NODE_SELECTOR_STRATEGY));
        if let Some(strategy) = strategy {
            out.push((NODE_SELECTOR_STRATEGY, strategy.to_string()));
        }
    }
    out
}

/// The pod webhook on a JobSet pod: the priority label on every one (unless the node-selector
/// strategy is on, where it does nothing), and on a leader (completion index 0) of exclusive
/// placement the required affinity to its own Job and anti-affinity to every other Job's pods
/// of the same priority, in every namespace.
pub fn admit(pod: &mut Pod, priority: i32) -> Vec<String> {
    let annotations = &pod.metadata.annotations;
    if !annotations.contains_key(JOBSET_NAME) || annotations.contains_key(NODE_SELECTOR_STRATEGY) {
        return Vec::new();
    }
    pod.metadata
        .labels
        .insert(PRIORITY.into(), priority.to_string().into());
    let annotations = &pod.metadata.annotations;
    let (Some(topology), Some("0")) = (
        annotations.get(EXCLUSIVE_TOPOLOGY).map(ToString::to_string),
        annotations.get(JOB_COMPLETION_INDEX).map(|v| v.as_str()),
    ) else {
        return Vec::new();
    };
    let Some(key) = pod.metadata.labels.get(JOB_KEY).map(ToString::to_string) else {
        return Vec::new();
    };
    let same_priority = LabelSelectorRequirement {
        key: PRIORITY.into(),
        operator: "In".into(),
        values: vec![priority.to_string()],
    };
    exclusive_terms(pod, JOB_KEY, &key, &topology, Some(same_priority), true);
    vec![format!(
        "JobSet webhook: podAffinity {JOB_KEY} In [{key}], podAntiAffinity other Jobs' pods of priority {priority} @{topology}, all namespaces"
    )]
}

/// A pod of exclusive placement other than its Job's completion index 0 waits for that leader.
pub fn leader_of(pod: &Pod) -> Option<Follower> {
    let annotations = &pod.metadata.annotations;
    if !annotations.contains_key(JOBSET_NAME) || annotations.contains_key(NODE_SELECTOR_STRATEGY) {
        return None;
    }
    let topology = annotations.get(EXCLUSIVE_TOPOLOGY)?;
    let index = annotations.get(JOB_COMPLETION_INDEX)?;
    if index == "0" {
        return None;
    }
    let job = pod.metadata.labels.get(df_model::JOB_NAME_LABELS[0])?;
    Some(Follower {
        leader: format!("{job}-0"),
        topology_key: topology.to_string(),
        waiting: LEADER_NOT_SCHEDULED,
    })
}
