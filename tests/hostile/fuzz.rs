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

use crate::support::draws;

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
    let lines = prop::collection::vec((0usize..6, token.clone()), 0..40).prop_map(|lines| {
        lines
            .into_iter()
            .map(|(indent, token)| format!("{}{token}", "  ".repeat(indent)))
            .collect::<Vec<_>>()
            .join("\n")
    });
    // Random lines at random depths are nearly always refused as YAML; a document of a known
    // kind with random lines under its `spec` gets past the parser to the objects' fields.
    let kinds = prop::sample::select(vec![
        "apiVersion: v1\nkind: Pod",
        "apiVersion: v1\nkind: Node",
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup",
        "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad",
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job",
    ]);
    let documents = (kinds, prop::collection::vec(token, 0..8)).prop_map(|(kind, fields)| {
        let fields: String = fields.iter().map(|f| format!("  {f}\n")).collect();
        format!("{kind}\nmetadata: {{name: a, namespace: default}}\nspec:\n{fields}")
    });
    prop_oneof![lines, documents]
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

/// What the loaders made of one input: refusals (each checked to be well formed) and objects
/// read. An input neither refused nor read checks only that nothing panics, so the companion
/// test counts both.
#[derive(Debug, Default)]
struct Loaded {
    refused: usize,
    read: usize,
}

/// Both loaders on one input: they may refuse it, but only with positioned one-line errors.
fn load_everything(bytes: &[u8]) -> Loaded {
    let file: Arc<str> = Arc::from("fuzz.yaml");
    let (manifests, problems) = df_manifest::parse_text(&file, &String::from_utf8_lossy(bytes));
    let mut loaded = Loaded {
        refused: problems.len(),
        read: manifests.len(),
    };
    for problem in problems {
        assert_well_formed(&problem.to_string());
    }
    match recorded::parse_state("fuzz.yaml", bytes) {
        Ok(objects) => loaded.read += objects.len(),
        Err(e) => {
            loaded.refused += 1;
            assert_well_formed(&e.to_string());
        }
    }
    loaded
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

/// The generators reach both sides: of 128 inputs each, drawn with a fixed seed, the
/// YAML-like and JSON-like texts are often refused (the refusal is checked) and the YAML-like
/// ones at times read into objects (their fields reached); random bytes and deep nesting (32
/// inputs) are refused often.
#[test]
fn the_loaders_refuse_and_read_generated_text() {
    fn count(texts: Vec<Vec<u8>>) -> (usize, usize, usize) {
        let n = texts.len();
        let (mut refused, mut read) = (0, 0);
        for text in texts {
            let loaded = load_everything(&text);
            refused += usize::from(loaded.refused > 0);
            read += usize::from(loaded.read > 0);
        }
        (refused, read, n)
    }
    let bytes = draws::fixed(&prop::collection::vec(any::<u8>(), 0..512), 128);
    let yaml = draws::fixed(&yamlish().prop_map(String::into_bytes), 128);
    let json = draws::fixed(&jsonish().prop_map(String::into_bytes), 128);
    let (refused, _, n) = count(bytes);
    draws::at_least("random bytes refused", refused, n, 50);
    let (refused, read, n) = count(yaml);
    draws::at_least("YAML-like text refused", refused, n, 20);
    draws::at_least("YAML-like text read into objects", read, n, 10);
    let (refused, _, n) = count(json);
    draws::at_least("JSON-like text refused", refused, n, 50);
    let (refused, _, n) = count(draws::fixed(&nesting().prop_map(String::into_bytes), 32));
    draws::at_least("deep nesting refused", refused, n, 50);
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
    fn parser_bounds_hold_on_generated_nesting(text in nesting()) {
        load_everything(text.as_bytes());
    }

    /// The patch writer (called as `patch --write` calls it) keeps every other document and
    /// gives the edited one exactly the new affinity.
    #[test]
    fn patched_documents_parse_back_to_the_new_affinity(
        (text, target) in patchable_file(),
        zone in zone(),
    ) {
        check_patch(&text, target, &zone)?;
    }
}

/// Openers of every nesting syntax, up to 3,000 of them.
fn nesting() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "- ", "[", "{a: ", "k:\n", "&x [*x, ", "'q' ", "\"", "don't ",
        ]),
        0..3000,
    )
    .prop_map(|openers| openers.concat())
}

fn zone() -> impl Strategy<Value = String> {
    "[a-z0-9:' #\"ü-]{1,12}"
}

/// Whether the edited document had an affinity the patch replaced (`true`) or gets a new one.
fn check_patch(text: &str, target: usize, zone: &str) -> Result<bool, TestCaseError> {
    let set = load(text);
    prop_assert!(set.problems.is_empty(), "{:?}\n{text}", set.problems);
    let affinity = zone_affinity(zone);
    let replaced = set.manifests[target]
        .root
        .lookup(&df_manifest::parse_path("spec.affinity"))
        .is_some();
    let edits = [Edit {
        manifest: &set.manifests[target],
        affinity: &affinity,
    }];
    // Every generated document is a Pod or a DataLoad read from a file, both of which the
    // writer patches: a refusal is a failure, not a case that asserts nothing.
    let changes = rewrite(&set, &edits).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(changes.len(), 1);
    let after = load(&changes[0].after);
    prop_assert!(
        after.problems.is_empty(),
        "{:?}\n{}",
        after.problems,
        changes[0].after
    );
    prop_assert_eq!(after.manifests.len(), set.manifests.len());
    for (i, (old, new)) in set.manifests.iter().zip(&after.manifests).enumerate() {
        if i == target {
            let written = new
                .root
                .lookup(&df_manifest::parse_path("spec.affinity"))
                .ok_or_else(|| TestCaseError::fail(format!("no affinity in {}", changes[0].after)))?
                .to_json();
            prop_assert_eq!(written, serde_json::to_value(&affinity).unwrap());
        } else {
            prop_assert_eq!(old.root.to_json(), new.root.to_json());
        }
    }
    Ok(replaced)
}

/// The writer is tried both ways: of 128 files drawn with a fixed seed, the edited document
/// already has an affinity (replaced) in some and none (inserted) in others, among one to
/// three documents.
#[test]
fn patches_replace_and_insert() {
    let cases = draws::fixed(&(patchable_file(), zone()), 128);
    let n = cases.len();
    let (mut replaced, mut among_others) = (0, 0);
    for ((text, target), zone) in cases {
        replaced +=
            usize::from(check_patch(&text, target, &zone).unwrap_or_else(|e| panic!("{e}")));
        among_others += usize::from(text.contains("---\n"));
    }
    draws::at_least("an existing affinity replaced", replaced, n, 25);
    draws::at_least("an affinity inserted", n - replaced, n, 25);
    draws::at_least("a file of several documents", among_others, n, 25);
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

type ReaderCase = (&'static str, Vec<(f64, &'static str, usize)>);

fn reader_case() -> impl Strategy<Value = ReaderCase> {
    (
        prop::sample::select(KUBECTL_ENTRIES),
        prop::collection::vec(mutation(), 0..4),
    )
}

/// Whether the reader read the entry (`Some(edited)`) or declined it (`None`): a declined entry
/// asserts nothing, so the companion test counts how many edited entries are read.
fn check_reader((base, edits): ReaderCase) -> Result<Option<bool>, TestCaseError> {
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
    let Some(identity) = read else {
        return Ok(None);
    };
    let full = df_manifest::tree::parse_documents(&format!("items:\n{text}"));
    prop_assert!(
        full.is_ok(),
        "read {}, the full parser says {:?}",
        String::from_utf8_lossy(&json),
        full
    );
    let full = full.unwrap();
    let items = full[0].get("items").unwrap().items();
    prop_assert_eq!(items.len(), 1);
    let read: serde_json::Value = serde_json::from_slice(&json)
        .map_err(|e| TestCaseError::fail(format!("the reader wrote no JSON: {e}")))?;
    prop_assert_eq!(read, items[0].to_json());
    if let Some(pos) = identity.name {
        let tree_pos = items[0].closest_pos(&df_manifest::tree::parse_path("metadata.name"));
        prop_assert_eq!((pos.line + 1, pos.column), (tree_pos.line, tree_pos.column));
    }
    Ok(Some(!unedited))
}

proptest! {
    #![proptest_config(config())]

    /// The fast reader of kubectl's YAML either declines an entry or reads exactly what the
    /// full parser reads: never a value where the full parser reads another, or an error.
    #[test]
    fn the_kubectl_yaml_reader_agrees_with_the_full_parser_or_declines(case in reader_case()) {
        check_reader(case)?;
    }
}

/// The property is not vacuous: of 256 cases drawn with a fixed seed, many edited entries are
/// read (and so compared with the full parser), not only declined.
#[test]
fn edited_entries_are_read_and_compared() {
    let cases = draws::fixed(&reader_case(), 256);
    let n = cases.len();
    let (mut edited_read, mut declined) = (0, 0);
    for case in cases {
        match check_reader(case.clone()).unwrap_or_else(|e| panic!("{e}: {case:?}")) {
            Some(edited) => edited_read += usize::from(edited),
            None => declined += 1,
        }
    }
    draws::at_least("edited entries read", edited_read, n, 20);
    draws::at_least("edited entries declined", declined, n, 5);
}
