//! Volcano Job rules (DF3xx): the task-topology annotations and what the job admission
//! webhook denies.

use std::collections::{BTreeSet, HashSet};

use super::{Context, Finding, literal_key, node_at};
use df_manifest::{Manifest, Node};
use df_model::gang::{
    VOLCANO_AFFINITY_ANNOTATION, VOLCANO_ANTI_AFFINITY_ANNOTATION, VOLCANO_TASK_ORDER_ANNOTATION,
};
use df_model::{Object, VolcanoJob};
use df_systems::gang::volcano::admission::{self, Check};

/// A task name in an annotation: the group it is in and its byte offset in the value.
struct Name<'v> {
    name: &'v str,
    group: usize,
    offset: usize,
}

/// Split `a,b;c` into names with their groups and offsets (names trimmed of spaces).
fn parse(value: &str) -> Vec<Name<'_>> {
    let mut names = Vec::new();
    let mut group_start = 0;
    for (group, part) in value.split(';').enumerate() {
        let mut start = group_start;
        for raw in part.split(',') {
            let trimmed = raw.trim_start();
            let offset = start + (raw.len() - trimmed.len());
            names.push(Name {
                name: trimmed.trim_end(),
                group,
                offset,
            });
            start += raw.len() + 1;
        }
        group_start += part.len() + 1;
    }
    names
}

pub(crate) fn check(ctx: &mut Context<'_>, m: &Manifest) {
    let Object::VolcanoJob(job) = &m.object else {
        return;
    };
    check_admission(ctx, m, job);
    let tasks: HashSet<&str> = job.spec.tasks.iter().map(|t| t.name.as_str()).collect();
    let annotations = node_at(m, "metadata.annotations");
    let mut affinity = None;
    let mut anti_affinity = None;
    for annotation in [
        VOLCANO_AFFINITY_ANNOTATION,
        VOLCANO_ANTI_AFFINITY_ANNOTATION,
        VOLCANO_TASK_ORDER_ANNOTATION,
    ] {
        let Some((_, node)) = literal_key(annotations, annotation) else {
            continue;
        };
        let Some(value) = node.as_str().filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let path = format!("metadata.annotations[{annotation}]");
        let names = parse(value);
        let mut seen = HashSet::new();
        for name in &names {
            // Duplicates count within a group; the task order is one list.
            let group = if annotation == VOLCANO_TASK_ORDER_ANNOTATION {
                0
            } else {
                name.group
            };
            let pos = ctx.pos_in_scalar(m, node, name.offset);
            let finding = |code, message: String| Finding {
                code,
                pos,
                path: path.clone(),
                message,
                hint: None,
            };
            if name.name.is_empty() {
                let message =
                    format!("{annotation}: empty task name (a doubled or trailing separator)");
                ctx.emit(m, finding("DF303", message));
            } else if !tasks.contains(name.name) {
                let known: BTreeSet<&str> = tasks.iter().copied().collect();
                let message = format!("{annotation}: unknown task {:?}", name.name);
                let hint = format!(
                    "tasks of this Job: {}",
                    known.into_iter().collect::<Vec<_>>().join(", ")
                );
                ctx.emit(m, finding("DF301", message).hint(hint));
            } else if !seen.insert((group, name.name)) {
                let message = format!(
                    "{annotation}: task {:?} is listed more than once",
                    name.name
                );
                ctx.emit(m, finding("DF302", message));
            }
        }
        match annotation {
            VOLCANO_AFFINITY_ANNOTATION => affinity = Some(group_pairs(&names)),
            VOLCANO_ANTI_AFFINITY_ANNOTATION => anti_affinity = Some((group_pairs(&names), node)),
            _ => {}
        }
    }
    if let (Some(affinity), Some((anti, anti_node))) = (affinity, anti_affinity) {
        check_conflicts(ctx, m, &affinity, &anti, anti_node);
    }
}

/// The task pairs a (anti-)affinity annotation asks for; a group of one is the pair (a, a).
fn group_pairs(names: &[Name<'_>]) -> BTreeSet<(String, String)> {
    let mut pairs = BTreeSet::new();
    let groups = names.last().map_or(0, |n| n.group + 1);
    for group in 0..groups {
        let members: BTreeSet<&str> = names
            .iter()
            .filter(|n| n.group == group && !n.name.is_empty())
            .map(|n| n.name)
            .collect();
        let members: Vec<&str> = members.into_iter().collect();
        if let [only] = members[..] {
            pairs.insert((only.to_string(), only.to_string()));
        }
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                pairs.insert((a.to_string(), b.to_string()));
            }
        }
    }
    pairs
}

fn check_conflicts(
    ctx: &mut Context<'_>,
    m: &Manifest,
    affinity: &BTreeSet<(String, String)>,
    anti: &BTreeSet<(String, String)>,
    anti_node: &Node,
) {
    let value = anti_node.as_str().unwrap_or("");
    let names = parse(value);
    for (a, b) in affinity.intersection(anti) {
        let offset = names.iter().find(|n| n.name == a).map_or(0, |n| n.offset);
        let pair = if a == b {
            format!("task {a:?} with itself")
        } else {
            format!("tasks {a:?} and {b:?}")
        };
        let finding = Finding {
            code: "DF304",
            pos: ctx.pos_in_scalar(m, anti_node, offset),
            path: format!("metadata.annotations[{VOLCANO_ANTI_AFFINITY_ANNOTATION}]"),
            message: format!(
                "{pair} are in both {VOLCANO_AFFINITY_ANNOTATION} and {VOLCANO_ANTI_AFFINITY_ANNOTATION}"
            ),
            hint: None,
        };
        ctx.emit(m, finding);
    }
}

/// What Volcano's job admission webhook denies (DF305-DF315), each in its rule and with its
/// words: the job is never created.
fn check_admission(ctx: &mut Context<'_>, m: &Manifest, job: &VolcanoJob) {
    for denial in admission::denials(job) {
        let code = match denial.check {
            Check::MinAvailable => "DF305",
            Check::DuplicateTask => "DF306",
            Check::TaskMinAvailable => "DF307",
            Check::NoTasks => "DF308",
            Check::Policies => "DF309",
            Check::NetworkTopology => "DF310",
            Check::Name => "DF311",
            Check::TotalPartitions => "DF312",
            Check::PartitionSize => "DF313",
            Check::PartitionReplicas => "DF314",
            Check::PartitionMinAvailable => "DF315",
        };
        let message = format!(
            "rejected by Volcano's admission webhook: {}",
            denial.message
        );
        ctx.emit(m, Finding::at(m, code, &denial.path, message));
    }
}
