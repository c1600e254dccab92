//! The CEL rows of the DRA notes (C01-C24), each from the DRA CEL environment's tests
//! (k8s.io/dynamic-resource-allocation/cel compile_test.go) or cel-go's documented behaviour,
//! on one device of driver `gpu.example.com`.

use super::*;
use df_model::dra::DeviceCapacity;

const V134: KubeVersion = KubeVersion { minor: 34 };

/// `model: "a100"`, `numa: 1`, `driverVersion: 1.2.3`, `other.example.com/fam: "x"`,
/// capacity `memory: 80Gi`.
fn device() -> Device {
    let mut device = Device {
        name: "g0".into(),
        ..Device::default()
    };
    let attribute = |f: fn(&mut DeviceAttribute)| {
        let mut a = DeviceAttribute::default();
        f(&mut a);
        a
    };
    device.attributes.insert(
        "model".into(),
        attribute(|a| a.string = Some("a100".into())),
    );
    device
        .attributes
        .insert("numa".into(), attribute(|a| a.int = Some(1)));
    device.attributes.insert(
        "driverVersion".into(),
        attribute(|a| a.version = Some("1.2.3".into())),
    );
    device.attributes.insert(
        "other.example.com/fam".into(),
        attribute(|a| a.string = Some("x".into())),
    );
    device.capacity.insert(
        "memory".into(),
        DeviceCapacity {
            value: Quantity::parse("80Gi").unwrap(),
        },
    );
    device
}

fn run(expression: &str, device: &Device, version: KubeVersion) -> Result<bool, String> {
    let selector = compile(expression, version).map_err(|e| e.message)?;
    let value =
        device_value("gpu.example.com", device, version).map_err(|e| runtime_message(&e))?;
    selector.matches(&root_context(), value.as_ref())
}

#[test]
fn selectors_evaluate_as_the_dra_environment() {
    let d = device();
    let cases: &[(&str, &str, Result<bool, &str>)] = &[
        ("C01", r#"device.driver == "gpu.example.com""#, Ok(true)),
        (
            "C02",
            r#"device.attributes["gpu.example.com"].model == "a100""#,
            Ok(true),
        ),
        (
            "C03",
            r#"device.attributes["gpu.example.com"]["model"] == "a100""#,
            Ok(true),
        ),
        (
            "C04",
            r#"device.attributes["other.example.com"].fam == "x""#,
            Ok(true),
        ),
        // Unknown id: cel-go's `no such key`, an error (not false).
        (
            "C05",
            r#"device.attributes["gpu.example.com"].fam == "x""#,
            Err("no such key: fam"),
        ),
        // Unknown domain: an empty map, so the error is on the id.
        (
            "C06",
            r#"device.attributes["nope.example.com"].model == "a""#,
            Err("no such key: model"),
        ),
        (
            "C07",
            r#""nope.example.com" in device.attributes"#,
            Ok(false),
        ),
        (
            "C08",
            r#"has(device.attributes["gpu.example.com"].fam)"#,
            Ok(false),
        ),
        (
            "C09",
            r#"device.attributes["gpu.example.com"].?fam.orValue("y") == "y""#,
            Ok(true),
        ),
        (
            "C10",
            r#"device.attributes["gpu.example.com"].numa > 0"#,
            Ok(true),
        ),
        (
            "C11",
            r#"device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))"#,
            Ok(true),
        ),
        (
            "C12",
            r#"device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("v1.2", true))"#,
            Ok(true),
        ),
        (
            "C13",
            r#"device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0"#,
            Ok(true),
        ),
        (
            "C14",
            r#"device.capacity["gpu.example.com"].memory.isLessThan(quantity("1Ti"))"#,
            Ok(true),
        ),
        (
            "C15",
            r#"cel.bind(g, device.attributes["gpu.example.com"], g.model == "a100" && g.numa == 1)"#,
            Ok(true),
        ),
        (
            "C16",
            r#"device.attributes.exists_one(d, d == "other.example.com")"#,
            Ok(true),
        ),
        (
            "C17",
            r#"device.attributes["gpu.example.com"].model.matches("^a1")"#,
            Ok(true),
        ),
        // Short circuit: cel-go's && absorbs the right side's error when the left decides.
        (
            "C21",
            r#"false && device.attributes["gpu.example.com"].fam == "x""#,
            Ok(false),
        ),
        ("C22", "device.allowMultipleAllocations == false", Ok(true)),
        // By value: the issue's examples (40G is less than 40Gi; 1.10.0 above 1.9.5).
        (
            "value",
            r#"quantity("40G").isLessThan(quantity("40Gi"))"#,
            Ok(true),
        ),
        (
            "value",
            r#"semver("1.10.0").isGreaterThan(semver("1.9.5"))"#,
            Ok(true),
        ),
        (
            "value",
            r#"quantity("1Gi") == quantity("1024Mi")"#,
            Ok(true),
        ),
    ];
    for (row, expression, want) in cases {
        let got = run(expression, &d, V134);
        assert_eq!(got, want.map_err(str::to_string), "{row}: {expression}");
    }
}

#[test]
fn compile_errors_carry_cel_go_texts_and_positions() {
    // C18: the checker's text for a non-bool result.
    let err = compile("1", V134).err().unwrap();
    assert!(
        err.message
            .contains("must evaluate to bool or the unknown type, not int"),
        "{}",
        err.message
    );
    // C19: a syntax error, at its position.
    let err = compile("?!", V134).err().unwrap();
    assert!(
        err.message
            .starts_with("compilation failed: ERROR: <input>:1:"),
        "{}",
        err.message
    );
    assert_eq!(err.line, 1);
    // C20 (and A33's text): an undeclared reference, at its column.
    let err = compile("device.driver == \"a\" ||\n  noSuchVar", V134)
        .err()
        .unwrap();
    assert!(
        err.message.starts_with(
            "compilation failed: ERROR: <input>:2:3: undeclared reference to 'noSuchVar' (in container '')"
        ),
        "{}",
        err.message
    );
    assert_eq!((err.line, err.column), (2, 3));
    // C22: 1.33's device type has no allowMultipleAllocations.
    let err = compile(
        "device.allowMultipleAllocations == false",
        KubeVersion { minor: 33 },
    )
    .err()
    .unwrap();
    assert!(
        err.message
            .contains("undefined field 'allowMultipleAllocations'"),
        "{}",
        err.message
    );
    // Bound variables of macros are declared inside them only.
    assert!(compile("[1].all(x, x > 0) && x > 0", V134).is_err());
    assert!(compile("[1].all(x, x > 0)", V134).is_ok());
}

/// C23: six nested `all` over ten elements is refused by the API server ("too complex, exceeds
/// cost limit", estimated 85,555,551) and cancelled by the scheduler at run time; here its
/// estimate is over the limit and it is never evaluated. The simple selectors stay far below.
#[test]
fn expensive_selectors_are_never_evaluated() {
    let list = "[0,1,2,3,4,5,6,7,8,9]";
    let expression = format!(
        "{list}.all(a, {list}.all(b, {list}.all(c, {list}.all(d, {list}.all(e, {list}.all(f, a + b + c + d + e + f >= 0))))))"
    );
    let selector = compile(&expression, V134).unwrap();
    assert!(selector.cost > MAX_COST, "{}", selector.cost);
    let got = run(&expression, &device(), V134).unwrap_err();
    assert!(
        got.starts_with("operation cancelled: actual cost limit exceeded"),
        "{got}"
    );
    for simple in [
        r#"device.driver == "gpu.example.com""#,
        r#"device.attributes.exists_one(x, x == "d")"#,
        r#"device.attributes["gpu.example.com"].model.matches("[^a]?sym")"#,
    ] {
        assert!(compile(simple, V134).unwrap().cost < 1_000, "{simple}");
    }
    // Too long for the API server.
    let long = format!("device.driver == \"{}\"", "a".repeat(MAX_LENGTH));
    assert!(compile(&long, V134).is_err());
}

/// C24: a version attribute that is not semantic version text fails any selector on the
/// device.
#[test]
fn an_invalid_version_attribute_fails_every_selector() {
    let mut d = device();
    d.attributes.insert(
        "driverVersion".into(),
        DeviceAttribute {
            version: Some("1.0".into()),
            ..DeviceAttribute::default()
        },
    );
    let got = run("true", &d, V134).unwrap_err();
    assert!(
        got.starts_with("attribute driverVersion: parse semantic version: "),
        "{got}"
    );
}

/// Hostile syntax ends in an error, never a crash or a hang.
#[test]
fn deeply_nested_expressions_are_refused() {
    for depth in [25, 200, 5_000] {
        let nested = format!("{}true{}", "(".repeat(depth), ")".repeat(depth));
        assert!(compile(&nested, V134).is_err(), "{depth}");
        let negated = format!("{}true", "!".repeat(depth));
        assert!(compile(&negated, V134).is_err(), "{depth}");
        let chain = vec!["true"; depth].join(" || ");
        // The parser's own recursion limit (96) refuses long chains before ours.
        assert_eq!(compile(&chain, V134).is_ok(), depth == 25, "{depth}");
    }
    // At the limits, parsing, checking and estimating still fit a test thread's stack.
    let nested = format!("{}true{}", "(".repeat(24), ")".repeat(24));
    assert!(compile(&nested, V134).is_ok());
    let mixed = format!(
        "{}true{}",
        "[!(".repeat(8),
        ")]".repeat(8).replace(")]", ")][0]")
    );
    let _ = compile(&mixed, V134);
    let chain = vec!["device.driver == 'x'"; 40].join(" && ");
    let selector = compile(&chain, V134).unwrap();
    let value = device_value("gpu.example.com", &device(), V134).unwrap();
    assert_eq!(selector.matches(&root_context(), value.as_ref()), Ok(false));
}
