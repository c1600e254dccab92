//! The pieces and the fast reader against the one-tree parse.

use super::*;

type Outcome = Result<(Vec<Object>, Vec<Pos>), String>;

fn outcome(batch: Result<DecodedBatch, LoadError>) -> Outcome {
    batch
        .map(|b| (b.objects, b.node_positions))
        .map_err(|e| e.to_string())
}

/// The pieces' objects, or `None` when they send the text to the whole parse.
fn in_pieces(text: &str, piece_bytes: usize) -> Option<Outcome> {
    let file = Arc::from("s.yaml");
    let pieces = cut(text, piece_bytes)?;
    decode_pieces(&file, &pieces, EntryReader::KubectlFirst).map(|batch| outcome(Ok(batch)))
}

fn whole(text: &str) -> Outcome {
    outcome(parse_whole(&Arc::from("s.yaml"), text))
}

const NODE: &str =
    "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: NAME\n    labels: {zone: a}\n";
const POD: &str = "- apiVersion: v1\n  kind: Pod\n  metadata: {name: NAME, namespace: team}\n  spec:\n    nodeName: n1\n    containers:\n    - name: c\n      args:\n      - |\n        - not an entry\n        items:\n      resources: {requests: {cpu: 500m}}\n";

fn list(entries: &[String]) -> String {
    format!(
        "apiVersion: v1\nitems:\n{}kind: List\nmetadata:\n  resourceVersion: \"\"\n",
        entries.concat()
    )
}

fn entry(template: &str, name: &str) -> String {
    template.replace("NAME", name)
}

/// Every way a state is written gives, cut or not, exactly what the one-tree parse gives
/// (objects, node positions, or error); `cut` says whether the pieces decoded it without
/// the whole parse.
#[test]
fn pieces_decode_to_what_the_whole_text_decodes_to() {
    let plain = list(&[
        entry(NODE, "n1"),
        entry(POD, "p1"),
        entry(NODE, "n2"),
        entry(POD, "p2"),
    ]);
    let indented = format!(
        "apiVersion: v1\nitems:\n{}kind: List\n",
        [entry(NODE, "n1"), entry(POD, "p1"), entry(NODE, "n2")]
            .concat()
            .lines()
            .map(|line| format!("  {line}\n"))
            .collect::<String>()
    );
    let with_comments = plain.replace(
        "- apiVersion: v1\n  kind: Pod",
        "# a pod\n\n- apiVersion: v1\n  kind: Pod",
    );
    let documents = format!(
        "{}---\n{}---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: team}}\n",
        plain,
        list(&[entry(NODE, "n3")])
    );
    let alias = list(&[
        "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    labels: &zone {zone: a}\n"
            .into(),
        "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n2\n    labels: *zone\n".into(),
    ]);
    let cases: Vec<(&str, String, bool)> = vec![
        ("plain", plain.clone(), true),
        ("indented entries", indented, true),
        ("comments between entries", with_comments, true),
        ("documents", documents, true),
        (
            "no items",
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n".into(),
            true,
        ),
        (
            "empty List",
            "apiVersion: v1\nitems: []\nkind: List\n".into(),
            true,
        ),
        ("alias to another piece", alias, false),
        ("directive", format!("%YAML 1.2\n---\n{plain}"), false),
        (
            "items of a non-List",
            plain.replace("kind: List", "kind: Pod"),
            false,
        ),
        (
            "broken entry",
            plain.replace("cpu: 500m}}\n- apiVersion", "cpu: 500m}\n- apiVersion"),
            false,
        ),
        (
            "bad value",
            plain.replacen("cpu: 500m", "cpu: lots", 1),
            false,
        ),
        (
            "duplicate node",
            list(&[entry(NODE, "n1"), entry(POD, "p1"), entry(NODE, "n1")]),
            true,
        ),
        (
            "broken List fields",
            plain.replace("resourceVersion: \"\"", "resourceVersion: [\""),
            false,
        ),
    ];
    for (name, text, cut_alone) in cases {
        let expected = whole(&text);
        for piece_bytes in [1, 200, PIECE_BYTES] {
            for reader in [EntryReader::KubectlFirst, EntryReader::Tree] {
                let got = outcome(parse_in_pieces_of("s.yaml", &text, piece_bytes, reader));
                assert_eq!(got, expected, "{name} {piece_bytes} {reader:?}");
            }
        }
        let pieces = in_pieces(&text, 1);
        assert_eq!(pieces.is_some(), cut_alone, "{name}: {pieces:?}");
        if let Some(pieces) = pieces {
            assert_eq!(pieces, expected, "{name}");
        }
    }
}

/// Every YAML file of the testdata, read as a state (most are manifests, many of them
/// written by hand in shapes kubectl never prints), gives by every reader and cut the
/// objects, node positions or error of the one-tree parse.
#[test]
fn every_testdata_yaml_reads_as_the_one_tree_parse_reads_it() {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 100, "{} files", files.len());
    let mut lists = 0;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        lists += usize::from(text.contains("\nitems:\n"));
        let expected = whole(&text);
        for (piece_bytes, reader) in [
            (PIECE_BYTES, EntryReader::KubectlFirst),
            (1, EntryReader::KubectlFirst),
            (1, EntryReader::Tree),
        ] {
            let got = outcome(parse_in_pieces_of("s.yaml", &text, piece_bytes, reader));
            assert_eq!(got, expected, "{} {piece_bytes} {reader:?}", path.display());
        }
    }
    assert!(lists >= 9, "{lists} lists");
}

/// A generated realistic state written as `kubectl get -o yaml` prints it, and in the flow
/// style generators write, cut into many pieces, loads to exactly the objects of the same
/// state as JSON, every entry read by the fast reader.
#[test]
fn a_generated_yaml_state_loads_as_its_json() {
    let spec = df_synth::SynthSpec {
        seed: 11,
        nodes: 30,
        pods: 400,
        namespaces: 4,
    };
    let mut json = Vec::new();
    df_synth::write_cluster_json(&spec, df_synth::Detail::Realistic, &mut json).unwrap();
    let from_json = super::super::recorded::parse_state("s.json", &json).unwrap();
    assert_eq!(from_json.len(), 30 + 4 + 400);
    for (style, shapes) in [
        (
            df_synth::YamlStyle::Block,
            &["requests:\n", "cpu: \"50m\""][..],
        ),
        (
            df_synth::YamlStyle::Flow,
            &[
                "resources: {requests: {cpu: ",
                "labelSelector: {matchLabels: {app: ",
                "labels: {app: ",
                "- {name: ",
            ][..],
        ),
    ] {
        let mut yaml = Vec::new();
        df_synth::write_state_yaml_in(style, json.as_slice(), &mut yaml).unwrap();
        let yaml = String::from_utf8(yaml).unwrap();
        for shape in shapes {
            assert!(yaml.contains(shape), "{style:?}: {shape}");
        }
        let pieces = cut(&yaml, 64 << 10).unwrap();
        assert!(pieces.len() > 10, "{} pieces", pieces.len());
        // The fast reader takes every entry: none goes to a tree.
        let mut scratch = Vec::new();
        for piece in pieces.iter().filter(|p| p.header == LIST_HEADER) {
            for (_, entry) in entries(&piece.text) {
                let read = decode_kubectl_entry(entry, &mut scratch);
                assert!(read.is_some(), "{style:?}: {entry}");
            }
        }
        let (objects, node_positions) = in_pieces(&yaml, 64 << 10).unwrap().unwrap();
        assert_eq!(objects, from_json, "{style:?}");
        assert_eq!(node_positions, whole(&yaml).unwrap().1, "{style:?}");
        assert_eq!(node_positions.len(), 30);
        assert_eq!(
            super::super::recorded::parse_state("s.yaml", yaml.as_bytes()).unwrap(),
            from_json
        );
    }
}

/// A string as go-yaml (kubectl's printer) writes it under a key or dash in column
/// `indent`: plain when it reads back as that string, else single-quoted, a `|` literal for
/// lines, else double-quoted; plain and single-quoted ones folded at spaces past 40 columns.
fn kubectl_scalar(s: &str, indent: usize) -> String {
    let printable = |s: &str| s.bytes().all(|b| (0x20..0x7f).contains(&b));
    let plain = printable(s)
        && s.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '/')
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with([':', ' '])
        && matches!(
            saphyr::Scalar::parse_from_cow(Cow::Borrowed(s)),
            saphyr::Scalar::String(_)
        );
    let folded = |text: &str| {
        let (mut out, mut column) = (String::new(), 0);
        let bytes = text.as_bytes();
        for (i, c) in text.char_indices() {
            let before_word = bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
            if c == ' ' && column > 40 && bytes[i - 1] != b' ' && before_word {
                out.push('\n');
                out.push_str(&" ".repeat(indent + 2));
                column = 0;
            } else {
                out.push(c);
                column += 1;
            }
        }
        out
    };
    let literal = s.ends_with('\n')
        && !s.ends_with("\n\n")
        && !s.starts_with([' ', '\n'])
        && s.lines().all(|l| printable(l) && !l.ends_with(' '));
    if plain {
        folded(s)
    } else if printable(s) {
        format!("'{}'", folded(&s.replace('\'', "''")))
    } else if literal {
        let pad = " ".repeat(indent + 2);
        let lines: Vec<String> = s
            .lines()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{pad}{l}")
                }
            })
            .collect();
        format!("|\n{}", lines.join("\n"))
    } else {
        serde_json::to_string(s).unwrap()
    }
}

/// `value` in block style as kubectl prints it (sequences at their key's indentation).
fn kubectl_block(value: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let nested = |value: &Value, key_indent: usize, out: &mut String| match value {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            kubectl_block(value, key_indent + 2, out);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            kubectl_block(value, key_indent, out);
        }
        Value::String(s) => out.push_str(&format!(" {}\n", kubectl_scalar(s, key_indent))),
        scalar => out.push_str(&format!(" {scalar}\n")),
    };
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                out.push_str(&format!("{pad}{}:", kubectl_scalar(key, indent)));
                nested(value, indent, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(m) if !m.is_empty() => {
                        let mut entry = String::new();
                        kubectl_block(item, indent + 2, &mut entry);
                        out.push_str(&format!("{pad}- {}", &entry[indent + 2..]));
                    }
                    _ => {
                        out.push_str(&format!("{pad}-"));
                        nested(item, indent, out);
                    }
                }
            }
        }
        _ => unreachable!("blocks are collections"),
    }
}

/// A generated state printed as kubectl prints it (plain scalars, quotes only where needed,
/// long strings folded, literals), with label values of every awkward kind: the fast reader
/// takes every entry, and the objects and node positions are the tree's and the JSON's.
#[test]
fn a_kubectl_printed_state_is_read_without_trees() {
    let spec = df_synth::SynthSpec {
        seed: 7,
        nodes: 20,
        pods: 200,
        namespaces: 3,
    };
    let mut json = Vec::new();
    df_synth::write_cluster_json(&spec, df_synth::Detail::Realistic, &mut json).unwrap();
    let mut list: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let awkward = [
        "a long message that go-yaml folds over several lines because it is long",
        "0/3 nodes are available: 3 Insufficient cpu. preemption: not helpful for this pod",
        "yes",
        "123",
        "0x1F",
        "1.5",
        "true",
        "null",
        "",
        " padded ",
        "it's # not a comment",
        "line one\n\nline three\n",
        "caf\u{e9} au lait",
        "tab\there",
    ];
    for (i, item) in list["items"].as_array_mut().unwrap().iter_mut().enumerate() {
        item["metadata"]["labels"]["note"] = awkward[i % awkward.len()].into();
    }
    let mut yaml = String::from("apiVersion: v1\nitems:\n");
    kubectl_block(&list["items"], 0, &mut yaml);
    yaml.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    for shape in [
        "note: a long message that go-yaml folds over several\n        lines because",
        "note: '0/3 nodes are available: 3 Insufficient cpu.\n        preemption",
        "note: 'it''s # not a comment'",
        "note: |\n        line one\n\n        line three\n",
        "note: \"tab\\there\"",
        "\n    containers:\n    - ",
    ] {
        assert!(yaml.contains(shape), "{shape}");
    }
    let mut json = Vec::new();
    let pieces = cut(&yaml, 16 << 10).unwrap();
    for piece in pieces.iter().filter(|p| p.header == LIST_HEADER) {
        for (_, entry) in entries(&piece.text) {
            assert!(decode_kubectl_entry(entry, &mut json).is_some(), "{entry}");
        }
    }
    let expected = whole(&yaml);
    let (objects, node_positions) = expected.clone().unwrap();
    assert_eq!(objects.len(), 20 + 3 + 200);
    assert_eq!(node_positions.len(), 20);
    assert_eq!(in_pieces(&yaml, 16 << 10), Some(expected));
    let from_json =
        crate::recorded::parse_state("s.json", serde_json::to_string(&list).unwrap().as_bytes())
            .unwrap();
    assert_eq!(objects, from_json);
}

const FLOW_NODE: &str = "- apiVersion: v1\n  kind: Node\n  metadata: {name: NAME, labels: {zone: a}}\n  status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n";
const FLOW_POD: &str = "- apiVersion: v1\n  kind: Pod\n  metadata: {name: NAME, namespace: team, labels: {app: web}}\n  spec:\n    nodeName: n1\n    containers:\n    - {name: c, args: [a, b], resources: {requests: {cpu: 1m, memory: 1Mi}}}\n";

/// A state in flow style, as generators write it, is read by the fast reader alone, to the
/// objects and node positions of the one-tree parse; an entry whose flow YAML is broken goes
/// to the tree, whose exact error (message and file position) is the answer either way.
#[test]
fn flow_entries_read_without_trees_and_broken_ones_give_the_trees_error() {
    let state = |broken: &str| {
        list(&[
            entry(FLOW_NODE, "n1"),
            entry(FLOW_POD, "p1"),
            entry(
                &FLOW_POD.replace(
                    "{name: c, args: [a, b], resources: {requests: {cpu: 1m, memory: 1Mi}}}",
                    broken,
                ),
                "p2",
            ),
            entry(FLOW_NODE, "n2"),
        ])
    };
    let good = "{name: c, args: [a, b], resources: {requests: {cpu: 1m, memory: 1Mi}}}";
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("flow", good, None),
        (
            "over lines",
            "{name: c, args: [a,\n        b], resources: {requests: {cpu: 1m,\n        memory: 1Mi}}}",
            None,
        ),
        (
            "an unclosed mapping",
            "{name: c, args: [a, b], resources: {requests: {cpu: 1m, memory: 1Mi}}",
            Some("s.yaml:21:1: invalid indentation"),
        ),
        (
            "an unclosed sequence",
            "{name: c, args: [a, b, resources: {requests: {cpu: 1m, memory: 1Mi}}}",
            Some("s.yaml:21:1: invalid indentation"),
        ),
        (
            "a double comma",
            "{name: c,, args: [a, b]}",
            Some("s.yaml:20:16: while parsing a node, did not find expected node content"),
        ),
        (
            "a leading comma",
            "{name: c, args: [, a, b]}",
            Some("s.yaml:20:24: while parsing a node, did not find expected node content"),
        ),
        (
            "a missing comma",
            "{name: c args: [a, b]}",
            Some("s.yaml:20:20: while parsing a flow mapping, did not find expected ',' or '}'"),
        ),
        (
            "a stray bracket",
            "{name: c, args: [a, b]]}",
            Some("s.yaml:20:30: misplaced bracket"),
        ),
        (
            "a duplicate key",
            "{name: c, args: [a], name: d}",
            Some("s.yaml:20:28: duplicated key \"name\" in mapping"),
        ),
        (
            "a bad value",
            "{name: c, resources: {requests: {cpu: lots}}}",
            Some(
                "s.yaml:20:45: items[2].spec.containers[0].resources.requests.cpu: invalid quantity \"lots\": expected a number",
            ),
        ),
    ];
    for (name, container, error) in cases {
        let text = state(container);
        let expected = whole(&text);
        match error {
            None => {
                let (objects, positions) = expected.clone().unwrap();
                assert_eq!((objects.len(), positions.len()), (4, 2), "{name}");
                let mut json = Vec::new();
                for (_, item) in entries(&cut(&text, 1 << 20).unwrap()[0].text) {
                    assert!(
                        decode_kubectl_entry(item, &mut json).is_some(),
                        "{name}: {item}"
                    );
                }
            }
            Some(error) => assert_eq!(expected, Err(error.to_string()), "{name}"),
        }
        for piece_bytes in [1, PIECE_BYTES] {
            let got = outcome(parse_in_pieces_of(
                "s.yaml",
                &text,
                piece_bytes,
                EntryReader::KubectlFirst,
            ));
            assert_eq!(got, expected, "{name} {piece_bytes}");
        }
    }
}
