//! The behaviours of client-go's `jsonpath_test.go` tables, on data of our own.

use serde_json::json;

use super::*;

fn render(template: &str, input: &Value) -> Result<String, String> {
    let template = Template::parse(template).map_err(|e| e.message)?;
    template.render(input).map_err(|e| e.0)
}

#[test]
fn slices_indexes_and_unions() {
    let input = json!({
        "flags": [false, true, true],
        "counts": [10, 20, 30, 40],
        "ratios": [0.5, 1.25, 2.0],
        "zones": ["a", "b", "c", "d"],
        "mixed": [false, "x", 7, 0.5],
        "slots": [{"gpu": 1}, {"gpu": 2}, {"gpu": 4}],
    });
    let cases = [
        ("{ .flags }", "[false,true,true]"),
        ("{ .flags[0] }", "false"),
        ("{ .flags[-1] }", "true"),
        ("{ .counts[0:2] }", "10 20"),
        ("{ .counts[:2] }", "10 20"),
        ("{ .counts[:4:2] }", "10 30"),
        ("{ .counts[1::2] }", "20 40"),
        ("{ .counts[-2] }", "30"),
        ("{ .counts[-1:] }", "40"),
        ("{ .ratios[1] }", "1.25"),
        ("{ .zones }", "[\"a\",\"b\",\"c\",\"d\"]"),
        ("{ .zones[-2] }", "c"),
        ("{ .mixed[:2] }", "false x"),
        ("{ .slots[0] }", "{\"gpu\":1}"),
        ("{ .slots[::2] }", "{\"gpu\":1} {\"gpu\":4}"),
        ("{.counts[0,3]}", "10 40"),
        ("{.slots[*].gpu}", "1 2 4"),
    ];
    for (template, want) in cases {
        assert_eq!(render(template, &input).as_deref(), Ok(want), "{template}");
    }
}

#[test]
fn templates_over_a_list_of_objects() {
    let input = json!({
        "kind": "List",
        "items": [
            {"metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a", "k8s-app": "x"}},
             "status": {"capacity": {"cpu": "4"}, "ready": true,
                        "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}},
            {"metadata": {"name": "node-b", "labels": {"kubernetes.io/hostname": "node-b"}},
             "status": {"capacity": {"cpu": "8"}, "ready": false,
                        "addresses": [{"type": "InternalIP", "address": "10.0.0.2"},
                                      {"type": "Hostname", "address": "b"}]}}
        ],
        "users": [{"name": "ci", "token": "t1"}, {"name": "admin", "token": "t2"}]
    });
    let cases = [
        ("plain text", "plain text"),
        ("{\"{\"}", "{"),
        ("kind: {.kind}", "kind: List"),
        ("{$.kind}", "List"),
        (
            "{range .items[*]}{.metadata.name}, {end}{.kind}",
            "node-a, node-b, List",
        ),
        (
            "{range .items[*]}{.metadata.name}{\"\\t\"}{end}",
            "node-a\tnode-b\t",
        ),
        (
            "{.items[*].status.addresses[*].address}",
            "10.0.0.1 10.0.0.2 b",
        ),
        (
            "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}",
            "10.0.0.1, 10.0.0.2, b, ",
        ),
        (
            "{.items[*]['metadata.name', 'status.capacity']}",
            "node-a node-b {\"cpu\":\"4\"} {\"cpu\":\"8\"}",
        ),
        (
            "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
            "[node-a, {\"cpu\":\"4\"}] [node-b, {\"cpu\":\"8\"}] ",
        ),
        ("{.users[?(@.name==\"admin\")].token}", "t2"),
        ("{.users[?(@.name!=\"admin\")].token}", "t1"),
        (
            "{.items[0].metadata.labels.kubernetes\\.io/hostname}",
            "node-a",
        ),
        ("{.items[0].metadata.labels.k8s-app}", "x"),
        (
            "{.items[?(@.metadata.labels.kubernetes\\.io/hostname==\"node-b\")].status.capacity.cpu}",
            "8",
        ),
        ("{.items[?(@..ready==true)].metadata.name}", "node-a"),
        (
            "{.items[?(@.metadata.labels.k8s-app)].metadata.name}",
            "node-a",
        ),
        ("{..address}", "10.0.0.1 10.0.0.2 b"),
        ("{.users[1]['name']}", "admin"),
        ("{range .users[*]}{ @.* }|{end}", "ci t1|admin t2|"),
        ("before-{.missing}after", "before-after"),
        ("{range .nothing[*]}{.name}{end}", ""),
    ];
    for (template, want) in cases {
        assert_eq!(render(template, &input).as_deref(), Ok(want), "{template}");
    }
}

#[test]
fn filters_compare_numbers_and_the_current_value() {
    let input = json!([3, 9, 1, 12]);
    let cases = [
        ("{[?(@<5)]}", "3 1"),
        ("{[?(@>=9)]}", "9 12"),
        ("{..}", "[3,9,1,12]"),
    ];
    for (template, want) in cases {
        assert_eq!(render(template, &input).as_deref(), Ok(want), "{template}");
    }
    let points = json!([{"id": "p1", "z": 1}, {"id": "p2"}, {"id": "p3", "z": 0}]);
    assert_eq!(render("{[?(@.z)].id}", &points).as_deref(), Ok("p1 p3"));
    assert_eq!(render("{[0]['id']}", &points).as_deref(), Ok("p1"));
}

/// client-go's `evalArray` (jsonpath_test.go's containers[...] rows, and the errors kubectl
/// prints for them): `[i]` is `[i:i+1]`, negative bounds count from the end, an empty slice is
/// no error, anything else out of range is; `null` is skipped, as a missing key is.
#[test]
fn indexes_out_of_range_fail_the_template() {
    let input = json!({
        "items": [{"ports": [80]}, {"ports": [53, 54]}],
        "c": ["w", "x", "y", "z"],
        "empty": [],
        "none": null,
        "metadata": {"name": "n"},
        "name": "n",
        "count": 3,
    });
    let cases: &[(&str, Result<&str, &str>)] = &[
        (
            "{.items[5]}",
            Err("array index out of bounds: index 5, length 2"),
        ),
        // -3 + 2 = -1; the derived end -2 + 2 = 0 differs from it, so it is checked.
        (
            "{.items[-3]}",
            Err("array index out of bounds: index -1, length 2"),
        ),
        ("{.items[-1].ports[0]}", Ok("53")),
        // The end 3 is past the length: its last index, 2, is named.
        (
            "{.items[0:3]}",
            Err("array index out of bounds: index 2, length 2"),
        ),
        (
            "{.c[3:1]}",
            Err("starting index 3 is greater than ending index 1"),
        ),
        // -1 + 4 = 3, and an explicit end 0 stays 0.
        (
            "{.c[-1:0]}",
            Err("starting index 3 is greater than ending index 0"),
        ),
        (
            "{.c[-1:-2]}",
            Err("starting index 3 is greater than ending index 2"),
        ),
        ("{.c[0:-1]}", Ok("w x y")),
        (
            "{.c[-5]}",
            Err("array index out of bounds: index -1, length 4"),
        ),
        // Empty slices are let through before any bound is checked.
        ("{.c[5:5]}", Ok("")),
        ("{.c[-5:-5]}", Ok("")),
        ("{.c[0:4:0]}", Err("step must be > 0")),
        ("{.c[0:4:-1]}", Err("step must be > 0")),
        (
            "{.metadata[0]}",
            Err("map[string]interface {} is not array or slice"),
        ),
        (
            "{.metadata[*]}",
            Err("map[string]interface {} is not array or slice"),
        ),
        ("{.name[0]}", Err("string is not array or slice")),
        ("{.count[0]}", Err("float64 is not array or slice")),
        (
            "{.empty[0]}",
            Err("array index out of bounds: index 0, length 0"),
        ),
        ("{.empty[*]}", Ok("")),
        ("{.none[0]}", Ok("")),
        ("{.missing[0]}", Ok("")),
        // The first item has one port: the template fails there, and prints nothing.
        (
            "{range .items[*]}{.ports[1]}{end}",
            Err("array index out of bounds: index 1, length 1"),
        ),
        // A union takes each index over every value, and fails on the first that is out.
        (
            "{.items[*].ports[0,1]}",
            Err("array index out of bounds: index 1, length 1"),
        ),
        ("{.c[0,3]}", Ok("w z")),
        // A comparison fails with its path; an existence test whose path fails passes.
        (
            "{.items[?(@.ports[1]==54)]}",
            Err("array index out of bounds: index 1, length 1"),
        ),
        ("{.items[?(@.ports[1])].ports[0]}", Ok("80 53")),
    ];
    for (template, want) in cases {
        let want = want.map(str::to_string).map_err(str::to_string);
        assert_eq!(render(template, &input), want, "{template}");
    }
}

#[test]
fn bad_templates_say_why() {
    let cases = [
        ("{hello}", "unrecognized identifier hello"),
        ("{.a[?(@.b<>1)]}", "unrecognized filter operator <>"),
        ("{range .a[*]}{@}{end}{end}", "not in range, nothing to end"),
        ("{range .a[*]}{@}", "range without its {end}"),
        ("{.a", "unclosed action: a `{` without its `}`"),
        ("{.a[x]}", "invalid array index x"),
    ];
    for (template, want) in cases {
        assert_eq!(
            render(template, &json!({})),
            Err(want.to_string()),
            "{template}"
        );
    }
}
