//! Selector semantics, the only implementation in the project: node selector terms (node
//! affinity, nodeSelector) and label selectors (pod affinity, topology spread).
//!
//! Invalid requirements (unknown operator, `Gt` with a non-integer, wrong value count) do not
//! match and are reported as a [`SelectorError`], as upstream's lazy-error selector does: the
//! term fails, and the explanation says why.

use df_model::{LabelSelector, Labels, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct SelectorError {
    /// Field path relative to the selector (`nodeSelectorTerms[0].matchExpressions[1]`).
    pub path: String,
    pub message: String,
}

/// Check one node-selector requirement's shape; `Ok` when it can be evaluated.
pub(crate) fn validate_node_requirement(req: &NodeSelectorRequirement) -> Result<(), String> {
    match req.operator.as_str() {
        "In" | "NotIn" if req.values.is_empty() => Err(format!(
            "operator {} needs at least one value",
            req.operator
        )),
        "Exists" | "DoesNotExist" if !req.values.is_empty() => Err(format!(
            "operator {} takes no values, got {}",
            req.operator,
            req.values.len()
        )),
        "Gt" | "Lt" => match req.values.as_slice() {
            [value] if value.parse::<i64>().is_ok() => Ok(()),
            [value] => Err(format!(
                "operator {} needs an integer value, got {value:?}",
                req.operator
            )),
            values => Err(format!(
                "operator {} needs exactly one value, got {}",
                req.operator,
                values.len()
            )),
        },
        "In" | "NotIn" | "Exists" | "DoesNotExist" => Ok(()),
        other => Err(format!(
            "unknown operator {other:?} (expected In, NotIn, Exists, DoesNotExist, Gt or Lt)"
        )),
    }
}

fn requirement_matches(req: &NodeSelectorRequirement, value: Option<&str>) -> bool {
    match req.operator.as_str() {
        "In" => value.is_some_and(|v| req.values.iter().any(|x| x == v)),
        // NotIn is true when the key is absent.
        "NotIn" => value.is_none_or(|v| !req.values.iter().any(|x| x == v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" | "Lt" => {
            let (Some(label), Some(bound)) = (
                value.and_then(|v| v.parse::<i64>().ok()),
                req.values.first().and_then(|v| v.parse::<i64>().ok()),
            ) else {
                return false;
            };
            if req.operator == "Gt" {
                label > bound
            } else {
                label < bound
            }
        }
        _ => false,
    }
}

/// Whether a term matches a node. Expressions and fields are ANDed; a term with neither
/// matches nothing. `matchFields` supports only `metadata.name`, as upstream.
pub fn node_selector_term_matches(
    term: &NodeSelectorTerm,
    node_name: &str,
    labels: &Labels,
) -> Result<bool, SelectorError> {
    if term.match_expressions.is_empty() && term.match_fields.is_empty() {
        return Ok(false);
    }
    let mut matched = true;
    for (i, req) in term.match_expressions.iter().enumerate() {
        validate_node_requirement(req).map_err(|message| SelectorError {
            path: format!("matchExpressions[{i}]"),
            message,
        })?;
        matched &= requirement_matches(req, labels.get(&req.key).map(|v| v.as_str()));
    }
    for (i, req) in term.match_fields.iter().enumerate() {
        let path = format!("matchFields[{i}]");
        if req.key != "metadata.name" {
            return Err(SelectorError {
                path,
                message: format!(
                    "matchFields supports only the key \"metadata.name\", got {:?}",
                    req.key
                ),
            });
        }
        if !matches!(req.operator.as_str(), "In" | "NotIn") || req.values.len() != 1 {
            return Err(SelectorError {
                path,
                message:
                    "matchFields on metadata.name needs operator In or NotIn with exactly one value"
                        .into(),
            });
        }
        matched &= requirement_matches(req, Some(node_name));
    }
    Ok(matched)
}

/// Terms are ORed. A selector with no terms matches nothing. A term with an error does not
/// match; the errors are returned with the outcome so callers can explain them.
pub fn node_selector_matches(
    selector: &NodeSelector,
    node_name: &str,
    labels: &Labels,
) -> (bool, Vec<SelectorError>) {
    let mut errors = Vec::new();
    for (i, term) in selector.node_selector_terms.iter().enumerate() {
        match node_selector_term_matches(term, node_name, labels) {
            Ok(true) => return (true, errors),
            Ok(false) => {}
            Err(e) => errors.push(SelectorError {
                path: format!("nodeSelectorTerms[{i}].{}", e.path),
                message: e.message,
            }),
        }
    }
    (false, errors)
}

/// `nodeSelector`: every key must be present with exactly that value.
pub fn node_selector_map_matches(selector: &Labels, labels: &Labels) -> bool {
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// A label selector (`metav1.LabelSelector`): matchLabels and matchExpressions ANDed; an empty
/// selector matches everything. (A *missing* selector matches nothing; callers decide that.)
pub fn label_selector_matches(
    selector: &LabelSelector,
    labels: &Labels,
) -> Result<bool, SelectorError> {
    for (i, req) in selector.match_expressions.iter().enumerate() {
        let path = format!("matchExpressions[{i}]");
        let valid = match req.operator.as_str() {
            "In" | "NotIn" => !req.values.is_empty(),
            "Exists" | "DoesNotExist" => req.values.is_empty(),
            _ => {
                return Err(SelectorError {
                    path,
                    message: format!(
                        "unknown operator {:?} (expected In, NotIn, Exists or DoesNotExist)",
                        req.operator
                    ),
                });
            }
        };
        if !valid {
            return Err(SelectorError {
                path,
                message: format!("operator {} has the wrong number of values", req.operator),
            });
        }
    }
    if !selector
        .match_labels
        .iter()
        .all(|(k, v)| labels.get(k) == Some(v))
    {
        return Ok(false);
    }
    Ok(selector.match_expressions.iter().all(|req| {
        let value = labels.get(&req.key);
        match req.operator.as_str() {
            "In" => value.is_some_and(|v| req.values.iter().any(|x| x == v)),
            "NotIn" => value.is_none_or(|v| !req.values.iter().any(|x| x == v)),
            "Exists" => value.is_some(),
            _ => value.is_none(),
        }
    }))
}

/// Parse the string form of a label selector, as `kubectl -l` takes it: comma-separated
/// requirements, each `key=value` (or `==`), `key!=value`, `key in (a,b)`, `key notin (a,b)`,
/// `key` (exists) or `!key` (does not exist); all must hold. `!=` and `notin` also match
/// nodes without the key, as upstream's selectors do.
pub fn parse_label_selector(text: &str) -> Result<LabelSelector, String> {
    let mut selector = LabelSelector::default();
    for requirement in split_top_level(text) {
        let requirement = requirement.trim();
        let bad = |why: &str| format!("requirement {requirement:?} {why}");
        if requirement.is_empty() {
            return Err(format!("selector {text:?} has an empty requirement"));
        }
        let expression = |key: &str, operator: &str, values: Vec<String>| {
            let key = key.trim();
            if !is_selector_word(key) {
                return Err(bad("has no valid key"));
            }
            if values.iter().any(|v| !v.is_empty() && !is_selector_word(v)) {
                return Err(bad("has an invalid value"));
            }
            Ok(df_model::LabelSelectorRequirement {
                key: key.to_string(),
                operator: operator.to_string(),
                values,
            })
        };
        let set_operator = requirement
            .split_once(" notin ")
            .map(|parts| (parts, "NotIn"))
            .or_else(|| requirement.split_once(" in ").map(|parts| (parts, "In")));
        let parsed = if let Some(key) = requirement.strip_prefix('!') {
            expression(key, "DoesNotExist", Vec::new())?
        } else if let Some(((key, set), operator)) = set_operator {
            let values = set
                .trim()
                .strip_prefix('(')
                .and_then(|s| s.strip_suffix(')'))
                .ok_or_else(|| bad("needs its values in parentheses"))?;
            let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
            expression(key, operator, values)?
        } else if let Some((key, value)) = requirement.split_once("!=") {
            expression(key, "NotIn", vec![value.trim().to_string()])?
        } else if let Some((key, value)) = requirement.split_once('=') {
            let value = value.strip_prefix('=').unwrap_or(value).trim();
            let checked = expression(key, "In", vec![value.to_string()])?;
            selector
                .match_labels
                .insert(checked.key.into(), value.into());
            continue;
        } else {
            expression(requirement, "Exists", Vec::new())?
        };
        selector.match_expressions.push(parsed);
    }
    Ok(selector)
}

/// Split at the commas outside parentheses (`a=1,b in (x,y)` is two requirements).
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// A label key or value as selectors spell them: no spaces, operators or parentheses.
fn is_selector_word(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn req(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
        NodeSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn term(exprs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
        NodeSelectorTerm {
            match_expressions: exprs,
            match_fields: vec![],
        }
    }

    #[test]
    fn every_operator_against_present_and_absent_keys() {
        let node = labels(&[("zone", "a"), ("gpus", "4")]);
        let cases: &[(&str, &str, &[&str], bool)] = &[
            ("zone", "In", &["a", "b"], true),
            ("zone", "In", &["b"], false),
            ("missing", "In", &["a"], false),
            ("zone", "NotIn", &["b"], true),
            ("zone", "NotIn", &["a"], false),
            ("missing", "NotIn", &["a"], true),
            ("zone", "Exists", &[], true),
            ("missing", "Exists", &[], false),
            ("zone", "DoesNotExist", &[], false),
            ("missing", "DoesNotExist", &[], true),
            ("gpus", "Gt", &["3"], true),
            ("gpus", "Gt", &["4"], false),
            ("gpus", "Lt", &["5"], true),
            ("gpus", "Lt", &["4"], false),
            ("zone", "Gt", &["1"], false),
            ("missing", "Lt", &["1"], false),
        ];
        for (key, op, values, want) in cases {
            let got = node_selector_term_matches(&term(vec![req(key, op, values)]), "n1", &node);
            assert_eq!(got, Ok(*want), "{key} {op} {values:?}");
        }
    }

    #[test]
    fn invalid_requirements_are_errors_with_paths() {
        let node = labels(&[("gpus", "4")]);
        let cases: &[(NodeSelectorRequirement, &str)] = &[
            (
                req("gpus", "Gt", &["many"]),
                "matchExpressions[0]: operator Gt needs an integer value, got \"many\"",
            ),
            (
                req("gpus", "Lt", &["1", "2"]),
                "matchExpressions[0]: operator Lt needs exactly one value, got 2",
            ),
            (
                req("gpus", "In", &[]),
                "matchExpressions[0]: operator In needs at least one value",
            ),
            (
                req("gpus", "Exists", &["x"]),
                "matchExpressions[0]: operator Exists takes no values, got 1",
            ),
            (
                req("gpus", "Equals", &["4"]),
                "matchExpressions[0]: unknown operator \"Equals\" (expected In, NotIn, Exists, DoesNotExist, Gt or Lt)",
            ),
        ];
        for (r, want) in cases {
            let err = node_selector_term_matches(&term(vec![r.clone()]), "n1", &node).unwrap_err();
            assert_eq!(err.to_string(), *want);
        }
    }

    #[test]
    fn terms_are_ored_and_empty_terms_match_nothing() {
        let node = labels(&[("zone", "a")]);
        let selector = |terms: Vec<NodeSelectorTerm>| NodeSelector {
            node_selector_terms: terms,
        };
        let cases = [
            (selector(vec![]), false),
            (selector(vec![term(vec![])]), false),
            (
                selector(vec![
                    term(vec![req("zone", "In", &["b"])]),
                    term(vec![req("zone", "In", &["a"])]),
                ]),
                true,
            ),
            (
                selector(vec![term(vec![
                    req("zone", "In", &["a"]),
                    req("zone", "NotIn", &["a"]),
                ])]),
                false,
            ),
        ];
        for (sel, want) in cases {
            assert_eq!(node_selector_matches(&sel, "n1", &node).0, want, "{sel:?}");
        }
        // A broken term does not stop a later good one from matching.
        let (matched, errors) = node_selector_matches(
            &selector(vec![
                term(vec![req("zone", "Gt", &["x"])]),
                term(vec![req("zone", "Exists", &[])]),
            ]),
            "n1",
            &node,
        );
        assert!(matched);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path, "nodeSelectorTerms[0].matchExpressions[0]");
    }

    #[test]
    fn match_fields_only_on_metadata_name() {
        let fields = |r| NodeSelectorTerm {
            match_expressions: vec![],
            match_fields: vec![r],
        };
        let none = Labels::new();
        assert_eq!(
            node_selector_term_matches(&fields(req("metadata.name", "In", &["n1"])), "n1", &none),
            Ok(true)
        );
        assert_eq!(
            node_selector_term_matches(
                &fields(req("metadata.name", "NotIn", &["n1"])),
                "n1",
                &none
            ),
            Ok(false)
        );
        assert!(
            node_selector_term_matches(&fields(req("metadata.uid", "In", &["x"])), "n1", &none)
                .is_err()
        );
    }

    #[test]
    fn label_selectors() {
        let pod = labels(&[("app", "web"), ("tier", "fe")]);
        let sel = |ml: &[(&str, &str)], exprs: Vec<(&str, &str, &[&str])>| LabelSelector {
            match_labels: labels(ml),
            match_expressions: exprs
                .into_iter()
                .map(|(k, op, vs)| df_model::LabelSelectorRequirement {
                    key: k.into(),
                    operator: op.into(),
                    values: vs.iter().map(|v| v.to_string()).collect(),
                })
                .collect(),
        };
        let cases = [
            (sel(&[], vec![]), Ok(true)),
            (sel(&[("app", "web")], vec![]), Ok(true)),
            (sel(&[("app", "db")], vec![]), Ok(false)),
            (sel(&[], vec![("tier", "In", &["fe", "be"])]), Ok(true)),
            (sel(&[], vec![("tier", "NotIn", &["fe"])]), Ok(false)),
            (sel(&[], vec![("x", "NotIn", &["fe"])]), Ok(true)),
            (sel(&[], vec![("x", "DoesNotExist", &[])]), Ok(true)),
            (
                sel(&[("app", "web")], vec![("tier", "Exists", &[])]),
                Ok(true),
            ),
        ];
        for (selector, want) in cases {
            assert_eq!(
                label_selector_matches(&selector, &pod),
                want,
                "{selector:?}"
            );
        }
        assert!(label_selector_matches(&sel(&[], vec![("a", "Gt", &["1"])]), &pod).is_err());
    }

    #[test]
    fn parses_selector_strings_and_matches_as_upstream() {
        let node = labels(&[("zone", "a"), ("disk", "hdd")]);
        let cases: &[(&str, bool)] = &[
            ("zone=a", true),
            ("zone==a", true),
            ("zone=b", false),
            ("zone=a,disk!=ssd", true),
            ("zone=a,disk!=hdd", false),
            ("gpu!=yes", true),
            ("zone in (a,b)", true),
            ("zone in (b, c),disk", false),
            ("zone notin (b)", true),
            ("gpu notin (x)", true),
            ("disk", true),
            ("!gpu", true),
            ("!disk", false),
            (" zone = a , disk ", true),
        ];
        for (text, want) in cases {
            let selector = parse_label_selector(text).unwrap();
            assert_eq!(
                label_selector_matches(&selector, &node),
                Ok(*want),
                "{text}"
            );
        }
        let errors = [
            ("", "selector \"\" has an empty requirement"),
            ("zone=a,", "selector \"zone=a,\" has an empty requirement"),
            ("=a", "requirement \"=a\" has no valid key"),
            (
                "zone in a,b",
                "requirement \"zone in a\" needs its values in parentheses",
            ),
            (
                "zone in (a b)",
                "requirement \"zone in (a b)\" has an invalid value",
            ),
            (
                "zone notin a",
                "requirement \"zone notin a\" needs its values in parentheses",
            ),
            ("!", "requirement \"!\" has no valid key"),
        ];
        for (text, want) in errors {
            assert_eq!(parse_label_selector(text), Err(want.to_string()), "{text}");
        }
    }
}
