//! `explain-placement` and `plan` agree for every pod of every testdata example (issue 17):
//! every operation, gang member and batch pod that `plan` places (or leaves pending) from every
//! manifest file of `testdata/`, against every recorded state there, with both batch solvers;
//! and every Pending pod of every state as `plan --pending` places it. Files are found at test
//! time: a file whose objects include Nodes is a state, any other file of inputs is planned
//! against each state. openb.json (1,523 nodes, 897 Pending pods) has a test of its own, on a
//! deterministic sample: explaining each of its Pending pods in place replans the queue ahead
//! of it every time, too slow to do whole in a debug test run.

use std::path::{Path, PathBuf};

use df_engine::Profiles;
use df_engine::object_selector::ObjectSelector;
use df_lint::strict;
use df_manifest::ManifestSet;
use df_plan::explain::{self, Scope};
use df_plan::pending::FROM_STATE;
use df_plan::{OpStatus, Plan, PlanOptions, Solver, plan_all};
use df_state::{ClusterState, recorded};

fn testdata_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            // Bad inputs fail to load by design.
            if !path.ends_with("bad") {
                testdata_files(&path, files);
            }
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "json")
            && !path.ends_with("openb.json")
        {
            files.push(path);
        }
    }
}

/// Files of testdata, by name.
type Named<T> = Vec<(String, T)>;

/// The recorded states (files with nodes) and the input sets (every other file that loads and
/// that `plan` accepts).
fn examples() -> (Named<ClusterState>, Named<ManifestSet>) {
    let mut files = Vec::new();
    testdata_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata"),
        &mut files,
    );
    let mut states = Vec::new();
    let mut inputs = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let name = name
            .strip_prefix(concat!(env!("CARGO_MANIFEST_DIR"), "/"))
            .unwrap_or(&name)
            .to_string();
        if let Ok(state) = recorded::load_files(std::slice::from_ref(&name))
            && !state.nodes.is_empty()
        {
            states.push((name, state));
            continue;
        }
        let Ok(Ok(mut set)) =
            df_manifest::load(std::slice::from_ref(&name), false).map(ManifestSet::into_plannable)
        else {
            continue;
        };
        set.default_namespace("default");
        // What plan and explain-placement refuse (unknown fields, the same object twice).
        if strict::check_set(&set).enforce(false).is_err() {
            continue;
        }
        inputs.push((name, set));
    }
    (states, inputs)
}

/// One pod of a plan: how `explain-placement` names it, its namespace, and the plan's answer.
struct Planned {
    target: String,
    namespace: String,
    node: Option<String>,
    /// The plan's `0/N nodes are available` line, where it keeps one (an unschedulable step).
    summary: Option<String>,
}

/// Every pod `plan` decides: operations that run, gang pods that are not already running,
/// batch pods (plain pods, workload replicas, Pending pods of the state).
fn planned(plan: &Plan) -> Vec<Planned> {
    let mut pods = Vec::new();
    for op in &plan.operations {
        if matches!(op.status, OpStatus::Planned | OpStatus::Unschedulable) {
            pods.push(Planned {
                target: format!("{}/{}", op.kind, op.name),
                namespace: op.namespace.clone(),
                node: op.node.clone(),
                summary: op.summary.clone(),
            });
        }
    }
    for group in &plan.groups {
        for row in group.pods.iter().filter(|r| !r.running) {
            pods.push(Planned {
                target: format!("pod/{}", row.pod),
                namespace: group.namespace.clone(),
                node: row.node.clone(),
                summary: None,
            });
        }
    }
    for row in plan.batch.iter().flat_map(|b| &b.pods) {
        pods.push(Planned {
            target: format!("pod/{}", row.name),
            namespace: row.namespace.clone(),
            node: row.node.clone(),
            summary: None,
        });
    }
    pods
}

/// Explain every pod of `plan` and compare; returns how many pods were compared.
fn assert_agree(
    case: &str,
    inputs: &ManifestSet,
    state: &ClusterState,
    solver: Solver,
    plan: &Plan,
    most: usize,
) -> usize {
    let pods = planned(plan);
    // At most `most` pods, evenly spaced: each explanation replans the inputs.
    let stride = pods.len().div_ceil(most).max(1);
    // A name two pods share (duplicate Volcano task names, lint's DF306) names neither.
    let unique = |pod: &Planned| {
        pods.iter()
            .filter(|p| p.namespace == pod.namespace && p.target == pod.target)
            .count()
            == 1
    };
    for pod in pods.iter().step_by(stride).filter(|p| unique(p)) {
        let scope = Scope {
            manifests: inputs,
            state,
            profiles: Profiles::default(),
            routes: Vec::new(),
            solver,
            namespace: Some(&pod.namespace),
            default_namespace: "default",
            selector: &ObjectSelector::default(),
        };
        let explained = explain::explain(&scope, Some(&pod.target), None)
            .unwrap_or_else(|e| panic!("{case}: {} {}: {e}", pod.namespace, pod.target));
        let what = format!("{case}: {}/{}", pod.namespace, pod.target);
        assert_eq!(explained.node(), pod.node.as_deref(), "{what}");
        assert_eq!(explained.placed(), pod.node.is_some(), "{what}");
        if let Some(admission) = &explained.admission {
            // A pod naming its node: the kubelet's verdict is the reason.
            assert_eq!(admission.admitted, pod.node.is_some(), "{what}");
            assert_eq!(admission.reasons.is_empty(), admission.admitted, "{what}");
        } else if pod.node.is_none() {
            let summary = explained.decision.summary.as_deref().unwrap_or_default();
            assert!(!summary.is_empty(), "{what}: pending without a reason");
            if let Some(expected) = &pod.summary {
                assert_eq!(summary, expected, "{what}");
            }
        }
    }
    pods.len()
}

#[test]
fn explain_placement_agrees_with_plan_on_every_testdata_pod() {
    let (states, inputs) = examples();
    assert!(states.len() >= 8, "{} states", states.len());
    assert!(inputs.len() >= 100, "{} input files", inputs.len());
    let mut compared = 0;
    let mut pending = 0;
    for (state_name, state) in &states {
        for (input_name, set) in &inputs {
            for solver in [Solver::Greedy, Solver::Flow] {
                let opts = PlanOptions {
                    solver,
                    ..PlanOptions::default()
                };
                // Inputs that cannot be planned on this state (a gang in conflicting domains)
                // are refused by explain-placement the same way.
                let Ok(plan) = plan_all(set, state, Profiles::default(), &opts) else {
                    continue;
                };
                // Only the batch has a second solver.
                if solver == Solver::Flow && plan.batch.is_none() {
                    continue;
                }
                let case = format!("{input_name} on {state_name} ({solver:?})");
                compared += assert_agree(&case, set, state, solver, &plan, usize::MAX);
            }
        }
        // Without inputs: the Pending pods of the state, each in its place in the queue.
        let opts = PlanOptions {
            pending: true,
            ..PlanOptions::default()
        };
        let none = ManifestSet::default();
        let plan = plan_all(&none, state, Profiles::default(), &opts).unwrap();
        let from_state = plan
            .batch
            .iter()
            .flat_map(|b| &b.pods)
            .all(|r| r.from == FROM_STATE);
        assert!(from_state, "{state_name}");
        let case = format!("plan --pending on {state_name}");
        pending += assert_agree(&case, &none, state, Solver::Greedy, &plan, usize::MAX);
    }
    // Fails when the walk over testdata finds (almost) nothing to compare.
    assert!(compared > 2000, "{compared} pods compared");
    eprintln!("{compared} pods of inputs and {pending} Pending pods compared");
    assert!(pending >= 9, "{pending} Pending pods compared");
}

/// The production-sized state `testdata/clusters/openb.json` (built from the openb trace in
/// `../shared/data/openb`: 1,523 nodes, 897 Pending pods), which the walk above leaves out as
/// too slow to walk whole in a debug test run, so it is sampled, deterministically:
/// - every [`INPUT_STRIDE`]-th input file of testdata (in path order) is planned on it and
///   [`PODS_PER_INPUT`] of its pods, evenly spaced, are explained, greedy only (the flow
///   solver is compared on the small states above), so that no input's size decides the
///   test's time;
/// - [`PENDING_SAMPLE`] of its Pending pods, evenly spaced over the queue, are explained in
///   place. Explaining the pod at queue position `p` replans the `p` pods ahead of it, so all
///   897 would replan the queue 897 times (about 400,000 placements, an hour in debug); the
///   sample costs about four plans of the whole queue.
#[test]
fn explain_placement_agrees_with_plan_on_the_openb_state() {
    const INPUT_STRIDE: usize = 3;
    const PODS_PER_INPUT: usize = 12;
    const PENDING_SAMPLE: usize = 8;
    let name = "testdata/clusters/openb.json";
    let state = recorded::load_files(&[name.to_string()]).unwrap();
    let (_, inputs) = examples();
    let mut compared = 0;
    for (input_name, set) in inputs.iter().step_by(INPUT_STRIDE) {
        let Ok(plan) = plan_all(set, &state, Profiles::default(), &PlanOptions::default()) else {
            continue;
        };
        let case = format!("{input_name} on {name}");
        compared += assert_agree(&case, set, &state, Solver::Greedy, &plan, PODS_PER_INPUT);
    }
    let opts = PlanOptions {
        pending: true,
        ..PlanOptions::default()
    };
    let none = ManifestSet::default();
    let mut plan = plan_all(&none, &state, Profiles::default(), &opts).unwrap();
    let batch = plan.batch.as_mut().unwrap();
    assert_eq!(batch.pods.len(), 897, "openb's Pending pods");
    let stride = batch.pods.len() / PENDING_SAMPLE;
    let mut position = 0;
    batch.pods.retain(|_| {
        position += 1;
        (position - 1) % stride == 0 && position <= stride * PENDING_SAMPLE
    });
    let pending = assert_agree(
        &format!("plan --pending on {name}"),
        &none,
        &state,
        Solver::Greedy,
        &plan,
        usize::MAX,
    );
    eprintln!("openb: {compared} pods of inputs and {pending} Pending pods compared");
    assert!(compared > 100, "{compared} pods of inputs compared");
    assert_eq!(pending, PENDING_SAMPLE);
}
