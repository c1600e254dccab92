//! End-to-end tests of `patch` and `launch`: the binary against the test API server, and file
//! patching on temporary copies of testdata.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::apiserver::{
    ApiServer, Behaviour, DATALOADS, LIMIT_RANGES, NAMESPACES, NODES, PODS, RESOURCE_QUOTAS,
};
use crate::support::cli::{bin, output, text};

/// Two nodes (node-b tainted, so pods without a toleration go to node-a), a Complete DataLoad
/// that ran on node-a, a DataLoad waiting to inherit from it, one that is running, a gated
/// pod, a running pod and a pending pod without gates.
fn cluster(behaviour: Behaviour) -> ApiServer {
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
        json!({"metadata": {"name": "node-a",
        "labels": {"kubernetes.io/hostname": "node-a", "topology.kubernetes.io/zone": "a"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
    );
    server.add(
        &NODES,
        json!({"metadata": {"name": "node-b",
        "labels": {"kubernetes.io/hostname": "node-b", "topology.kubernetes.io/zone": "b"}},
        "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
    );
    server.add(&NAMESPACES, json!({"metadata": {"name": "team"}}));
    server.add(&DATALOADS, json!({"metadata": {"name": "warmup", "namespace": "team"},
        "spec": {"dataset": {"name": "imagenet"}},
        "status": {"phase": "Complete", "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}]}}}}));
    server.add(&DATALOADS, json!({"metadata": {"name": "fresh", "namespace": "team"},
        "spec": {"dataset": {"name": "imagenet"},
            "runAfter": {"kind": "DataLoad", "name": "warmup", "affinityStrategy": {"policy": "Require"}}}}));
    server.add(
        &DATALOADS,
        json!({"metadata": {"name": "busy", "namespace": "team"},
        "spec": {"dataset": {"name": "imagenet"}}, "status": {"phase": "Executing"}}),
    );
    server.add(
        &PODS,
        json!({"metadata": {"name": "web-0", "namespace": "team"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}],
            "schedulingGates": [{"name": "example.com/placement"}]},
        "status": {"phase": "Pending"}}),
    );
    server.add(
        &PODS,
        json!({"metadata": {"name": "db-0", "namespace": "team"},
        "spec": {"nodeName": "node-a", "containers": [{"name": "c", "image": "postgres"}]},
        "status": {"phase": "Running"}}),
    );
    server.add(
        &PODS,
        json!({"metadata": {"name": "lone", "namespace": "team"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": "Pending"}}),
    );
    server
}

/// `ARGS... --kubeconfig KUBECONFIG`, and nothing of the user's kubeconfig.
fn run(args: &[&str], kubeconfig: &Path) -> Output {
    bin(args).kubeconfig(kubeconfig).output()
}

/// stderr without the notes of the live read (the server serves only some CRDs).
fn stderr(out: &Output) -> String {
    text(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with("note: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The requests that change something (everything but GET).
fn changes(server: &ApiServer) -> Vec<String> {
    server
        .log()
        .into_iter()
        .filter(|l| !l.starts_with("GET "))
        .collect()
}

const FRESH_PATH: &str = "/apis/data.fluid.io/v1alpha1/namespaces/team/dataloads/fresh";

const FRESH_DIFF: &str = "\
--- a/dataload/team/fresh
+++ b/dataload/team/fresh
@@ -11,3 +11,12 @@
     name: warmup
     affinityStrategy:
       policy: Require
+  affinity:
+    nodeAffinity:
+      requiredDuringSchedulingIgnoredDuringExecution:
+        nodeSelectorTerms:
+        - matchExpressions:
+          - key: kubernetes.io/hostname
+            operator: In
+            values:
+            - node-a
";

fn fresh_affinity() -> Value {
    json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms":
        [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}]}}})
}

#[test]
fn a_dataload_that_has_not_started_gets_its_inherited_affinity() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(
        &["patch", "dataload/fresh", "-n", "team", "--yes"],
        &kubeconfig,
    );
    assert_eq!(
        stderr(&out),
        "dataloads.data.fluid.io \"fresh\" in namespace \"team\": affinity applied (server-side apply, field manager kubectl-dataflow)\n"
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), FRESH_DIFF);
    // Validated with a dry run first, then applied.
    assert_eq!(
        changes(&server),
        [
            format!("PATCH {FRESH_PATH}?dryRun=All&fieldManager=kubectl-dataflow&force=true"),
            format!("PATCH {FRESH_PATH}?fieldManager=kubectl-dataflow&force=true"),
        ]
    );
    let (_, content_type, body) = server.bodies().pop().unwrap();
    assert_eq!(content_type, "application/apply-patch+yaml");
    assert_eq!(
        body,
        json!({"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataLoad",
               "metadata": {"name": "fresh", "namespace": "team"},
               "spec": {"affinity": fresh_affinity()}})
    );
    let stored = server.get(&DATALOADS, "team", "fresh").unwrap();
    assert_eq!(stored["spec"]["affinity"], fresh_affinity());
    assert_eq!(stored["spec"]["dataset"], json!({"name": "imagenet"}));

    // Now that it carries the affinity, there is nothing left to change.
    let again = run(
        &["patch", "dataload/fresh", "-n", "team", "--yes"],
        &kubeconfig,
    );
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(text(&again.stdout), "");
    assert_eq!(
        stderr(&again),
        "no changes: dataload/fresh already carries the planned affinity\n"
    );
}

#[test]
fn dry_runs_change_nothing_and_exit_1() {
    let cases: [(&str, Vec<String>); 2] = [
        ("--dry-run=client", vec![]),
        (
            "--dry-run=server",
            vec![format!(
                "PATCH {FRESH_PATH}?dryRun=All&fieldManager=kubectl-dataflow&force=true"
            )],
        ),
    ];
    for (flag, requests) in cases {
        let server = cluster(Behaviour::default());
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.kubeconfig(dir.path(), "config");
        let before = server.get(&DATALOADS, "team", "fresh").unwrap();
        let out = run(
            &["patch", "dataload/fresh", "-n", "team", flag],
            &kubeconfig,
        );
        assert_eq!(out.status.code(), Some(1), "{flag}: {}", stderr(&out));
        assert_eq!(text(&out.stdout), FRESH_DIFF, "{flag}");
        assert_eq!(changes(&server), requests, "{flag}");
        assert_eq!(
            server.get(&DATALOADS, "team", "fresh").unwrap(),
            before,
            "{flag}"
        );
    }
}

#[test]
fn a_gated_pod_is_pinned_to_its_node_and_released() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(
        &[
            "patch",
            "pod/web-0",
            "-n",
            "team",
            "--ungate",
            "example.com/placement",
            "--yes",
        ],
        &kubeconfig,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "pods \"web-0\" in namespace \"team\": affinity applied (server-side apply, field manager kubectl-dataflow), scheduling gate example.com/placement removed\n"
    );
    assert!(
        text(&out.stdout).contains("-  schedulingGates:\n-  - name: example.com/placement\n"),
        "{}",
        text(&out.stdout)
    );
    let path = "/api/v1/namespaces/team/pods/web-0";
    assert_eq!(
        changes(&server),
        [
            format!("PATCH {path}?dryRun=All&fieldManager=kubectl-dataflow&force=true"),
            format!("PATCH {path}?dryRun=All&fieldManager=kubectl-dataflow"),
            format!("PATCH {path}?fieldManager=kubectl-dataflow&force=true"),
            format!("PATCH {path}?fieldManager=kubectl-dataflow"),
        ]
    );
    let stored = server.get(&PODS, "team", "web-0").unwrap();
    assert_eq!(
        stored["spec"],
        json!({"containers": [{"name": "c", "image": "nginx"}], "schedulingGates": [],
               "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms":
                   [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}}}})
    );
}

#[test]
fn objects_that_cannot_be_patched_are_refused_with_why() {
    let server = cluster(Behaviour {
        forbidden: vec![FRESH_PATH.to_string()],
        ..Behaviour::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let recreate = |pod: &str| {
        format!(
            "Recreate it with the affinity instead: `kubectl get pod {pod} -n team -o yaml > pod.yaml`, `kubectl dataflow patch -f pod.yaml --write`, then `kubectl replace --force -f pod.yaml`"
        )
    };
    let cases = [
        (
            vec!["patch", "pod/db-0", "-n", "team", "--yes"],
            format!(
                "error: cannot patch pod team/db-0: it is already scheduled on node-a. {}\n",
                recreate("db-0")
            ),
        ),
        (
            vec!["patch", "pod/lone", "-n", "team", "--yes"],
            format!(
                "error: cannot patch pod team/lone: it is not held by a scheduling gate, and Kubernetes lets only a gated pod's node affinity change. {}\n",
                recreate("lone")
            ),
        ),
        (
            vec!["patch", "dataload/busy", "-n", "team", "--yes"],
            "error: cannot patch DataLoad team/busy: it has started (phase Executing) and Fluid reads the affinity only when it starts. Create it again with the affinity instead: `kubectl delete dataload busy -n team`, then `kubectl dataflow launch -f op.yaml`\n".to_string(),
        ),
        (
            vec!["patch", "pod/web-0", "-n", "team", "--ungate", "other", "--yes"],
            "error: pod team/web-0 has no scheduling gate \"other\" (its gates: example.com/placement); --ungate names one of them\n".to_string(),
        ),
        (
            vec!["patch", "dataload/missing", "-n", "team", "--yes"],
            "error: dataloads.data.fluid.io \"missing\" in namespace \"team\" not found; check the name and the namespace (-n)\n".to_string(),
        ),
        (
            vec!["patch", "dataload/fresh", "-n", "team", "--yes"],
            format!("error: forbidden: cannot get dataloads.data.fluid.io \"fresh\" in namespace \"team\": {FRESH_PATH} is forbidden: User \"alice\" cannot list resource at the cluster scope; ask for get permission on dataloads.data.fluid.io in namespace team\n"),
        ),
    ];
    for (args, expected) in cases {
        let out = run(&args, &kubeconfig);
        assert_eq!(stderr(&out), expected, "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    assert_eq!(changes(&server), Vec::<String>::new());
}

#[test]
fn without_a_terminal_and_without_yes_nothing_is_sent() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(&["patch", "dataload/fresh", "-n", "team"], &kubeconfig);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), FRESH_DIFF);
    assert_eq!(
        stderr(&out),
        "error: refusing to write without confirmation: stdin is not a terminal; pass --yes\n"
    );
    assert_eq!(changes(&server), Vec::<String>::new());
}

const NEXT_OP: &str = "\
apiVersion: data.fluid.io/v1alpha1
kind: DataLoad
metadata:
  name: next
  namespace: team
spec:
  dataset:
    name: imagenet
  runAfter:
    kind: DataLoad
    name: warmup
    affinityStrategy:
      policy: Require
";

fn write_op(dir: &Path) -> String {
    let path = dir.join("op.yaml");
    std::fs::write(&path, NEXT_OP).unwrap();
    path.to_string_lossy().into_owned()
}

fn record(host: &str) -> Value {
    json!({"phase": "Complete", "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [host]}]}]}}})
}

#[test]
fn launch_creates_the_operation_and_waits_for_where_it_ran() {
    let cases = [
        (
            "node-a",
            0,
            "DataLoad/team/next is Complete: it ran on node-a, as planned\n",
        ),
        (
            "node-b",
            1,
            "DataLoad/team/next is Complete: it ran on node-b, the plan chose node-a\n",
        ),
    ];
    for (host, code, verdict) in cases {
        let server = cluster(Behaviour::default());
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.kubeconfig(dir.path(), "config");
        let op = write_op(dir.path());
        server.script_status(
            &DATALOADS,
            "team",
            "next",
            vec![json!({"phase": "Executing"}), record(host)],
        );
        let out = run(&["launch", "-f", &op, "--yes", "--wait"], &kubeconfig);
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        let stdout = text(&out.stdout);
        assert!(stdout.ends_with(verdict), "{stdout}");
        assert!(stdout.contains("+  affinity:\n"), "{stdout}");
        let collection = "/apis/data.fluid.io/v1alpha1/namespaces/team/dataloads";
        assert_eq!(
            changes(&server),
            [format!("POST {collection}?fieldManager=kubectl-dataflow")]
        );
        let stored = server.get(&DATALOADS, "team", "next").unwrap();
        assert_eq!(stored["spec"]["affinity"], fresh_affinity());
        assert_eq!(stored["status"], record(host));
    }
}

#[test]
fn launch_refuses_an_existing_name_and_dry_runs_create_nothing() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let op = write_op(dir.path());
    let collection = "/apis/data.fluid.io/v1alpha1/namespaces/team/dataloads";
    let cases: [(&[&str], i32, &str, Vec<String>); 2] = [
        (&["--dry-run=client"], 1, "", vec![]),
        (
            &["--dry-run=server"],
            1,
            "server dry run: the API server accepts dataloads.data.fluid.io \"next\" in namespace \"team\"; nothing was created\n",
            vec![format!(
                "POST {collection}?dryRun=All&fieldManager=kubectl-dataflow"
            )],
        ),
    ];
    for (flags, code, expected, requests) in cases {
        let mut args = vec!["launch", "-f", &op];
        args.extend_from_slice(flags);
        let out = run(&args, &kubeconfig);
        assert_eq!(out.status.code(), Some(code), "{flags:?}");
        assert_eq!(stderr(&out), expected, "{flags:?}");
        assert_eq!(changes(&server), requests, "{flags:?}");
        assert_eq!(server.get(&DATALOADS, "team", "next"), None);
    }
    server.add(
        &DATALOADS,
        json!({"metadata": {"name": "next", "namespace": "team"}}),
    );
    let out = run(&["launch", "-f", &op, "--yes"], &kubeconfig);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: dataloads.data.fluid.io \"next\" in namespace \"team\" already exists; delete it first (`kubectl delete dataload next -n team`) or give the new one another name\n"
    );
}

/// The YAML documents of a text, separators included with the document they end.
fn documents(text: &str) -> Vec<&str> {
    text.split_inclusive("\n---\n").collect()
}

#[test]
fn patching_a_flow_file_rewrites_only_the_changed_documents() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("three-step.yaml");
    let original = std::fs::read_to_string("testdata/flows/three-step.yaml").unwrap();
    std::fs::write(&file, &original).unwrap();
    let file = file.to_string_lossy().into_owned();
    let state = "testdata/clusters/three-zone.yaml";
    let out = output(&["patch", "-f", &file, "--state", state, "--write", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), format!("wrote {file}\n"));
    let written = std::fs::read_to_string(&file).unwrap();
    let (before, after) = (documents(&original), documents(&written));
    assert_eq!(after.len(), 3);
    // The DataLoad inherits nothing: its bytes, comments included, are untouched.
    assert_eq!(after[0], before[0]);
    assert_ne!(after[1], before[1]);
    assert!(
        after[1].contains("                  - node-b3\n"),
        "{}",
        after[1]
    );
    assert!(
        after[2].contains("            - us-east-1b\n"),
        "{}",
        after[2]
    );
    // Patching again finds nothing to change, and leaves the file as it is.
    let again = output(&["patch", "-f", &file, "--state", state, "--write", "--yes"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(
        stderr(&again),
        "no changes: the files already carry the planned affinity\n"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);
}

#[test]
fn previewing_a_file_patch_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.yaml");
    let original = std::fs::read_to_string("testdata/flows/three-step.yaml").unwrap();
    std::fs::write(&file, &original).unwrap();
    let file = file.to_string_lossy().into_owned();
    for (flags, expected) in [
        (&[][..], "pass --write to rewrite the files\n"),
        (&["--write", "--dry-run=client"][..], ""),
    ] {
        let mut args = vec![
            "patch",
            "-f",
            &file,
            "--state",
            "testdata/clusters/three-zone.yaml",
        ];
        args.extend_from_slice(flags);
        let out = output(&args);
        assert_eq!(out.status.code(), Some(1), "{flags:?}");
        assert_eq!(stderr(&out), expected, "{flags:?}");
        assert!(
            text(&out.stdout).starts_with(&format!("--- a/{}\n", file.trim_start_matches('/')))
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    }
}

/// The node `patch --dry-run=client` pins a pod to: the value added under `metadata.name`.
fn pinned_node(diff: &str) -> Option<String> {
    let added: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .map(|l| l[1..].trim())
        .collect();
    let key = added.iter().position(|l| *l == "- key: metadata.name")?;
    let values = key + added[key..].iter().position(|l| *l == "values:")?;
    added
        .get(values + 1)?
        .strip_prefix("- ")
        .map(str::to_string)
}

/// Where `plan -o json` puts a pod: as a gang member or as a pod of the batch.
fn planned_node(plan: &Value, namespace: &str, name: &str) -> Value {
    let groups = plan["groups"].as_array().unwrap();
    let in_gang = groups
        .iter()
        .filter(|g| g["namespace"] == namespace)
        .find_map(|g| g["placements"].get(name).cloned());
    let batch = plan["batch"]["pods"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let in_batch = || {
        batch
            .iter()
            .find(|p| p["namespace"] == namespace && p["name"] == name)
            .map(|p| p["node"].clone())
    };
    in_gang.or_else(in_batch).unwrap_or(Value::Null)
}

#[test]
fn patch_pins_a_pod_where_the_plan_puts_it_not_where_it_would_go_alone() {
    // (file, state, namespace, pod, the plan's node, where the pod alone would go)
    let cases = [
        // A Godel gang's member: the gang takes one node group and fills it in turn.
        (
            "testdata/gangs/godel-podgroup.yaml",
            "testdata/clusters/gang.yaml",
            "training",
            "bert-large-5",
            "gpu-node-25",
            "gpu-node-04",
        ),
        // A plain pod of the batch, planned after the gangs that take the first nodes (their
        // Deployments' replicas spread by their ReplicaSets' selectors, over both zones).
        (
            "testdata/gangs/two-gangs.yaml",
            "testdata/clusters/gang.yaml",
            "default",
            "report",
            "gpu-node-09",
            "gpu-node-04",
        ),
        // A pod of the batch, planned after the Deployments' replicas ahead of it.
        (
            "testdata/pods/batch.yaml",
            "testdata/clusters/three-zone.yaml",
            "web",
            "cache-probe",
            "node-a2",
            "node-b3",
        ),
    ];
    for (file, state, namespace, pod, planned, alone) in cases {
        let target = format!("pod/{pod}");
        let out = bin([
            "patch", &target, "-n", namespace, "-f", file, "--state", state,
        ])
        .arg("--dry-run=client")
        .output();
        assert_eq!(out.status.code(), Some(1), "{pod}: {}", stderr(&out));
        assert_eq!(
            pinned_node(&text(&out.stdout)).as_deref(),
            Some(planned),
            "{pod}"
        );
        let plan = output(&["plan", "-f", file, "--state", state, "-o", "json"]);
        let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
        assert_eq!(planned_node(&plan, namespace, pod), planned, "{pod}");
        assert_ne!(planned, alone, "{pod}: the case shows the plan's decision");
    }
    // A pod the plan leaves pending has no node to be pinned to, and says why.
    let out = output(&[
        "patch",
        "pod/gpu-eval",
        "-n",
        "ml",
        "-f",
        "testdata/pods/batch.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "--dry-run=client",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "error: pod ml/gpu-eval gets no node in the plan, so there is no node to pin it to: pending: 0/9 nodes are available: "
        ),
        "{}",
        stderr(&out)
    );
}

/// A 403 on a resource whose API group the cluster does not serve is a missing CRD, not
/// missing rights (authorization runs before the lookup): discovery tells the two apart. The
/// same 403 on a served group stays RBAC's answer, with the permission to ask for.
#[test]
fn launch_says_a_group_is_not_installed_where_discovery_does_not_list_it() {
    let collection = "/apis/data.fluid.io/v1alpha1/namespaces/team/dataloads";
    let cases = [
        (
            false,
            "error: cannot create dataloads.data.fluid.io \"next\" in namespace \"team\": the cluster does not serve data.fluid.io/v1alpha1 (its API group is not installed; the API server answered 403 because authorization runs before the lookup)\n",
        ),
        (
            true,
            "error: forbidden: cannot create dataloads.data.fluid.io \"next\" in namespace \"team\": ",
        ),
    ];
    for (installed, expected) in cases {
        let behaviour = Behaviour {
            forbidden: vec![collection.into()],
            ..Behaviour::default()
        };
        let mut served = vec![NODES, NAMESPACES, PODS, RESOURCE_QUOTAS, LIMIT_RANGES];
        if installed {
            served.push(DATALOADS);
        }
        let server = ApiServer::start(served, behaviour);
        server.add(&NAMESPACES, json!({"metadata": {"name": "team"}}));
        server.add(
            &NODES,
            json!({"metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
        );
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.kubeconfig(dir.path(), "config");
        let op = dir.path().join("op.yaml");
        std::fs::write(
            &op,
            "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata:\n  name: next\n  \
             namespace: team\nspec:\n  dataset:\n    name: imagenet\n",
        )
        .unwrap();
        let op = op.to_string_lossy();
        let out = run(&["launch", "-f", &op, "--yes"], &kubeconfig);
        assert_eq!(
            out.status.code(),
            Some(2),
            "installed: {installed}: {}",
            stderr(&out)
        );
        let stderr = stderr(&out);
        let last = stderr.lines().last().unwrap_or_default();
        assert!(
            format!("{last}\n").starts_with(expected),
            "installed: {installed}: {stderr}"
        );
    }
}
