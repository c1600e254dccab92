//! What Volcano's job admission webhook (`webhooks/admission/jobs/validate/admit_job.go`,
//! `validateJobCreate`) denies in a Job without asking the cluster, after its mutating webhook
//! has defaulted it (an unnamed task is `default<i>`, a job `minAvailable` of 0 the sum of its
//! tasks' minimums). A denied Job is never created: lint reports each denial, and plan places
//! none of its pods.
//!
//! Left out: the checks that need the cluster (the queue exists, is `Open` and a leaf), the
//! job plugins, volumes, task dependencies and pod templates. Each
//! message is upstream's text without its framing (the leading space and trailing `;`, the
//! multierror wrapper and the list of valid events and actions, printed in map order).

use df_model::VolcanoJob;
use df_model::gang::{LifecyclePolicy, NetworkTopologySpec, VolcanoTask};

/// Which of the webhook's checks denies the job (lint gives each its own rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// `spec.tasks` is empty; the webhook says only this.
    NoTasks,
    /// The job's or a partition's `networkTopology` sets both `highestTierAllowed` and
    /// `highestTierName`.
    NetworkTopology,
    /// A task's `minAvailable` above its `replicas`.
    TaskMinAvailable,
    /// Two tasks of one name; the webhook checks no task after the second.
    DuplicateTask,
    /// A job's or task's lifecycle policies.
    Policies,
    /// The job's name, or a pod name `<job>-<task>-<index>`, is not a qualified name.
    Name,
    /// The job's `minAvailable` above its tasks' replicas.
    MinAvailable,
    /// A task's `partitionPolicy.totalPartitions` below 1.
    TotalPartitions,
    /// A task's `partitionPolicy.partitionSize` below 1.
    PartitionSize,
    /// A partitioned task's `replicas` other than `totalPartitions x partitionSize`.
    PartitionReplicas,
    /// A partitioned task's `minAvailable` other than `minPartitions x partitionSize`.
    PartitionMinAvailable,
}

/// One reason the webhook denies the job: the field it is about and upstream's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub check: Check,
    pub path: String,
    pub message: String,
}

/// The name of Volcano's job validating webhook, as kubectl quotes it in a denial.
pub const WEBHOOK: &str = "validatejob.volcano.sh";

/// The events and actions a policy may name (`policyEventMap`, `policyActionMap` entries
/// allowed for external use).
const EVENTS: &[&str] = &[
    "*",
    "PodFailed",
    "PodEvicted",
    "PodPending",
    "Unknown",
    "TaskCompleted",
    "TaskFailed",
    "JobUpdated",
];
const ACTIONS: &[&str] = &[
    "AbortJob",
    "RestartJob",
    "RestartTask",
    "RestartPod",
    "RestartPartition",
    "TerminateJob",
    "CompleteJob",
    "ResumeJob",
];

/// Every denial of `job`, in the order the webhook writes them.
pub fn denials(job: &VolcanoJob) -> Vec<Denial> {
    let deny = |check, path: String, message: String| Denial {
        check,
        path,
        message,
    };
    if job.spec.tasks.is_empty() {
        return vec![deny(
            Check::NoTasks,
            "spec.tasks".into(),
            "No task specified in job spec".into(),
        )];
    }
    let mut out: Vec<Denial> = network_topology(
        job.spec.network_topology.as_ref(),
        "spec.networkTopology".into(),
    )
    .into_iter()
    .collect();
    let job_name = &job.metadata.name;
    let mut names = Vec::new();
    let mut total: i64 = 0;
    let mut task_minimums: i64 = 0;
    for (i, task) in job.spec.tasks.iter().enumerate() {
        let name = if task.name.is_empty() {
            format!("default{i}")
        } else {
            task.name.clone()
        };
        // The mutating webhook's minimum: only a partition's (minPartitions x partitionSize)
        // can exceed the replicas unless one was given.
        if task.min_available_or_default() > task.replicas {
            out.push(deny(
                Check::TaskMinAvailable,
                format!("spec.tasks[{i}].minAvailable"),
                format!(
                    "'minAvailable' is greater than 'replicas' in task: {name}, job: {job_name}"
                ),
            ));
        }
        total += i64::from(task.replicas);
        task_minimums += i64::from(task.min_available_or_default());
        if names.contains(&name) {
            out.push(deny(
                Check::DuplicateTask,
                format!("spec.tasks[{i}].name"),
                format!("duplicated task name {name}"),
            ));
            break;
        }
        names.push(name.clone());
        out.extend(policies(&task.policies, &format!("spec.tasks[{i}]")));
        let pod = super::pod_name(job_name, &name, i);
        if let Some(errors) = qualified_name_errors(&pod) {
            out.push(deny(
                Check::Name,
                format!("spec.tasks[{i}].name"),
                format!("create pod with name {pod} validate failed [{errors}]"),
            ));
        }
        out.extend(partition_policy(task, &name, job_name, i));
    }
    if let Some(errors) = qualified_name_errors(job_name) {
        out.push(deny(
            Check::Name,
            "metadata.name".into(),
            format!("create job with name {job_name} validate failed [{errors}]"),
        ));
    }
    let min_available = if job.spec.min_available == 0 {
        task_minimums
    } else {
        i64::from(job.spec.min_available)
    };
    if total < min_available {
        out.push(deny(
            Check::MinAvailable,
            "spec.minAvailable".into(),
            "job 'minAvailable' should not be greater than total replicas in tasks".into(),
        ));
    }
    out.extend(policies(&job.spec.policies, "spec"));
    out
}

/// `validatePartitionPolicy`: the first failing of the partition counts, then the partition's
/// network topology. The task's `minAvailable` is the mutating webhook's (set already when
/// the validating webhook runs), so only a given one can differ.
fn partition_policy(task: &VolcanoTask, name: &str, job_name: &str, i: usize) -> Vec<Denial> {
    let Some(policy) = &task.partition_policy else {
        return Vec::new();
    };
    let at = |field: &str| format!("spec.tasks[{i}].{field}");
    let ours = format!("in task: {name}, job: {job_name}");
    let counted = if policy.total_partitions <= 0 {
        Some((
            Check::TotalPartitions,
            at("partitionPolicy.totalPartitions"),
            format!("'TotalPartitions' must be greater than 0 {ours}"),
        ))
    } else if policy.partition_size <= 0 {
        Some((
            Check::PartitionSize,
            at("partitionPolicy.partitionSize"),
            format!("'PartitionSize' must be greater than 0 {ours}"),
        ))
    } else if i64::from(task.replicas)
        != i64::from(policy.total_partitions) * i64::from(policy.partition_size)
    {
        Some((
            Check::PartitionReplicas,
            at("replicas"),
            format!("'Replicas' are not equal to TotalPartitions*PartitionSize {ours}"),
        ))
    } else if policy.min_partitions > 0
        && i64::from(policy.min_partitions) * i64::from(policy.partition_size)
            != i64::from(task.min_available_or_default())
    {
        Some((
            Check::PartitionMinAvailable,
            at("minAvailable"),
            format!("'MinAvailable' is not equal to MinPartitions*PartitionSize {ours}"),
        ))
    } else {
        None
    };
    let mut out: Vec<Denial> = counted
        .into_iter()
        .map(|(check, path, message)| Denial {
            check,
            path,
            message,
        })
        .collect();
    out.extend(network_topology(
        policy.network_topology.as_ref(),
        at("partitionPolicy.networkTopology"),
    ));
    out
}

/// `validateNetworkTopology`: both `highestTierAllowed` and `highestTierName` set.
fn network_topology(topology: Option<&NetworkTopologySpec>, path: String) -> Option<Denial> {
    let topology = topology?;
    (topology.highest_tier_allowed.is_some() && !topology.highest_tier_name.is_empty()).then(|| {
        Denial {
            check: Check::NetworkTopology,
            path,
            message: "must not specify 'highestTierAllowed' and 'highestTierName' in \
                      networkTopology simultaneously"
                .into(),
        }
    })
}

/// The webhook's denial as kubectl prints it, or `None` when it admits the job.
pub fn denied(job: &VolcanoJob) -> Option<String> {
    let denials = denials(job);
    (!denials.is_empty()).then(|| {
        let messages: Vec<&str> = denials.iter().map(|d| d.message.as_str()).collect();
        format!(
            "admission webhook \"{WEBHOOK}\" denied the request: {}",
            messages.join("; ")
        )
    })
}

/// `validatePolicies`: the first bad policy stops the check; a `*` event besides any other
/// event is reported after it. `owner` is the path of the job's or task's spec.
fn policies(policies: &[LifecyclePolicy], owner: &str) -> Vec<Denial> {
    // The webhook's field path is `spec.policies` / `spec.tasks.policies` (no index).
    let field = if owner == "spec" {
        "spec.policies"
    } else {
        "spec.tasks.policies"
    };
    let mut out = Vec::new();
    let mut events: Vec<&str> = Vec::new();
    let mut exit_codes: Vec<i32> = Vec::new();
    for (j, policy) in policies.iter().enumerate() {
        let path = format!("{owner}.policies[{j}]");
        let mut fail = |message: String| {
            out.push(Denial {
                check: Check::Policies,
                path: path.clone(),
                message,
            })
        };
        let has_event = !policy.event.is_empty() || !policy.events.is_empty();
        if has_event && policy.exit_code.is_some() {
            fail("must not specify event and exitCode simultaneously".into());
            break;
        }
        let Some(code) = policy.exit_code else {
            if !has_event {
                fail("either event and exitCode should be specified".into());
                break;
            }
            if let Some(message) = event_error(policy, field, &mut events) {
                fail(message);
                break;
            }
            continue;
        };
        if code == 0 {
            fail("0 is not a valid error code".into());
            break;
        }
        if exit_codes.contains(&code) {
            fail(format!("duplicate exitCode {code}"));
            break;
        }
        exit_codes.push(code);
    }
    if events.contains(&"*") && events.len() > 1 {
        out.push(Denial {
            check: Check::Policies,
            path: format!("{owner}.policies"),
            message: "if there's * here, no other policy should be here".into(),
        });
    }
    out
}

/// The first bad event of `policy` (`events` then `event`, each once): not allowed, with an
/// action not allowed, or named by an earlier policy; the good ones are added to `seen`.
fn event_error<'p>(
    policy: &'p LifecyclePolicy,
    field: &str,
    seen: &mut Vec<&'p str>,
) -> Option<String> {
    let mut listed: Vec<&str> = Vec::new();
    for event in policy.events.iter().chain([&policy.event]) {
        if !event.is_empty() && !listed.contains(&event.as_str()) {
            listed.push(event);
        }
    }
    for event in listed {
        if !EVENTS.contains(&event) {
            return Some(format!(
                "{field}: Invalid value: \"{event}\": invalid policy event"
            ));
        }
        if !ACTIONS.contains(&policy.action.as_str()) {
            return Some(format!(
                "{field}: Invalid value: \"{}\": invalid policy action",
                policy.action
            ));
        }
        if seen.contains(&event) {
            return Some(format!("duplicate event {event}  across different policy"));
        }
        seen.push(event);
    }
    None
}

/// apimachinery's `IsQualifiedName` errors, joined as Go prints a string slice, or `None` for
/// a qualified name: an optional DNS subdomain prefix and `/`, then a name of at most 63
/// alphanumerics, `-`, `_` and `.` that starts and ends alphanumeric.
fn qualified_name_errors(value: &str) -> Option<String> {
    const NAME_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and \
        must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or \
        '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let parts: Vec<&str> = value.split('/').collect();
    let (prefix, name) = match parts[..] {
        [name] => (None, name),
        [prefix, name] => (Some(prefix), name),
        _ => {
            return Some(format!(
                "a qualified name {NAME_MESSAGE} with an optional DNS subdomain prefix and '/' \
                 (e.g. 'example.com/MyName')"
            ));
        }
    };
    let mut errors = Vec::new();
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            errors.push("prefix part must be non-empty".to_string());
        } else if !is_dns_subdomain(prefix) {
            errors.push(
                "prefix part a lowercase RFC 1123 subdomain must consist of lower case \
                 alphanumeric characters, '-' or '.', and must start and end with an \
                 alphanumeric character (e.g. 'example.com', regex used for validation is \
                 '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
                    .to_string(),
            );
        }
    }
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if name.is_empty() {
        errors.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errors.push("name part must be no more than 63 bytes".to_string());
    }
    let well_formed = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && edge(name.chars().next())
        && edge(name.chars().last());
    if !name.is_empty() && !well_formed {
        errors.push(format!("name part {NAME_MESSAGE}"));
    }
    (!errors.is_empty()).then(|| errors.join(" "))
}

/// A lowercase RFC 1123 subdomain of at most 253 characters.
fn is_dns_subdomain(value: &str) -> bool {
    value.len() <= 253
        && value.split('.').all(|label| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job from YAML, as the manifests give it.
    fn job(yaml: &str) -> VolcanoJob {
        serde_saphyr::from_str(yaml).unwrap()
    }

    const TASK: &str =
        "{name: web, replicas: 2, template: {spec: {containers: [{name: c, image: c}]}}}";

    /// A denial expected: its check, path and message.
    type Row = (Check, &'static str, String);

    /// Rows after upstream's `TestValidateJobCreate` (admit_job_test.go), in our own jobs:
    /// each job and the (check, path, message) the webhook denies it with.
    #[test]
    fn the_webhook_denies_what_validate_job_create_denies() {
        let with = |spec: &str| format!("metadata: {{name: train}}\nspec: {spec}");
        let task = |extra: &str| TASK.replace("replicas: 2", &format!("replicas: 2{extra}"));
        let rows: Vec<(String, Vec<Row>)> = vec![
            // Two tasks of 2 replicas each: 4 pods, minAvailable 4 is fine.
            (
                with(&format!(
                    "{{minAvailable: 4, tasks: [{TASK}, {}]}}",
                    TASK.replace("web", "db")
                )),
                vec![],
            ),
            // 2 + 2 = 4 pods < minAvailable 5.
            (
                with(&format!(
                    "{{minAvailable: 5, tasks: [{TASK}, {}]}}",
                    TASK.replace("web", "db")
                )),
                vec![(
                    Check::MinAvailable,
                    "spec.minAvailable",
                    "job 'minAvailable' should not be greater than total replicas in tasks".into(),
                )],
            ),
            // The second `web` stops the task loop; minAvailable 0 defaults to 2 + 2 = 4 <= 4.
            (
                with(&format!("{{tasks: [{TASK}, {TASK}]}}")),
                vec![(
                    Check::DuplicateTask,
                    "spec.tasks[1].name",
                    "duplicated task name web".into(),
                )],
            ),
            // Task minAvailable 3 > replicas 2; the defaulted job minimum 3 > 2 pods too.
            (
                with(&format!("{{tasks: [{}]}}", task(", minAvailable: 3"))),
                vec![
                    (
                        Check::TaskMinAvailable,
                        "spec.tasks[0].minAvailable",
                        "'minAvailable' is greater than 'replicas' in task: web, job: train".into(),
                    ),
                    (
                        Check::MinAvailable,
                        "spec.minAvailable",
                        "job 'minAvailable' should not be greater than total replicas in tasks"
                            .into(),
                    ),
                ],
            ),
            (
                with("{tasks: []}"),
                vec![(
                    Check::NoTasks,
                    "spec.tasks",
                    "No task specified in job spec".into(),
                )],
            ),
            // PodFailed twice across the job's policies.
            (
                with(&format!(
                    "{{tasks: [{TASK}], policies: [{{event: PodFailed, action: RestartJob}}, \
                     {{event: PodFailed, action: AbortJob}}]}}"
                )),
                vec![(
                    Check::Policies,
                    "spec.policies[1]",
                    "duplicate event PodFailed  across different policy".into(),
                )],
            ),
            (
                with(&format!(
                    "{{tasks: [{}]}}",
                    task(", policies: [{event: PodFailed, exitCode: 3, action: AbortJob}]")
                )),
                vec![(
                    Check::Policies,
                    "spec.tasks[0].policies[0]",
                    "must not specify event and exitCode simultaneously".into(),
                )],
            ),
            (
                with(&format!(
                    "{{tasks: [{TASK}], policies: [{{exitCode: 0, action: RestartJob}}]}}"
                )),
                vec![(
                    Check::Policies,
                    "spec.policies[0]",
                    "0 is not a valid error code".into(),
                )],
            ),
            (
                with(&format!(
                    "{{tasks: [{TASK}], policies: [{{exitCode: 7, action: RestartJob}}, \
                     {{exitCode: 7, action: AbortJob}}]}}"
                )),
                vec![(
                    Check::Policies,
                    "spec.policies[1]",
                    "duplicate exitCode 7".into(),
                )],
            ),
            (
                with(&format!(
                    "{{tasks: [{TASK}], policies: [{{action: RestartJob}}]}}"
                )),
                vec![(
                    Check::Policies,
                    "spec.policies[0]",
                    "either event and exitCode should be specified".into(),
                )],
            ),
            // `OutOfSync` exists but is internal; `Sync` is an internal action.
            (
                with(&format!(
                    "{{tasks: [{TASK}], policies: [{{event: OutOfSync, action: AbortJob}}]}}"
                )),
                vec![(
                    Check::Policies,
                    "spec.policies[0]",
                    "spec.policies: Invalid value: \"OutOfSync\": invalid policy event".into(),
                )],
            ),
            (
                with(&format!(
                    "{{tasks: [{}]}}",
                    task(", policies: [{event: PodEvicted, action: SyncJob}]")
                )),
                vec![(
                    Check::Policies,
                    "spec.tasks[0].policies[0]",
                    "spec.tasks.policies: Invalid value: \"SyncJob\": invalid policy action".into(),
                )],
            ),
            (
                with(&format!(
                    "{{tasks: [{TASK}], policies: [{{event: '*', action: AbortJob}}, \
                     {{events: [TaskFailed], action: RestartJob}}]}}"
                )),
                vec![(
                    Check::Policies,
                    "spec.policies",
                    "if there's * here, no other policy should be here".into(),
                )],
            ),
            (
                with(&format!(
                    "{{tasks: [{TASK}], networkTopology: {{mode: hard, highestTierAllowed: 2, \
                     highestTierName: rack}}}}"
                )),
                vec![(
                    Check::NetworkTopology,
                    "spec.networkTopology",
                    "must not specify 'highestTierAllowed' and 'highestTierName' in \
                     networkTopology simultaneously"
                        .into(),
                )],
            ),
            // 64 characters: 3 + 61; its pods' names are longer still.
            (
                format!(
                    "metadata: {{name: job{}}}\nspec: {{tasks: [{TASK}]}}",
                    "x".repeat(61)
                ),
                vec![
                    (
                        Check::Name,
                        "spec.tasks[0].name",
                        format!(
                            "create pod with name job{}-web-0 validate failed [name part must \
                             be no more than 63 bytes]",
                            "x".repeat(61)
                        ),
                    ),
                    (
                        Check::Name,
                        "metadata.name",
                        format!(
                            "create job with name job{} validate failed [name part must be no \
                             more than 63 bytes]",
                            "x".repeat(61)
                        ),
                    ),
                ],
            ),
            // A task name with a space makes a pod name no qualified name.
            (
                with(&format!("{{tasks: [{}]}}", TASK.replace("web", "'a b'"))),
                vec![(
                    Check::Name,
                    "spec.tasks[0].name",
                    "create pod with name train-a b-0 validate failed [name part must consist \
                     of alphanumeric characters, '-', '_' or '.', and must start and end with \
                     an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', \
                     regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"
                        .into(),
                )],
            ),
        ];
        for (yaml, want) in rows {
            assert_denials(&job(&yaml), want, &yaml);
        }
    }

    /// `validatePartitionPolicy` (issue 31 rows 4.7, 4.8, in job J's task t0): the first
    /// failing count only, then the partition's network topology; the mutating webhook's
    /// default `minAvailable` (minPartitions x partitionSize) always passes.
    #[test]
    fn the_webhook_checks_partition_policies() {
        let job_of = |task: &str| {
            job(&format!(
                "metadata: {{name: J}}\nspec: {{tasks: [{{name: t0, {task}, template: {{spec: \
                 {{containers: [{{name: c, image: c}}]}}}}}}]}}"
            ))
        };
        let of = |msg: &str| format!("{msg} in task: t0, job: J");
        let rows: Vec<(&str, Vec<Row>)> = vec![
            // 2 x 4 = 8 replicas; minAvailable defaults to 1 x 4 = 4.
            (
                "replicas: 8, partitionPolicy: {totalPartitions: 2, partitionSize: 4, minPartitions: 1}",
                vec![],
            ),
            (
                "replicas: 8, partitionPolicy: {totalPartitions: 0, partitionSize: 0}",
                vec![(
                    Check::TotalPartitions,
                    "spec.tasks[0].partitionPolicy.totalPartitions",
                    of("'TotalPartitions' must be greater than 0"),
                )],
            ),
            (
                "replicas: 8, partitionPolicy: {totalPartitions: 2, partitionSize: 0}",
                vec![(
                    Check::PartitionSize,
                    "spec.tasks[0].partitionPolicy.partitionSize",
                    of("'PartitionSize' must be greater than 0"),
                )],
            ),
            // 4.7: 3 x 3 = 9, not 8.
            (
                "replicas: 8, partitionPolicy: {totalPartitions: 3, partitionSize: 3}",
                vec![(
                    Check::PartitionReplicas,
                    "spec.tasks[0].replicas",
                    of("'Replicas' are not equal to TotalPartitions*PartitionSize"),
                )],
            ),
            // 4.8: 1 x 4 = 4, not 5.
            (
                "replicas: 8, minAvailable: 5, partitionPolicy: {totalPartitions: 2, partitionSize: 4, minPartitions: 1}",
                vec![(
                    Check::PartitionMinAvailable,
                    "spec.tasks[0].minAvailable",
                    of("'MinAvailable' is not equal to MinPartitions*PartitionSize"),
                )],
            ),
            // minPartitions 3 x 4 = 12 > 8 replicas: the mutating webhook's minAvailable is
            // above the replicas, and so is the job's (their sum, 12); the partition counts
            // agree.
            (
                "replicas: 8, partitionPolicy: {totalPartitions: 2, partitionSize: 4, minPartitions: 3}",
                vec![
                    (
                        Check::TaskMinAvailable,
                        "spec.tasks[0].minAvailable",
                        of("'minAvailable' is greater than 'replicas'"),
                    ),
                    (
                        Check::MinAvailable,
                        "spec.minAvailable",
                        "job 'minAvailable' should not be greater than total replicas in tasks"
                            .into(),
                    ),
                ],
            ),
            // Without minPartitions, any minAvailable up to the replicas passes.
            (
                "replicas: 8, minAvailable: 5, partitionPolicy: {totalPartitions: 2, partitionSize: 4}",
                vec![],
            ),
            // A count fails and the partition's topology too: both are said.
            (
                "replicas: 7, partitionPolicy: {totalPartitions: 2, partitionSize: 4, \
                 networkTopology: {mode: hard, highestTierAllowed: 1, highestTierName: rack}}",
                vec![
                    (
                        Check::PartitionReplicas,
                        "spec.tasks[0].replicas",
                        of("'Replicas' are not equal to TotalPartitions*PartitionSize"),
                    ),
                    (
                        Check::NetworkTopology,
                        "spec.tasks[0].partitionPolicy.networkTopology",
                        "must not specify 'highestTierAllowed' and 'highestTierName' in \
                         networkTopology simultaneously"
                            .into(),
                    ),
                ],
            ),
        ];
        for (task, want) in rows {
            assert_denials(&job_of(task), want, task);
        }
    }

    /// `job`'s denials are `want`, as (check, path, message), in order.
    fn assert_denials(job: &VolcanoJob, want: Vec<Row>, context: &str) {
        let got: Vec<(Check, String, String)> = denials(job)
            .into_iter()
            .map(|d| (d.check, d.path, d.message))
            .collect();
        let want: Vec<(Check, String, String)> = want
            .into_iter()
            .map(|(c, p, m)| (c, p.to_string(), m))
            .collect();
        assert_eq!(got, want, "{context}");
    }

    #[test]
    fn the_denial_reads_as_kubectl_prints_it() {
        let yaml = format!("metadata: {{name: train}}\nspec: {{minAvailable: 3, tasks: [{TASK}]}}");
        assert_eq!(
            denied(&job(&yaml)).as_deref(),
            Some(
                "admission webhook \"validatejob.volcano.sh\" denied the request: job \
                 'minAvailable' should not be greater than total replicas in tasks"
            )
        );
        assert_eq!(
            denied(&job(&yaml.replace("minAvailable: 3", "minAvailable: 2"))),
            None
        );
    }
}
