//! Hostile input, end to end (issue 19): each attack is generated at test time and run through
//! the real binary under a memory limit. The binary must answer with a documented exit code
//! (0, 1 or 2; never 101 from a panic, 134 from an abort or a kill for memory), one clear line,
//! and write nothing when it refuses.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::json;

use crate::support::apiserver::{
    ApiServer, Behaviour, DATALOADS, LIMIT_RANGES, NAMESPACES, NODES, PODS, RESOURCE_QUOTAS,
    kubeconfig_text,
};
use crate::support::cli::{BIN, ROOT, bin};

const STATE: &str = "testdata/clusters/three-zone.yaml";
/// Address space the binary gets: an attack that expands input must fail well below it.
const ADDRESS_SPACE_KIB: u64 = 1024 * 1024;
/// A hang (a FIFO read, a loop) fails the test instead of blocking the suite.
const DEADLINE: Duration = Duration::from_secs(60);

/// Run the binary under `ulimit -v` with a deadline, stdin closed: as `support::cli::bin`
/// runs it, through a shell that sets the limit first.
fn run_limited(args: &[&str]) -> Output {
    run_limited_to(ADDRESS_SPACE_KIB, args)
}

/// [`run_limited`] under an address space of `kib` KiB.
pub(crate) fn run_limited_to(kib: u64, args: &[&str]) -> Output {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .current_dir(ROOT)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output().unwrap()));
    receiver.recv_timeout(DEADLINE).unwrap_or_else(|_| {
        let _ = Command::new("kill").args(["-9", &pid]).status();
        panic!("{args:?} still running after {DEADLINE:?}");
    })
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit code and stderr, after checking the exit was a documented one.
fn outcome(args: &[&str]) -> (i32, String) {
    outcome_under(ADDRESS_SPACE_KIB, args)
}

/// [`outcome`] under an address space of `kib` KiB.
pub(crate) fn outcome_under(kib: u64, args: &[&str]) -> (i32, String) {
    let output = run_limited_to(kib, args);
    let code = output.status.code();
    assert!(
        matches!(code, Some(0..=2)),
        "{args:?} exited with {:?}: {}",
        output.status,
        stderr(&output)
    );
    (code.unwrap(), stderr(&output))
}

pub(crate) fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A DataFlow operation the plan and patch commands accept, for files that must stay unwritten.
const DATALOAD: &str = "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata:\n  name: load\nspec:\n  dataset:\n    name: ds\n    namespace: default\n";

#[test]
fn nesting_is_refused_on_every_input_path() {
    let dir = tempfile::tempdir().unwrap();
    // ~2 MB each: the sizes that overflowed the stack, with an apostrophe before the
    // nesting (it fooled the old text pre-scan), quoted scalars, flow and JSON.
    let cases = [
        (
            "block.yaml",
            format!("note: don't\nitems:\n{}x\n", "- ".repeat(1_000_000)),
            "block.yaml:12:2047: document nests deeper than 1024 levels",
        ),
        (
            "quoted.yaml",
            format!("- 'it''s'\n{}\"x\"\n", "- ".repeat(1_000_000)),
            "quoted.yaml:11:2049: document nests deeper than 1024 levels",
        ),
        (
            "indented.yaml",
            (0..2_000)
                .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
                .collect(),
            "indented.yaml:1034:1025: document nests deeper than 1024 levels",
        ),
        (
            "flow.yaml",
            format!("a: {}", "[".repeat(2_000_000)),
            "flow.yaml:10:259: flow collections nest deeper than 255 levels",
        ),
        (
            "deep.json",
            "{\"a\": ".repeat(300_000),
            "deep.json:10:1531: flow collections nest deeper than 255 levels",
        ),
    ];
    for (name, text, expected) in cases {
        let file = write(dir.path(), name, &format!("{DATALOAD}---\n{text}"));
        let shown = |e: &str| e.rsplit('/').next().unwrap().trim().to_string();
        let (code, err) = outcome(&["plan", "-f", &file, "--state", STATE]);
        assert_eq!(
            (code, shown(&err)),
            (2, expected.to_string()),
            "plan {name}"
        );
        let (code, err) = outcome(&["lint", "-f", &file]);
        assert_eq!(code, 1, "lint {name}: {err}");
        // patch --write refuses the broken file and leaves it as it was.
        let before = std::fs::read(&file).unwrap();
        let (code, _) = outcome(&["patch", "-f", &file, "--state", STATE, "--write"]);
        assert_eq!(code, 2, "patch {name}");
        assert_eq!(std::fs::read(&file).unwrap(), before, "patch {name} wrote");
    }
}

#[test]
fn alias_expansion_is_bounded_in_bytes_and_nodes() {
    let dir = tempfile::tempdir().unwrap();
    // 1 MB of text expanding to 10^9 copies of a 1 MB string, and 10^10 small nodes.
    let mut strings = format!("s0: &s0 \"{}\"\n", "x".repeat(1_000_000));
    let mut nodes = String::from("n0: &n0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n");
    for i in 1..10 {
        let refs = |p: &str| vec![format!("*{p}{}", i - 1); 10].join(", ");
        strings.push_str(&format!("s{i}: &s{i} [{}]\n", refs("s")));
        nodes.push_str(&format!("n{i}: &n{i} [{}]\n", refs("n")));
    }
    for (name, text, position) in [
        ("strings.yaml", strings, "3:10"),
        ("nodes.yaml", nodes, "5:45"),
    ] {
        let file = write(dir.path(), name, &text);
        let (code, err) = outcome(&["plan", "-f", &file, "--state", STATE]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.ends_with(&format!(
                "{name}:{position}: alias expansion exceeds 100000 nodes or 16 MiB (a YAML bomb?)\n"
            )),
            "{name}: {err}"
        );
    }
}

/// A state that is no text (a device, a binary file) stops at its first NUL byte, under the
/// address-space limit: /dev/zero would otherwise be read up to the size limit.
#[test]
fn binary_states_and_devices_are_refused_at_the_first_nul_byte() {
    let dir = tempfile::tempdir().unwrap();
    let json = write(
        dir.path(),
        "nul.json",
        "{\"apiVersion\": \"v1\", \"kind\": \"List\",\n \0}",
    );
    let cases = [
        (
            "/dev/zero".to_string(),
            "error: /dev/zero: binary content (NUL byte) at line 1, column 1; expected a YAML or \
             JSON state\n"
                .to_string(),
        ),
        (
            json.clone(),
            format!(
                "error: {json}: binary content (NUL byte) at line 2, column 2; expected a YAML or \
                 JSON state\n"
            ),
        ),
    ];
    for (state, expected) in cases {
        let args = [
            "plan",
            "-f",
            "testdata/pods/affinity.yaml",
            "--state",
            &state,
        ];
        assert_eq!(outcome(&args), (2, expected), "{state}");
    }
}

#[test]
fn directory_walks_skip_special_files_and_symlink_loops() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("manifests");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    write(&root, "load.yaml", DATALOAD);
    // A FIFO nobody writes to: reading it would block forever.
    let fifo = root.join("sub/pipe.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // A link back to the top, and a dangling link.
    std::os::unix::fs::symlink(&root, root.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(root.join("gone.yaml"), root.join("dangling.yaml")).unwrap();
    let root_arg = root.display().to_string();
    let (code, err) = outcome(&[
        "lint",
        "-R",
        "-f",
        &root_arg,
        "--state",
        "testdata/clusters/three-zone.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    let notes: Vec<String> = err.lines().map(|l| l.replace(&root_arg, "DIR")).collect();
    assert_eq!(
        notes,
        [
            "note: skipped DIR/dangling.yaml: broken symbolic link",
            "note: skipped DIR/sub/loop: directory already read (a symbolic link loop or a second link to it)",
            "note: skipped DIR/sub/pipe.yaml: not a regular file (a FIFO, socket or device)",
        ]
    );
}

#[test]
fn numeric_flags_are_validated_with_one_clear_error() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "plan",
                "--request-timeout",
                "99999999999999999999h",
                "-f",
                "x.yaml",
            ],
            "error: invalid --request-timeout \"99999999999999999999h\": longer than the maximum of 8784h",
        ),
        (
            &[
                "plan",
                "--request-timeout",
                "18446744073709551615",
                "-f",
                "x.yaml",
            ],
            "error: invalid --request-timeout \"18446744073709551615\": longer than the maximum of 8784h",
        ),
        (
            &["launch", "--timeout", "1e9h", "-f", "x.yaml"],
            "error: invalid --timeout \"1e9h\": expected a duration such as 30s, 1m or 500ms",
        ),
        (
            &["plan", "--replicas", "4294967296", "-f", "x.yaml"],
            "error: invalid value '4294967296' for '--replicas <N>': 4294967296 is not in 1..=100000",
        ),
        (
            &["plan", "--replicas", "0", "-f", "x.yaml"],
            "error: invalid value '0' for '--replicas <N>': 0 is not in 1..=100000",
        ),
        (
            &["plan", "-v", "300", "-f", "x.yaml"],
            "error: invalid value '300' for '--v <LEVEL>': 300 is not in 0..=255",
        ),
        (
            &["explain-placement", "--top", "-1", "-f", "x.yaml"],
            "error: unexpected argument '-1' found",
        ),
    ];
    for (args, expected) in cases {
        let (code, err) = outcome(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().next(), Some(*expected), "{args:?}");
    }
    // --request-timeout is checked before anything is read, from a file or the cluster.
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "load.yaml", DATALOAD);
    let (code, err) = outcome(&["plan", "-f", &file, "--request-timeout", "1e3h"]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
}

/// Start the binary with the read end of stdout or stderr closed, as `... | head -0` does.
fn with_closed(stream: &str, args: &[&str]) -> Option<i32> {
    let mut command = bin(args).command();
    command.stdin(Stdio::null());
    let mut child = match stream {
        "stdout" => command.stdout(Stdio::piped()).stderr(Stdio::null()).spawn(),
        _ => command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn(),
    }
    .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    child.wait().unwrap().code()
}

#[test]
fn closed_output_pipes_end_the_run_quietly() {
    let plan: &[&str] = &[
        "plan",
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        STATE,
    ];
    let cases: &[(&str, &[&str], i32)] = &[
        ("stdout", plan, 0),
        ("stdout", &["lint", "--explain", "DF001"], 0),
        ("stdout", &["completion", "bash"], 0),
        ("stdout", &["--help"], 0),
        // The command's own status survives: a missing file is still exit 2.
        (
            "stderr",
            &["plan", "-f", "missing.yaml", "--state", STATE],
            2,
        ),
        ("stderr", &["plan", "--replicas", "x"], 2),
        ("stderr", &["lint", "-R", "-f", "testdata"], 1),
    ];
    for (stream, args, expected) in cases {
        assert_eq!(
            with_closed(stream, args),
            Some(*expected),
            "{args:?} with a closed {stream}"
        );
    }
}

#[test]
fn control_characters_from_manifests_are_escaped_in_human_output() {
    let dir = tempfile::tempdir().unwrap();
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"evil\\e]0;owned\\a\\u202e\"\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      requests:\n        cpu: 100m\n";
    let file = write(dir.path(), "pod.yaml", pod);
    let output = run_limited(&["plan", "-f", &file, "--state", STATE]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("default/evil\\u{1b}]0;owned\\u{7}\\u{202e}"),
        "{stdout}"
    );
    // The error printer too: the message quotes the bad value.
    let bad = pod.replace("cpu: 100m", "cpu: \"\\e[2J\"");
    let file = write(dir.path(), "bad.yaml", &bad);
    let (code, err) = outcome(&["plan", "-f", &file, "--state", STATE]);
    assert_eq!(code, 2);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    // JSON keeps the exact name, escaped by JSON itself.
    let output = run_limited(&[
        "plan",
        "-f",
        &file.replace("bad", "pod"),
        "--state",
        STATE,
        "-o",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["batch"]["pods"][0]["name"],
        "evil\u{1b}]0;owned\u{7}\u{202e}"
    );
}

/// Names that are wide (CJK, emoji) or hold control characters and tabs keep every column of
/// the table aligned: cells are escaped before their display width is measured.
#[test]
fn tables_stay_aligned_around_wide_and_escaped_names() {
    let dir = tempfile::tempdir().unwrap();
    let pods: Vec<String> = ["web-0", "数据-0", "🚀-pod", "\"evil\\e[31m\\tx\""]
        .iter()
        .map(|name| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      requests:\n        cpu: 100m\n"
            )
        })
        .collect();
    let file = write(dir.path(), "pods.yaml", &pods.join("---\n"));
    let output = run_limited(&["plan", "-f", &file, "--state", STATE]);
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "Batch (4 pods, solver greedy): 4/4 pods placed
 POD                           FROM                      NODE     METHOD  NOTE
 default/web-0                 Pod/web-0                 node-b3  greedy  -
 default/数据-0                Pod/数据-0                node-b3  greedy  -
 default/🚀-pod                Pod/🚀-pod                node-b3  greedy  -
 default/evil\\u{1b}[31m\\u{9}x  Pod/evil\\u{1b}[31m\\u{9}x  node-b3  greedy  -
"
    );
}

/// A test API server with one node and Fluid's DataLoad installed.
fn api_server(behaviour: Behaviour) -> ApiServer {
    let server = ApiServer::start(
        vec![
            NODES,
            NAMESPACES,
            PODS,
            RESOURCE_QUOTAS,
            LIMIT_RANGES,
            DATALOADS,
        ],
        behaviour,
    );
    server.add(
        &NODES,
        json!({"metadata": {"name": "node-a"}, "status": {"allocatable": {"cpu": "4", "pods": "110"}}}),
    );
    server
}

#[test]
fn hostile_api_servers_get_one_clear_line() {
    let padding = 130 * 1024 * 1024;
    let cases: Vec<(Behaviour, &str)> = vec![
        (
            Behaviour {
                repeat_continue: true,
                ..Default::default()
            },
            "error: the API server repeated the continue token of list nodes after 2 pages; the list would never end",
        ),
        (
            Behaviour {
                list_padding: padding,
                ..Default::default()
            },
            "error: the API server's answer to list nodes is larger than 128 MiB; not read further",
        ),
        (
            Behaviour {
                failing: vec![("/api/v1/pods".into(), 429)],
                ..Default::default()
            },
            "error: rate limited: the API server at {url} answered list pods in all namespaces with 429 Too Many Requests; retry later",
        ),
        (
            Behaviour {
                forbidden: vec!["/apis/data.fluid.io/v1alpha1".into()],
                ..Default::default()
            },
            "error: forbidden: cannot discover /apis/data.fluid.io/v1alpha1: /apis/data.fluid.io/v1alpha1 is forbidden: User \"alice\" cannot list resource at the cluster scope; ask for list permission, or record the state elsewhere and pass --state FILE",
        ),
    ];
    for (behaviour, expected) in cases {
        let server = api_server(behaviour);
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server
            .kubeconfig(dir.path(), "config")
            .display()
            .to_string();
        let (code, err) = outcome(&["snapshot", "--kubeconfig", &kubeconfig]);
        // Notes about kinds the server does not serve may come first; the error is last.
        assert_eq!(
            (code, err.lines().last()),
            (2, Some(expected.replace("{url}", &server.url).as_str())),
            "{err}"
        );
    }
}

#[test]
fn a_crd_that_does_not_exist_is_skipped_even_when_discovery_is_forbidden() {
    // Authorization comes first: without discovery rights, a missing group is a 403 too.
    let server = api_server(Behaviour {
        forbidden: vec!["/apis/scheduling.volcano.sh/v1beta1".into()],
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server
        .kubeconfig(dir.path(), "config")
        .display()
        .to_string();
    let (code, err) = outcome(&["snapshot", "--kubeconfig", &kubeconfig]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: podgroups.scheduling.volcano.sh (scheduling.volcano.sh/v1beta1) is not installed in the cluster; skipping PodGroup objects"),
        "{err}"
    );
}

#[test]
fn tls_failures_point_at_the_ca() {
    let server = api_server(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    // The server speaks plain HTTP; the kubeconfig says HTTPS.
    let https = server.url.replace("http://", "https://");
    let kubeconfig = dir.path().join("config");
    std::fs::write(&kubeconfig, kubeconfig_text(&[("tls", &https)], "tls")).unwrap();
    let (code, err) = outcome(&[
        "snapshot",
        "--kubeconfig",
        &kubeconfig.display().to_string(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "error: TLS with the API server at {https} failed: "
        )),
        "{err}"
    );
    assert!(err.trim_end().ends_with("; check the CA (certificate-authority or certificate-authority-data of the kubeconfig's cluster) and that the server address is the HTTPS one"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn values_the_api_server_rejects_fail_plan_and_lint_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: \"-1\"}}\n  tolerations:\n  - {key: k, operator: Exists, effect: Never}\n";
    let file = write(dir.path(), "pod.yaml", pod);
    let (code, err) = outcome(&["plan", "-f", &file, "--state", STATE]);
    assert_eq!(
        (code, err),
        (
            2,
            format!(
                "error: {file}:7:33: spec.containers[0].resources.requests.cpu: -1: must be greater than or equal to 0\n"
            )
        )
    );
    let (code, err) = outcome(&["lint", "-f", &file]);
    assert_eq!(code, 1, "{err}");
    // Values lint reports under rules of their own (DF405, DF209) fail plan and explain too.
    let volcano_job = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\nspec:\n  schedulerName: volcano\n  minAvailable: 1\n  tasks:\n  - name: t\n    replicas: 1\n    template:\n      spec:\n        containers: [{name: c}]\n        affinity:\n          nodeAffinity:\n            preferredDuringSchedulingIgnoredDuringExecution:\n            - {weight: 101, preference: {matchExpressions: [{key: zone, operator: Exists}]}}\n";
    let pod_group = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: -1}\n";
    let cases = [
        (
            volcano_job,
            "16:24: spec.tasks[0].template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 101: must be in the range 1-100",
            "DF405",
        ),
        (
            pod_group,
            "4:19: spec.minMember: -1: must be at least 0",
            "DF209",
        ),
    ];
    for (text, refusal, rule) in cases {
        let file = write(dir.path(), "refused.yaml", text);
        for command in ["plan", "explain-placement"] {
            let (code, err) = outcome(&[command, "-f", &file, "--state", STATE]);
            assert_eq!(
                (code, err),
                (2, format!("error: {file}:{refusal}\n")),
                "{command}"
            );
        }
        let lint = run_limited(&["lint", "-f", &file]);
        let findings = String::from_utf8_lossy(&lint.stdout);
        assert_eq!(lint.status.code(), Some(1), "{findings}");
        assert!(findings.contains(&format!("error[{rule}]")), "{findings}");
    }
}

/// Run the binary to completion and return its exit code and peak resident memory in bytes,
/// read from that one child's rusage (`wait4`), so tests running beside it do not count.
fn exit_and_peak_rss(args: &[&str]) -> (Option<i32>, u64) {
    #[expect(
        clippy::zombie_processes,
        reason = "reaped by wait4 below, which also returns its rusage"
    )]
    let child = bin(args)
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own unwaited child; status and usage outlive the call.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // Linux reports ru_maxrss in KiB.
    (code, usage.ru_maxrss as u64 * 1024)
}

/// A YAML state is streamed in pieces (issue 19 item 3): its peak memory grows by a small
/// multiple of the file, where the whole-file positioned tree it replaced took about 30 times;
/// the same in the flow style generators write (issue 33), which went to a tree per entry.
/// The baseline is the same command on a tiny state, so the binary's own footprint is not
/// counted. At this size the fixed costs of the parallel pieces weigh more (about 7.5x here);
/// the 405 MB benchmark state peaks at 1.4x (README, Limits).
#[test]
fn a_yaml_state_loads_in_memory_bounded_by_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let spec = df_synth::SynthSpec {
        seed: 19,
        nodes: 60,
        pods: 1200,
        namespaces: 4,
    };
    let mut json = Vec::new();
    df_synth::write_cluster_json(&spec, df_synth::Detail::Realistic, &mut json).unwrap();
    let pod = "testdata/pods/affinity.yaml";
    let (code, baseline) = exit_and_peak_rss(&["explain-placement", "-f", pod, "--state", STATE]);
    assert!(matches!(code, Some(0 | 1)), "baseline exited with {code:?}");
    for style in [df_synth::YamlStyle::Block, df_synth::YamlStyle::Flow] {
        let mut yaml = Vec::new();
        df_synth::write_state_yaml_in(style, json.as_slice(), &mut yaml).unwrap();
        let big = dir.path().join("state.yaml");
        std::fs::write(&big, &yaml).unwrap();
        let big = big.display().to_string();
        let (code, peak) = exit_and_peak_rss(&["explain-placement", "-f", pod, "--state", &big]);
        assert!(
            matches!(code, Some(0 | 1)),
            "big {style:?} YAML state exited with {code:?}"
        );
        let size = yaml.len() as u64;
        assert!(size > 3 << 20, "the generated state is only {size} bytes");
        assert!(
            peak <= baseline + 10 * size,
            "peak RSS {peak} for a {size}-byte {style:?} YAML state (baseline {baseline})"
        );
    }
}
