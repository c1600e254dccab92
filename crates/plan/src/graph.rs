//! The flow graph: operations from the manifests and the cluster state, linked by
//! `spec.runAfter` (and `dependOn`, which Fluid also waits for), ordered the way Fluid runs
//! them. Every walk here is iterative, so deep chains and cycles cost no stack.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;

use df_manifest::Manifest;
use df_model::fluid::FluidRuntime;
use df_model::{FluidOp, Object, Pod};
use df_state::ClusterState;
use df_systems::fluid::{self, OpKey, Refs};

/// One operation of the graph and where it came from.
#[derive(Debug, Clone)]
pub struct GraphOp<'a> {
    pub op: &'a FluidOp,
    /// The manifest it was read from; `None` for operations found in the cluster state.
    pub manifest: Option<&'a Manifest>,
    pub key: OpKey,
    pub refs: Refs,
    /// Index of `refs.after` in the graph, when that operation is known.
    pub after: Option<usize>,
    /// Index of `refs.source` in the graph, when that operation is known.
    pub source: Option<usize>,
}

impl GraphOp<'_> {
    /// `file:line:column` of a field of this operation, or `cluster state` for state objects.
    pub fn locate(&self, path: &str) -> String {
        match self.manifest {
            Some(m) => format!("{}:{}", m.file, m.pos_of(path)),
            None => "cluster state".to_string(),
        }
    }

    /// Operations this one waits for (runAfter, and dependOn when it names another op).
    pub(crate) fn waits_for(&self) -> impl Iterator<Item = usize> + '_ {
        self.after
            .into_iter()
            .chain(self.source.filter(|s| Some(*s) != self.after))
    }
}

/// The graph ordered for planning.
#[derive(Debug, Clone)]
pub struct FlowGraph<'a> {
    pub ops: Vec<GraphOp<'a>>,
    /// Flows (weakly connected parts), each in run order; flows in order of first appearance.
    pub flows: Vec<Vec<usize>>,
    /// The runAfter links, for ancestry questions.
    pub forest: RunAfterForest,
    /// Fluid cache runtimes from the state and the manifests, which Fluid's webhook reads for
    /// the datasets the flow's pods mount. The state's come first: what the webhook reads is
    /// the runtime's `status`, which only the cluster records.
    pub runtimes: Vec<&'a FluidRuntime>,
    /// Per operation (graph index), the API server's admission of its pod: the pod as
    /// admitted (LimitRange defaults set) or the rejection; `None` when it makes no pod or
    /// was not admitted ([`super::flow::admit_operations`]).
    pub admitted: Vec<Option<Result<Pod, String>>>,
}

/// A problem that makes the flow impossible to plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    #[error("{at}: {op}: {problem}")]
    Reference {
        at: String,
        op: String,
        problem: String,
    },
    #[error("{at}: {op} runs after itself ({field})")]
    SelfReference {
        at: String,
        op: String,
        field: &'static str,
    },
    #[error("{at}: {op} is defined twice (first at {first})")]
    Duplicate {
        at: String,
        op: String,
        first: String,
    },
    #[error("cycle in runAfter: {}", .members.iter().map(|(op, at)| format!("{op} ({at})")).collect::<Vec<_>>().join(" -> "))]
    Cycle { members: Vec<(String, String)> },
}

/// All problems of a flow, one per line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FlowErrors(pub Vec<FlowError>);

impl fmt::Display for FlowErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

/// Build the graph from the manifests' operations plus the state operations they reach.
/// Without manifest operations, the state's operations that have not finished are planned.
pub fn build<'a>(
    manifests: &'a [Manifest],
    state: &'a ClusterState,
) -> Result<FlowGraph<'a>, FlowErrors> {
    let mut errors = Vec::new();
    let mut graph = Builder::default();
    for manifest in manifests {
        if let Object::FluidOp(op) = &manifest.object
            && let Err(e) = graph.add(op, Some(manifest))
        {
            errors.push(e);
        }
    }
    let state_ops: HashMap<OpKey, &'a FluidOp> = state
        .fluid_ops
        .iter()
        .map(|op| (OpKey::of(op), op))
        .collect();
    if graph.ops.is_empty() {
        for op in &state.fluid_ops {
            if !matches!(op.status.phase.as_str(), "Complete" | "Failed") {
                // Keys are unique in the state, so this cannot fail.
                let _ = graph.add(op, None);
            }
        }
    }
    // Resolve references breadth-first, pulling referents in from the state as they appear.
    let mut next = 0;
    while next < graph.ops.len() {
        let i = next;
        next += 1;
        let refs = match fluid::refs(graph.ops[i].op) {
            Ok(refs) => refs,
            Err(problems) => {
                for problem in problems {
                    errors.push(FlowError::Reference {
                        at: graph.ops[i].locate(&problem.path()),
                        op: graph.ops[i].key.to_string(),
                        problem: problem.to_string(),
                    });
                }
                continue;
            }
        };
        let after = graph.resolve(&refs.after, &state_ops);
        let source = graph.resolve(&refs.source, &state_ops);
        for (target, field) in [
            (after, "spec.runAfter"),
            (source, "spec.runAfter.affinityStrategy.dependOn"),
        ] {
            if target == Some(i) && (field == "spec.runAfter" || refs.depend_on) {
                errors.push(FlowError::SelfReference {
                    at: graph.ops[i].locate(field),
                    op: graph.ops[i].key.to_string(),
                    field,
                });
            }
        }
        let entry = &mut graph.ops[i];
        entry.after = after.filter(|&j| j != i);
        entry.source = source.filter(|&j| j != i);
        entry.refs = refs;
    }
    if !errors.is_empty() {
        return Err(FlowErrors(errors));
    }
    let ops = graph.ops;
    let order = topological_order(&ops).map_err(FlowErrors)?;
    let upstream: Vec<Option<usize>> = ops.iter().map(|op| op.after).collect();
    Ok(FlowGraph {
        runtimes: super::datasets::runtimes(manifests, state),
        flows: split_flows(&ops, &order),
        forest: RunAfterForest::new(&upstream),
        admitted: Vec::new(),
        ops,
    })
}

#[derive(Default)]
struct Builder<'a> {
    ops: Vec<GraphOp<'a>>,
    index: HashMap<OpKey, usize>,
}

impl<'a> Builder<'a> {
    fn add(&mut self, op: &'a FluidOp, manifest: Option<&'a Manifest>) -> Result<(), FlowError> {
        let entry = GraphOp {
            op,
            manifest,
            key: OpKey::of(op),
            refs: Refs::none(),
            after: None,
            source: None,
        };
        if let Some(&first) = self.index.get(&entry.key) {
            return Err(FlowError::Duplicate {
                at: entry.locate("metadata.name"),
                op: entry.key.to_string(),
                first: self.ops[first].locate("metadata.name"),
            });
        }
        self.index.insert(entry.key.clone(), self.ops.len());
        self.ops.push(entry);
        Ok(())
    }

    /// The index of a referenced operation, pulling it in from the state when needed.
    fn resolve(
        &mut self,
        key: &Option<OpKey>,
        state_ops: &HashMap<OpKey, &'a FluidOp>,
    ) -> Option<usize> {
        let key = key.as_ref()?;
        if let Some(&j) = self.index.get(key) {
            return Some(j);
        }
        let op = state_ops.get(key)?;
        self.add(op, None).ok()?;
        Some(self.ops.len() - 1)
    }
}

/// Kahn's algorithm; ties go to the operation read first. Leftovers are cycles.
fn topological_order(ops: &[GraphOp]) -> Result<Vec<usize>, Vec<FlowError>> {
    let mut waiting = vec![0usize; ops.len()];
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
    for (i, op) in ops.iter().enumerate() {
        for j in op.waits_for() {
            waiting[i] += 1;
            dependents[j].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..ops.len())
        .filter(|&i| waiting[i] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(ops.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &d in &dependents[i] {
            waiting[d] -= 1;
            if waiting[d] == 0 {
                ready.push(Reverse(d));
            }
        }
    }
    if order.len() == ops.len() {
        return Ok(order);
    }
    Err(find_cycles(ops, &waiting))
}

/// Each cycle among the operations left waiting, once. Following an unfinished dependency
/// from a left-over operation always ends in a cycle, so every walk finds one or joins an
/// earlier walk.
fn find_cycles(ops: &[GraphOp], waiting: &[usize]) -> Vec<FlowError> {
    const UNSEEN: usize = usize::MAX;
    let mut walk_of = vec![UNSEEN; ops.len()];
    let mut errors = Vec::new();
    for start in 0..ops.len() {
        if waiting[start] == 0 || walk_of[start] != UNSEEN {
            continue;
        }
        let mut path = Vec::new();
        let mut at = start;
        loop {
            if walk_of[at] == start {
                let from = path.iter().position(|&p| p == at).unwrap_or(0);
                let mut members: Vec<(String, String)> = path[from..]
                    .iter()
                    .map(|&i: &usize| (ops[i].key.to_string(), ops[i].locate("spec.runAfter")))
                    .collect();
                members.push(members[0].clone());
                errors.push(FlowError::Cycle { members });
                break;
            }
            if walk_of[at] != UNSEEN {
                break;
            }
            walk_of[at] = start;
            path.push(at);
            match ops[at].waits_for().find(|&j| waiting[j] > 0) {
                Some(j) => at = j,
                None => break,
            }
        }
    }
    errors
}

/// Weakly connected parts of the graph, each listed in `order`.
fn split_flows(ops: &[GraphOp], order: &[usize]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..ops.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (i, op) in ops.iter().enumerate() {
        for j in op.waits_for() {
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            parent[a] = b;
        }
    }
    let mut flow_of_root: HashMap<usize, usize> = HashMap::new();
    let mut flows: Vec<Vec<usize>> = Vec::new();
    for &i in order {
        let r = root(&mut parent, i);
        let flow = *flow_of_root.entry(r).or_insert_with(|| {
            flows.push(Vec::new());
            flows.len() - 1
        });
        flows[flow].push(i);
    }
    flows
}

/// Whether `ancestor` is reached from `op` by following runAfter links only.
pub fn runs_after(graph: &FlowGraph, op: usize, ancestor: usize) -> bool {
    graph.forest.runs_after(op, ancestor)
}

/// The runAfter links seen as a whole. Each operation runs after at most one other, so the
/// links form trees whose roots are operations that run after nothing known, or cycles.
/// Built in one linear pass (plus one depth-first numbering), it answers "does `op` run after
/// `ancestor`" and "which cycle is `op` on" in constant time; walking the chain per question
/// instead made lint quadratic on long chains. `plan` and `lint` both use it.
#[derive(Debug, Clone, Default)]
pub struct RunAfterForest {
    /// The cycles, each listed from its first member found, in runAfter order.
    cycles: Vec<Vec<usize>>,
    /// For an operation on a cycle: (cycle, position in it).
    on_cycle: Vec<Option<(usize, usize)>>,
    /// The cycle an operation's runAfter chain ends in, if it ends in one.
    ends_in_cycle: Vec<Option<usize>>,
    /// Depth-first entry and exit numbers over the trees (cycle members are tree roots).
    enter: Vec<usize>,
    exit: Vec<usize>,
}

#[cfg(test)]
thread_local! {
    /// Steps taken building forests on this thread, so tests can assert linear work.
    static FOREST_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count_step() {
    #[cfg(test)]
    FOREST_STEPS.with(|steps| steps.set(steps.get() + 1));
}

/// The steps counted on this thread since the last call.
#[cfg(test)]
pub(crate) fn take_forest_steps() -> usize {
    FOREST_STEPS.with(|steps| steps.replace(0))
}

impl RunAfterForest {
    /// `upstream[i]` is the operation `i` runs after, when it is known.
    pub fn new(upstream: &[Option<usize>]) -> RunAfterForest {
        const UNSEEN: usize = usize::MAX;
        let n = upstream.len();
        let mut forest = RunAfterForest {
            cycles: Vec::new(),
            on_cycle: vec![None; n],
            ends_in_cycle: vec![None; n],
            enter: vec![0; n],
            exit: vec![0; n],
        };
        // Each walk follows runAfter from an unseen operation until it meets an earlier
        // walk's operation (whose ending it shares) or its own (a new cycle).
        let mut walk_of = vec![UNSEEN; n];
        let mut path = Vec::new();
        for start in 0..n {
            if walk_of[start] != UNSEEN {
                continue;
            }
            path.clear();
            let mut at = Some(start);
            let ending = loop {
                let Some(i) = at else { break None };
                count_step();
                if walk_of[i] == start {
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    let cycle = forest.cycles.len();
                    for (position, &member) in path[from..].iter().enumerate() {
                        forest.on_cycle[member] = Some((cycle, position));
                    }
                    forest.cycles.push(path[from..].to_vec());
                    break Some(cycle);
                }
                if walk_of[i] != UNSEEN {
                    break forest.ends_in_cycle[i];
                }
                walk_of[i] = start;
                path.push(i);
                at = upstream[i];
            };
            for &i in &path {
                forest.ends_in_cycle[i] = ending;
            }
        }
        // Number the trees depth-first; a cycle's members are roots of the trees hanging
        // from them, so their cycle links are left out.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, up) in upstream.iter().enumerate() {
            if let (Some(up), None) = (up, forest.on_cycle[i]) {
                children[*up].push(i);
            }
        }
        let mut clock = 0;
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in (0..n).filter(|&i| upstream[i].is_none() || forest.on_cycle[i].is_some()) {
            forest.enter[root] = clock;
            clock += 1;
            stack.push((root, 0));
            while let Some((i, next_child)) = stack.pop() {
                count_step();
                match children[i].get(next_child) {
                    Some(&child) => {
                        stack.push((i, next_child + 1));
                        forest.enter[child] = clock;
                        clock += 1;
                        stack.push((child, 0));
                    }
                    None => forest.exit[i] = clock,
                }
            }
        }
        forest
    }

    /// Whether following runAfter from `op` reaches `ancestor` (an operation on a cycle runs
    /// after itself).
    pub fn runs_after(&self, op: usize, ancestor: usize) -> bool {
        match self.on_cycle[ancestor] {
            Some((cycle, _)) => self.ends_in_cycle[op] == Some(cycle),
            None => self.enter[ancestor] < self.enter[op] && self.exit[op] <= self.exit[ancestor],
        }
    }

    /// The cycle `op` is on, starting with `op` and following runAfter.
    pub fn cycle_from(&self, op: usize) -> Option<Vec<usize>> {
        let (cycle, position) = self.on_cycle[op]?;
        let members = &self.cycles[cycle];
        Some(
            members[position..]
                .iter()
                .chain(&members[..position])
                .copied()
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use df_manifest::parse_text;

    fn manifests(text: &str) -> Vec<Manifest> {
        let (manifests, problems) = parse_text(&Arc::from("flow.yaml"), text);
        assert!(problems.is_empty(), "{problems:?}");
        manifests
    }

    fn op_doc(kind: &str, name: &str, after: Option<(&str, &str)>) -> String {
        let mut doc = format!(
            "apiVersion: data.fluid.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: ns\nspec:\n"
        );
        match after {
            Some((k, n)) => doc.push_str(&format!(
                "  runAfter:\n    kind: {k}\n    name: {n}\n    affinityStrategy:\n      policy: Require\n"
            )),
            None => doc.push_str("  dataset: {name: d}\n"),
        }
        doc
    }

    fn names(graph: &FlowGraph) -> Vec<Vec<String>> {
        graph
            .flows
            .iter()
            .map(|f| f.iter().map(|&i| graph.ops[i].key.name.clone()).collect())
            .collect()
    }

    #[test]
    fn orders_flows_topologically_with_input_order_ties() {
        let docs = [
            op_doc("DataProcess", "c", Some(("DataLoad", "b"))),
            op_doc("DataLoad", "other", None),
            op_doc("DataLoad", "b", Some(("DataLoad", "a"))),
            op_doc("DataBackup", "d", Some(("DataLoad", "b"))),
            op_doc("DataLoad", "a", None),
        ]
        .join("---\n");
        let set = manifests(&docs);
        let empty = ClusterState::default();
        let graph = build(&set, &empty).unwrap();
        assert_eq!(names(&graph), [vec!["other"], vec!["a", "b", "c", "d"]]);
    }

    #[test]
    fn pulls_referents_from_the_state_across_namespaces() {
        let flow = "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {name: b, namespace: team}\nspec:\n  runAfter: {kind: DataMigrate, name: a, namespace: shared}\n";
        let state_text = format!(
            "{}---\n{}",
            "apiVersion: data.fluid.io/v1alpha1\nkind: DataMigrate\nmetadata: {name: a, namespace: shared}\nstatus: {phase: Complete}\n",
            "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {name: unrelated, namespace: shared}\n"
        );
        let state =
            ClusterState::from_objects(manifests(&state_text).into_iter().map(|m| m.object));
        let set = manifests(flow);
        let graph = build(&set, &state).unwrap();
        let keys: Vec<String> = graph.flows[0]
            .iter()
            .map(|&i| graph.ops[i].key.to_string())
            .collect();
        assert_eq!(keys, ["DataMigrate/shared/a", "DataLoad/team/b"]);
        assert!(graph.ops[graph.flows[0][0]].manifest.is_none());

        let graph = build(&[], &state).unwrap();
        assert_eq!(names(&graph), [vec!["unrelated"]]);
    }

    #[test]
    fn problems_name_operations_and_positions() {
        let cases = [
            (
                op_doc("DataLoad", "a", Some(("DataLoad", "a"))),
                vec!["flow.yaml:8:5: DataLoad/ns/a runs after itself (spec.runAfter)"],
            ),
            (
                [
                    op_doc("DataLoad", "a", Some(("DataLoad", "b"))),
                    op_doc("DataLoad", "b", Some(("DataLoad", "a"))),
                    op_doc("DataLoad", "c", Some(("DataLoad", "b"))),
                ]
                .join("---\n"),
                vec![
                    "cycle in runAfter: DataLoad/ns/a (flow.yaml:8:5) -> DataLoad/ns/b (flow.yaml:20:5) -> DataLoad/ns/a (flow.yaml:8:5)",
                ],
            ),
            (
                op_doc("DataLoad", "a", Some(("Dataset", "b"))).replace("Require", "Always"),
                vec![
                    "flow.yaml:8:11: DataLoad/ns/a: spec.runAfter.kind: unknown kind \"Dataset\"; expected one of DataLoad, DataMigrate, DataProcess, DataBackup",
                    "flow.yaml:11:15: DataLoad/ns/a: spec.runAfter.affinityStrategy.policy: unknown policy \"Always\"; expected \"\", \"Require\" or \"Prefer\"",
                ],
            ),
            (
                [op_doc("DataLoad", "a", None), op_doc("DataLoad", "a", None)].join("---\n"),
                vec!["flow.yaml:12:9: DataLoad/ns/a is defined twice (first at flow.yaml:4:9)"],
            ),
        ];
        for (text, want) in cases {
            let set = manifests(&text);
            let err = build(&set, &ClusterState::default()).unwrap_err();
            let got: Vec<String> = err.0.iter().map(ToString::to_string).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn forest_answers_ancestry_and_cycles() {
        // 0 <- 1 <- 2, 3 <- 4; 5 -> 6 -> 7 -> 5 is a cycle with 8 -> 6 and 9 -> 8 hanging off it;
        // 10 runs after an unknown operation; 11 runs after itself.
        let upstream = [
            None,
            Some(0),
            Some(1),
            None,
            Some(3),
            Some(6),
            Some(7),
            Some(5),
            Some(6),
            Some(8),
            None,
            Some(11),
        ];
        let forest = RunAfterForest::new(&upstream);
        let cases: &[(usize, usize, bool)] = &[
            (2, 0, true),
            (2, 1, true),
            (1, 2, false),
            (0, 0, false),
            (4, 3, true),
            (4, 0, false),
            (2, 3, false),
            (5, 5, true),
            (5, 7, true),
            (9, 8, true),
            (9, 5, true),
            (8, 9, false),
            (5, 8, false),
            (10, 0, false),
            (11, 11, true),
        ];
        for &(op, ancestor, want) in cases {
            assert_eq!(
                forest.runs_after(op, ancestor),
                want,
                "{op} after {ancestor}"
            );
        }
        assert_eq!(forest.cycle_from(6), Some(vec![6, 7, 5]));
        assert_eq!(forest.cycle_from(11), Some(vec![11]));
        assert_eq!(forest.cycle_from(8), None);
        assert_eq!(forest.cycle_from(0), None);
    }

    #[test]
    fn forest_work_is_linear_on_a_long_chain() {
        const N: usize = 10_000;
        let upstream: Vec<Option<usize>> = (0..N).map(|i| i.checked_sub(1)).collect();
        take_forest_steps();
        let forest = RunAfterForest::new(&upstream);
        // Each walk takes its own step and one onto the previous walk's operation; the
        // numbering pops each operation once per child plus once. A walk per chain: N * N / 2.
        let steps = take_forest_steps();
        assert!(steps <= 4 * N, "{steps} steps for {N} operations");
        assert!((1..N).all(|i| forest.runs_after(i, 0) && !forest.runs_after(0, i)));
    }

    #[test]
    fn deep_chains_and_long_cycles_do_not_recurse() {
        const N: usize = 10_000;
        let mut text = String::new();
        for i in 0..N {
            let after = (i > 0).then(|| format!("s{}", i - 1));
            text.push_str(&op_doc(
                "DataLoad",
                &format!("s{i}"),
                after.as_deref().map(|a| ("DataLoad", a)),
            ));
            text.push_str("---\n");
        }
        let set = manifests(&text);
        let empty = ClusterState::default();
        let graph = build(&set, &empty).unwrap();
        assert_eq!(graph.flows.len(), 1);
        assert_eq!(graph.flows[0].len(), N);
        assert_eq!(
            graph.ops[graph.flows[0][N - 1]].key.name,
            format!("s{}", N - 1)
        );
        assert!(runs_after(&graph, graph.flows[0][N - 1], graph.flows[0][0]));

        // Close the chain into one cycle: s0 runs after the last step.
        let cyclic = text.replacen(
            "  dataset: {name: d}\n",
            &format!("  runAfter: {{kind: DataLoad, name: s{}}}\n", N - 1),
            1,
        );
        let set = manifests(&cyclic);
        let err = build(&set, &ClusterState::default()).unwrap_err();
        assert_eq!(err.0.len(), 1);
        match &err.0[0] {
            FlowError::Cycle { members } => assert_eq!(members.len(), N + 1),
            other => panic!("{other}"),
        }
    }
}
