//! Every kind of the registry ([`df_model::kinds`]) survives every way a state is stored: read
//! from a JSON and a YAML `v1 List`, written back by `snapshot` (plain and redacted) and kept
//! in the binary cache. A kind added to the registry is covered here without a new case.

use df_model::Object;
use df_model::kinds::Kind;
use df_model::registry::registry;
use df_state::ClusterState;
use df_state::recorded::{LoadOptions, load_files_with, parse_state};
use df_state::snapshot::{Format, RedactKey, Redaction, render};

/// One object per registered kind and version, named after both, so that no two collapse into
/// one (`metadata.name` and the group are an object's identity).
fn every_kind() -> Vec<(&'static Kind, &'static str, String)> {
    registry()
        .flat_map(|kind| {
            kind.api_versions
                .iter()
                .enumerate()
                .map(move |(i, api_version)| {
                    let name = format!("{}-{i}", kind.kind.to_ascii_lowercase());
                    (kind, *api_version, name)
                })
        })
        .collect()
}

fn list_json() -> String {
    let items: Vec<String> = every_kind()
        .iter()
        .map(|(kind, api_version, name)| {
            let namespace = if kind.namespaced {
                r#","namespace":"team""#
            } else {
                ""
            };
            format!(
                r#"{{"apiVersion":"{api_version}","kind":"{}","metadata":{{"name":"{name}"{namespace},"labels":{{"team":"blue"}}}}}}"#,
                kind.kind
            )
        })
        .collect();
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",")
    )
}

/// The same list as YAML, as `kubectl get -o yaml` prints one.
fn list_yaml() -> String {
    let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for (kind, api_version, name) in every_kind() {
        text.push_str(&format!(
            "- apiVersion: {api_version}\n  kind: {}\n  metadata:\n    name: {name}\n",
            kind.kind
        ));
        if kind.namespaced {
            text.push_str("    namespace: team\n");
        }
        text.push_str("    labels:\n      team: blue\n");
    }
    text
}

/// The warnings of a state of `objects` about kinds it does not keep.
fn ignored(objects: &[Object]) -> Vec<String> {
    ClusterState::from_objects(objects.iter().cloned())
        .warnings
        .into_iter()
        .filter(|w| w.starts_with("ignored"))
        .collect()
}

#[test]
fn every_registered_kind_reads_from_json_and_yaml_as_itself() {
    let json = parse_state("state.json", list_json().as_bytes()).unwrap();
    let yaml = parse_state("state.yaml", list_yaml().as_bytes()).unwrap();
    assert_eq!(json, yaml);
    let expected = every_kind();
    assert_eq!(json.len(), expected.len());
    for (object, (kind, _, name)) in json.iter().zip(&expected) {
        assert_eq!(object.kind_info(), Some(*kind), "{name}");
        assert_eq!(object.metadata().name, *name);
        assert_eq!(object.is_namespaced(), kind.namespaced, "{name}");
    }
    // Every registered kind is kept: none is among the kinds a state ignores.
    assert_eq!(ignored(&json), Vec::<String>::new());
}

/// A state holding one object of every kind its lists keep.
fn state() -> ClusterState {
    ClusterState::from_objects(parse_state("state.json", list_json().as_bytes()).unwrap())
}

fn names(state: &ClusterState) -> Vec<(String, String)> {
    let text = render(state, Format::Json, None).unwrap();
    parse_state("snapshot.json", text.as_bytes())
        .unwrap()
        .iter()
        .map(|o| (o.kind().to_string(), o.metadata().name.clone()))
        .collect()
}

#[test]
fn every_kept_kind_round_trips_through_snapshots_in_json_and_yaml() {
    let state = state();
    assert_eq!(names(&state).len(), every_kind().len());
    for format in [Format::Json, Format::Yaml] {
        let text = render(&state, format, None).unwrap();
        let again = ClusterState::from_objects(parse_state("snapshot", text.as_bytes()).unwrap());
        // A snapshot sorts each list: the state read back writes the same bytes.
        assert_eq!(render(&again, format, None).unwrap(), text, "{format:?}");
    }
}

#[test]
fn every_kind_round_trips_through_the_binary_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    std::fs::write(&path, list_json()).unwrap();
    let path = path.to_string_lossy().into_owned();
    let options = LoadOptions {
        use_cache: true,
        ..LoadOptions::default()
    };
    let written = load_files_with(std::slice::from_ref(&path), options).unwrap();
    assert!(dir.path().join("state.json.dfcache").exists());
    let cached = load_files_with(&[path], options).unwrap();
    assert_eq!(cached.objects, written.objects);
    assert_eq!(cached.objects, state().objects);
    assert_eq!(cached.warnings, written.warnings);
}

#[test]
fn every_kind_is_redacted_and_still_read_back() {
    let state = state();
    let key = RedactKey::parse("000102030405060708090a0b0c0d0e0f").unwrap();
    let redaction = Redaction::new(key, &state);
    let text = render(&state, Format::Json, Some(&redaction)).unwrap();
    let hidden = ClusterState::from_objects(parse_state("snapshot", text.as_bytes()).unwrap());
    let (before, after) = (names(&state), names(&hidden));
    assert_eq!(before.len(), after.len());
    for ((kind, name), (hidden_kind, hidden_name)) in before.iter().zip(&after) {
        assert_eq!(kind, hidden_kind);
        assert_eq!(*hidden_name, redaction.value(name), "{kind}");
        assert_ne!(hidden_name, name, "{kind}");
    }
    assert!(
        !text.contains("\"team\""),
        "a namespace or label value leaked:\n{text}"
    );
    assert!(!text.contains("blue"), "a label value leaked:\n{text}");
}
