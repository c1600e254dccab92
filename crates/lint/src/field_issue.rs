//! What a check of a document against a schema finds: a field the schema does not know (with
//! the field it probably meant), or a value of the wrong shape, each with its path and position.

use df_manifest::{Node, Pos, Value};

/// What a schema walk finds.
pub(crate) enum Issue<'n> {
    /// A field the schema does not know.
    Unknown(UnknownField<'n>),
    /// A value of the wrong shape (a list where an object belongs, text where a number does).
    Invalid(InvalidValue),
}

/// A value that does not have the shape its field needs, said in Kubernetes terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidValue {
    pub path: String,
    pub pos: Pos,
    pub message: String,
}

/// Renames that edit distance does not find: the seed design's spellings.
const RENAMED: &[(&str, &str, &str)] = &[
    (
        "require",
        "requires",
        "the design document's `require: [string]` shipped as `requires: [{name: <label key>}]`",
    ),
    (
        "prefer",
        "prefers",
        "the design document's `prefer:` shipped as `prefers: [{name: <label key>, weight: 1..100}]`",
    ),
    (
        "operationRef",
        "runAfter",
        "the design document's `operationRef` shipped as `spec.runAfter`",
    ),
];

/// One field the outline does not know.
pub(crate) struct UnknownField<'n> {
    /// Full path of the field.
    pub path: String,
    pub key: &'n str,
    pub key_pos: Pos,
    pub suggestion: Option<&'static str>,
    /// Why the suggestion, when it is a known rename rather than a typo.
    pub note: Option<&'static str>,
    pub value: &'n Node,
}

/// The closest known field: a documented rename first, then the nearest by edit distance
/// (transpositions count once, case-insensitive, at most a third of the word), ties broken
/// by the schema's order.
pub(crate) fn suggest(
    key: &str,
    fields: impl Iterator<Item = &'static str> + Clone,
) -> (Option<&'static str>, Option<&'static str>) {
    if let Some((_, to, note)) = RENAMED
        .iter()
        .find(|(from, to, _)| *from == key && fields.clone().any(|name| name == *to))
    {
        return (Some(to), Some(note));
    }
    (df_model::text::closest(key, fields), None)
}

/// What a node holds, for messages.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Int(n) => format!("the number {n}"),
        Value::Float(n) => format!("the number {n}"),
        Value::Str(s) => format!("the string {s:?}"),
        Value::Seq(_) => "a list".into(),
        Value::Map(_) => "an object".into(),
    }
}
