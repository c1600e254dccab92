//! The block reader against the full parser, shape by shape.

use super::*;
use crate::tree::{self, parse_path};

/// The entry as the full parser reads it, under `items:`: its JSON, and the position of its
/// `metadata.name` (lines counted from the entry's first).
fn full_parse(entry: &str) -> (serde_json::Value, Pos) {
    let documents = tree::parse_documents(&format!("items:\n{entry}")).unwrap();
    let item = &documents[0].get("items").unwrap().items()[0];
    let name = item.closest_pos(&parse_path("metadata.name"));
    (
        item.to_json(),
        Pos {
            line: name.line - 1,
            column: name.column,
        },
    )
}

fn read(entry: &str) -> Option<(String, Identity)> {
    let mut out = Vec::new();
    let identity = entry_to_json(entry, &mut out)?;
    Some((String::from_utf8(out).unwrap(), identity))
}

/// Each YAML shape kubectl prints reads to exactly the JSON the full parser gives; every
/// other shape is declined (`None`), for the full parser to read.
#[test]
fn entries_read_as_the_full_parser_reads_them_or_are_declined() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        (
            "plain string",
            "- v: hello world\n",
            Some(r#"{"v":"hello world"}"#),
        ),
        (
            "nulls",
            "- a: null\n  b: ~\n  c: Null\n  d: NULL\n  e:\n",
            Some(r#"{"a":null,"b":null,"c":null,"d":null,"e":null}"#),
        ),
        (
            "booleans of the core schema only",
            "- a: true\n  b: True\n  c: TRUE\n  d: false\n  e: yes\n  f: on\n  g: tRUE\n",
            Some(r#"{"a":true,"b":true,"c":true,"d":false,"e":"yes","f":"on","g":"tRUE"}"#),
        ),
        (
            "integers",
            "- a: 12\n  b: -3\n  c: +4\n  d: 0x1F\n  e: 0o17\n  f: 012\n  g: 0x\n",
            Some(r#"{"a":12,"b":-3,"c":4,"d":31,"e":15,"f":12,"g":"0x"}"#),
        ),
        (
            "strings that look like numbers or more",
            "- a: 1.2.3\n  b: 10.0.0.1\n  c: 500m\n  d: nan\n  e: -foo\n  f: http://x:80/y\n  g: a#b\n  h: it's\n  i: inf\n  j: 1_000\n",
            Some(
                r#"{"a":"1.2.3","b":"10.0.0.1","c":"500m","d":"nan","e":"-foo","f":"http://x:80/y","g":"a#b","h":"it's","i":"inf","j":"1_000"}"#,
            ),
        ),
        ("a float", "- v: 1.5\n", None),
        ("an exponent", "- v: 1e3\n", None),
        ("infinity", "- v: .inf\n", None),
        ("an integer too large", "- v: 99999999999999999999\n", None),
        (
            "comments",
            "- v: x # note\n  # a line\n  w: 'y' # more\n",
            Some(r#"{"v":"x","w":"y"}"#),
        ),
        (
            "single-quoted",
            "- a: 'it''s'\n  b: ''\n  c: '1'\n  d: 'a\"b\\c'\n",
            Some(r#"{"a":"it's","b":"","c":"1","d":"a\"b\\c"}"#),
        ),
        (
            "double-quoted escapes",
            "- a: \"tab\\there\"\n  b: \"\\u00e9\\x41\\U0001F600\"\n  c: \"q\\\"uote\\\\\"\n  d: \"\\N\\_\\L\\P\\e\\0\\/\\ \\a\\b\\v\\f\\r\\n\"\n  e: \"\"\n  f: \"true\"\n",
            Some(
                "{\"a\":\"tab\\there\",\"b\":\"\u{e9}A\u{1F600}\",\"c\":\"q\\\"uote\\\\\",\"d\":\"\u{85}\u{a0}\u{2028}\u{2029}\\u001b\\u0000/ \\u0007\\b\\u000b\\f\\r\\n\",\"e\":\"\",\"f\":\"true\"}",
            ),
        ),
        ("an unknown escape", "- v: \"\\q\"\n", None),
        ("a surrogate escape", "- v: \"\\ud83d\\ude00\"\n", None),
        ("a short hex escape", "- v: \"\\x4\"\n", None),
        (
            "literal block scalars",
            "- v: |\n    line 1\n\n    line 3\n  w: |-\n    a\n     b\n  x: |\n    # not a comment\n    - not an entry\n",
            Some(
                r##"{"v":"line 1\n\nline 3\n","w":"a\n b","x":"# not a comment\n- not an entry\n"}"##,
            ),
        ),
        (
            "trailing and leading blank lines of a literal",
            "- v: |\n\n    a\n\n\n  w: |-\n    b\n\n  x: 1\n",
            Some(r#"{"v":"\na\n","w":"b","x":1}"#),
        ),
        ("a kept literal", "- v: |+\n    a\n\n  w: 1\n", None),
        ("a folded scalar", "- v: >\n    a\n    b\n", None),
        ("an indentation indicator", "- v: |2\n     a\n", None),
        ("an empty literal", "- v: |\n  w: 1\n", None),
        (
            "a literal at the end without a line break",
            "- v: |\n    a",
            None,
        ),
        (
            "empty flow collections",
            "- a: {}\n  b: []\n  c: {} # none\n",
            Some(r#"{"a":{},"b":[],"c":{}}"#),
        ),
        (
            "a flow mapping",
            "- a: {b: c}\n",
            Some(r#"{"a":{"b":"c"}}"#),
        ),
        ("a flow sequence", "- a: [1]\n", Some(r#"{"a":[1]}"#)),
        (
            "nested mappings and sequences",
            "- spec:\n    containers:\n    - name: c\n      args:\n      - -v\n      - \"2\"\n      ports:\n        - containerPort: 80\n          protocol: TCP\n    -\n      name: d\n    - - x\n",
            None,
        ),
        (
            "indentless and indented sequences, null entries",
            "- spec:\n    containers:\n    - name: c\n      args:\n      - -v\n      -\n      - \"2\"\n      ports:\n        - containerPort: 80\n          protocol: TCP\n    -\n      name: d\n  status: {}\n",
            Some(
                r#"{"spec":{"containers":[{"name":"c","args":["-v",null,"2"],"ports":[{"containerPort":80,"protocol":"TCP"}]},{"name":"d"}]},"status":{}}"#,
            ),
        ),
        (
            "a mapping value on the lines below an empty dash",
            "-\n  a: 1\n",
            Some(r#"{"a":1}"#),
        ),
        (
            "quoted keys",
            "- \"a b\": 1\n  'c': 2\n  \"d\\te\": 3\n  \"1\": 4\n",
            Some(r#"{"a b":1,"c":2,"d\te":3,"1":4}"#),
        ),
        ("an integer key", "- 1: a\n", None),
        ("a boolean key", "- true: a\n", None),
        ("a null key", "- ~: a\n", None),
        ("a duplicate key", "- a: 1\n  b: 2\n  a: 3\n", None),
        ("a duplicate quoted key", "- a: 1\n  \"a\": 2\n", None),
        (
            "unsorted keys",
            "- b: 1\n  a: 2\n  c: 3\n",
            Some(r#"{"b":1,"a":2,"c":3}"#),
        ),
        (
            "an anchor and an alias",
            "- a: &x 1\n  b: *x\n",
            Some(r#"{"a":1,"b":1}"#),
        ),
        ("a tag", "- a: !!str 1\n", None),
        (
            "plain scalars folded over lines, as go-yaml writes long strings",
            "- a: one\n    two  \n\n\n    three\n  b: 1\n    2\n  c:\n  - four\n    five\n  - six\n  d: seven # note\n  e: x\n",
            Some(
                r#"{"a":"one two\n\nthree","b":"1 2","c":["four five","six"],"d":"seven","e":"x"}"#,
            ),
        ),
        (
            "quoted scalars folded over lines",
            "- a: 'one ''two''  \n    three\n\n     four  '\n  b: \"x\\ty\n    \\ z\"\n  c: \"\n    d\"\n",
            Some(r#"{"a":"one 'two' three\nfour  ","b":"x\ty  z","c":" d"}"#),
        ),
        (
            "a folded plain line that is a key",
            "- a: one\n    two: x\n",
            None,
        ),
        (
            "a folded plain line with an indicator",
            "- a: one\n    - two\n",
            None,
        ),
        (
            "a comment inside a folded plain scalar",
            "- a: one\n    # two\n    three\n",
            None,
        ),
        (
            "a folded plain line not deeper",
            "- a:\n    b: one\n    two\n",
            None,
        ),
        (
            "a folded quoted line not deeper",
            "- a: \"one\n  two\"\n",
            None,
        ),
        ("an escaped line break", "- a: \"one\\\n    two\"\n", None),
        ("an unclosed quote", "- a: \"one\n    two\n", None),
        (
            "content after a folded quote",
            "- a: 'one\n    two' x\n",
            None,
        ),
        ("a tab", "- a: one\ttwo\n", None),
        ("a carriage return", "- a: one\r\n", None),
        ("a deeper key", "- a: 1\n   b: 2\n", None),
        ("a shallower key", "- a:\n    b: 1\n   c: 2\n", None),
        ("a value with a colon", "- a: b: c\n", None),
        ("a nested compact sequence", "- - a\n", None),
        ("a complex key", "- ? a\n  : b\n", None),
        ("a plain scalar entry", "- just a string\n", None),
        ("an entry after a scalar", "- a: 1\n  - b\n", None),
        ("a document marker", "- a: 1\n---\n", None),
        (
            "non-ASCII quoted",
            "- a: \"caf\u{e9}\"\n",
            Some("{\"a\":\"caf\u{e9}\"}"),
        ),
        ("non-ASCII plain", "- a: caf\u{e9}\n", None),
        ("a next-line character", "- a: \"x\u{85}y\"\n", None),
        (
            "too deep",
            &format!(
                "- a:\n{}",
                (1..=MAX_DEPTH)
                    .map(|i| format!("{}k:\n", " ".repeat(2 * i + 2)))
                    .collect::<String>()
            ),
            None,
        ),
    ];
    for (name, entry, expected) in cases {
        let got = read(entry).map(|(json, _)| json);
        assert_eq!(got.as_deref(), *expected, "{name}");
        if let Some(json) = got {
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(
                value,
                full_parse(entry).0,
                "{name}: the full parser reads otherwise"
            );
        }
    }
}

/// The type, name position and `generateName` of an object, as the full parser sees them.
#[test]
fn identities_are_the_full_parsers() {
    let cases: &[(&str, &str, Identity)] = &[
        (
            "plain",
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n",
            Identity {
                api_version: true,
                kind: true,
                name: Some(Pos {
                    line: 4,
                    column: 11,
                }),
                generate_name: false,
            },
        ),
        (
            "quoted on the dash line",
            "- metadata:\n    generateName: web-\n    name: \"web-1\"\n  apiVersion: \"v1\"\n  kind: ''\n",
            Identity {
                api_version: true,
                kind: false,
                name: Some(Pos {
                    line: 3,
                    column: 11,
                }),
                generate_name: true,
            },
        ),
        (
            "an empty metadata",
            "- metadata: {}\n  kind: Pod\n",
            Identity {
                api_version: false,
                kind: true,
                name: None,
                generate_name: false,
            },
        ),
        (
            "an empty name",
            "- metadata:\n    generateName: web-\n    name: ''\n    labels:\n      name: x\n",
            Identity {
                api_version: false,
                kind: false,
                name: None,
                generate_name: true,
            },
        ),
        (
            "a nested name is not the object's",
            "- spec:\n    metadata:\n      name: x\n",
            Identity::default(),
        ),
    ];
    for (name, entry, expected) in cases {
        let (_, identity) = read(entry).unwrap();
        assert_eq!(identity, *expected, "{name}");
        if let Some(pos) = identity.name {
            assert_eq!(pos, full_parse(entry).1, "{name}");
        }
    }
}

/// Reads `entry` by both readers: the fast one's JSON when it answers (which must be the full
/// parser's), else `None`.
fn agreed(name: &str, entry: &str) -> Option<String> {
    let got = read(entry).map(|(json, _)| json);
    if let Some(json) = &got {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            value,
            full_parse(entry).0,
            "{name}: the full parser reads otherwise"
        );
    }
    got
}

/// Flow collections, anchors and aliases as generators and people write them read to the full
/// parser's JSON; the shapes the reader does not vouch for are declined, whether the full
/// parser reads them or refuses them (then the full parser's error is the answer: see
/// `yaml_state`'s tests of flow errors).
#[test]
fn flow_collections_and_aliases_read_as_the_full_parser_reads_them_or_are_declined() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        (
            "nested flow mappings",
            "- resources: {requests: {cpu: 1m, memory: 1Mi}, limits: {}}\n",
            Some(r#"{"resources":{"requests":{"cpu":"1m","memory":"1Mi"},"limits":{}}}"#),
        ),
        (
            "a flow sequence of scalars",
            "- args: [a, -v, \"2\", 'x y', 3, true, null, ~, http://x:80/y]\n",
            Some(r#"{"args":["a","-v","2","x y",3,true,null,null,"http://x:80/y"]}"#),
        ),
        (
            "no spaces after commas",
            "- a: [a,b,c]\n  b: {x: 1,y: 2}\n",
            Some(r#"{"a":["a","b","c"],"b":{"x":1,"y":2}}"#),
        ),
        (
            "sequences of mappings",
            "- tolerations: [{key: a, operator: Exists}, {effect: NoSchedule}]\n",
            Some(r#"{"tolerations":[{"key":"a","operator":"Exists"},{"effect":"NoSchedule"}]}"#),
        ),
        (
            "quoted keys",
            "- labels: {\"app.kubernetes.io/name\": web, 'a b': c, \"x\":\"y\"}\n",
            Some(r#"{"labels":{"app.kubernetes.io/name":"web","a b":"c","x":"y"}}"#),
        ),
        (
            "keys without values",
            "- a: {b, c: , d: 1}\n",
            Some(r#"{"a":{"b":null,"c":null,"d":1}}"#),
        ),
        (
            "trailing commas",
            "- a: [1, 2,]\n  b: {c: 1,}\n",
            Some(r#"{"a":[1,2],"b":{"c":1}}"#),
        ),
        (
            "empty collections with blanks",
            "- a: [ ]\n  b: { }\n  c: [{}, []]\n",
            Some(r#"{"a":[],"b":{},"c":[{},[]]}"#),
        ),
        (
            "over several lines",
            "- a: [one,\n    two, # a comment\n\n    three]\n  b: {x: 1,\n     y: [2,\n       3]}\n  c: 4\n",
            Some(r#"{"a":["one","two","three"],"b":{"x":1,"y":[2,3]},"c":4}"#),
        ),
        (
            "a value on the next line",
            "- a: {b:\n      c}\n",
            Some(r#"{"a":{"b":"c"}}"#),
        ),
        (
            "a comma on the next line",
            "- a: [b\n    , c]\n",
            Some(r#"{"a":["b","c"]}"#),
        ),
        (
            "in a block sequence",
            "- a:\n  - [1, 2]\n  - {b: c}\n  -   [x]\n",
            Some(r#"{"a":[[1,2],{"b":"c"},["x"]]}"#),
        ),
        (
            "the whole entry as a flow mapping",
            "- {apiVersion: v1, kind: Pod, metadata: {name: p}}\n",
            Some(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#),
        ),
        (
            "a plain scalar with colons and spaces",
            "- a: {b: c d:e, f: g :h}\n",
            Some(r#"{"a":{"b":"c d:e","f":"g :h"}}"#),
        ),
        (
            "a plain key with a colon",
            "- a: {b:c}\n",
            Some(r#"{"a":{"b:c":null}}"#),
        ),
        (
            "a comment after the collection",
            "- a: {b: c} # note\n",
            Some(r#"{"a":{"b":"c"}}"#),
        ),
        (
            "double-quoted escapes",
            "- a: [\"\\t\\u00e9\", 'it''s']\n",
            Some("{\"a\":[\"\\t\u{e9}\",\"it's\"]}"),
        ),
        (
            "anchors and aliases inside flow",
            "- a: {x: &r {cpu: 1m}, y: *r, z: [&s s, *s]}\n",
            Some(r#"{"a":{"x":{"cpu":"1m"},"y":{"cpu":"1m"},"z":["s","s"]}}"#),
        ),
        (
            "anchored block collections",
            "- a: &m\n    b: 1\n  c: *m\n  d: &s\n  - 1\n  e: *s\n  f: &n\n  g: *n\n",
            Some(r#"{"a":{"b":1},"c":{"b":1},"d":[1],"e":[1],"f":null,"g":null}"#),
        ),
        (
            "an anchored flow collection, aliased in an entry",
            "- a: &m {b: 1} # note\n  c:\n  - *m\n  - &q x\n  - *q # again\n",
            Some(r#"{"a":{"b":1},"c":[{"b":1},"x","x"]}"#),
        ),
        (
            "a redefined anchor",
            "- a: &x 1\n  b: &x 2\n  c: *x\n",
            Some(r#"{"a":1,"b":2,"c":2}"#),
        ),
        ("an alias to no anchor", "- a: *x\n", None),
        (
            "a name anchored again inside its value",
            "- a: &x {b: &x 1}\n  c: *x\n",
            Some(r#"{"a":{"b":1},"c":1}"#),
        ),
        ("an anchored alias", "- a: &x 1\n  b: &y *x\n", None),
        ("an anchored alias in flow", "- a: [&x 1, &y *x]\n", None),
        ("an alias inside its anchor", "- a: &x [1, *x]\n", None),
        ("an anchored key", "- a: {&k b: c}\n", None),
        ("an alias key", "- a: &k b\n  *k : c\n", None),
        (
            "an anchor on the object's name",
            "- metadata:\n    name: &n x\n",
            None,
        ),
        ("an alias as the kind", "- a: &k Pod\n  kind: *k\n", None),
        ("an anchor without a space", "- a: &x[1]\n", None),
        ("an anchor on an implicit key", "- &x a: 1\n", None),
        (
            "an anchor with another name character",
            "- a: &x/y 1\n  b: *x/y\n",
            None,
        ),
        ("a tag in flow", "- a: [!!str 1]\n", None),
        ("a float in flow", "- a: [1.5]\n", None),
        ("a plain scalar over lines", "- a: [one\n    two]\n", None),
        (
            "a quoted scalar over lines",
            "- a: ['one\n    two']\n",
            None,
        ),
        ("a line not deeper than the key", "- a: [1,\n  2]\n", None),
        (
            "a closing bracket at the key's column",
            "- a: [1,\n    2\n  ]\n",
            None,
        ),
        ("a single-pair mapping in a sequence", "- a: [b: c]\n", None),
        ("an explicit key", "- a: {? b : c}\n", None),
        ("a colon before an indicator", "- a: {b:[1]}\n", None),
        (
            "a key on one line, its colon on the next",
            "- a: {b\n    : c}\n",
            None,
        ),
        ("content after the collection", "- a: [1] x\n", None),
        ("an unclosed mapping", "- a: {b: c\n", None),
        ("an unclosed sequence", "- a: [1, 2\n  b: 3\n", None),
        ("an unclosed sequence at the end", "- a: [1, 2", None),
        ("a double comma", "- a: [1,, 2]\n", None),
        ("a leading comma", "- a: {, b: 1}\n", None),
        ("a missing comma", "- a: {b: 1 c: 2}\n", None),
        ("a stray closing bracket", "- a: {b: 1]}\n", None),
        ("a duplicate key in flow", "- a: {b: 1, b: 2}\n", None),
        (
            "a duplicate quoted key in flow",
            "- a: {b: 1, \"b\": 2}\n",
            None,
        ),
        ("an integer key in flow", "- a: {1: b}\n", None),
        ("a lone dash in flow", "- a: [-]\n", None),
        ("non-ASCII plain in flow", "- a: [caf\u{e9}]\n", None),
        (
            "aliases past the expansion budget",
            &format!(
                "- a: &x \"{}\"\n  b: [{}]\n",
                "y".repeat(1000),
                vec!["*x"; 100].join(", ")
            ),
            None,
        ),
    ];
    for (name, entry, expected) in cases {
        assert_eq!(agreed(name, entry).as_deref(), *expected, "{name}");
    }
}
