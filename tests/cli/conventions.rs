//! End-to-end tests of the `kubectl-dataflow` binary: help, exit codes, kubectl plugin
//! discovery with the real kubectl. The property tests of the loaders are in
//! tests/hostile/fuzz.rs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::cli::{BIN, bin, output, text};

/// Every line of every command's help, examples included, fits 80 columns: an example that a
/// terminal wraps mid-command cannot be pasted.
#[test]
fn help_fits_80_columns() {
    let top = text(&output(&["--help"]).stdout);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        commands,
        [
            "lint",
            "plan",
            "explain-placement",
            "snapshot",
            "patch",
            "launch",
            "completion",
            "version",
            "help"
        ]
    );
    // `help` prints the tool's help, checked as "".
    for command in [&[""][..], &commands[..commands.len() - 1]].concat() {
        let args: Vec<&str> = [command]
            .into_iter()
            .filter(|c| !c.is_empty())
            .chain(["--help"])
            .collect();
        let help = text(&output(&args).stdout);
        assert!(help.contains("Usage:"), "{args:?}");
        for line in help.lines() {
            assert!(
                line.chars().count() <= 80,
                "{args:?}: {} columns: {line}",
                line.chars().count()
            );
        }
    }
}

#[test]
fn help_of_the_tool_and_of_every_command() {
    // (arguments, text the help must contain)
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--help"],
            &[
                "Usage: kubectl dataflow [OPTIONS] <COMMAND>",
                "Examples:",
                "kubectl dataflow plan -f testdata/flows/three-step.yaml \\\n      --state testdata/clusters/three-zone.yaml",
            ],
        ),
        (
            &["lint", "--help"],
            &[
                "Usage: kubectl dataflow lint",
                "Examples:",
                "kubectl dataflow lint -f",
            ],
        ),
        (
            &["plan", "--help"],
            &[
                "Usage: kubectl dataflow plan",
                "Examples:",
                "kubectl dataflow plan -f",
            ],
        ),
        (
            &["explain-placement", "--help"],
            &[
                "Usage: kubectl dataflow explain-placement",
                "Examples:",
                "kubectl dataflow explain-placement -f",
            ],
        ),
        (
            &["completion", "--help"],
            &[
                "Usage: kubectl dataflow completion",
                "Examples:",
                "kubectl dataflow completion bash",
            ],
        ),
        (
            &["snapshot", "--help"],
            &[
                "Usage: kubectl dataflow snapshot",
                "Record the cluster state",
            ],
        ),
        (
            &["patch", "--help"],
            &[
                "Usage: kubectl dataflow patch",
                "Write the computed affinity",
            ],
        ),
        (
            &["launch", "--help"],
            &["Usage: kubectl dataflow launch", "Create an operation"],
        ),
        (
            &["version", "--help"],
            &["Usage: kubectl dataflow version", "Print the version"],
        ),
    ];
    for (args, needles) in cases {
        let out = output(args);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        for needle in *needles {
            assert!(
                stdout.contains(needle),
                "{args:?} lacks {needle:?}:\n{stdout}"
            );
        }
        // Examples point at bundled files: they must exist.
        for word in stdout
            .split_whitespace()
            .filter(|w| w.starts_with("testdata/"))
        {
            let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(word);
            assert!(
                file.exists(),
                "{args:?}: example names a missing file {word}"
            );
        }
    }
}

/// Help examples are copied into terminals: each line fits 80 columns.
#[test]
fn help_examples_fit_80_columns() {
    let commands: &[&[&str]] = &[
        &[],
        &["lint"],
        &["plan"],
        &["explain-placement"],
        &["snapshot"],
        &["patch"],
        &["launch"],
        &["completion"],
        &["version"],
    ];
    for command in commands {
        let out = output(&[*command, &["--help"][..]].concat());
        let help = text(&out.stdout);
        let examples = help.split_once("Examples:").map_or("", |(_, e)| e);
        let long: Vec<&str> = examples
            .lines()
            .filter(|l| l.chars().count() > 80)
            .collect();
        assert_eq!(long, Vec::<&str>::new(), "{command:?}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let cases: &[&[&str]] = &[
        &[],
        &["no-such-command"],
        &["plan", "--no-such-flag"],
        &["plan", "-o", "xml"],
    ];
    for args in cases {
        let out = output(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        assert!(!text(&out.stderr).contains("panicked"), "{args:?}");
    }
}

/// Failures are one `error: ...` line each and exit 2, whether the command is not built yet
/// or it reads its input and finds the problem.
#[test]
fn failures_are_one_line_and_exit_2() {
    let state = "testdata/clusters/three-zone.yaml";
    // (arguments, the command, the line a command that reads -f prints)
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &[
                "plan",
                "-f",
                "testdata/bad/malformed.yaml",
                "--state",
                state,
            ],
            "plan",
            "error: testdata/bad/malformed.yaml:6:5: while parsing a flow mapping, did not find expected ',' or '}'",
        ),
        (
            // An endless state is refused at the limit instead of exhausting memory.
            &[
                "plan",
                "-f",
                "testdata/flows/three-step.yaml",
                "--state",
                "testdata/clusters/openb.json",
                "--max-state-size",
                "1000000",
            ],
            "plan",
            "error: testdata/clusters/openb.json: the state is larger than the limit of 1000000 bytes; raise --max-state-size to read it",
        ),
        (
            // Not read up to the limit: a NUL byte is no JSON or YAML (tests/hostile/input.rs).
            &[
                "plan",
                "-f",
                "testdata/flows/three-step.yaml",
                "--state",
                "/dev/zero",
            ],
            "plan",
            "error: /dev/zero: binary content (NUL byte) at line 1, column 1; expected a YAML or JSON state",
        ),
        (
            &["plan", "-f", "testdata/no-such-file.yaml", "--state", state],
            "plan",
            "error: testdata/no-such-file.yaml: no such file or directory",
        ),
        (
            &[
                "explain-placement",
                "-f",
                "testdata/bad/wrong-api-version.yaml",
                "--state",
                state,
            ],
            "explain-placement",
            "error: testdata/bad/wrong-api-version.yaml:1:13: apiVersion: unsupported apiVersion \"data.fluid.io/v1beta1\" for DataLoad (expected \"data.fluid.io/v1alpha1\")",
        ),
    ];
    for (args, command, load_error) in cases {
        let out = output(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        let not_built = format!("error: {command} is not implemented yet");
        assert!(
            lines == [not_built.as_str()] || lines == [*load_error],
            "{args:?}: {stderr}"
        );
    }
}

/// Where the real kubectl is, if installed.
fn kubectl() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("kubectl"))
        .find(|p| p.is_file())
}

#[test]
fn kubectl_finds_and_runs_the_plugin() {
    let Some(kubectl) = kubectl() else {
        eprintln!("note: kubectl is not on PATH; skipping the plugin discovery test");
        return;
    };
    // A directory holding only the plugin: target/debug also holds `kubectl-dataflow.d`, which
    // `kubectl plugin list` reports as a non-executable plugin (exit 1).
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(BIN, dir.path().join("kubectl-dataflow")).unwrap();
    let path = std::env::join_paths([dir.path().to_path_buf()]).unwrap();
    let kubectl_run = |args: &[&str]| {
        Command::new(&kubectl)
            .args(args)
            .env("PATH", &path)
            .env("KUBECONFIG", dir.path().join("no-kubeconfig"))
            .output()
            .unwrap()
    };

    let out = kubectl_run(&["dataflow", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Usage: kubectl dataflow [OPTIONS] <COMMAND>"));

    let out = kubectl_run(&["plugin", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listed = dir.path().join("kubectl-dataflow").display().to_string();
    assert!(
        text(&out.stdout).lines().any(|l| l.trim() == listed),
        "{}",
        text(&out.stdout)
    );
}

/// A misspelled field would drop the constraint the user meant: plan and explain refuse it
/// (exit 2, the field, its position and the likely spelling), `--lenient` plans with a warning.
#[test]
fn misspelled_fields_are_refused_unless_lenient() {
    let file = "testdata/bad/misspelled-node-selector.yaml";
    let state = "testdata/clusters/three-zone.yaml";
    let problem = "testdata/bad/misspelled-node-selector.yaml:8:3: spec.nodeSelecter: unknown field \"nodeSelecter\"; did you mean \"nodeSelector\"?";
    for command in ["plan", "explain-placement"] {
        let out = output(&[command, "-f", file, "--state", state]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(out.stdout.is_empty(), "{command}");
        assert_eq!(
            text(&out.stderr),
            format!(
                "error: {problem}\nerror: 1 problem in the input schema; fix the input, or plan anyway with --lenient (the fields are then ignored)\n"
            ),
            "{command}"
        );
        let out = output(&[command, "-f", file, "--state", state, "--lenient"]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        assert_eq!(
            text(&out.stderr),
            format!("warning: {problem}\n"),
            "{command}"
        );
    }
}

/// The batch pods of `plan -o json` (`<pending>` for no node): `namespace/name -> node`, with `KUBECONFIG` set to
/// `kubeconfig` when given.
fn planned_pods_with(args: &[&str], kubeconfig: Option<&std::ffi::OsStr>) -> Vec<(String, String)> {
    let out = match kubeconfig {
        Some(list) => bin(args).env("KUBECONFIG", list).output(),
        None => bin(args).output(),
    };
    // Exit 1 is a plan with pods left pending.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        text(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    plan["batch"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pod| {
            (
                format!(
                    "{}/{}",
                    pod["namespace"].as_str().unwrap(),
                    pod["name"].as_str().unwrap()
                ),
                pod["node"].as_str().unwrap_or("<pending>").to_string(),
            )
        })
        .collect()
}

fn planned_pods(args: &[&str]) -> Vec<(String, String)> {
    planned_pods_with(args, None)
}

/// `-n` chooses what is planned, never what the scheduler sees: the pods of each namespace
/// land where `-A` puts them, though each depends on pods of other namespaces.
#[test]
fn a_namespace_plans_its_part_of_the_whole_cluster() {
    let base = [
        "plan",
        "-f",
        "testdata/pods/namespaces.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "json",
    ];
    let all = planned_pods(&[&base[..], &["-A"]].concat());
    assert_eq!(
        all,
        [
            ("ml/cache-reader", "node-b1"),
            ("ml/dns-shy", "node-c3"),
            ("web/frontend-probe", "node-b3"),
        ]
        .map(|(pod, node)| (pod.to_string(), node.to_string()))
    );
    for namespace in ["ml", "web"] {
        let part: Vec<_> = all
            .iter()
            .filter(|(pod, _)| pod.starts_with(&format!("{namespace}/")))
            .cloned()
            .collect();
        assert_eq!(
            planned_pods(&[&base[..], &["-n", namespace]].concat()),
            part,
            "{namespace}"
        );
    }
}

/// `namespace/name -> node` of each batch pod, in plan order.
type PlannedPods = Vec<(String, String)>;

/// `-l` and `--field-selector` choose what is planned as `-n` does: each selected pod lands
/// where the unselected plan puts it (the other pods of the batch still take their room).
#[test]
fn selectors_plan_their_part_of_the_whole_batch() {
    let base = [
        "plan",
        "-f",
        "testdata/pods/batch.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "json",
    ];
    let all = planned_pods(&base);
    assert_eq!(all.len(), 15);
    let part = |names: &[&str]| -> PlannedPods {
        all.iter()
            .filter(|(pod, _)| names.contains(&pod.as_str()))
            .cloned()
            .collect()
    };
    let loaders = [
        "data/shard-loader-0",
        "data/shard-loader-1",
        "data/shard-loader-2",
        "data/shard-loader-3",
    ];
    let cases: &[(&[&str], PlannedPods)] = &[
        (&["-l", "app=shard-loader"], part(&loaders)),
        (
            &["-l", "app in (shard-loader,cache-probe)"],
            part(&[&loaders[..], &["web/cache-probe"]].concat()),
        ),
        (
            &["--selector", "app,app notin (feature-extract,shard-loader)"],
            part(&["web/cache-probe"]),
        ),
        (
            &["--field-selector", "metadata.namespace=ml"],
            part(&["ml/gpu-eval", "ml/oversized"]),
        ),
        (
            &[
                "--field-selector",
                "metadata.namespace==ml,metadata.name!=oversized",
            ],
            part(&["ml/gpu-eval"]),
        ),
        (
            &["-l", "!app", "--field-selector", "metadata.name=oversized"],
            part(&["ml/oversized"]),
        ),
        (&["-l", "app=shard-loader", "-n", "ml"], Vec::new()),
    ];
    for (flags, expected) in cases {
        let args = [&base[..], flags].concat();
        if expected.is_empty() {
            let out = output(&args);
            assert_eq!(out.status.code(), Some(1), "{flags:?}");
            assert_eq!(
                text(&out.stderr),
                "nothing to plan in namespace \"ml\": no DataFlow operations, gangs or pods selected by the label and field selectors (-A plans every namespace)\n"
            );
        } else {
            assert_eq!(&planned_pods(&args), expected, "{flags:?}");
        }
    }
}

/// A selector kubectl would refuse is refused (exit 2) with what is wrong in it.
#[test]
fn bad_selectors_exit_2_naming_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--field-selector", "spec.schedulerName=volcano"],
            "error: field label not supported: \"spec.schedulerName\" (supported: metadata.name, metadata.namespace, spec.nodeName, status.phase)\n",
        ),
        (
            &["--field-selector", "status.phase"],
            "error: invalid field selector \"status.phase\": cannot understand \"status.phase\" (write FIELD=VALUE, FIELD==VALUE or FIELD!=VALUE, comma separated)\n",
        ),
        (
            &["-l", "app in web"],
            "error: invalid label selector \"app in web\": requirement \"app in web\" needs its values in parentheses\n",
        ),
    ];
    for command in ["plan", "explain-placement", "lint"] {
        for (flags, expected) in cases {
            let args = [&[command, "-f", "testdata/pods/batch.yaml"][..], flags].concat();
            let out = output(&args);
            assert_eq!(out.status.code(), Some(2), "{command} {flags:?}");
            assert_eq!(text(&out.stderr), *expected, "{command} {flags:?}");
        }
    }
}

/// `explain-placement` without KIND/NAME explains the one input pod the selectors leave;
/// `lint` reports only the findings of the selected objects (and of whole files).
#[test]
fn selectors_choose_what_is_explained_and_linted() {
    // The one pod left is gpu-eval: the greedy batch leaves it pending (the pods before it
    // took the GPUs), as `plan` does; the flow solver places it on node-a3.
    for (solver, code, stdout) in [("greedy", 1, ""), ("flow", 0, "node/node-a3\n")] {
        let explain = output(&[
            "explain-placement",
            "-f",
            "testdata/pods/batch.yaml",
            "--state",
            "testdata/clusters/three-zone.yaml",
            "-l",
            "!app",
            "--field-selector",
            "metadata.namespace=ml,metadata.name!=oversized",
            "--solver",
            solver,
            "-o",
            "name",
        ]);
        assert_eq!(text(&explain.stderr), "", "{solver}");
        assert_eq!(text(&explain.stdout), stdout, "{solver}");
        assert_eq!(explain.status.code(), Some(code), "{solver}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("groups.yaml");
    let group = |name: &str, team: &str| {
        format!(
            "apiVersion: scheduling.godel.kubewharf.io/v1alpha1\nkind: PodGroup\nmetadata: {{name: {name}, namespace: ai, labels: {{team: {team}}}}}\nspec:\n  minMember: 0\n"
        )
    };
    std::fs::write(
        &file,
        [group("vision", "cv"), group("speech", "asr")].join("---\n"),
    )
    .unwrap();
    let file = file.display().to_string();
    let lint = |flags: &[&str]| -> Vec<String> {
        let out = output(&[&["lint", "-f", &file, "-o", "json"][..], flags].concat());
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{}:{}", d["line"], d["code"].as_str().unwrap()))
            .collect()
    };
    assert_eq!(lint(&[]).len(), 2);
    let vision = lint(&["-l", "team=cv"]);
    let speech = lint(&["--field-selector", "metadata.name=speech"]);
    assert_eq!((vision.len(), speech.len()), (1, 1));
    assert_eq!([vision, speech].concat(), lint(&[]));
    assert_eq!(lint(&["-l", "team=nlp"]), Vec::<String>::new());
}

/// A manifest without a namespace goes to `-n`'s namespace, else to the kubeconfig context's
/// (`KUBECONFIG` is a path list; missing files are skipped, as kubectl does), else `default`.
#[test]
fn manifests_without_a_namespace_take_the_flag_or_context_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    std::fs::write(
        &config,
        "apiVersion: v1\nkind: Config\ncurrent-context: dev\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: dev, context: {cluster: c, user: u, namespace: web}}]\n",
    )
    .unwrap();
    let with_context = std::env::join_paths([dir.path().join("missing"), config]).unwrap();
    let without = std::env::join_paths([dir.path().join("missing")]).unwrap();
    let file = dir.path().join("pod.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: loose}\nspec:\n  containers: [{name: c, image: i}]\n",
    )
    .unwrap();
    let file = file.display().to_string();
    let state = "testdata/clusters/three-zone.yaml";
    let cases = [
        (&["-n", "ml"][..], &with_context, "ml/loose"),
        (&[][..], &with_context, "web/loose"),
        (&[][..], &without, "default/loose"),
    ];
    for (flags, kubeconfig, expected) in cases {
        let args = [
            &["plan", "-f", &file, "--state", state, "-o", "json"][..],
            flags,
        ]
        .concat();
        let pods = planned_pods_with(&args, Some(kubeconfig));
        assert_eq!(pods.len(), 1, "{flags:?}");
        assert_eq!(pods[0].0, expected, "{flags:?} {kubeconfig:?}");
    }
}

/// kubectl's output habits and the one-line notes: `-o name`, `--no-headers`, comma-separated `-f`, an empty
/// plan exits 1 with its reason, a state without nodes and `lint` without `--state` warn,
/// flags that do nothing in a mode say so, counts are in the singular when there is one.
#[test]
fn kubectl_output_habits_and_notes() {
    let state = "testdata/clusters/three-zone.yaml";
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "apiVersion: v1\nkind: List\nitems: []\n").unwrap();
    let empty = empty.display().to_string();
    let no_nodes =
        format!("warning: {empty} has no nodes: every pod is unschedulable against it\n");
    // (arguments, exit code, stdout, stderr)
    let cases: Vec<(Vec<&str>, i32, String, String)> = vec![
        (
            vec!["plan", "-f", "testdata/flows/three-step.yaml,testdata/pods/namespaces.yaml", "--state", state, "-o", "name"],
            0,
            "dataload/load-imagenet\ndataprocess/preprocess-imagenet\ndatamigrate/export-imagenet\npod/cache-reader\npod/dns-shy\npod/frontend-probe\n".into(),
            String::new(),
        ),
        (
            vec!["explain-placement", "-f", "testdata/pods/affinity.yaml", "--state", state, "-o", "name", "--top", "3"],
            0,
            "node/node-b3\n".into(),
            "warning: --top only shortens the table; -o json, yaml and name list every node\n".into(),
        ),
        (
            vec!["plan", "--state", state, "-n", "nothing"],
            1,
            String::new(),
            "nothing to plan in namespace \"nothing\": no DataFlow operations, gangs or pods (-A plans every namespace)\n".into(),
        ),
        (
            vec!["plan", "-f", "testdata/pods/namespaces.yaml", "-n", "web", "--state", &empty, "-o", "name"],
            1,
            "pod/frontend-probe\n".into(),
            no_nodes.clone(),
        ),
        (
            vec!["plan", "-f", "testdata/pods/namespaces.yaml", "-n", "web", "--state", state],
            0,
            "Batch (1 pod, solver greedy): 1/1 pods placed\n POD                 FROM                NODE     METHOD  NOTE\n web/frontend-probe  Pod/frontend-probe  node-b3  greedy  -\n".into(),
            String::new(),
        ),
        (
            vec!["plan", "-f", "testdata/pods/namespaces.yaml", "-n", "web", "--state", state, "--no-headers"],
            0,
            "Batch (1 pod, solver greedy): 1/1 pods placed\n web/frontend-probe  Pod/frontend-probe  node-b3  greedy  -\n".into(),
            String::new(),
        ),
        (
            vec!["plan", "-f", "testdata/pods/namespaces.yaml", "-n", "web", "--state", state, "--no-headers", "-o", "name"],
            0,
            "pod/frontend-probe\n".into(),
            "warning: --no-headers only applies to -o table, wide and custom-columns\n".into(),
        ),
        (
            vec!["lint", "-f", "testdata/lint/df005-pass.yaml,testdata/lint/df006-pass.yaml"],
            0,
            "no problems found in 2 files\n".into(),
            "warning: no --state given: skipped the checks against a cluster (DF204, DF205, DF206, DF207, DF409, DF505, DF506, DF507, DF508, DF509, DF510, DF511, DF512, DF513, DF601, DF602, DF604); pass --state FILE to run them\n".into(),
        ),
        (
            vec!["lint", "-f", "testdata/lint/df005-pass.yaml", "--state", state, "--disable", "DF4"],
            0,
            "no problems found in 1 file\n".into(),
            String::new(),
        ),
    ];
    for (args, code, stdout, stderr) in cases {
        let out = output(&args);
        assert_eq!(
            (out.status.code(), text(&out.stdout), text(&out.stderr)),
            (Some(code), stdout, stderr),
            "{args:?}"
        );
    }
}

/// `KIND/NAME` is read by one parser for every command that takes it: the same spelling is
/// refused by `explain-placement`, `patch` and `launch` with the same message, in kubectl's
/// terms, before anything is planned or sent.
#[test]
fn every_command_refuses_a_bad_object_reference_the_same_way() {
    let cases = [
        (
            "deplyment/api",
            "error: unknown kind \"deplyment\" in \"deplyment/api\" (did you mean \"Deployment\"?); known kinds: CronJob, DaemonSet, DataBackup, DataLoad, DataMigrate, DataProcess, Deployment, JAXJob, Job, JobSet, LeaderWorkerSet, MPIJob, Node, PaddleJob, Pod, PodGroup, PyTorchJob, RayCluster, RayJob, RayService, ReplicaSet, StatefulSet, TFJob, TrainJob, XGBoostJob\n",
        ),
        (
            "pod/a/b",
            "error: \"pod/a/b\": arguments in resource/name form may not have more than one slash\n",
        ),
        (
            "pod/",
            "error: \"pod/\" names no object: write KIND/NAME, e.g. pod/web-0\n",
        ),
    ];
    for command in ["explain-placement", "patch", "launch"] {
        for (typed, expected) in cases {
            let out = output(&[
                command,
                typed,
                "-f",
                "testdata/flows/three-step.yaml",
                "--state",
                "testdata/clusters/three-zone.yaml",
            ]);
            assert_eq!(out.status.code(), Some(2), "{command} {typed}");
            assert_eq!(text(&out.stderr), expected, "{command} {typed}");
            assert_eq!(text(&out.stdout), "", "{command} {typed}");
        }
    }
}
