//! One item of a state: a list item decoded into its object, and the objects of a stretch of
//! the state decoded together. Both the JSON and the YAML reader hand their items here.

use df_manifest::Pos;
use df_model::{Object, TypeMeta};

use crate::json_scan::string_end;

/// Objects decoded together, in file order, with the position of each of its nodes (in the
/// order of the nodes among `objects`). Batches are kept apart up to the state: joining them
/// into one list would hold every object twice at the peak.
#[derive(Default)]
pub(crate) struct DecodedBatch {
    pub(crate) objects: Vec<Object>,
    pub(crate) node_positions: Vec<Pos>,
}

impl DecodedBatch {
    /// Add `later`'s objects after these.
    pub(crate) fn append(&mut self, later: DecodedBatch) {
        self.objects.extend(later.objects);
        self.node_positions.extend(later.node_positions);
    }

    pub(crate) fn nodes(&self) -> impl Iterator<Item = (&str, Pos)> {
        self.objects
            .iter()
            .filter_map(|object| match object {
                Object::Node(node) => Some(node.metadata.name.as_str()),
                _ => None,
            })
            .zip(self.node_positions.iter().copied())
    }
}

/// Decode one object from its JSON text, its namespace defaulted; the error's field path and
/// message (with serde_json's position in the item).
pub(crate) fn decode_json_object(item: &[u8]) -> Result<Object, (String, String)> {
    let type_meta = match leading_type_meta(item) {
        Some(type_meta) => Ok(type_meta),
        None => serde_json::from_slice::<TypeMeta>(item)
            .map_err(|e| (String::from("kind"), e.to_string())),
    };
    let mut object = type_meta.and_then(|type_meta| {
        let mut de = serde_json::Deserializer::from_slice(item);
        Object::decode_untracked(type_meta.clone(), &mut de).or_else(|_| {
            // Decode again, slower, to learn which field is wrong.
            let mut de = serde_json::Deserializer::from_slice(item);
            Object::decode(type_meta, &mut de).map_err(|e| (e.path, e.message))
        })
    })?;
    if object.is_namespaced() && object.metadata().namespace.is_empty() {
        object.metadata_mut().namespace = "default".into();
    }
    Ok(object)
}

/// `apiVersion` and `kind` when they are the object's first two fields, as plain strings
/// (as kubectl writes them): found without reading the rest of the item, which the decoder
/// then reads once. `None` sends the item to the full [`TypeMeta`] decode.
fn leading_type_meta(item: &[u8]) -> Option<TypeMeta> {
    let mut type_meta = TypeMeta::default();
    let mut at = item.iter().position(|&b| b == b'{')? + 1;
    for field in 0..2 {
        let skip = |at: usize| {
            item[at..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map(|i| at + i)
        };
        at = skip(at)?;
        if field == 1 {
            (item[at] == b',').then_some(())?;
            at = skip(at + 1)?;
        }
        let key = plain_string(item, at)?;
        at = skip(at + key.len() + 2)?;
        (item[at] == b':').then_some(())?;
        at = skip(at + 1)?;
        let value = plain_string(item, at)?;
        at += value.len() + 2;
        let value = std::str::from_utf8(value).ok()?.to_string();
        match key {
            b"apiVersion" if type_meta.api_version.is_empty() => type_meta.api_version = value,
            b"kind" if type_meta.kind.is_empty() => type_meta.kind = value,
            _ => return None,
        }
    }
    Some(type_meta)
}

/// The body of the string starting at `bytes[at]`, if it has no escapes.
fn plain_string(bytes: &[u8], at: usize) -> Option<&[u8]> {
    (bytes.get(at) == Some(&b'"')).then_some(())?;
    let end = string_end(bytes, at + 1)?;
    let body = &bytes[at + 1..end - 1];
    (!body.contains(&b'\\')).then_some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut reads only plain leading strings; anything else goes to the full decode.
    #[test]
    fn leading_type_meta_takes_only_plain_leading_strings() {
        let type_meta = |api_version: &str, kind: &str| TypeMeta {
            api_version: api_version.into(),
            kind: kind.into(),
        };
        let cases = [
            (
                r#"{"apiVersion": "v1", "kind": "Pod", "spec": {}}"#,
                Some(type_meta("v1", "Pod")),
            ),
            (
                " {\n \"kind\":\"Node\" ,\n \"apiVersion\" : \"v1\"}",
                Some(type_meta("v1", "Node")),
            ),
            (
                r#"{"metadata": {}, "apiVersion": "v1", "kind": "Pod"}"#,
                None,
            ),
            (
                r#"{"apiVersion": "v1", "metadata": {}, "kind": "Pod"}"#,
                None,
            ),
            (r#"{"apiVersion": "v1", "kind": null}"#, None),
            (r#"{"apiVersion": "v\u0031", "kind": "Pod"}"#, None),
            (r#"{"kind": "Pod", "kind": "Node"}"#, None),
            (r#"{"apiVersion": "v1"}"#, None),
        ];
        for (item, expected) in cases {
            assert_eq!(leading_type_meta(item.as_bytes()), expected, "{item}");
        }
    }
}
