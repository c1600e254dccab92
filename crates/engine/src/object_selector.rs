//! kubectl's `-l/--selector` and `--field-selector`: which objects a command is about. The
//! label half reuses [`parse_label_selector`] and [`label_selector_matches`]; the field half
//! follows apimachinery's `fields.ParseSelector` (terms `field=value`, `field==value`,
//! `field!=value`, comma = AND, an empty selector selects everything) over the fields that
//! `kubectl get pods --field-selector` users reach for.

use df_model::{LabelSelector, Labels, Object, ObjectMeta, Pod};

use super::selector::{label_selector_matches, parse_label_selector};

/// The object fields a field selector may name, as kubectl spells them.
pub(crate) const SUPPORTED_FIELDS: [&str; 4] = [
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "status.phase",
];

/// A selector that cannot be used (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectSelectorError {
    #[error("invalid label selector {text:?}: {message}")]
    Labels { text: String, message: String },
    #[error(
        "invalid field selector {text:?}: cannot understand {term:?} (write FIELD=VALUE, FIELD==VALUE or FIELD!=VALUE, comma separated)"
    )]
    FieldSyntax { text: String, term: String },
    #[error("field label not supported: {field:?} (supported: {})", SUPPORTED_FIELDS.join(", "))]
    UnsupportedField { field: String },
}

/// What a selector looks at in an object.
#[derive(Debug, Clone, Copy)]
pub struct SelectedObject<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub labels: &'a Labels,
    /// `spec.nodeName`; empty for objects other than pods and for unbound pods.
    pub node_name: &'a str,
    /// `status.phase`; empty when the object records none.
    pub phase: &'a str,
}

impl<'a> SelectedObject<'a> {
    /// An object of the inputs: a pod with its node and phase, a Fluid operation with its
    /// phase, any other object by its metadata.
    pub fn of(object: &'a Object) -> Self {
        match object {
            Object::Pod(pod) => SelectedObject::of_pod(pod),
            Object::FluidOp(op) => SelectedObject::of_meta(&op.metadata, &op.status.phase),
            other => SelectedObject::of_meta(other.metadata(), ""),
        }
    }

    pub fn of_pod(pod: &'a Pod) -> Self {
        SelectedObject {
            node_name: &pod.spec.node_name,
            ..SelectedObject::of_meta(&pod.metadata, &pod.status.phase)
        }
    }

    /// An object whose only selectable fields are its metadata and `phase`.
    pub fn of_meta(meta: &'a ObjectMeta, phase: &'a str) -> Self {
        SelectedObject {
            namespace: &meta.namespace,
            name: &meta.name,
            labels: &meta.labels,
            node_name: "",
            phase,
        }
    }

    fn field(&self, field: Field) -> &str {
        match field {
            Field::Name => self.name,
            Field::Namespace => self.namespace,
            Field::NodeName => self.node_name,
            Field::Phase => self.phase,
        }
    }
}

/// One of [`SUPPORTED_FIELDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Namespace,
    NodeName,
    Phase,
}

impl Field {
    fn parse(text: &str) -> Option<Field> {
        let fields = [Field::Name, Field::Namespace, Field::NodeName, Field::Phase];
        SUPPORTED_FIELDS
            .iter()
            .position(|supported| *supported == text)
            .map(|i| fields[i])
    }
}

/// `field=value` (`equal`) or `field!=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldRequirement {
    field: Field,
    equal: bool,
    value: String,
}

/// `-l` and `--field-selector` together; the default selects every object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectSelector {
    labels: Option<LabelSelector>,
    fields: Vec<FieldRequirement>,
}

impl ObjectSelector {
    /// Parse the two selector texts as kubectl takes them; an empty text selects everything.
    pub fn parse(labels: Option<&str>, fields: Option<&str>) -> Result<Self, ObjectSelectorError> {
        let labels =
            match labels.map(str::trim).filter(|text| !text.is_empty()) {
                Some(text) => Some(parse_label_selector(text).map_err(|message| {
                    ObjectSelectorError::Labels {
                        text: text.to_string(),
                        message,
                    }
                })?),
                None => None,
            };
        let fields = match fields.map(str::trim).filter(|text| !text.is_empty()) {
            Some(text) => text
                .split(',')
                .map(|term| parse_field_term(text, term))
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        Ok(ObjectSelector { labels, fields })
    }

    /// Whether every object is selected (no `-l`, no `--field-selector`).
    pub fn is_everything(&self) -> bool {
        self.labels.is_none() && self.fields.is_empty()
    }

    pub fn matches(&self, object: &SelectedObject) -> bool {
        // A parsed selector holds only valid requirements, so matching cannot fail.
        let labels_match = self
            .labels
            .as_ref()
            .is_none_or(|selector| label_selector_matches(selector, object.labels) == Ok(true));
        labels_match
            && self
                .fields
                .iter()
                .all(|req| (object.field(req.field) == req.value) == req.equal)
    }
}

/// One term of a field selector; `!=` is tried before `==` and `=`, as upstream does.
fn parse_field_term(text: &str, term: &str) -> Result<FieldRequirement, ObjectSelectorError> {
    let syntax = || ObjectSelectorError::FieldSyntax {
        text: text.to_string(),
        term: term.to_string(),
    };
    let (field, equal, value) = if let Some((field, value)) = term.split_once("!=") {
        (field, false, value)
    } else if let Some((field, value)) = term.split_once("==") {
        (field, true, value)
    } else if let Some((field, value)) = term.split_once('=') {
        (field, true, value)
    } else {
        return Err(syntax());
    };
    let field = field.trim();
    if field.is_empty() {
        return Err(syntax());
    }
    let field = Field::parse(field).ok_or_else(|| ObjectSelectorError::UnsupportedField {
        field: field.to_string(),
    })?;
    Ok(FieldRequirement {
        field,
        equal,
        value: value.trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object<'a>(labels: &'a Labels, node_name: &'a str, phase: &'a str) -> SelectedObject<'a> {
        SelectedObject {
            namespace: "team-a",
            name: "web-0",
            labels,
            node_name,
            phase,
        }
    }

    #[test]
    fn label_and_field_selectors_as_kubectl_reads_them() {
        let labels: Labels = [("app", "web"), ("tier", "front")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let pod = object(&labels, "worker-1", "Pending");
        let cases: &[(Option<&str>, Option<&str>, bool)] = &[
            (None, None, true),
            (Some(""), Some(""), true),
            (Some("app=web"), None, true),
            (Some("app==web"), None, true),
            (Some("app!=web"), None, false),
            (Some("app!=db"), None, true),
            (Some("app in (db,web)"), None, true),
            (Some("app notin (db,web)"), None, false),
            (Some("tier"), None, true),
            (Some("!tier"), None, false),
            (Some("!gpu"), None, true),
            (Some("app=web,tier=back"), None, false),
            (None, Some("metadata.name=web-0"), true),
            (None, Some("metadata.name==web-1"), false),
            (None, Some("metadata.namespace!=team-b"), true),
            (
                None,
                Some("spec.nodeName=worker-1,status.phase=Pending"),
                true,
            ),
            (
                None,
                Some("spec.nodeName=worker-1,status.phase!=Pending"),
                false,
            ),
            (None, Some("spec.nodeName="), false),
            (Some("app=web"), Some("status.phase=Running"), false),
        ];
        for (labels, fields, expected) in cases {
            let selector = ObjectSelector::parse(*labels, *fields).unwrap();
            assert_eq!(
                selector.matches(&pod),
                *expected,
                "-l {labels:?} --field-selector {fields:?}"
            );
        }
        let unbound = object(&labels, "", "");
        let selector = ObjectSelector::parse(None, Some("spec.nodeName=")).unwrap();
        assert!(selector.matches(&unbound));
    }

    #[test]
    fn bad_selectors_are_named_errors() {
        let cases: &[(Option<&str>, Option<&str>, &str)] = &[
            (
                None,
                Some("spec.schedulerName=x"),
                "field label not supported: \"spec.schedulerName\" (supported: metadata.name, metadata.namespace, spec.nodeName, status.phase)",
            ),
            (
                None,
                Some("status.phase=Pending,nodeName"),
                "invalid field selector \"status.phase=Pending,nodeName\": cannot understand \"nodeName\" (write FIELD=VALUE, FIELD==VALUE or FIELD!=VALUE, comma separated)",
            ),
            (
                None,
                Some("=x"),
                "invalid field selector \"=x\": cannot understand \"=x\" (write FIELD=VALUE, FIELD==VALUE or FIELD!=VALUE, comma separated)",
            ),
            (
                Some("app in web"),
                None,
                "invalid label selector \"app in web\": requirement \"app in web\" needs its values in parentheses",
            ),
        ];
        for (labels, fields, expected) in cases {
            let error = ObjectSelector::parse(*labels, *fields).unwrap_err();
            assert_eq!(error.to_string(), *expected);
        }
    }
}
