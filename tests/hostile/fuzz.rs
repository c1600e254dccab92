//! Property tests ("fuzzing" with a fixed budget): the manifest parser, the state loader and
//! the patch writer on generated input. None may panic; refusals are positioned one-line
//! errors; what the patch writer writes parses back to the affinity it was given.
//!
//! CI runs 64 cases per property. Run longer with, for example,
//! `PROPTEST_CASES=20000 cargo test --test hostile fuzz::` (failures are shrunk and their seeds
//! kept in `tests/proptest-regressions/fuzz.txt`; see tests/hostile/main.rs).

use std::sync::Arc;

use df_apply::manifest::{Edit, rewrite};
use df_manifest::ManifestSet;
use df_model::Affinity;
use df_state::recorded;
use proptest::prelude::*;
use serde_json::json;

/// 64 cases unless `PROPTEST_CASES` says otherwise.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    ProptestConfig::with_cases(cases)
}

/// Lines that look like Kubernetes YAML: keys, values and indentation the loaders care about.
fn yamlish() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "apiVersion: v1",
        "apiVersion: data.fluid.io/v1alpha1",
        "apiVersion: scheduling.godel.kubewharf.io/v1alpha1",
        "apiVersion: batch.volcano.sh/v1alpha1",
        "kind: List",
        "kind: Pod",
        "kind: Node",
        "kind: DataLoad",
        "kind: PodGroup",
        "kind: Job",
        "items:",
        "- ",
        "metadata:",
        "name: a",
        "namespace: ~",
        "labels: {a: b}",
        "spec:",
        "runAfter:",
        "affinityStrategy: {policy: Require, requires: [{name: x}]}",
        "prefers: [{name: z, weight: high}]",
        "containers: [{name: c, resources: {requests: {cpu: 1x}}}]",
        "resources: {requests: {cpu: \"500m\", memory: 1Gi}}",
        "allocatable: {cpu: 4, memory: -1, pods: 1e3}",
        "nodeName: n1",
        "status: {phase: Running}",
        "affinity: {nodeAffinity: null}",
        "minMember: 9999999999999",
        "tasks: [{replicas: -1}]",
        "---",
        "&a [*a]",
        "!!binary x",
        "\"unterminated",
        "{",
        "}",
        "[",
        "]",
        ":",
        "? ",
        "\t",
        "#",
        "%YAML 1.2",
    ]);
    prop::collection::vec((0usize..6, token), 0..40).prop_map(|lines| {
        lines
            .into_iter()
            .map(|(indent, token)| format!("{}{token}", "  ".repeat(indent)))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// JSON-like text, for the state loader's JSON path.
fn jsonish() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"kind\"",
        "\"List\"",
        "\"items\"",
        "\"apiVersion\"",
        "\"v1\"",
        "\"Pod\"",
        "\"Node\"",
        "\"metadata\"",
        "\"name\"",
        "\"spec\"",
        "\"nodeName\"",
        "\"status\"",
        "\"allocatable\"",
        "\"cpu\"",
        "\"1x\"",
        "null",
        "1e999",
        "-0",
        "\"\\u0000\"",
    ]);
    prop::collection::vec(token, 0..60).prop_map(|tokens| format!("{{{}", tokens.concat()))
}

/// Both loaders on one input: they may refuse it, but only with positioned one-line errors.
fn load_everything(bytes: &[u8]) {
    let file: Arc<str> = Arc::from("fuzz.yaml");
    let (_, problems) = df_manifest::parse_text(&file, &String::from_utf8_lossy(bytes));
    for problem in problems {
        assert_well_formed(&problem.to_string());
    }
    if let Err(e) = recorded::parse_state("fuzz.yaml", bytes) {
        assert_well_formed(&e.to_string());
    }
}

/// An error names the file and says something, on one line.
fn assert_well_formed(message: &str) {
    assert!(message.starts_with("fuzz.yaml"), "{message:?}");
    assert!(message.len() > "fuzz.yaml: ".len(), "{message:?}");
    assert!(!message.contains('\n'), "{message:?}");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn loaders_never_panic_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        load_everything(&bytes);
    }

    #[test]
    fn loaders_never_panic_on_yamlish_text(text in yamlish()) {
        load_everything(text.as_bytes());
    }

    #[test]
    fn loaders_never_panic_on_jsonish_text(text in jsonish()) {
        load_everything(text.as_bytes());
    }
}

/// A scalar as YAML writes it in one of its styles (plain only where plain stays a string).
fn scalar(text: &str, style: usize) -> String {
    let plain = text.chars().all(|c| c.is_alphanumeric() || c == '-');
    match style % 3 {
        0 if plain => text.to_string(),
        0 => serde_json::to_string(text).unwrap(),
        1 => format!("'{}'", text.replace('\'', "''")),
        _ => serde_json::to_string(text).unwrap(),
    }
}

/// A DataLoad or Pod in a mix of block and flow styles, with comments and an optional
/// affinity already there, possibly among other documents.
fn patchable_file() -> impl Strategy<Value = (String, usize)> {
    let document = (
        any::<bool>(),
        0usize..3,
        prop::sample::select(vec![2usize, 4]),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec!["a", "zone-b", "x: y", "it's", "#c", "ü"]),
    )
        .prop_map(|(pod, style, indent, flow_meta, has_affinity, zone)| {
            let pad = " ".repeat(indent);
            let (api, kind) = if pod {
                ("v1", "Pod")
            } else {
                ("data.fluid.io/v1alpha1", "DataLoad")
            };
            let mut text = format!("# {kind}\napiVersion: {api}\nkind: {kind}\n");
            if flow_meta {
                text.push_str(&format!("metadata: {{name: {}}}  # name\n", scalar("w", style)));
            } else {
                text.push_str(&format!("metadata:\n{pad}name: {}\n", scalar("w", style)));
            }
            text.push_str("spec:\n");
            if pod {
                text.push_str(&format!("{pad}containers: [{{name: c, image: x}}]\n"));
            } else {
                text.push_str(&format!("{pad}dataset:\n{pad}{pad}name: ds\n"));
            }
            if has_affinity {
                text.push_str(&format!(
                    "{pad}affinity:\n{pad}{pad}nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{{matchExpressions: [{{key: k, operator: In, values: [{}]}}]}}]}}}}\n",
                    scalar(zone, style)
                ));
            }
            text
        });
    (
        prop::collection::vec(document, 1..4),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(documents, index)| {
            let target = index.index(documents.len());
            (documents.join("---\n"), target)
        })
}

fn zone_affinity(zone: &str) -> Affinity {
    serde_json::from_value(
        json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}}),
    )
    .unwrap()
}

fn load(text: &str) -> ManifestSet {
    let mut set = ManifestSet::default();
    let name: Arc<str> = Arc::from("fuzz.yaml");
    df_manifest::add_source(&mut set, name, Some("fuzz.yaml".into()), text.to_string());
    set
}

proptest! {
    #![proptest_config(config())]

    /// Depth and alias limits hold on any mix of nesting syntaxes: a refusal, never a panic.
    #[test]
    fn parser_bounds_hold_on_generated_nesting(
        openers in prop::collection::vec(prop::sample::select(vec!["- ", "[", "{a: ", "k:\n", "&x [*x, ", "'q' ", "\"", "don't "]), 0..3000)
    ) {
        load_everything(openers.concat().as_bytes());
    }

    /// The patch writer (called as `patch --write` calls it) keeps every other document and
    /// gives the edited one exactly the new affinity.
    #[test]
    fn patched_documents_parse_back_to_the_new_affinity(
        (text, target) in patchable_file(),
        zone in "[a-z0-9:' #\"ü-]{1,12}",
    ) {
        let set = load(&text);
        prop_assert!(set.problems.is_empty(), "{:?}\n{text}", set.problems);
        let affinity = zone_affinity(&zone);
        let edits = [Edit { manifest: &set.manifests[target], affinity: &affinity }];
        let changes = match rewrite(&set, &edits) {
            Ok(changes) => changes,
            Err(e) => {
                let message = e.to_string();
                prop_assert!(message.starts_with("fuzz.yaml") && !message.contains('\n'), "{message}");
                return Ok(());
            }
        };
        prop_assert_eq!(changes.len(), 1);
        let after = load(&changes[0].after);
        prop_assert!(after.problems.is_empty(), "{:?}\n{}", after.problems, changes[0].after);
        prop_assert_eq!(after.manifests.len(), set.manifests.len());
        for (i, (old, new)) in set.manifests.iter().zip(&after.manifests).enumerate() {
            if i == target {
                let written = new.root.lookup(&df_manifest::parse_path("spec.affinity")).unwrap().to_json();
                prop_assert_eq!(written, serde_json::to_value(&affinity).unwrap());
            } else {
                prop_assert_eq!(old.root.to_json(), new.root.to_json());
            }
        }
    }
}

/// Entries in the shapes kubectl prints, in the flow style generators write, and a few others,
/// for the fast YAML reader.
const KUBECTL_ENTRIES: &[&str] = &[
    "- apiVersion: v1\n  kind: Pod\n  metadata:\n    annotations:\n      note: |\n        line one\n\n        line: three\n    generateName: web-\n    labels:\n      app: web\n      tier: \"1\"\n    name: web-1\n    namespace: team\n  spec:\n    containers:\n    - args:\n      - --port=80\n      - -v\n      image: 'nginx:1.25'\n      name: web\n      ports:\n      - containerPort: 80\n        protocol: TCP\n      resources:\n        requests:\n          cpu: 500m\n          memory: 1Gi\n    nodeName: n1\n    tolerations: []\n  status:\n    conditions:\n    - lastProbeTime: null\n      message: \"it's \\\"fine\\\"\\n\"\n      status: \"True\"\n      type: Ready\n    phase: Running\n",
    "- apiVersion: v1\n  kind: Node\n  metadata:\n    labels:\n      kubernetes.io/hostname: n1\n      topology.kubernetes.io/zone: a\n    name: n1\n  spec:\n    taints:\n      - effect: NoSchedule\n        key: gpu\n        value: 'true'\n  status:\n    allocatable:\n      cpu: \"4\"\n      pods: \"110\"\n    capacity: {}\n",
    "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: 'a long name\n      folded'\n  status:\n    message: 0/3 nodes are available\n      to the pod\n\n      at all\n    reason: \"Unschedulable\n      \\ now\"\n    phase: Pending\n",
    "- apiVersion: v1\n  kind: Pod\n  metadata: {name: web-1, namespace: team, labels: {app: web, 'tier': \"1\"}}\n  spec:\n    containers:\n    - {name: web, image: 'nginx:1.25', args: [--port=80, -v], resources: {requests: {cpu: 500m, memory: 1Gi}}}\n    tolerations: [{key: gpu, operator: Exists}, {effect: NoSchedule},]\n    nodeSelector: &sel {zone: a}\n    affinity: {nodeAffinity: {required: {nodeSelectorTerms: [{matchLabels: *sel}]}}}\n  status: {phase: Running, conditions: [{type: Ready, status: \"True\"}]}\n",
    "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    labels: {kubernetes.io/hostname: n1,\n      topology.kubernetes.io/zone: a, # the zone\n      }\n  status:\n    allocatable: &a {cpu: \"4\", pods: \"110\"}\n    capacity: *a\n",
    "-\n  apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: 'a''b' # a comment\n    uid: 0x1F\n  spec:\n    finalizers:\n    - kubernetes\n    -\n    - ~\n",
];

/// An edit of a text: insert `token` (or delete `len` bytes when it is empty) at the place
/// `at` (a fraction of the text) points to.
fn mutation() -> impl Strategy<Value = (f64, &'static str, usize)> {
    let token = prop::sample::select(vec![
        "", " ", "  ", "\n", "\n- ", "\n  ", "-", "- ", ":", ": ", "#", " #", "'", "\"", "\\",
        "\\n", "\\u00", "|", "|-", "|+", ">", "{", "}", "[", "]", "{}", "&a ", "*a", "!", "? ",
        "\t", "\r", "x", "1", ".5", "~", "true", "null", "\u{e9}", "\u{85}", "---\n", ",", ", ",
        "&b", "*b", "{a: 1}", "[1, 2]",
    ]);
    (0.0..1.0f64, token, 1..4usize)
}

proptest! {
    #![proptest_config(config())]

    /// The fast reader of kubectl's YAML either declines an entry or reads exactly what the
    /// full parser reads: never a value where the full parser reads another, or an error.
    #[test]
    fn the_kubectl_yaml_reader_agrees_with_the_full_parser_or_declines(
        base in prop::sample::select(KUBECTL_ENTRIES),
        edits in prop::collection::vec(mutation(), 0..4),
    ) {
        let mut text = base.to_string();
        let unedited = edits.is_empty();
        for (at, token, len) in edits {
            let mut at = (at * text.len() as f64) as usize;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if token.is_empty() {
                let mut end = (at + len).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(at..end, "");
            } else {
                text.insert_str(at, token);
            }
        }
        let mut json = Vec::new();
        let read = df_manifest::block_json::entry_to_json(&text, &mut json);
        // The shapes kubectl prints, unedited, are all read.
        prop_assert!(read.is_some() || !unedited, "declined {}", text);
        if let Some(identity) = read {
            let full = df_manifest::tree::parse_documents(&format!("items:\n{text}"));
            prop_assert!(full.is_ok(), "read {}, the full parser says {:?}", String::from_utf8_lossy(&json), full);
            let full = full.unwrap();
            let items = full[0].get("items").unwrap().items();
            prop_assert_eq!(items.len(), 1);
            let read: serde_json::Value = serde_json::from_slice(&json).unwrap();
            prop_assert_eq!(read, items[0].to_json());
            if let Some(pos) = identity.name {
                let tree_pos = items[0].closest_pos(&df_manifest::tree::parse_path("metadata.name"));
                prop_assert_eq!((pos.line + 1, pos.column), (tree_pos.line, tree_pos.column));
            }
        }
    }
}
