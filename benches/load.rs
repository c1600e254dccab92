//! State loading benchmark (issue 20): the cost of every command on a realistic recorded state
//! of 5,000 nodes and 150,000 pods (`kubectl get -o json` as a real cluster prints it, about
//! 500 MB), next to the floor: reading the same file and skipping every value.
//!
//! Every figure is its own process (the release binary, or this bench re-running itself for
//! the floor and the bare load), timed from spawn to exit, with its peak RSS from `wait4`.
//! The states are generated into a temporary directory and removed afterwards.
//!
//! Run: `cargo bench --bench load` (`--profile profiling` to iterate). `LOAD_BENCH_SCALES`
//! (default `1,2,4`) picks the state sizes, in multiples of 5,000 nodes / 150,000 pods.
//! `--generate SCALE PATH` only writes the state of that scale, to profile one command on it;
//! `--generate-yaml PATH` writes the YAML section's state to PATH and its JSON beside it
//! (PATH with the extension `json`); `--generate-yaml-flow PATH` the same in the flow style
//! generators write.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use df_state::{cache, recorded};
use df_synth::{Detail, SynthSpec, YamlStyle, write_cluster_json};

#[path = "common/explain_pod.rs"]
mod explain_pod;
#[path = "common/flow.rs"]
mod flow;
#[path = "common/lint_files.rs"]
mod lint_files;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-dataflow");
const FLOOR_FLAG: &str = "--floor";
const LOAD_FLAG: &str = "--load";
const GENERATE_FLAG: &str = "--generate";
const GENERATE_YAML_FLAG: &str = "--generate-yaml";
const GENERATE_YAML_FLOW_FLAG: &str = "--generate-yaml-flow";
const GANG_PODS: usize = 1_000;

/// Child mode: read the file into one buffer and skip every value, as cheaply as serde can.
fn floor(path: &str) {
    let bytes = std::fs::read(path).expect("read the state");
    serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).expect("the state is JSON");
}

/// Child mode: the loader alone, as every command runs it.
fn load(path: &str) {
    let state = recorded::load_files(&[path.to_string()]).expect("the state loads");
    assert!(!state.nodes.is_empty());
}

/// One measured process: wall time and peak RSS.
struct Run {
    seconds: f64,
    rss_mib: f64,
}

/// Run `program args` to its end, `runs` times; the fastest run, with the largest peak RSS.
fn measure(program: &str, args: &[&str], runs: usize) -> Run {
    let mut best = Run {
        seconds: f64::MAX,
        rss_mib: 0.0,
    };
    for _ in 0..runs {
        let log = tempfile::tempfile().expect("temp file");
        let started = Instant::now();
        // Reaped by the wait4 below, which also reports the child's own peak RSS.
        let pid = Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(log.try_clone().expect("dup"))
            .spawn()
            .expect("spawn")
            .id() as i32;
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waits for the child just spawned; `status` and `usage` outlive the call.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(waited, pid, "wait4");
        let code = libc::WEXITSTATUS(status);
        if !libc::WIFEXITED(status) || code > 1 {
            let mut log = log;
            let mut text = String::new();
            std::io::Seek::rewind(&mut log).expect("rewind");
            std::io::Read::read_to_string(&mut log, &mut text).expect("read log");
            panic!("{program} {args:?} failed ({status}): {text}");
        }
        best.seconds = best.seconds.min(seconds);
        best.rss_mib = best.rss_mib.max(usage.ru_maxrss as f64 / 1024.0);
    }
    best
}

fn spec(scale: usize) -> SynthSpec {
    let base = SynthSpec::default();
    SynthSpec {
        nodes: base.nodes * scale,
        pods: base.pods * scale,
        ..base
    }
}

/// The YAML section's state: 2,000 nodes / 60,000 pods, about 200 MB as JSON.
fn yaml_spec() -> SynthSpec {
    SynthSpec {
        nodes: 2_000,
        pods: 60_000,
        ..SynthSpec::default()
    }
}

fn generate(spec: &SynthSpec, path: &Path) -> u64 {
    let mut out = BufWriter::new(File::create(path).expect("create state"));
    write_cluster_json(spec, Detail::Realistic, &mut out).expect("write state");
    written(out, path)
}

/// The size of the file `out` wrote, once it is on disk: the kernel writing a fresh 3 GB file
/// back in the background took the cores from the first commands measured after it.
fn written(out: BufWriter<File>, path: &Path) -> u64 {
    let file = out.into_inner().expect("flush");
    file.sync_all().expect("sync");
    std::fs::metadata(path).expect("written").len()
}

/// The same state as `kubectl get -o yaml` prints it ([`YamlStyle::Block`]), or as generators
/// write it ([`YamlStyle::Flow`]: `resources: {requests: {cpu: 1m, memory: 1Mi}}`).
fn json_to_yaml(style: YamlStyle, json: &Path, yaml: &Path) -> u64 {
    let mut out = BufWriter::new(File::create(yaml).expect("create yaml"));
    let json = BufReader::new(File::open(json).expect("open json"));
    df_synth::write_state_yaml_in(style, json, &mut out).expect("convert the state to YAML");
    written(out, yaml)
}

/// A Godel PodGroup of 1,000 pods (required bigPod, preferred miniPod then tor), as manifests.
fn gang_yaml() -> String {
    let mut text = format!(
        "apiVersion: scheduling.godel.kubewharf.io/v1alpha1\nkind: PodGroup\nmetadata: {{name: bench, namespace: ns-00}}\nspec:\n  minMember: {GANG_PODS}\n  affinity:\n    podGroupAffinity:\n      required: [{{topologyKey: bigPod}}]\n      preferred: [{{topologyKey: miniPod}}, {{topologyKey: tor}}]\n"
    );
    for i in 0..GANG_PODS {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: bench-{i}\n  namespace: ns-00\n  labels: {{godel.bytedance.com/pod-group-name: bench}}\nspec:\n  schedulerName: godel-scheduler\n  containers:\n  - name: main\n    image: trainer\n    resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}\n"
        ));
    }
    text
}

/// A Volcano Job of 1,000 pods in one task (minAvailable all of them), as a manifest: the
/// gang row's size through Volcano's allocate (enqueue gate, queue, gang all or nothing).
fn volcano_job_yaml() -> String {
    format!(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {{name: bench, namespace: ns-00}}\nspec:\n  schedulerName: volcano\n  minAvailable: {GANG_PODS}\n  tasks:\n  - name: worker\n    replicas: {GANG_PODS}\n    template:\n      spec:\n        containers:\n        - name: main\n          image: trainer\n          resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}\n"
    )
}

/// A Workload API gang (`scheduling.k8s.io/v1alpha1`, Kubernetes 1.35) of 1,000 pods: a
/// Workload whose pod group has minCount 1,000 and the Job whose pods join it.
fn workload_gang_yaml() -> String {
    format!(
        "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {{name: bench, namespace: ns-00}}\nspec:\n  podGroups:\n  - name: workers\n    policy:\n      gang: {{minCount: {GANG_PODS}}}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: bench, namespace: ns-00}}\nspec:\n  parallelism: {GANG_PODS}\n  completions: {GANG_PODS}\n  template:\n    spec:\n      workloadRef: {{name: bench, podGroup: workers}}\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: trainer\n        resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}\n"
    )
}

/// Pending pods of the backlog row, unbound, in the five kinds of issue 33's mix (one in five
/// each): plain; required node affinity to zone-a; required hostname anti-affinity among
/// themselves; a hard zone spread among themselves; preferred zone affinity to the pods of one
/// running app (`app-00001`).
const BACKLOG_PODS: usize = 2_000;

/// The node the node-count row copies: 16 CPUs, 126 GiB, in zone-a (the synthetic state's
/// first node).
const TEMPLATE_NODE: &str = "node-00000";

/// The backlog row's pods, of `requests` each, their hard spread over `spread_key`.
fn backlog_yaml_of(requests: &str, spread_key: &str) -> String {
    let kinds = [
        ("plain", String::new()),
        (
            "zonal",
            "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [zone-a]}]}]\n".to_string(),
        ),
        (
            "anti",
            "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: backlog-anti}}, topologyKey: kubernetes.io/hostname}]\n".to_string(),
        ),
        (
            "spread",
            format!("  topologySpreadConstraints: [{{maxSkew: 1, topologyKey: {spread_key}, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: backlog-spread}}}}}}]\n"),
        ),
        (
            "near",
            "  affinity:\n    podAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution: [{weight: 50, podAffinityTerm: {labelSelector: {matchLabels: {app: app-00001}}, namespaceSelector: {}, topologyKey: topology.kubernetes.io/zone}}]\n".to_string(),
        ),
    ];
    (0..BACKLOG_PODS)
        .map(|i| {
            let (kind, spec) = &kinds[i % kinds.len()];
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: backlog-{i:04}\n  namespace: ns-{:02}\n  labels: {{app: backlog-{kind}}}\nspec:\n  containers:\n  - name: main\n    image: worker\n    resources: {{requests: {requests}}}\n{spec}status: {{phase: Pending}}\n",
                i % 20
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

/// The backlog row: small pods that all fit the state.
fn backlog_yaml() -> String {
    backlog_yaml_of("{cpu: 250m, memory: 512Mi}", "topology.kubernetes.io/zone")
}

/// The node-count rows' backlog: the same kinds at 7 CPUs and 28 GiB, so that about a third
/// fit nowhere (two fit a new node like [`TEMPLATE_NODE`]); the spread is over hostnames, as
/// new nodes all in one zone can never even out a zone spread.
fn short_backlog_yaml() -> String {
    backlog_yaml_of("{cpu: \"7\", memory: 28Gi}", "kubernetes.io/hostname")
}

/// One line of the Markdown table: the time, its ratio to `floor` when given, the peak RSS.
fn row(what: &str, run: &Run, floor: Option<&Run>) {
    let ratio = floor.map_or(String::from("-"), |f| {
        format!("{:.2}x", run.seconds / f.seconds)
    });
    println!(
        "| {what} | {:.2} s | {ratio} | {:.0} MiB |",
        run.seconds, run.rss_mib
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == GENERATE_FLAG) {
        let scale = args[i + 1].parse().expect("the scale is an integer");
        generate(&spec(scale), Path::new(&args[i + 2]));
        return;
    }
    for (flag, style) in [
        (GENERATE_YAML_FLAG, YamlStyle::Block),
        (GENERATE_YAML_FLOW_FLAG, YamlStyle::Flow),
    ] {
        if let Some(i) = args.iter().position(|a| a == flag) {
            let yaml = Path::new(&args[i + 1]);
            let json = yaml.with_extension("json");
            generate(&yaml_spec(), &json);
            json_to_yaml(style, &json, yaml);
            return;
        }
    }
    for (flag, child) in [(FLOOR_FLAG, floor as fn(&str)), (LOAD_FLAG, load)] {
        if let Some(i) = args.iter().position(|a| a == flag) {
            child(&args[i + 1]);
            return;
        }
    }
    let scales: Vec<usize> = std::env::var("LOAD_BENCH_SCALES")
        .unwrap_or_else(|_| "1,2,4".into())
        .split(',')
        .map(|s| s.trim().parse().expect("scales are integers"))
        .collect();
    let me = std::env::current_exe().expect("bench binary");
    let me = me.to_str().expect("utf-8 path");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("pod.json"), explain_pod::POD).expect("write pod");
    std::fs::write(path("gang.yaml"), gang_yaml()).expect("write gang");
    std::fs::write(path("volcano-job.yaml"), volcano_job_yaml()).expect("write volcano job");
    std::fs::write(path("workload-gang.yaml"), workload_gang_yaml()).expect("write workload");
    std::fs::write(path("backlog.yaml"), backlog_yaml()).expect("write backlog");
    std::fs::write(path("short-backlog.yaml"), short_backlog_yaml()).expect("write backlog");
    std::fs::write(path("flow.yaml"), flow::flow()).expect("write flow");
    std::fs::create_dir(path("lint")).expect("lint dir");
    for f in 0..lint_files::FILES {
        std::fs::write(
            path(&format!("lint/m{f:04}.yaml")),
            lint_files::file_text(f),
        )
        .expect("write manifest");
    }
    println!(
        "machine: {} cores; profile: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "optimised"
        }
    );
    println!("| what | time | vs floor | peak RSS |\n|---|---|---|---|");
    // Seconds of the 1x floor, load and explain, to show how cost grows.
    let mut one_x = None;
    for &scale in &scales {
        let spec = spec(scale);
        let state = path(&format!("state-{scale}x.json"));
        let started = Instant::now();
        let bytes = generate(&spec, Path::new(&state));
        eprintln!(
            "generated {} nodes / {} pods, {:.0} MB, in {:.1} s",
            spec.nodes,
            spec.pods,
            bytes as f64 / 1e6,
            started.elapsed().as_secs_f64()
        );
        let runs = if scale == 1 { 2 } else { 1 };
        let size = format!("{scale}x ({:.0} MB)", bytes as f64 / 1e6);
        let floor = measure(me, &[FLOOR_FLAG, &state], runs);
        row(
            &format!("{size} floor: read + skip every value"),
            &floor,
            None,
        );
        let loaded = measure(me, &[LOAD_FLAG, &state], runs);
        row(&format!("{size} load"), &loaded, Some(&floor));
        let pod = path("pod.json");
        let explain = measure(
            BIN,
            &["explain-placement", "-f", &pod, "--state", &state],
            runs,
        );
        row(
            &format!("{size} explain-placement end to end"),
            &explain,
            Some(&floor),
        );
        if scale == 1 {
            let gang = path("gang.yaml");
            let run = measure(BIN, &["plan", "-f", &gang, "--state", &state], runs);
            row(
                &format!("{size} plan a {GANG_PODS}-pod gang"),
                &run,
                Some(&floor),
            );
            for (file, what) in [
                ("volcano-job.yaml", "Volcano Job"),
                ("workload-gang.yaml", "Workload API gang"),
            ] {
                let gang = path(file);
                let run = measure(BIN, &["plan", "-f", &gang, "--state", &state], runs);
                row(
                    &format!("{size} plan a {GANG_PODS}-pod {what}"),
                    &run,
                    Some(&floor),
                );
            }
            let backlog = path("backlog.yaml");
            let pending = [
                "plan",
                "--pending",
                "-A",
                "--state",
                &state,
                "--state",
                &backlog,
            ];
            let run = measure(BIN, &pending, runs);
            row(
                &format!("{size} plan --pending: {BACKLOG_PODS} Pending pods"),
                &run,
                Some(&floor),
            );
            let short = path("short-backlog.yaml");
            let mut pending = pending.to_vec();
            *pending.last_mut().expect("the backlog") = &short;
            let run = measure(BIN, &pending, runs);
            row(
                &format!("{size} plan --pending: {BACKLOG_PODS} Pending pods, a third fit nowhere"),
                &run,
                Some(&floor),
            );
            pending.extend(["--how-many-nodes", TEMPLATE_NODE]);
            let run = measure(BIN, &pending, runs);
            row(
                &format!("{size} plan --pending --how-many-nodes of that backlog"),
                &run,
                Some(&floor),
            );
            let flow = path("flow.yaml");
            let run = measure(BIN, &["plan", "-f", &flow, "--state", &state], runs);
            row(
                &format!("{size} plan a {}-operation DataFlow", flow::OPERATIONS),
                &run,
                Some(&floor),
            );
            // The binary cache: written by one run, then read by the measured ones.
            let cached = [
                "explain-placement",
                "-f",
                &pod,
                "--state",
                &state,
                "--state-cache",
            ];
            measure(BIN, &cached, 1);
            let run = measure(BIN, &cached, runs);
            row(
                &format!("{size} explain-placement from the binary cache"),
                &run,
                Some(&floor),
            );
            std::fs::remove_file(cache::cache_path(Path::new(&state))).expect("remove cache");
            one_x = Some([floor.seconds, loaded.seconds, explain.seconds]);
        } else if let Some([floor_1x, load_1x, explain_1x]) = one_x {
            let growth = format!(
                "{scale}x growth over 1x: floor {:.2}x, load {:.2}x, explain {:.2}x",
                floor.seconds / floor_1x,
                loaded.seconds / load_1x,
                explain.seconds / explain_1x,
            );
            println!("| {growth} | | | |");
        }
        std::fs::remove_file(&state).expect("remove state");
    }
    let lint = measure(BIN, &["lint", "-f", &path("lint")], 2);
    row(
        &format!("lint {} objects", lint_files::FILES * lint_files::PER_FILE),
        &lint,
        None,
    );

    // YAML: a 200 MB state (2,000 nodes / 60,000 pods) against the same state as JSON, as
    // kubectl prints it and in the flow style generators write.
    let json = path("state-yaml-source.json");
    generate(&yaml_spec(), Path::new(&json));
    let json_load = measure(me, &[LOAD_FLAG, &json], 1);
    row("same state as JSON: load", &json_load, None);
    for (style, what) in [
        (YamlStyle::Block, "YAML state"),
        (YamlStyle::Flow, "flow-style YAML state"),
    ] {
        let yaml = path("state.yaml");
        let yaml_bytes = json_to_yaml(style, Path::new(&json), Path::new(&yaml));
        let yaml_load = measure(me, &[LOAD_FLAG, &yaml], 1);
        row(
            &format!(
                "{what} ({:.0} MB) load, vs the JSON load",
                yaml_bytes as f64 / 1e6
            ),
            &yaml_load,
            Some(&json_load),
        );
        println!(
            "{what}: peak RSS / file size: {:.1}x",
            yaml_load.rss_mib * 1024.0 * 1024.0 / yaml_bytes as f64
        );
        std::fs::remove_file(&yaml).expect("remove yaml");
    }
}
