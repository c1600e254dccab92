//! The review outputs: `-o markdown` read back by a Markdown parser (every table well formed,
//! every Mermaid diagram accepted by Mermaid's own parser where node and `tests/mermaid` are
//! installed), `-o html` loaded in a headless Chromium, the composite GitHub Action's example
//! workflow checked by actionlint, and the pre-commit hook run by `pre-commit try-repo`. The
//! tools are installed by `.ci/run`; where one is missing its test says so and checks what
//! it can without it.

use std::path::{Path, PathBuf};
use std::process::Command;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

use crate::support::cli::{self, ROOT};

const THREE_ZONE: &str = "testdata/clusters/three-zone.yaml";
const GANG: &str = "testdata/clusters/gang.yaml";

/// The plan examples of the docs and the testdata: every flow, gang kind, batch, topology
/// system, queue and what-if.
const EXAMPLES: &[&[&str]] = &[
    &[
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
    ],
    &["-f", "testdata/flows/fan-out.yaml", "--state", THREE_ZONE],
    &[
        "-f",
        "testdata/flows/inherit-existing.yaml",
        "--state",
        THREE_ZONE,
    ],
    &[
        "-f",
        "testdata/flows/cached-pipeline.yaml",
        "--state",
        THREE_ZONE,
        "--assume-cached",
        "data/imagenet=node-c1",
    ],
    &[
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
        "--what-if",
        "drain=node-b3",
    ],
    &[
        "-f",
        "testdata/gangs/godel-podgroup.yaml",
        "--state",
        GANG,
        "--compare",
    ],
    &[
        "-f",
        "testdata/gangs/coscheduling-podgroup.yaml",
        "--state",
        GANG,
    ],
    &[
        "-f",
        "testdata/gangs/kube-batch-podgroup.yaml",
        "--state",
        GANG,
    ],
    &["-f", "testdata/gangs/volcano-job.yaml", "--state", GANG],
    &[
        "-f",
        "testdata/gangs/volcano-podgroup.yaml",
        "--state",
        GANG,
    ],
    &[
        "-f",
        "testdata/workload-api/v1alpha1.yaml",
        "--state",
        GANG,
        "--kubernetes-version",
        "1.35",
    ],
    &[
        "-f",
        "testdata/workload-api/v1alpha2.yaml",
        "--state",
        GANG,
        "--kubernetes-version",
        "1.36",
    ],
    &[
        "-f",
        "testdata/workload-api/v1beta1.yaml",
        "--state",
        GANG,
        "--kubernetes-version",
        "1.37",
    ],
    &[
        "-f",
        "testdata/gangs/two-gangs.yaml",
        "--state",
        "testdata/clusters/two-nodes.yaml",
    ],
    &[
        "-f",
        "testdata/pods/batch.yaml",
        "--state",
        THREE_ZONE,
        "--solver",
        "flow",
        "--compare",
    ],
    &["-f", "testdata/pods/workloads.yaml", "--state", THREE_ZONE],
    &[
        "-f",
        "testdata/pods/dataset-readers.yaml",
        "--state",
        THREE_ZONE,
        "--assume-cached",
        "data/imagenet=node-c1",
    ],
    &[
        "-f",
        "testdata/pods/preemption.yaml",
        "--state",
        "testdata/clusters/priority.yaml",
    ],
    &[
        "-f",
        "testdata/pods/quota-gang.yaml",
        "--state",
        "testdata/clusters/quota.yaml",
    ],
    &[
        "-f",
        "testdata/topology/volcano/job.yaml",
        "--state",
        "testdata/topology/volcano/state.yaml",
    ],
    &[
        "-f",
        "testdata/topology/kueue/train.yaml",
        "--state",
        "testdata/topology/kueue/state.yaml",
    ],
    &[
        "-f",
        "testdata/topology/workload/train.yaml",
        "--state",
        "testdata/topology/workload/state.yaml",
        "--kubernetes-version",
        "1.36",
    ],
    &[
        "--pending",
        "-A",
        "--state",
        "testdata/clusters/pending.yaml",
    ],
    &[
        "--pending",
        "--compare",
        "-n",
        "shop",
        "--state",
        "testdata/clusters/drift.yaml",
    ],
];

/// `plan ARGS -o FORMAT`: its stdout, after checking it ran without an error of its own.
fn plan_output(args: &[&str], format: &str) -> String {
    let run = cli::run(&[&["plan"], args, &["-o", format]].concat());
    assert!(run.code < 2, "plan {args:?} -o {format}: {}", run.stderr);
    run.stdout
}

/// The Mermaid diagrams of a Markdown document, after checking that every table of it is
/// well formed: each row has as many cells as its header, in the source (a stray `|` would
/// add one) and as the parser reads it.
fn tables_and_diagrams(markdown: &str, what: &str) -> Vec<String> {
    let mut diagrams = Vec::new();
    let (mut columns, mut cells, mut tables) = (0, 0, 0);
    let mut diagram: Option<String> = None;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(alignments)) => {
                columns = alignments.len();
                tables += 1;
            }
            Event::Start(Tag::TableHead | Tag::TableRow) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableHead | TagEnd::TableRow) => {
                assert_eq!(cells, columns, "{what}: a row of table {tables}")
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) if &*lang == "mermaid" => {
                diagram = Some(String::new())
            }
            Event::Text(text) => {
                if let Some(d) = diagram.as_mut() {
                    d.push_str(&text)
                }
            }
            Event::End(TagEnd::CodeBlock) => diagrams.extend(diagram.take()),
            _ => {}
        }
    }
    // In the source: a header line, then its delimiter row, then rows with as many unescaped
    // `|` each.
    let lines: Vec<&str> = markdown.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("|---") {
            let bars = |l: &str| {
                l.replace("\\\\", "")
                    .replace("\\|", "")
                    .matches('|')
                    .count()
            };
            let want = bars(lines[i - 1]);
            for row in lines[i + 1..].iter().take_while(|l| l.starts_with("| ")) {
                assert_eq!(bars(row), want, "{what}: {row}");
            }
        }
    }
    assert!(tables > 0, "{what}: no table in\n{markdown}");
    diagrams
}

/// The diagrams Mermaid's own parser turns down, with its error; `None` when node or the
/// `tests/mermaid` packages are not installed.
fn mermaid_rejects(diagrams: &[String]) -> Option<Vec<String>> {
    let dir = Path::new(ROOT).join("tests/mermaid");
    if !dir.join("node_modules/mermaid").exists() {
        return None;
    }
    let mut child = Command::new("node")
        .arg("check.mjs")
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let input = diagrams.join("\0");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "node check.mjs failed");
    let verdicts = cli::text(&output.stdout);
    assert_eq!(verdicts.lines().count(), diagrams.len(), "{verdicts}");
    Some(
        diagrams
            .iter()
            .zip(verdicts.lines())
            .filter(|(_, v)| *v != "ok")
            .map(|(d, v)| format!("{v}\n{d}"))
            .collect(),
    )
}

/// Without Mermaid at hand: each line is one of the statements the renderer writes.
fn mermaid_shape_rejects(diagrams: &[String]) -> Vec<String> {
    let statement = regex::Regex::new(
        r#"^(flowchart (LR|TD)|  n\d+\["(?:[^"\]\[|`<>]|<br/>)*"\]|  n\d+ -->(\|"[^"|`<>]*"\|)? n\d+|  classDef pending [^ ]+|  class n\d+(,n\d+)* pending)$"#,
    )
    .unwrap();
    diagrams
        .iter()
        .flat_map(|d| d.lines())
        .filter(|line| !statement.is_match(line))
        .map(String::from)
        .collect()
}

#[test]
fn plan_markdown_of_every_example_has_well_formed_tables_and_diagrams_mermaid_accepts() {
    let mut diagrams = Vec::new();
    for args in EXAMPLES {
        let markdown = plan_output(args, "markdown");
        diagrams.extend(tables_and_diagrams(&markdown, &format!("{args:?}")));
    }
    // A diagram per flow and per gang; the queue, drift and batch examples have none.
    assert_eq!(diagrams.len(), 21);
    match mermaid_rejects(&diagrams) {
        Some(rejected) => assert_eq!(rejected, Vec::<String>::new()),
        None => {
            eprintln!(
                "note: Mermaid is not installed (npm ci --prefix tests/mermaid): checked the diagrams' statements only"
            );
            assert_eq!(mermaid_shape_rejects(&diagrams), Vec::<String>::new());
        }
    }
}

#[test]
fn plan_markdown_of_a_flow_is_the_comment_it_shows() {
    let markdown = plan_output(
        &[
            "-f",
            "testdata/flows/three-step.yaml",
            "--state",
            THREE_ZONE,
        ],
        "markdown",
    );
    // The scores are derived at plan's `three_step_flow_is_the_json_contract`.
    let want = r##"**✅ Plan: everything lands** (3/3 operations).

|  | Object | Where | Why |
|---|---|---|---|
| ✅ | DataLoad data/load-imagenet (flow 1, step 1) | node-b3 (us-east-1b) | score 497 |
| ✅ | DataProcess data/preprocess-imagenet (flow 1, step 2) | node-b3 (us-east-1b) | score 492 |
| ✅ | DataMigrate data/export-imagenet (flow 1, step 3) | node-b3 (us-east-1b) | score 695 |

<details><summary>Flow 1: 3 of 3 operations land</summary>

```mermaid
flowchart LR
  n0["1. DataLoad data/load-imagenet<br/>node-b3 · us-east-1b"]
  n1["2. DataProcess data/preprocess-imagenet<br/>node-b3 · us-east-1b"]
  n2["3. DataMigrate data/export-imagenet<br/>node-b3 · us-east-1b"]
  n0 -->|"required: kubernetes.io/hostname In #91;node-b3#93;"| n1
  n1 -->|"preferred(80): topology.kubernetes.io/zone In #91;us-east-1b#93;"| n2
```

| Step | Operation | After | Policy | Inherited | Node | Zone | Score | Status |
|---|---|---|---|---|---|---|---|---|
| 1 | DataLoad data/load-imagenet | - | - | - | node-b3 | us-east-1b | 497 | Planned |
| 2 | DataProcess data/preprocess-imagenet | DataLoad/data/load-imagenet | Require | required: kubernetes.io/hostname In \[node-b3\] | node-b3 | us-east-1b | 492 | Planned |
| 3 | DataMigrate data/export-imagenet | DataProcess/data/preprocess-imagenet | Prefer | preferred(80): topology.kubernetes.io/zone In \[us-east-1b\] | node-b3 | us-east-1b | 695 | Planned |

</details>

"##;
    assert_eq!(markdown, want);
}

/// Names from hostile manifests stay text: no table column, tag, link or diagram statement
/// opens from them.
#[test]
fn hostile_names_stay_text_in_markdown_and_html() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pod.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"w|<script>x</script>*_[a](b)`\"\n  \
         namespace: default\nspec:\n  nodeSelector: {k: v}\n  containers:\n  - name: c\n    image: nginx\n",
    )
    .unwrap();
    let args = ["-f", file.to_str().unwrap(), "--state", THREE_ZONE];
    let markdown = plan_output(&args, "markdown");
    tables_and_diagrams(&markdown, "hostile");
    let name = r"w\|&lt;script&gt;x&lt;/script&gt;\*\_\[a\](b)\`";
    let row = markdown.lines().nth(4).unwrap();
    assert_eq!(
        row,
        format!(
            "| ❌ | Pod default/{name} (from Pod/{name}) | pending | {} |",
            "pending: 0/9 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 7 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/9 nodes are available: 9 Preemption is not helpful for scheduling."
        )
    );
    let html = plan_output(&args, "html");
    assert!(
        html.contains("w|&lt;script&gt;x&lt;/script&gt;*_[a](b)`"),
        "{html}"
    );
    assert!(!html.contains("<script"), "{html}");
}

#[test]
fn explain_markdown_has_the_verdict_the_nodes_and_the_whole_explanation() {
    let run = cli::run(&[
        "explain-placement",
        "-f",
        "testdata/pods/affinity.yaml",
        "--state",
        THREE_ZONE,
        "-o",
        "markdown",
    ]);
    // The scores are derived at explain's `json_contract_on_the_three_zone_cluster`.
    let want = r##"**✅ Pod web/web-cache would land on node node-b3** (score 697; 4 of 9 nodes feasible).

| Node | Score | Verdict |
|---|---|---|
| node-b3 | 697 | selected |
| node-a2 | 668 | feasible |
| node-a3 | 663 | feasible |
| node-c3 | 489 | feasible |
| node-a1, node-b1, node-c1 | - | rejected: node(s) didn't match pod anti-affinity rules |
| node-b2 | - | rejected: node(s) had untolerated taint(s) |
| node-c2 | - | rejected: node(s) were unschedulable |

<details><summary>The whole explanation</summary>

```text
Pod web/web-cache would land on node node-b3 (score 697).
4 of 9 nodes are feasible.
Why: it leads node-a2 by 29: NodeResourcesFit +29.

 NODE     SCORE  TAINTS  NODE-AFF  SPREAD  POD-AFF  FIT  BALANCED  IMAGES
 node-b3  697    100     0         0       100      98   99        0
 node-a2  668    100     0         0       100      69   99        0
 node-a3  663    100     0         0       100      64   99        0
 node-c3  489    100     0         0       0        92   97        0

 REJECTED  REASON                                        NODES
 3         node(s) didn't match pod anti-affinity rules  node-a1, node-b1, node-c1
 1         node(s) had untolerated taint(s)              node-b2
 1         node(s) were unschedulable                    node-c2
```

</details>

"##;
    assert_eq!(run.stdout, want);
    tables_and_diagrams(&run.stdout, "explain");
}

#[test]
fn lint_markdown_has_the_verdict_and_a_row_per_finding() {
    let run = cli::run(&[
        "lint",
        "-f",
        "testdata/lint/df101-fail.yaml",
        "-o",
        "markdown",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let want = r##"**❌ lint: 1 error, 0 warnings in 1 file.**

| Where | Severity | Rule | Message |
|---|---|---|---|
| testdata/lint/df101-fail.yaml:21:7 | error | DF101 | unknown field "require"; did you mean "requires"? (hint: the design document's \`require: \[string\]\` shipped as \`requires: \[{name: &lt;label key&gt;}\]\`; write \`requires: \[{name: kubernetes.io/hostname}\]\`) |

"##;
    assert_eq!(run.stdout, want);
    tables_and_diagrams(&run.stdout, "lint");
}

/// Debian's Chromium, where it is installed.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let found = Command::new("sh")
                .args(["-c", &format!("command -v {name}")])
                .output()
                .ok()?;
            found
                .status
                .success()
                .then(|| PathBuf::from(cli::text(&found.stdout).trim()))
        })
}

/// The names of the pods a plan places (operations, gang members, batch pods), from its JSON.
fn planned_pods(plan: &Value) -> Vec<String> {
    let list = |v: &Value, key: &str| v[key].as_array().cloned().unwrap_or_default();
    let mut names = Vec::new();
    for op in list(plan, "operations") {
        if op["node"].is_string() {
            names.push(op["name"].as_str().unwrap().to_string());
        }
    }
    for group in list(plan, "groups") {
        for pod in list(&group, "pods") {
            if pod["node"].is_string() && pod["running"] == false {
                names.push(pod["pod"].as_str().unwrap().to_string());
            }
        }
    }
    for pod in list(&plan["batch"], "pods") {
        if pod["node"].is_string() {
            names.push(pod["name"].as_str().unwrap().to_string());
        }
    }
    names
}

/// Every example's page, loaded in headless Chromium: the page loads with nothing refused
/// (its policy refuses any network or script), and the DOM holds each planned pod in the
/// cluster picture.
#[test]
fn plan_html_loads_in_a_headless_browser_and_shows_every_planned_pod() {
    let Some(chromium) = chromium() else {
        eprintln!(
            "note: chromium is not installed (apt-get install chromium): the HTML pages were not loaded in a browser"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (i, args) in EXAMPLES.iter().enumerate().step_by(3) {
        let page = dir.path().join(format!("plan-{i}.html"));
        std::fs::write(&page, plan_output(args, "html")).unwrap();
        let (_, plan) = cli::run_json(&[&["plan"], *args].concat());
        let output = Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--enable-logging=stderr",
                "--virtual-time-budget=2000",
                "--dump-dom",
            ])
            .arg(format!("file://{}", page.display()))
            .env("HOME", dir.path())
            .output()
            .unwrap();
        let dom = cli::text(&output.stdout);
        let log = cli::text(&output.stderr);
        assert!(output.status.success(), "{args:?}: {log}");
        assert!(
            dom.contains("<h2>Cluster after the plan</h2>"),
            "{args:?}: {dom}"
        );
        for refused in ["Refused to", "Uncaught", "ERR_"] {
            assert!(!log.contains(refused), "{args:?}: {log}");
        }
        let picture = dom.split("<h2>Cluster after the plan</h2>").nth(1).unwrap();
        for pod in planned_pods(&plan) {
            assert!(picture.contains(&pod), "{args:?}: {pod} not in the picture");
        }
    }
}

/// A command of the machine's, or `None` with a note saying what the test leaves unchecked.
fn tool(name: &str, unchecked: &str) -> Option<()> {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("note: {name} is not installed: {unchecked}");
    }
    found.then_some(())
}

/// The inputs the example workflow gives the action are inputs `action.yml` declares, the
/// required ones included, and actionlint passes the workflow.
#[test]
fn the_example_workflow_uses_the_action_and_passes_actionlint() {
    let read = |path: &str| -> Value {
        let text = std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap();
        serde_saphyr::from_str(&text).unwrap()
    };
    let action = read("action.yml");
    let workflow = read("docs/examples/workflow.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let declared = action["inputs"].as_object().unwrap();
    let step = workflow["jobs"]["kubectl-dataflow"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("kubectl-dataflow/kubectl-dataflow@"))
        })
        .expect("a step uses the action");
    let given = step["with"].as_object().unwrap();
    let unknown: Vec<&String> = given
        .keys()
        .filter(|k| !declared.contains_key(*k))
        .collect();
    assert_eq!(unknown, Vec::<&String>::new());
    for (name, input) in declared {
        if input["required"] == true {
            assert!(given.contains_key(name), "required input {name} not given");
        }
    }
    if tool(
        "actionlint",
        "the example workflow was not checked by actionlint",
    )
    .is_none()
    {
        return;
    }
    let output = Command::new("actionlint")
        .args(["-no-color", "docs/examples/workflow.yml"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert_eq!(cli::text(&output.stdout), "");
    assert!(output.status.success(), "{}", cli::text(&output.stderr));
}

/// `pre-commit try-repo` runs the hook on PATH's binary (the one under test) over a scratch
/// repository: a finding fails it with lint's own lines, a clean file passes. The `rust`
/// hook, which builds a release binary first, is validated as a manifest only.
#[test]
fn the_pre_commit_hook_lints_under_try_repo() {
    if tool("pre-commit", "the hooks were not run").is_none() {
        return;
    }
    let validate = Command::new("pre-commit")
        .args(["validate-manifest", ".pre-commit-hooks.yaml"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(validate.status.success(), "{}", cli::text(&validate.stdout));
    let scratch = tempfile::tempdir().unwrap();
    let repo = scratch.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    let bin_dir = Path::new(crate::support::cli::BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let try_repo = |file: &str| {
        let name = Path::new(file).file_name().unwrap();
        for entry in std::fs::read_dir(&repo).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name() != ".git" {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        std::fs::copy(Path::new(ROOT).join(file), repo.join(name)).unwrap();
        git(&["add", "-A"]);
        Command::new("pre-commit")
            .args([
                "try-repo",
                ROOT,
                "kubectl-dataflow-lint-system",
                "--all-files",
            ])
            .current_dir(&repo)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", scratch.path().join("cache"))
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let failing = try_repo("testdata/lint/df101-fail.yaml");
    let out = cli::text(&failing.stdout);
    assert_eq!(failing.status.code(), Some(1), "{out}");
    assert!(
        out.contains("df101-fail.yaml:21:7: error[DF101]: unknown field \"require\"; did you mean \"requires\"?"),
        "{out}"
    );
    let passing = try_repo("testdata/lint/df101-pass.yaml");
    let out = cli::text(&passing.stdout);
    assert!(passing.status.success(), "{out}");
    assert!(
        out.contains("kubectl-dataflow lint (installed binary)"),
        "{out}"
    );
}
