//! The strict check of a Kubernetes type (from k8s-openapi) over the positioned tree: serde
//! walks the document as the type's own deserializer would, and every field the type does not
//! know and every value of the wrong shape is found with its path and position.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeOwned, Expected, IntoDeserializer, Unexpected, Visitor};

use crate::field_issue::{InvalidValue, Issue, UnknownField, describe, suggest};
use df_manifest::{Node, Pos, Value};

/// The strict check of the Kubernetes type `T` on the subtree `node` at `path`.
pub(crate) fn kube<'n, T: DeserializeOwned>(node: &'n Node, path: &str, out: &mut Vec<Issue<'n>>) {
    let found = RefCell::new(Vec::new());
    let result = T::deserialize(TreeDeserializer {
        node,
        path: path.to_string(),
        found: &found,
    });
    out.extend(found.into_inner());
    if let Err(e) = result {
        out.push(Issue::Invalid(InvalidValue {
            path: e.path.unwrap_or_else(|| path.to_string()),
            pos: e.pos.unwrap_or(node.pos),
            message: e.message,
        }));
    }
}

/// Fields of Kubernetes releases after the v1.34 types of k8s-openapi that this tool reads:
/// the Workload API's pod fields (`workloadRef` in v1.35, `schedulingGroup` in v1.36).
const NEWER_FIELDS: &[(&str, &[&str])] = &[("PodSpec", &["workloadRef", "schedulingGroup"])];

/// A failure of the strict walk: where (filled in by the innermost node that sees it) and what.
#[derive(Debug)]
struct WalkError {
    path: Option<String>,
    pos: Option<Pos>,
    message: String,
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WalkError {}

impl de::Error for WalkError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        WalkError {
            path: None,
            pos: None,
            message: msg.to_string(),
        }
    }

    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Self::custom(format!(
            "expected {}, got {}",
            expected_in_kube_terms(exp),
            unexpected_in_kube_terms(&unexp)
        ))
    }

    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Self::custom(format!(
            "expected {}, got {}",
            expected_in_kube_terms(exp),
            unexpected_in_kube_terms(&unexp)
        ))
    }
}

/// What a k8s-openapi visitor expects, in the words of the Kubernetes API reference.
fn expected_in_kube_terms(exp: &dyn Expected) -> String {
    let text = exp.to_string();
    match text.as_str() {
        "IntOrString" => "an integer or a string".into(),
        "Quantity" => "a resource quantity such as \"500m\" or \"2Gi\"".into(),
        "Time" | "MicroTime" => "a timestamp (RFC 3339)".into(),
        "field identifier" => "a field name".into(),
        "a 32-bit integer" | "i32" => "a 32-bit integer".into(),
        "i64" | "u64" | "u32" => "an integer".into(),
        "f64" => "a number".into(),
        "a string" | "a borrowed string" => "a string".into(),
        "a boolean" => "true or false".into(),
        other if other.contains(' ') => other.to_string(),
        // A bare name is a Rust type or an apiVersion/kind constant: the struct wants a map.
        other if other.contains('/') || other.starts_with(|c: char| c.is_ascii_lowercase()) => {
            format!("{other:?}")
        }
        _ => "an object (field: value)".into(),
    }
}

fn unexpected_in_kube_terms(unexp: &Unexpected<'_>) -> String {
    match unexp {
        Unexpected::Bool(b) => format!("the boolean {b}"),
        Unexpected::Unsigned(n) => format!("the number {n}"),
        Unexpected::Signed(n) => format!("the number {n}"),
        Unexpected::Float(n) => format!("the number {n}"),
        Unexpected::Str(s) => format!("the string {s:?}"),
        Unexpected::Unit | Unexpected::Option => "null".into(),
        Unexpected::Seq => "a list".into(),
        Unexpected::Map => "an object".into(),
        other => other.to_string(),
    }
}

/// A serde deserializer over one node of the positioned tree. Structs report the keys their
/// field list lacks into `found` and go on (so every unknown field of a document is found in
/// one pass); a value of the wrong shape stops the walk with its path and position.
struct TreeDeserializer<'n, 'f> {
    node: &'n Node,
    path: String,
    found: &'f RefCell<Vec<Issue<'n>>>,
}

impl<'n, 'f> TreeDeserializer<'n, 'f> {
    fn child(&self, node: &'n Node, path: String) -> Self {
        TreeDeserializer {
            node,
            path,
            found: self.found,
        }
    }

    /// Fill in where an error happened, unless a deeper node already did.
    fn locate(&self, mut e: WalkError) -> WalkError {
        if e.path.is_none() {
            e.path = Some(self.path.clone());
            e.pos = Some(self.node.pos);
        }
        e
    }

    fn wrong_shape(&self, expected: &str) -> WalkError {
        self.locate(WalkError {
            path: None,
            pos: None,
            message: format!("expected {expected}, got {}", describe(&self.node.value)),
        })
    }

    fn visit_entries<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let Value::Map(entries) = &self.node.value else {
            return Err(self.wrong_shape("an object (field: value)"));
        };
        let result = visitor.visit_map(EntryAccess {
            parent: &self,
            entries: entries.iter(),
            value: None,
        });
        result.map_err(|e| self.locate(e))
    }
}

impl<'n> de::Deserializer<'n> for TreeDeserializer<'n, '_> {
    type Error = WalkError;

    fn deserialize_any<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let result = match &self.node.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int(n) => visitor.visit_i64(*n),
            Value::Float(n) => visitor.visit_f64(*n),
            Value::Str(s) => visitor.visit_str(s),
            Value::Seq(_) => return self.deserialize_seq(visitor),
            Value::Map(_) => return self.visit_entries(visitor),
        };
        result.map_err(|e| self.locate(e))
    }

    fn deserialize_bool<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.node.value {
            Value::Bool(b) => visitor.visit_bool(b).map_err(|e| self.locate(e)),
            _ => Err(self.wrong_shape("true or false")),
        }
    }

    fn deserialize_i32<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i64<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.node.value {
            Value::Int(n) => visitor.visit_i64(n).map_err(|e| self.locate(e)),
            _ => Err(self.wrong_shape("an integer")),
        }
    }

    fn deserialize_f64<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.node.value {
            Value::Int(n) => visitor.visit_i64(n).map_err(|e| self.locate(e)),
            Value::Float(n) => visitor.visit_f64(n).map_err(|e| self.locate(e)),
            _ => Err(self.wrong_shape("a number")),
        }
    }

    fn deserialize_str<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match &self.node.value {
            Value::Str(s) => visitor.visit_str(s).map_err(|e| self.locate(e)),
            _ => Err(self.wrong_shape("a string")),
        }
    }

    fn deserialize_string<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.node.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'n>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let Value::Seq(items) = &self.node.value else {
            return Err(self.wrong_shape("a list"));
        };
        let access = ItemAccess {
            parent: &self,
            items: items.iter().enumerate(),
        };
        visitor.visit_seq(access).map_err(|e| self.locate(e))
    }

    fn deserialize_map<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.visit_entries(visitor)
    }

    fn deserialize_struct<V: Visitor<'n>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        if let Value::Map(entries) = &self.node.value {
            let mut found = self.found.borrow_mut();
            let newer = NEWER_FIELDS
                .iter()
                .find(|(type_name, _)| *type_name == name)
                .map_or(&[][..], |(_, newer)| *newer);
            let known = |key: &str| fields.contains(&key) || newer.contains(&key);
            for entry in entries.iter().filter(|e| !known(&e.key)) {
                let (suggestion, note) = suggest(&entry.key, fields.iter().copied());
                found.push(Issue::Unknown(UnknownField {
                    path: super::join(&self.path, &entry.key),
                    key: &entry.key,
                    key_pos: entry.key_pos,
                    suggestion,
                    note,
                    value: &entry.value,
                }));
            }
        }
        self.visit_entries(visitor)
    }

    fn deserialize_identifier<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'n>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'n>>
        i8 i16 i128 u8 u16 u32 u64 u128 f32 char bytes byte_buf unit unit_struct tuple
        tuple_struct enum
    }
}

/// The entries of a map, keys first then values, each value at its own path.
struct EntryAccess<'p, 'n, 'f> {
    parent: &'p TreeDeserializer<'n, 'f>,
    entries: std::slice::Iter<'n, df_manifest::tree::Entry>,
    value: Option<&'n df_manifest::tree::Entry>,
}

impl<'n> de::MapAccess<'n> for EntryAccess<'_, 'n, '_> {
    type Error = WalkError;

    fn next_key_seed<K: de::DeserializeSeed<'n>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, WalkError> {
        let Some(entry) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(entry);
        let key: de::value::StrDeserializer<'_, WalkError> = entry.key.as_str().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'n>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, WalkError> {
        let entry = self
            .value
            .take()
            .expect("serde asks for a value after its key");
        let path = super::join(&self.parent.path, &entry.key);
        seed.deserialize(self.parent.child(&entry.value, path))
    }
}

/// The items of a list, each at `path[i]`.
struct ItemAccess<'p, 'n, 'f> {
    parent: &'p TreeDeserializer<'n, 'f>,
    items: std::iter::Enumerate<std::slice::Iter<'n, Node>>,
}

impl<'n> de::SeqAccess<'n> for ItemAccess<'_, 'n, '_> {
    type Error = WalkError;

    fn next_element_seed<T: de::DeserializeSeed<'n>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, WalkError> {
        let Some((i, item)) = self.items.next() else {
            return Ok(None);
        };
        let path = format!("{}[{i}]", self.parent.path);
        seed.deserialize(self.parent.child(item, path)).map(Some)
    }
}
