//! Strict input: every object read from manifests checked against its schema, as the API
//! server's strict field validation (`kubectl apply --validate=strict`) would.
//!
//! Core, apps and batch kinds are checked against k8s-openapi's types: a serde deserializer
//! over the positioned tree hands each struct the document's map and learns, from the field
//! list the struct declares, which keys it does not know; values of the wrong shape fail the
//! same walk. The custom resources this tool models are checked against the outlines of
//! [`super::schema`], which hand their embedded pod templates back to the same check. Every
//! message names the field and the expected shape in Kubernetes terms, never a Rust type.

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::de::{self, DeserializeOwned, Expected, IntoDeserializer, Unexpected, Visitor};

use super::schema::{self, InvalidValue, Issue, Shape, UnknownField};
use super::{Context, Finding};
use df_manifest::{Manifest, ManifestSet, Node, Pos, Value};
use df_model::Object;

/// One problem of the strict check, ready to print or to turn into a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    pub file: String,
    pub pos: Pos,
    pub path: String,
    pub message: String,
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file, self.pos, self.path, self.message
        )
    }
}

/// What the strict check found in a whole input set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrictReport {
    /// Unknown fields and values of the wrong shape, in input order.
    pub problems: Vec<SchemaProblem>,
    /// Objects of kinds with no schema here: `apiVersion kind` -> count.
    pub unchecked: BTreeMap<(String, String), usize>,
}

/// Input that does not match its schema: `plan` and `explain-placement` refuse it (exit 2),
/// since planning it would answer a different question than the one the user wrote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}\n{} problem{} in the input schema",
    .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"),
    .0.len(),
    if .0.len() == 1 { "" } else { "s" }
)]
pub struct SchemaErrors(pub Vec<SchemaProblem>);

impl StrictReport {
    /// Refuse schema problems unless `lenient`; what is left to say (schema problems when
    /// lenient, unchecked kinds) comes back as warning lines.
    pub fn enforce(self, lenient: bool) -> Result<Vec<String>, SchemaErrors> {
        if !lenient && !self.problems.is_empty() {
            return Err(SchemaErrors(self.problems));
        }
        let mut warnings: Vec<String> = self.problems.iter().map(ToString::to_string).collect();
        warnings.extend(self.unchecked_lines());
        Ok(warnings)
    }

    /// One line per unchecked apiVersion/kind, with a near-miss suggestion when there is one.
    pub fn unchecked_lines(&self) -> Vec<String> {
        self.unchecked
            .iter()
            .map(|((api_version, kind), count)| unchecked_message(api_version, kind, *count))
            .collect()
    }
}

/// Check every manifest of `set`: schemas, and objects defined twice.
pub fn check_set(set: &ManifestSet) -> StrictReport {
    let mut report = StrictReport::default();
    for (earlier, later) in duplicates(&set.manifests) {
        report
            .problems
            .push(problem(&later.file, duplicate_parts(earlier, later)));
    }
    for m in &set.manifests {
        match check(m) {
            Some(issues) => report.problems.extend(
                issues
                    .into_iter()
                    .map(|issue| problem(&m.file, issue_parts(issue))),
            ),
            None => {
                let (api_version, kind) = type_of(m);
                *report
                    .unchecked
                    .entry((api_version.to_string(), kind.to_string()))
                    .or_default() += 1;
            }
        }
    }
    report
}

fn problem(file: &str, (path, pos, message): (String, Pos, String)) -> SchemaProblem {
    SchemaProblem {
        file: file.to_string(),
        pos,
        path,
        message,
    }
}

/// The lint pass: DF005 for schema problems (a Fluid operation's unknown `spec` fields are
/// DF101's, with their rename hints), DF006 once per unchecked kind at its first object,
/// DF007 at the later of two definitions of one object.
pub(crate) fn lint(ctx: &mut Context<'_>, manifests: &[Manifest]) {
    let mut unchecked: BTreeMap<(&str, &str), (usize, &Manifest)> = BTreeMap::new();
    for m in manifests {
        let Some(issues) = check(m) else {
            unchecked.entry(type_of(m)).or_insert((0, m)).0 += 1;
            continue;
        };
        let fluid = matches!(m.object, Object::FluidOp(_));
        for issue in issues {
            if fluid && matches!(&issue, Issue::Unknown(f) if f.path.starts_with("spec.")) {
                continue;
            }
            let (path, pos, message) = issue_parts(issue);
            ctx.emit(
                m,
                Finding {
                    code: "DF005",
                    pos,
                    path,
                    message,
                    hint: None,
                },
            );
        }
    }
    for ((api_version, kind), (count, first)) in unchecked {
        let message = unchecked_message(api_version, kind, count);
        ctx.emit(
            first,
            Finding::at_key(first, "DF006", "apiVersion", message),
        );
    }
    for (earlier, later) in duplicates(manifests) {
        let (path, pos, message) = duplicate_parts(earlier, later);
        ctx.emit(
            later,
            Finding {
                code: "DF007",
                pos,
                path,
                message,
                hint: None,
            },
        );
    }
}

/// Pairs `(first definition, later definition)` of the same object: same API group, kind,
/// namespace and name. Objects named only by `generateName` are distinct by design.
fn duplicates(manifests: &[Manifest]) -> Vec<(&Manifest, &Manifest)> {
    let mut first: HashMap<(&str, &str, &str, &str), &Manifest> = HashMap::new();
    let mut pairs = Vec::new();
    for m in manifests {
        let meta = m.object.metadata();
        if meta.name.is_empty() || meta.name.ends_with(df_manifest::GENERATED_SUFFIX) {
            continue;
        }
        let (api_version, kind) = type_of(m);
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        match first.entry((group, kind, &meta.namespace, &meta.name)) {
            Entry::Occupied(earlier) => pairs.push((*earlier.get(), m)),
            Entry::Vacant(slot) => {
                slot.insert(m);
            }
        }
    }
    pairs
}

fn duplicate_parts(earlier: &Manifest, later: &Manifest) -> (String, Pos, String) {
    let pos = later.pos_of("metadata.name");
    let message = format!(
        "{} is defined twice: first at {}:{}, again here; only one of them can be planned",
        later.display_name(),
        earlier.file,
        earlier.pos_of("metadata.name")
    );
    ("metadata.name".into(), pos, message)
}

/// `(path, position, message)` of an issue; an unknown field points at its key.
pub(crate) fn issue_parts(issue: Issue<'_>) -> (String, Pos, String) {
    match issue {
        Issue::Unknown(field) => {
            let message = unknown_message(&field);
            let pos = field.key_pos;
            (field.path, pos, message)
        }
        Issue::Invalid(invalid) => (invalid.path, invalid.pos, invalid.message),
    }
}

/// `unknown field "nodeSelecter"; did you mean "nodeSelector"?`
pub(crate) fn unknown_message(field: &UnknownField<'_>) -> String {
    match field.suggestion {
        Some(s) => format!("unknown field {:?}; did you mean {s:?}?", field.key),
        None => format!("unknown field {:?}", field.key),
    }
}

/// The problems of one object, or `None` when its kind has no schema here.
pub(crate) fn check(m: &Manifest) -> Option<Vec<Issue<'_>>> {
    let (api_version, kind) = type_of(m);
    let shape = object_shape(api_version, kind)?;
    let mut out = Vec::new();
    schema::check_shape(&m.root, shape, "", &mut out);
    Some(out)
}

/// `apiVersion` and `kind` as the document spells them (decoding made sure both are there).
fn type_of(m: &Manifest) -> (&str, &str) {
    let field = |name| m.root.get(name).and_then(Node::as_str).unwrap_or("");
    (field("apiVersion"), field("kind"))
}

/// The schema of a whole object of `apiVersion`/`kind`, if this tool has one.
fn object_shape(api_version: &str, kind: &str) -> Option<&'static Shape> {
    use k8s_openapi::api::{apps, batch, core, policy, scheduling};
    const POD: Shape = Shape::Kube(kube::<core::v1::Pod>);
    const NODE: Shape = Shape::Kube(kube::<core::v1::Node>);
    const NAMESPACE: Shape = Shape::Kube(kube::<core::v1::Namespace>);
    const SERVICE: Shape = Shape::Kube(kube::<core::v1::Service>);
    const CONFIG_MAP: Shape = Shape::Kube(kube::<core::v1::ConfigMap>);
    const PVC: Shape = Shape::Kube(kube::<core::v1::PersistentVolumeClaim>);
    const SERVICE_ACCOUNT: Shape = Shape::Kube(kube::<core::v1::ServiceAccount>);
    const POD_TEMPLATE: Shape = Shape::Kube(kube::<core::v1::PodTemplate>);
    const DEPLOYMENT: Shape = Shape::Kube(kube::<apps::v1::Deployment>);
    const STATEFUL_SET: Shape = Shape::Kube(kube::<apps::v1::StatefulSet>);
    const DAEMON_SET: Shape = Shape::Kube(kube::<apps::v1::DaemonSet>);
    const REPLICA_SET: Shape = Shape::Kube(kube::<apps::v1::ReplicaSet>);
    const JOB: Shape = Shape::Kube(kube::<batch::v1::Job>);
    const CRON_JOB: Shape = Shape::Kube(kube::<batch::v1::CronJob>);
    const PRIORITY_CLASS: Shape = Shape::Kube(kube::<scheduling::v1::PriorityClass>);
    const PDB: Shape = Shape::Kube(kube::<policy::v1::PodDisruptionBudget>);
    const RESOURCE_QUOTA: Shape = Shape::Kube(kube::<core::v1::ResourceQuota>);
    const LIMIT_RANGE: Shape = Shape::Kube(kube::<core::v1::LimitRange>);
    Some(match (api_version, kind) {
        ("v1", "Pod") => &POD,
        ("v1", "Node") => &NODE,
        ("v1", "Namespace") => &NAMESPACE,
        ("v1", "Service") => &SERVICE,
        ("v1", "ConfigMap") => &CONFIG_MAP,
        ("v1", "PersistentVolumeClaim") => &PVC,
        ("v1", "ServiceAccount") => &SERVICE_ACCOUNT,
        ("v1", "PodTemplate") => &POD_TEMPLATE,
        ("v1", "ResourceQuota") => &RESOURCE_QUOTA,
        ("v1", "LimitRange") => &LIMIT_RANGE,
        ("apps/v1", "Deployment") => &DEPLOYMENT,
        ("apps/v1", "StatefulSet") => &STATEFUL_SET,
        ("apps/v1", "DaemonSet") => &DAEMON_SET,
        ("apps/v1", "ReplicaSet") => &REPLICA_SET,
        ("batch/v1", "Job") => &JOB,
        ("batch/v1", "CronJob") => &CRON_JOB,
        ("scheduling.k8s.io/v1", "PriorityClass") => &PRIORITY_CLASS,
        ("policy/v1", "PodDisruptionBudget") => &PDB,
        _ => return schema::custom_resource_shape(api_version, kind),
    })
}

/// The kinds with a schema here, for near-miss suggestions on the others.
fn checked_kinds() -> impl Iterator<Item = (&'static str, &'static str)> {
    [
        ("v1", "Pod"),
        ("v1", "Node"),
        ("v1", "Namespace"),
        ("v1", "Service"),
        ("v1", "ConfigMap"),
        ("v1", "PersistentVolumeClaim"),
        ("v1", "ServiceAccount"),
        ("v1", "PodTemplate"),
        ("v1", "ResourceQuota"),
        ("v1", "LimitRange"),
        ("apps/v1", "Deployment"),
        ("apps/v1", "StatefulSet"),
        ("apps/v1", "DaemonSet"),
        ("apps/v1", "ReplicaSet"),
        ("batch/v1", "Job"),
        ("batch/v1", "CronJob"),
        ("scheduling.k8s.io/v1", "PriorityClass"),
        ("policy/v1", "PodDisruptionBudget"),
    ]
    .into_iter()
    .chain(schema::CUSTOM_RESOURCES.iter().map(|(a, k, _)| (*a, *k)))
}

/// `3 objects of apiVersion/kind were not checked` and, when the same kind is known under a
/// near group (an older or misspelled API group), which apiVersion was probably meant.
fn unchecked_message(api_version: &str, kind: &str, count: usize) -> String {
    let objects = if count == 1 { "object" } else { "objects" };
    let mut message =
        format!("{count} {objects} of {api_version} {kind} not checked (no schema for this kind)");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let near = checked_kinds()
        .filter(|(_, k)| *k == kind)
        .map(|(a, _)| a)
        .filter(|a| *a != api_version)
        .min_by_key(|a| {
            let other = a.rsplit_once('/').map_or("", |(g, _)| g);
            strsim::levenshtein(group, other)
        });
    if let Some(near) = near {
        message.push_str(&format!("; did you mean apiVersion {near:?}?"));
    }
    message
}

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
                let (suggestion, note) = schema::suggest(&entry.key, fields.iter().copied());
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// Every kind the tool reads has a schema here: a kind added to the registry without one
    /// would pass lint unchecked.
    #[test]
    fn every_registered_kind_has_a_schema() {
        let missing: Vec<String> = df_model::kinds::registry()
            .flat_map(|kind| kind.api_versions.iter().map(move |v| (*v, kind.kind)))
            .filter(|(api_version, kind)| object_shape(api_version, kind).is_none())
            .map(|(api_version, kind)| format!("{api_version} {kind}"))
            .collect();
        assert_eq!(missing, Vec::<String>::new());
    }
    use df_manifest::parse_text;

    /// `(path, line:column, message)` of every problem of one document: what decoding
    /// rejects (the fields placement reads), then what the strict check finds.
    fn problems(text: &str) -> Vec<(String, String, String)> {
        let (manifests, load) = parse_text(&Arc::from("t.yaml"), text);
        let decode = load.into_iter().map(|p| match p {
            df_manifest::LoadError::Decode {
                path, pos, message, ..
            } => (path, pos.to_string(), message),
            other => panic!("{other}"),
        });
        let set = ManifestSet {
            manifests,
            ..ManifestSet::default()
        };
        let strict = check_set(&set)
            .problems
            .into_iter()
            .map(|p| (p.path, p.pos.to_string(), p.message));
        decode.chain(strict).collect()
    }

    /// `(path, line:column, message)` of each expected problem.
    type Expected = &'static [(&'static str, &'static str, &'static str)];

    #[test]
    fn typos_and_wrong_shapes_are_named_in_kubernetes_terms() {
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n";
        let cases: &[(&str, Expected)] = &[
            (
                "  nodeSelecter: {a: b}\n",
                &[(
                    "spec.nodeSelecter",
                    "5:3",
                    "unknown field \"nodeSelecter\"; did you mean \"nodeSelector\"?",
                )],
            ),
            (
                "  containers:\n  - {name: c, image: i, imagePullPolicy: Always, resources: {request: {cpu: 1}}}\n",
                &[(
                    "spec.containers[0].resources.request",
                    "6:62",
                    "unknown field \"request\"; did you mean \"requests\"?",
                )],
            ),
            (
                "  priority: high\n",
                &[(
                    "spec.priority",
                    "5:13",
                    "expected an integer, got the string \"high\"",
                )],
            ),
            (
                "  tolerations: {key: a}\n",
                &[("spec.tolerations", "5:16", "expected a list, got an object")],
            ),
            (
                "  tolerations: [[a, Exists]]\n",
                &[(
                    "spec.tolerations[0]",
                    "5:17",
                    "expected an object (field: value), got a list",
                )],
            ),
            (
                "  containers:\n  - name: c\n    resources: {requests: {cpu: [1]}}\n",
                &[(
                    "spec.containers[0].resources.requests.cpu",
                    "7:33",
                    "expected a resource quantity such as \"500m\" or \"2Gi\", got a list",
                )],
            ),
            (
                "  overhead: {cpu: 1}\n  zzz: 1\n",
                &[("spec.zzz", "6:3", "unknown field \"zzz\"")],
            ),
        ];
        for (spec, expected) in cases {
            let expected: Vec<_> = expected
                .iter()
                .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
                .collect();
            assert_eq!(problems(&format!("{pod}{spec}")), expected, "{spec}");
        }
    }

    #[test]
    fn templates_inside_custom_resources_are_checked() {
        let cases = [
            (
                "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\nspec:\n  tasks:\n  - name: a\n    template:\n      spec:\n        schedulerNmae: volcano\n",
                (
                    "spec.tasks[0].template.spec.schedulerNmae",
                    "9:9",
                    "unknown field \"schedulerNmae\"; did you mean \"schedulerName\"?",
                ),
            ),
            (
                "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {name: l}\nspec: [a]\n",
                (
                    "spec",
                    "4:7",
                    "expected an object (field: value), got a list",
                ),
            ),
            (
                "apiVersion: scheduling.godel.kubewharf.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec:\n  affinity:\n    podGroupAffinity:\n      requried: [{topologyKey: tor}]\n",
                (
                    "spec.affinity.podGroupAffinity.requried",
                    "7:7",
                    "unknown field \"requried\"; did you mean \"required\"?",
                ),
            ),
            (
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p, lables: {a: b}}\n",
                (
                    "metadata.lables",
                    "3:21",
                    "unknown field \"lables\"; did you mean \"labels\"?",
                ),
            ),
        ];
        for (text, (path, pos, message)) in cases {
            assert_eq!(
                problems(text),
                vec![(path.to_string(), pos.to_string(), message.to_string())],
                "{text}"
            );
        }
    }

    #[test]
    fn unchecked_kinds_are_counted_with_near_misses() {
        let text = "apiVersion: scheduling.godel.bytedance.com/v1alpha1\nkind: PodGroup\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: x}\n";
        let (manifests, _) = parse_text(&Arc::from("t.yaml"), text);
        let set = ManifestSet {
            manifests,
            ..ManifestSet::default()
        };
        assert_eq!(
            check_set(&set).unchecked_lines(),
            vec![
                "2 objects of example.com/v1 Widget not checked (no schema for this kind)",
                "1 object of scheduling.godel.bytedance.com/v1alpha1 PodGroup not checked (no schema for this kind); did you mean apiVersion \"scheduling.godel.kubewharf.io/v1alpha1\"?",
            ]
        );
    }

    #[test]
    fn duplicates_name_both_positions() {
        let doc = |ns: &str| {
            format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: {ns}\n")
        };
        let mut set = ManifestSet::default();
        for (file, ns) in [("a.yaml", "shop"), ("b.yaml", "shop"), ("c.yaml", "other")] {
            df_manifest::add_source(&mut set, file.into(), None, doc(ns));
        }
        let found: Vec<String> = check_set(&set)
            .problems
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            vec![
                "b.yaml:4:9: metadata.name: Pod/shop/web is defined twice: first at a.yaml:4:9, again here; only one of them can be planned"
            ]
        );
    }
}
