//! Strict input: every object read from manifests checked against its schema, as the API
//! server's strict field validation (`kubectl apply --validate=strict`) would.
//!
//! Core, apps and batch kinds are checked against k8s-openapi's types: a serde deserializer
//! over the positioned tree hands each struct the document's map and learns, from the field
//! list the struct declares, which keys it does not know; values of the wrong shape fail the
//! same walk. The custom resources this tool models are checked against the outlines of
//! [`super::schema`], which hand their embedded pod templates back to the same check. Every
//! message names the field and the expected shape in Kubernetes terms, never a Rust type.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use super::{Context, Finding};
use crate::field_issue::{Issue, UnknownField};
use crate::schema::{self, Shape};
use crate::typed::kube;
use df_manifest::{Manifest, ManifestSet, Node, Pos};
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
/// namespace and name. Objects named only by `generateName` are distinct by design. Only kinds
/// a plan addresses count: of the others (ConfigMaps, ClusterRoles, ...) nothing is planned, so
/// which definition wins changes no answer of this tool.
fn duplicates(manifests: &[Manifest]) -> Vec<(&Manifest, &Manifest)> {
    let mut first: HashMap<(&str, &str, &str, &str), &Manifest> = HashMap::new();
    let mut pairs = Vec::new();
    for m in manifests {
        if !m.object.kind_info().is_some_and(|kind| kind.addressable) {
            continue;
        }
        let meta = m.object.metadata();
        if meta.name.is_empty() || df_manifest::is_generated(&meta.name) {
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
    use k8s_openapi::api::{apps, batch, core, policy, resource, scheduling, storage};
    /// The four `resource.k8s.io` kinds of one version module.
    macro_rules! dra_shapes {
        ($version:ident) => {{
            const CLASS: Shape = Shape::Kube(kube::<resource::$version::DeviceClass>);
            const SLICE: Shape = Shape::Kube(kube::<resource::$version::ResourceSlice>);
            const CLAIM: Shape = Shape::Kube(kube::<resource::$version::ResourceClaim>);
            const TEMPLATE: Shape = Shape::Kube(kube::<resource::$version::ResourceClaimTemplate>);
            match kind {
                "DeviceClass" => &CLASS,
                "ResourceSlice" => &SLICE,
                "ResourceClaim" => &CLAIM,
                "ResourceClaimTemplate" => &TEMPLATE,
                _ => return None,
            }
        }};
    }
    const POD: Shape = Shape::Kube(kube::<core::v1::Pod>);
    const NODE: Shape = Shape::Kube(kube::<core::v1::Node>);
    const NAMESPACE: Shape = Shape::Kube(kube::<core::v1::Namespace>);
    const SERVICE: Shape = Shape::Kube(kube::<core::v1::Service>);
    const CONFIG_MAP: Shape = Shape::Kube(kube::<core::v1::ConfigMap>);
    const PVC: Shape = Shape::Kube(kube::<core::v1::PersistentVolumeClaim>);
    const PV: Shape = Shape::Kube(kube::<core::v1::PersistentVolume>);
    const STORAGE_CLASS: Shape = Shape::Kube(kube::<storage::v1::StorageClass>);
    const CSI_NODE: Shape = Shape::Kube(kube::<storage::v1::CSINode>);
    const CSI_DRIVER: Shape = Shape::Kube(kube::<storage::v1::CSIDriver>);
    const CSI_CAPACITY: Shape = Shape::Kube(kube::<storage::v1::CSIStorageCapacity>);
    const VOLUME_ATTACHMENT: Shape = Shape::Kube(kube::<storage::v1::VolumeAttachment>);
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
        ("v1", "PersistentVolume") => &PV,
        ("storage.k8s.io/v1", "StorageClass") => &STORAGE_CLASS,
        ("storage.k8s.io/v1", "CSINode") => &CSI_NODE,
        ("storage.k8s.io/v1", "CSIDriver") => &CSI_DRIVER,
        ("storage.k8s.io/v1", "CSIStorageCapacity") => &CSI_CAPACITY,
        ("storage.k8s.io/v1", "VolumeAttachment") => &VOLUME_ATTACHMENT,
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
        ("resource.k8s.io/v1", _) => dra_shapes!(v1),
        ("resource.k8s.io/v1beta2", _) => dra_shapes!(v1beta2),
        ("resource.k8s.io/v1beta1", _) => dra_shapes!(v1beta1),
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
        ("v1", "PersistentVolume"),
        ("storage.k8s.io/v1", "StorageClass"),
        ("storage.k8s.io/v1", "CSINode"),
        ("storage.k8s.io/v1", "CSIDriver"),
        ("storage.k8s.io/v1", "CSIStorageCapacity"),
        ("storage.k8s.io/v1", "VolumeAttachment"),
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
    .chain(
        DRA_VERSIONS
            .into_iter()
            .flat_map(|version| DRA_KINDS.map(|kind| (version, kind))),
    )
    .chain(schema::custom_resources().map(|(a, k, _)| (*a, *k)))
}

/// API groups a project renamed, with the group its kinds are served under now: Godel's
/// PodGroup moved from ByteDance's groups to kubewharf's.
const RENAMED_GROUPS: [(&str, &str); 2] = [
    (
        "scheduling.godel.bytedance.com",
        "scheduling.godel.kubewharf.io",
    ),
    (
        "scheduling.orchestration.bytedance.com",
        "scheduling.godel.kubewharf.io",
    ),
];

const DRA_KINDS: [&str; 4] = [
    "DeviceClass",
    "ResourceSlice",
    "ResourceClaim",
    "ResourceClaimTemplate",
];

const DRA_VERSIONS: [&str; 3] = [
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
];

/// `3 objects of apiVersion/kind were not checked` and, when the same kind is known under a
/// renamed group or a near one (a misspelling), which apiVersion was probably meant.
fn unchecked_message(api_version: &str, kind: &str, count: usize) -> String {
    let objects = if count == 1 { "object" } else { "objects" };
    let mut message =
        format!("{count} {objects} of {api_version} {kind} not checked (no schema for this kind)");
    let group_of = |a: &str| a.rsplit_once('/').map_or("", |(g, _)| g).to_string();
    let group = group_of(api_version);
    let same_kind = || {
        checked_kinds()
            .filter(|(_, k)| *k == kind)
            .map(|(a, _)| a)
            .filter(|a| *a != api_version)
    };
    let renamed = RENAMED_GROUPS
        .iter()
        .find(|(old, _)| *old == group)
        .and_then(|(_, new)| same_kind().find(|a| group_of(a) == *new));
    let near = renamed.or_else(|| {
        same_kind()
            .map(|a| (strsim::levenshtein(&group, &group_of(a)), a))
            .filter(|(distance, _)| *distance <= (group.len() / 3).max(2))
            .min_by_key(|(distance, _)| *distance)
            .map(|(_, a)| a)
    });
    if let Some(near) = near {
        message.push_str(&format!("; did you mean apiVersion {near:?}?"));
    }
    message
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// Every kind the tool reads has a schema here: a kind added to the registry without one
    /// would pass lint unchecked.
    #[test]
    fn every_registered_kind_has_a_schema() {
        let missing: Vec<String> = df_model::registry::registry()
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

    /// A renamed group points at the project's group now; a misspelt one at the nearest group
    /// of the same kind; a group near none gets no guess.
    #[test]
    fn the_meant_api_version_of_an_unknown_group() {
        let cases = [
            // Godel's older group: by edit distance kube-batch's would be nearer.
            (
                "scheduling.orchestration.bytedance.com/v1alpha1",
                Some("scheduling.godel.kubewharf.io/v1alpha1"),
            ),
            (
                "scheduling.volcano.io/v1beta1",
                Some("scheduling.volcano.sh/v1beta1"),
            ),
            ("scheduling.example.com/v1", None),
        ];
        for (api_version, meant) in cases {
            let hint = meant.map_or(String::new(), |m| {
                format!("; did you mean apiVersion {m:?}?")
            });
            assert_eq!(
                unchecked_message(api_version, "PodGroup", 1),
                format!(
                    "1 object of {api_version} PodGroup not checked (no schema for this kind){hint}"
                )
            );
        }
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
