//! Known fields of the Fluid data operation API, for the unknown-field rule (DF101).
//!
//! Typed decoding skips unknown fields on purpose (the API server prunes them too), so the
//! check walks the positioned tree against this outline instead.

use crate::manifest::{Node, Value};

/// The outline of a YAML value: a map with known fields, a list of one shape, or anything.
pub(crate) enum Shape {
    Any,
    Map(&'static [(&'static str, Shape)]),
    List(&'static Shape),
}

const OBJECT_REF: Shape = Shape::Map(&[
    ("apiVersion", Shape::Any),
    ("kind", Shape::Any),
    ("name", Shape::Any),
    ("namespace", Shape::Any),
]);

const RUN_AFTER: Shape = Shape::Map(&[
    ("apiVersion", Shape::Any),
    ("kind", Shape::Any),
    ("name", Shape::Any),
    ("namespace", Shape::Any),
    (
        "affinityStrategy",
        Shape::Map(&[
            ("dependOn", OBJECT_REF),
            ("policy", Shape::Any),
            (
                "requires",
                Shape::List(&Shape::Map(&[("name", Shape::Any)])),
            ),
            (
                "prefers",
                Shape::List(&Shape::Map(&[("name", Shape::Any), ("weight", Shape::Any)])),
            ),
        ]),
    ),
]);

/// `spec` of the four kinds together: a field valid for one kind is not reported on another
/// (that mistake is rare and the API server reports it), so no valid manifest is flagged.
pub(crate) const OP_SPEC: Shape = Shape::Map(&[
    ("affinity", Shape::Any),
    ("backupPath", Shape::Any),
    ("block", Shape::Any),
    ("dataset", Shape::Any),
    ("from", Shape::Any),
    ("image", Shape::Any),
    ("imagePullPolicy", Shape::Any),
    ("imagePullSecrets", Shape::Any),
    ("imageTag", Shape::Any),
    ("loadMetadata", Shape::Any),
    ("nodeSelector", Shape::Any),
    ("options", Shape::Any),
    ("parallelOptions", Shape::Any),
    ("parallelism", Shape::Any),
    ("podMetadata", Shape::Any),
    ("policy", Shape::Any),
    ("processor", Shape::Any),
    ("resources", Shape::Any),
    ("runAfter", RUN_AFTER),
    ("runAs", Shape::Any),
    ("runtimeType", Shape::Any),
    ("schedule", Shape::Any),
    ("schedulerName", Shape::Any),
    ("target", Shape::Any),
    ("to", Shape::Any),
    ("tolerations", Shape::Any),
    ("ttlSecondsAfterFinished", Shape::Any),
]);

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
    pub suggestion: Option<&'static str>,
    /// Why the suggestion, when it is a known rename rather than a typo.
    pub note: Option<&'static str>,
    pub value: &'n Node,
}

/// Collect the fields of `node` (at `path`) that `shape` does not know.
pub(crate) fn unknown_fields<'n>(
    node: &'n Node,
    shape: &Shape,
    path: &str,
    out: &mut Vec<UnknownField<'n>>,
) {
    match (shape, &node.value) {
        (Shape::Map(fields), Value::Map(entries)) => {
            for entry in entries {
                let child = super::join(path, &entry.key);
                match fields.iter().find(|(name, _)| *name == entry.key) {
                    Some((_, shape)) => unknown_fields(&entry.value, shape, &child, out),
                    None => {
                        let (suggestion, note) = suggest(&entry.key, fields);
                        out.push(UnknownField {
                            path: child,
                            key: &entry.key,
                            suggestion,
                            note,
                            value: &entry.value,
                        });
                    }
                }
            }
        }
        (Shape::List(item), Value::Seq(items)) => {
            for (i, value) in items.iter().enumerate() {
                unknown_fields(value, item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The closest known field: a documented rename first, then the nearest by edit distance
/// (transpositions count once, case-insensitive, at most a third of the word), ties broken by the outline's order.
fn suggest(
    key: &str,
    fields: &[(&'static str, Shape)],
) -> (Option<&'static str>, Option<&'static str>) {
    if let Some((_, to, note)) = RENAMED
        .iter()
        .find(|(from, to, _)| *from == key && fields.iter().any(|(name, _)| name == to))
    {
        return (Some(to), Some(note));
    }
    let lower = key.to_ascii_lowercase();
    let best = fields
        .iter()
        .map(|(name, _)| {
            (
                strsim::osa_distance(&lower, &name.to_ascii_lowercase()),
                *name,
            )
        })
        .min_by_key(|(distance, _)| *distance);
    match best {
        Some((distance, name)) if distance <= (key.len() / 3).max(1) => (Some(name), None),
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::tree::parse_documents;

    #[test]
    fn suggestions() {
        let text = "runAfter:\n  kind: DataLoad\n  nmae: a\n  affinityStratgey: {}\n  affinityStrategy:\n    require: [x]\n    polcy: Require\n    prefers: [{name: a, wieght: 3}]\n  zzz: 1\n";
        let doc = &parse_documents(text).unwrap()[0];
        let mut out = Vec::new();
        unknown_fields(doc, &OP_SPEC, "spec", &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|u| (u.path.as_str(), u.suggestion, u.value.pos.line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("spec.runAfter.nmae", Some("name"), 3),
                (
                    "spec.runAfter.affinityStratgey",
                    Some("affinityStrategy"),
                    4
                ),
                (
                    "spec.runAfter.affinityStrategy.require",
                    Some("requires"),
                    6
                ),
                ("spec.runAfter.affinityStrategy.polcy", Some("policy"), 7),
                (
                    "spec.runAfter.affinityStrategy.prefers[0].wieght",
                    Some("weight"),
                    8
                ),
                ("spec.runAfter.zzz", None, 9),
            ]
        );
    }
}
