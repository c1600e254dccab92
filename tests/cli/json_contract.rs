//! The book's "JSON contracts" page (docs/src/json-contracts.md) is the contract of every
//! `-o json` output (issue 17):
//! every key an output prints is listed there, and every key listed there is printed (an
//! absent value as `null`, an empty list as `[]`). The binary runs every `-o json` mode on the
//! bundled testdata; each object it prints must have exactly the keys of one shape the README
//! documents at that place.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::support::cli::run;

/// One token of a README contract block.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open(char),
    Close(char),
    Colon,
    Comma,
    Equals,
    Str(String),
    /// `<name>`: a shape defined below the block, or an opaque Kubernetes type.
    Shape(String),
    /// Numbers, `null`, `...`, `0..100`: values whose keys do not matter.
    Word,
}

/// The README blocks' notation, tokenized: `(comments)` are dropped, `|` separates
/// alternatives (a value's alternatives are all read, so it is dropped too).
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '{' | '[' => tokens.push(Token::Open(c)),
            '}' | ']' => tokens.push(Token::Close(c)),
            ':' => tokens.push(Token::Colon),
            ',' => tokens.push(Token::Comma),
            '=' => tokens.push(Token::Equals),
            '"' => {
                let end = chars[i..].iter().position(|&c| c == '"').unwrap() + i;
                tokens.push(Token::Str(chars[i..end].iter().collect()));
                i = end + 1;
            }
            '<' => {
                let end = chars[i..].iter().position(|&c| c == '>').unwrap() + i;
                tokens.push(Token::Shape(chars[i..end].iter().collect()));
                i = end + 1;
            }
            '(' => {
                let mut depth = 1;
                while depth > 0 {
                    match chars[i] {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        '"' => i += chars[i + 1..].iter().position(|&c| c == '"').unwrap() + 1,
                        _ => {}
                    }
                    i += 1;
                }
            }
            c if c.is_whitespace() || c == '|' => {}
            _ => {
                while i < chars.len() && !"{}[]:,=\"<(| \n".contains(chars[i]) {
                    i += 1;
                }
                tokens.push(Token::Word);
            }
        }
    }
    tokens
}

/// What the README documents at each path (`.groups[].placements.*`): the key sets an object
/// there may have (one per alternative), and the paths of opaque Kubernetes types.
#[derive(Debug, Default)]
struct Contract {
    objects: BTreeMap<String, Vec<BTreeSet<String>>>,
    opaque: BTreeSet<String>,
}

/// Reads one contract block: a value, then `<name> = value` definitions it refers to.
struct Reader<'t> {
    tokens: &'t [Token],
    shapes: BTreeMap<String, &'t [Token]>,
    contract: Contract,
}

impl<'t> Reader<'t> {
    fn new(tokens: &'t [Token]) -> Reader<'t> {
        let mut shapes = BTreeMap::new();
        let starts: Vec<usize> = (0..tokens.len().saturating_sub(1))
            .filter(|&i| matches!(tokens[i], Token::Shape(_)) && tokens[i + 1] == Token::Equals)
            .collect();
        for (n, &start) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(tokens.len());
            if let Token::Shape(name) = &tokens[start] {
                shapes.insert(name.clone(), &tokens[start + 2..end]);
            }
        }
        let main_end = starts.first().copied().unwrap_or(tokens.len());
        Reader {
            tokens: &tokens[..main_end],
            shapes,
            contract: Contract::default(),
        }
    }

    fn read(mut self) -> Contract {
        let tokens = self.tokens;
        let mut at = 0;
        self.values(tokens, &mut at, "");
        assert_eq!(
            at,
            tokens.len(),
            "README block: tokens left after the value"
        );
        self.contract
    }

    /// A value and its alternatives, up to a `,`, a closing bracket or the end.
    fn values(&mut self, tokens: &'t [Token], at: &mut usize, path: &str) {
        while *at < tokens.len() && !matches!(tokens[*at], Token::Comma | Token::Close(_)) {
            self.value(tokens, at, path);
        }
    }

    fn value(&mut self, tokens: &'t [Token], at: &mut usize, path: &str) {
        let token = tokens[*at].clone();
        *at += 1;
        match token {
            Token::Open('{') => {
                let mut keys = BTreeSet::new();
                while tokens[*at] != Token::Close('}') {
                    let Token::Str(key) = &tokens[*at] else {
                        panic!(
                            "README block: {path}: expected a key, found {:?}",
                            tokens[*at]
                        );
                    };
                    let key = if key.starts_with('<') {
                        "*"
                    } else {
                        key.as_str()
                    };
                    keys.insert(key.to_string());
                    *at += 1;
                    if tokens[*at] == Token::Colon {
                        *at += 1;
                        self.values(tokens, at, &format!("{path}.{key}"));
                    }
                    if tokens[*at] == Token::Comma {
                        *at += 1;
                    }
                }
                *at += 1;
                self.contract
                    .objects
                    .entry(path.to_string())
                    .or_default()
                    .push(keys);
            }
            Token::Open('[') => {
                while tokens[*at] != Token::Close(']') {
                    self.values(tokens, at, &format!("{path}[]"));
                    if tokens[*at] == Token::Comma {
                        *at += 1;
                    }
                }
                *at += 1;
            }
            Token::Shape(name) if name.starts_with("core/v1") => {
                self.contract.opaque.insert(path.to_string());
            }
            Token::Shape(name) => {
                let shape = *self
                    .shapes
                    .get(&name)
                    .unwrap_or_else(|| panic!("README block: <{name}> is not defined"));
                let mut inner = 0;
                self.values(shape, &mut inner, path);
            }
            Token::Str(_) | Token::Word => {}
            other => panic!("README block: {path}: unexpected {other:?}"),
        }
    }
}

/// The contract blocks of the book's JSON contracts page, by their label (`plan -o json`,
/// `lint -o json`, ...).
fn readme_contracts() -> BTreeMap<String, Contract> {
    let section = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/json-contracts.md"
    ))
    .unwrap();
    let mut contracts = BTreeMap::new();
    let mut label = None;
    let mut block: Option<String> = None;
    for line in section.lines() {
        match (&mut block, line) {
            (None, "```text") => block = Some(String::new()),
            (None, _) if line.starts_with('`') && line.ends_with(':') => {
                label = Some(line[1..line.rfind('`').unwrap()].to_string());
            }
            (Some(text), "```") => {
                let tokens = tokenize(text);
                let label = label
                    .take()
                    .expect("each block follows its `command -o json`:");
                contracts.insert(label, Reader::new(&tokens).read());
                block = None;
            }
            (Some(text), _) => {
                text.push_str(line);
                text.push('\n');
            }
            _ => {}
        }
    }
    contracts
}

/// What the runs of one README block found.
#[derive(Debug, Default)]
struct Report {
    problems: BTreeSet<String>,
    /// Paths where an object was printed.
    seen: BTreeSet<String>,
}

/// Each printed object against the contract: its keys are exactly one documented shape's.
fn check(value: &Value, path: &str, contract: &Contract, report: &mut Report) {
    if contract.opaque.contains(path) {
        return;
    }
    if value.is_object() {
        report.seen.insert(path.to_string());
    }
    let shown = if path.is_empty() { "(top level)" } else { path };
    match value {
        Value::Object(map) => {
            let Some(shapes) = contract.objects.get(path) else {
                let keys: Vec<&String> = map.keys().collect();
                report.problems.insert(format!(
                    "{shown}: an object the README does not describe: keys {keys:?}"
                ));
                return;
            };
            let any_key = shapes.iter().any(|s| s.len() == 1 && s.contains("*"));
            let keys: BTreeSet<String> = map.keys().cloned().collect();
            if !any_key && !shapes.contains(&keys) {
                let documented: BTreeSet<&String> = shapes.iter().flatten().collect();
                let extra: Vec<&String> = keys.iter().filter(|k| !documented.contains(k)).collect();
                let missing: Vec<&String> = shapes
                    .iter()
                    .min_by_key(|s| s.symmetric_difference(&keys).count())
                    .into_iter()
                    .flatten()
                    .filter(|k| !keys.contains(*k))
                    .collect();
                report.problems.insert(format!(
                    "{shown}: not in the README: {extra:?}; in the README but not printed: {missing:?}"
                ));
            }
            for (key, child) in map {
                let key = if any_key { "*" } else { key.as_str() };
                check(child, &format!("{path}.{key}"), contract, report);
            }
        }
        Value::Array(items) => {
            for item in items {
                check(item, &format!("{path}[]"), contract, report);
            }
        }
        _ => {}
    }
}

/// `plan -o json` runs of the testdata: each input directory against its state, and the
/// modes that add keys.
fn plans() -> Vec<Vec<&'static str>> {
    let three_zone = "testdata/clusters/three-zone.yaml";
    let mut plans: Vec<Vec<&str>> = Vec::new();
    for (inputs, state) in [
        ("testdata/flows", three_zone),
        ("testdata/pods", three_zone),
        ("testdata/corpus", three_zone),
        ("testdata/gangs", "testdata/clusters/gang.yaml"),
        (
            "testdata/topology/volcano",
            "testdata/topology/volcano/state.yaml",
        ),
        (
            "testdata/topology/kueue",
            "testdata/topology/kueue/state.yaml",
        ),
        (
            "testdata/topology/workload",
            "testdata/topology/workload/state.yaml",
        ),
        ("testdata/kueue", "testdata/kueue/state.yaml"),
    ] {
        plans.push(vec!["-f", inputs, "--state", state]);
        plans.push(vec!["-f", inputs, "--state", state, "--compare"]);
    }
    plans.extend([
        vec![
            "-f",
            "testdata/pods/batch.yaml",
            "--state",
            three_zone,
            "--solver",
            "flow",
        ],
        vec![
            "-f",
            "testdata/pods/batch.yaml",
            "--state",
            three_zone,
            "--solver",
            "flow",
            "--compare",
        ],
        vec![
            "-f",
            "testdata/pods/preemption.yaml",
            "--state",
            "testdata/clusters/priority.yaml",
        ],
        vec![
            "-f",
            "testdata/pods/quota.yaml",
            "--state",
            "testdata/clusters/quota.yaml",
        ],
        vec![
            "--pending",
            "-A",
            "--state",
            "testdata/clusters/pending.yaml",
        ],
        vec![
            "--pending",
            "-A",
            "--state",
            "testdata/clusters/priority.yaml",
        ],
        vec![
            "--pending",
            "--compare",
            "-A",
            "--state",
            "testdata/clusters/drift.yaml",
        ],
    ]);
    plans
}

/// How many pods of each part of a plan (operations, each gang, the batch) are explained.
const EXPLAINED_PER_PART: usize = 2;

/// `explain-placement` targets for what a plan placed: `(KIND/NAME, namespace)`.
fn targets(plan: &Value) -> Vec<(String, String)> {
    let field = |v: &Value, key: &str| v[key].as_str().unwrap_or_default().to_string();
    let mut targets: Vec<(String, String)> = Vec::new();
    let parts = |key: &str| plan[key].as_array().cloned().unwrap_or_default();
    for op in parts("operations").iter().take(EXPLAINED_PER_PART) {
        targets.push((
            format!("{}/{}", field(op, "kind"), field(op, "name")),
            field(op, "namespace"),
        ));
    }
    for group in parts("groups") {
        let pods = group["placements"].as_object().cloned().unwrap_or_default();
        for pod in pods.keys().take(EXPLAINED_PER_PART) {
            targets.push((format!("pod/{pod}"), field(&group, "namespace")));
        }
    }
    let batch = plan["batch"]["pods"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for pod in batch.iter().take(EXPLAINED_PER_PART) {
        targets.push((
            format!("pod/{}", field(pod, "name")),
            field(pod, "namespace"),
        ));
    }
    targets
}

/// The arguments of a plan that explain takes too (its `--compare` is for bound pods).
fn explain_args(plan: &[&str]) -> Vec<String> {
    let mut args = Vec::new();
    let mut words = plan.iter();
    while let Some(&word) = words.next() {
        match word {
            "-f" | "--state" | "--solver" => {
                args.push(word.to_string());
                args.push(words.next().unwrap().to_string());
            }
            _ => {}
        }
    }
    args
}

/// The other `-o json` outputs, by the README block that documents them.
fn other_runs() -> Vec<(&'static str, Vec<&'static str>)> {
    let three_zone = "testdata/clusters/three-zone.yaml";
    let before = "testdata/capacity/before.yaml";
    vec![
        (
            "explain-placement -o json",
            vec![
                "explain-placement",
                "datamigrate/export-imagenet",
                "-n",
                "data",
                "-f",
                "testdata/flows/three-step.yaml",
                "--state",
                three_zone,
            ],
        ),
        (
            "plan -o json",
            vec![
                "plan",
                "-f",
                "testdata/pods/dataset-readers.yaml",
                "--state",
                three_zone,
                "--assume-cached",
                "data/imagenet=node-c1",
            ],
        ),
        (
            "plan -o json",
            vec![
                "plan",
                "-f",
                "testdata/flows/three-step.yaml",
                "--state",
                three_zone,
                "--what-if",
                "drain=node-b3",
            ],
        ),
        (
            "explain-placement -o json",
            vec![
                "explain-placement",
                "pod/web-cache",
                "-f",
                "testdata/pods/affinity.yaml",
                "--state",
                three_zone,
                "--node",
                "node-b3",
            ],
        ),
        (
            "explain-placement -o json",
            vec![
                "explain-placement",
                "-f",
                "testdata/pods/custom-scheduler.yaml",
                "--state",
                three_zone,
            ],
        ),
        // 1,523 nodes: kube-scheduler scores a sample.
        (
            "explain-placement -o json",
            vec![
                "explain-placement",
                "-f",
                "testdata/pods/deployment.yaml",
                "--state",
                "testdata/clusters/openb.json",
            ],
        ),
        (
            "plan -o json",
            vec![
                "plan",
                "-f",
                "testdata/pods/deployment.yaml",
                "--state",
                "testdata/clusters/openb.json",
            ],
        ),
        (
            "explain-placement -o json",
            vec![
                "explain-placement",
                "pod/api-0",
                "-n",
                "shop",
                "--state",
                "testdata/clusters/drift.yaml",
                "--compare",
            ],
        ),
        (
            "plan -o json",
            vec![
                "plan",
                "-f",
                "testdata/capacity/pods.yaml",
                "--state",
                before,
                "--what-if",
                "drain=worker-1",
            ],
        ),
        (
            "plan --against FILE -o json",
            vec![
                "plan",
                "-f",
                "testdata/capacity/pods.yaml",
                "--state",
                before,
                "--against",
                "testdata/capacity/after.yaml",
            ],
        ),
        (
            "plan --how-many-nodes NODE -o json",
            vec![
                "plan",
                "-f",
                "testdata/capacity/pods.yaml",
                "--state",
                before,
                "--how-many-nodes",
                "worker-1",
            ],
        ),
        (
            "lint -o json",
            vec![
                "lint",
                "-f",
                "testdata/lint",
                "--state",
                "testdata/lint/state.yaml",
            ],
        ),
        (
            "lint -o json",
            vec!["lint", "-f", "testdata/lint/df001-pass.yaml"],
        ),
        ("version -o json", vec!["version"]),
    ]
}

/// Runs `args -o json` and checks what it prints against the README block `label`.
struct Checker {
    contracts: BTreeMap<String, Contract>,
    reports: BTreeMap<String, Report>,
}

impl Checker {
    fn run(&mut self, label: &str, args: &[&str]) -> Value {
        let contract = self
            .contracts
            .get(label)
            .unwrap_or_else(|| panic!("README's JSON section has no block `{label}`:"));
        let output = run(&[args, &["-o", "json"]].concat());
        assert!(output.code <= 1, "{args:?} failed: {}", output.stderr);
        let json: Value = serde_json::from_str(&output.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", output.stdout));
        let report = self.reports.entry(label.to_string()).or_default();
        check(&json, "", contract, report);
        json
    }
}

#[test]
fn every_json_key_is_in_the_readme_and_every_readme_key_is_printed() {
    let mut checker = Checker {
        contracts: readme_contracts(),
        reports: BTreeMap::new(),
    };
    for plan in plans() {
        let json = checker.run("plan -o json", &[&["plan"], plan.as_slice()].concat());
        let explain = explain_args(&plan);
        for (target, namespace) in targets(&json) {
            let mut args = vec!["explain-placement", &target, "-n", &namespace];
            args.extend(explain.iter().map(String::as_str));
            checker.run("explain-placement -o json", &args);
        }
    }
    for (label, args) in other_runs() {
        checker.run(label, &args);
    }
    assert_eq!(
        checker.reports.keys().collect::<Vec<_>>(),
        checker.contracts.keys().collect::<Vec<_>>(),
        "every README block is exercised"
    );
    let mut problems: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (label, report) in &checker.reports {
        let unseen = checker.contracts[label]
            .objects
            .keys()
            .filter(|path| !report.seen.contains(*path))
            .map(|path| format!("{path}: documented, never printed by the runs"));
        let found: Vec<String> = report.problems.iter().cloned().chain(unseen).collect();
        if !found.is_empty() {
            problems.insert(label, found);
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Absent values are printed, not left out: `null` for what does not apply, `[]` for an empty
/// list (kubectl users read `.problems` or `.groups[0].rejected` without testing for it).
#[test]
fn absent_values_are_null_and_empty_lists_are_printed() {
    let three_zone = "testdata/clusters/three-zone.yaml";
    let cases: [(&[&str], &str, Value); 3] = [
        (
            &[
                "plan",
                "-f",
                "testdata/flows/three-step.yaml",
                "--state",
                three_zone,
            ],
            "plan of a flow",
            serde_json::json!({
                "groups": [], "batch": null, "whatIfEffect": null, "drift": null,
                "operations[0]": {"datasets": [], "webhookAffinity": [], "tied": []},
            }),
        ),
        (
            &[
                "explain-placement",
                "-f",
                "testdata/pods/affinity.yaml",
                "--state",
                three_zone,
            ],
            "explain of a pod that fits",
            serde_json::json!({
                "problems": [], "tied": [], "preemption": null, "admission": null,
                "chosenBy": null, "drift": null, "nodeDetail": null,
            }),
        ),
        (
            &[
                "plan",
                "-f",
                "testdata/gangs/godel-podgroup.yaml",
                "--state",
                "testdata/clusters/gang.yaml",
            ],
            "plan of a Godel gang",
            serde_json::json!({
                "groups[0]": {
                    "rejections": [], "rejected": [], "topology": null, "warnings": [],
                    "comparison": null, "queue": "", "blocked": [],
                },
            }),
        ),
    ];
    for (args, what, expected) in cases {
        let output = run(&[args, &["-o", "json"]].concat());
        let json: Value = serde_json::from_str(&output.stdout).expect("JSON output");
        for (key, want) in expected.as_object().unwrap() {
            let (field, within) = match key.split_once('[') {
                Some((list, index)) => {
                    let index: usize = index.trim_end_matches(']').parse().unwrap();
                    (&json[list][index], true)
                }
                None => (&json[key.as_str()], false),
            };
            if within {
                for (inner, want) in want.as_object().unwrap() {
                    assert_eq!(&field[inner.as_str()], want, "{what}: {key}.{inner}");
                    assert!(field.get(inner).is_some(), "{what}: {key}.{inner} printed");
                }
            } else {
                assert!(json.get(key).is_some(), "{what}: {key} printed");
                assert_eq!(field, want, "{what}: {key}");
            }
        }
    }
}
