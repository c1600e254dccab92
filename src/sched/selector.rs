//! Selector semantics, the only implementation in the project: node selector terms (node
//! affinity, nodeSelector) and label selectors (pod affinity, topology spread).
//!
//! Invalid requirements (unknown operator, `Gt` with a non-integer, wrong value count) do not
//! match and are reported as a [`SelectorError`], as upstream's lazy-error selector does: the
//! term fails, and the explanation says why.

use std::collections::BTreeMap;

use crate::model::{
    LabelSelector, Labels, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct SelectorError {
    /// Field path relative to the selector (`nodeSelectorTerms[0].matchExpressions[1]`).
    pub path: String,
    pub message: String,
}

/// Check one node-selector requirement's shape; `Ok` when it can be evaluated.
pub fn validate_node_requirement(req: &NodeSelectorRequirement) -> Result<(), String> {
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
        matched &= requirement_matches(req, labels.get(&req.key).map(String::as_str));
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
pub fn node_selector_map_matches(selector: &BTreeMap<String, String>, labels: &Labels) -> bool {
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
            "In" => value.is_some_and(|v| req.values.contains(v)),
            "NotIn" => value.is_none_or(|v| !req.values.contains(v)),
            "Exists" => value.is_some(),
            _ => value.is_none(),
        }
    }))
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
                .map(|(k, op, vs)| crate::model::LabelSelectorRequirement {
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
}
