//! `snapshot`: write a `ClusterState` back as the `v1 List` that `--state` reads.
//!
//! The items are the slim model objects, so a snapshot holds exactly what placement depends on:
//! no managedFields, no env, no secrets. Redaction ([`Redaction`]) works on the typed objects, so
//! every place a name, label key or value can appear (nodeName, selectors, tolerations and
//! taints, runAfter, images) is rewritten with the same keyed hash and the redacted state places
//! pods exactly like the original.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::ClusterState;
use crate::recorded::SERVER_VERSION_ANNOTATION;
use df_model::dra::ResourceClaimSpec;
use df_model::fluid::{self, FluidOp, FluidRuntime};
use df_model::gang::{
    GROUP_NAME_ANNOTATION, VOLCANO_AFFINITY_ANNOTATION, VOLCANO_ANTI_AFFINITY_ANNOTATION,
    VOLCANO_TASK_ORDER_ANNOTATION,
};
use df_model::hypernode::{CONFIG_NAME, CONFIG_NAMESPACE};
use df_model::kueue::{
    ClusterQueue, Cohort, KueueWorkload, LocalQueue, ResourceFlavor, Topology,
    WorkloadPriorityClass,
};
use df_model::normalized_image_name;
use df_model::storage::{
    self, CSIDriver, CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim,
    StorageClass, VolumeAttachment,
};
use df_model::{
    Affinity, ConfigMap, DeviceClass, GodelPodGroup, HyperNode, KindObject, LabelSelector, Labels,
    LimitRange, Namespace, Node, NodeSelector, NodeSelectorTerm, ObjectLists, ObjectMeta, Pod,
    PodAffinity, PodDisruptionBudget, PodGroup, PodSpec, PriorityClass, ResourceClaim,
    ResourceClaimTemplate, ResourceQuota, ResourceSlice, SchedulingWorkload, Service, VolcanoJob,
    VolcanoPodGroup, VolcanoQueue, Workload,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

#[derive(Debug, thiserror::Error)]
#[error("cannot render the snapshot: {0}")]
pub struct RenderError(String);

/// Annotations placement reads; a redacted snapshot keeps only these (others may hold anything).
const PLACEMENT_ANNOTATIONS: &[&str] = &[
    fluid::AFFINITY_LABELS_ANNOTATION,
    storage::BETA_STORAGE_CLASS_ANNOTATION,
    storage::BIND_COMPLETED_ANNOTATION,
    storage::SELECTED_NODE_ANNOTATION,
    storage::MIGRATED_PLUGINS_ANNOTATION,
    VOLCANO_AFFINITY_ANNOTATION,
    VOLCANO_ANTI_AFFINITY_ANNOTATION,
    VOLCANO_TASK_ORDER_ANNOTATION,
    GROUP_NAME_ANNOTATION,
];

/// One list item: `apiVersion` and `kind`, then the object's own fields.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a, T: Serialize> {
    api_version: &'a str,
    kind: &'a str,
    #[serde(flatten)]
    body: &'a T,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    api_version: &'static str,
    kind: &'static str,
    /// First, so that a reader finds the server version before the items; left out when it
    /// holds nothing.
    #[serde(skip_serializing_if = "ListMeta::is_empty")]
    metadata: ListMeta,
    items: Items<'a>,
}

#[derive(Serialize)]
struct ListMeta {
    /// [`SERVER_VERSION_ANNOTATION`] when the state was read from an API server.
    annotations: BTreeMap<&'static str, String>,
}

impl ListMeta {
    fn is_empty(&self) -> bool {
        self.annotations.is_empty()
    }
}

struct Items<'a>(&'a ClusterState);

/// Per-list code from the one table of kinds ([`df_model::object_kinds`]).
macro_rules! each_list {
    ($($variant:ident($ty:ty) $(in $($list:ident).+)?;)*) => {
        impl Serialize for Items<'_> {
            /// Every list in the table's order, each object as `apiVersion`, `kind` and its
            /// fields as the API serves them.
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeSeq;
                let lists = &self.0.objects;
                let mut seq = s.serialize_seq(None)?;
                $($(
                    for o in &lists.$($list).+ {
                        seq.serialize_element(&item(o.api_version(), o.kind_info().kind, o))?;
                    }
                )?)*
                seq.end()
            }
        }

        /// Every list sorted by identity, so the same cluster gives the same bytes.
        fn sort_lists(lists: &mut ObjectLists) {
            $($(sort_by_identity(&mut lists.$($list).+);)?)*
        }
    };
}

df_model::object_kinds!(each_list);

fn sort_by_identity<T: KindObject>(list: &mut [T]) {
    list.sort_by(|a, b| a.identity().cmp(&b.identity()));
}

fn item<'a, T: Serialize>(api_version: &'a str, kind: &'a str, body: &'a T) -> Item<'a, T> {
    Item {
        api_version,
        kind,
        body,
    }
}

/// Render the state as a `v1 List`, sorted so the same cluster gives the same bytes.
pub fn render(
    state: &ClusterState,
    format: Format,
    redaction: Option<&Redaction>,
) -> Result<String, RenderError> {
    let mut state = state.clone();
    if let Some(redaction) = redaction {
        redaction.state(&mut state);
    }
    sort_state(&mut state);
    let list = List {
        api_version: "v1",
        kind: "List",
        metadata: ListMeta {
            annotations: state
                .server_version
                .iter()
                .map(|v| (SERVER_VERSION_ANNOTATION, v.clone()))
                .collect(),
        },
        items: Items(&state),
    };
    match format {
        Format::Json => serde_json::to_string_pretty(&list)
            .map(|mut text| {
                text.push('\n');
                text
            })
            .map_err(|e| RenderError(e.to_string())),
        Format::Yaml => serde_saphyr::to_string(&list).map_err(|e| RenderError(e.to_string())),
    }
}

fn sort_state(state: &mut ClusterState) {
    sort_lists(&mut state.objects);
    state.rebuild_indexes();
}

/// Label and taint key prefixes kept as they are: the Kubernetes namespaces (`kubernetes.io`,
/// `k8s.io` and their subdomains) and those of the schedulers this tool models, whose keys the
/// engine reads by name (`kubernetes.io/hostname`, `topology.kubernetes.io/zone`,
/// `volcano.sh/task-spec`, `godel.bytedance.com/pod-group-name`, ...). They say which system
/// set a label, not whose cluster it is.
const KEPT_KEY_DOMAINS: &[&str] = &[
    "kubernetes.io",
    "k8s.io",
    "x-k8s.io",
    "volcano.sh",
    "fluid.io",
    "godel.bytedance.com",
    "kubewharf.io",
];

/// A key for [`Redaction`]: 128 bits, random per run unless given (`--redact-key`) to make
/// two redacted snapshots of one cluster comparable.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RedactKey([u8; 16]);

#[derive(Debug, thiserror::Error)]
pub enum RedactKeyError {
    #[error("invalid redaction key {0:?}: expected 32 hexadecimal digits (128 bits)")]
    Invalid(String),
    #[error("cannot draw a random redaction key: the system's random source failed")]
    Random,
}

impl RedactKey {
    pub fn parse(text: &str) -> Result<RedactKey, RedactKeyError> {
        let invalid = || RedactKeyError::Invalid(text.to_string());
        if text.len() != 32 || !text.is_ascii() {
            return Err(invalid());
        }
        let mut key = [0u8; 16];
        for (i, byte) in key.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| invalid())?;
        }
        Ok(RedactKey(key))
    }

    pub fn random() -> Result<RedactKey, RedactKeyError> {
        let mut key = [0u8; 16];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut key)
            .map_err(|_| RedactKeyError::Random)?;
        Ok(RedactKey(key))
    }
}

impl std::fmt::Debug for RedactKey {
    /// Never shown: the key is what makes the hashes irreversible.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RedactKey(..)")
    }
}

/// Replaces identifying strings with keyed hashes (HMAC-SHA256, first 64 bits): the same input
/// gives the same output everywhere in one snapshot, so every reference (nodeName, selectors,
/// tolerations against taints, runAfter, topology keys) still resolves and the redacted state
/// places pods exactly as the original; without the key, a dictionary of likely names cannot
/// be checked against the hashes.
///
/// Redacted strings also sort as the originals do: the scheduler breaks score ties by the
/// smallest node name and plans operations and pods in name order, so each output starts with
/// the rank of its input among all the snapshot's strings (`x0042-9f86d081884c7d65`) and every
/// order-dependent decision comes out the same. The rank reveals where a name sorts among the
/// others, nothing of the name itself.
pub struct Redaction {
    key: ring::hmac::Key,
    ranks: BTreeMap<String, usize>,
    /// While ranking: every string the redaction is asked about.
    seen: Option<RefCell<BTreeSet<String>>>,
}

impl Redaction {
    /// A redaction for `state`, whose strings it ranks.
    pub fn new(key: RedactKey, state: &ClusterState) -> Redaction {
        let mut redaction = Redaction {
            key: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key.0),
            ranks: BTreeMap::new(),
            seen: Some(RefCell::default()),
        };
        redaction.state(&mut state.clone());
        let seen = redaction.seen.take().unwrap_or_default().into_inner();
        redaction.ranks = seen
            .into_iter()
            .enumerate()
            .map(|(rank, text)| (text, rank))
            .collect();
        redaction
    }

    /// A name or label value. Integers are kept because `Gt`/`Lt` selectors compare them;
    /// empty stays empty.
    pub fn value(&self, text: &str) -> String {
        if text.is_empty() || text.parse::<i64>().is_ok() {
            return text.to_string();
        }
        if let Some(seen) = &self.seen {
            seen.borrow_mut().insert(text.to_string());
            return text.to_string();
        }
        let tag = ring::hmac::sign(&self.key, text.as_bytes());
        let hex: String = tag.as_ref()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        match self.ranks.get(text) {
            Some(rank) => {
                let width = self.ranks.len().to_string().len();
                format!("x{rank:0width$}-{hex}")
            }
            // Not a string of the state (never rendered): the hash alone.
            None => format!("x{hex}"),
        }
    }

    /// A label, taint or topology key: kept in [`KEPT_KEY_DOMAINS`], hashed like a value
    /// elsewhere (`example.com/rack` and `team` both identify their owner).
    pub fn key(&self, key: &str) -> String {
        let domain = key.split_once('/').map(|(domain, _)| domain);
        let kept = domain.is_some_and(|domain| {
            KEPT_KEY_DOMAINS
                .iter()
                .any(|kept| domain == *kept || domain.ends_with(&format!(".{kept}")))
        });
        if kept {
            key.to_string()
        } else {
            self.value(key)
        }
    }

    /// An image name, hashed as the engine compares it (a pod's `nginx` is looked up as
    /// `nginx:latest` among the names the nodes list, which are taken as written) and given a
    /// tag so the engine adds none: the same matches, and misses, as in the clear.
    fn image(&self, image: &str) -> String {
        if image.is_empty() {
            return String::new();
        }
        format!("{}:redacted", self.value(image))
    }

    fn values(&self, values: &mut [String]) {
        for value in values {
            *value = self.value(value);
        }
    }

    fn keys(&self, keys: &mut [String]) {
        for key in keys {
            *key = self.key(key);
        }
    }

    fn labels(&self, labels: &mut Labels) {
        *labels = std::mem::take(labels)
            .into_iter()
            .map(|(key, value)| (self.key(&key), self.value(&value)))
            .collect();
    }

    /// The annotations placement reads, their contents redacted as what they name: Fluid's
    /// list of label keys, Volcano's task names (`a,b;c`). Every other annotation is dropped.
    fn annotations(&self, annotations: &mut df_model::Annotations) {
        *annotations = std::mem::take(annotations)
            .into_iter()
            .filter(|(key, _)| PLACEMENT_ANNOTATIONS.contains(&key.as_str()))
            .map(|(key, value)| {
                let redacted = if key == storage::MIGRATED_PLUGINS_ANNOTATION
                    || key == storage::BIND_COMPLETED_ANNOTATION
                {
                    // In-tree plugin names, and a marker whose presence alone counts.
                    value.to_string()
                } else if key == fluid::AFFINITY_LABELS_ANNOTATION {
                    let keys: Vec<String> = value.split(',').map(|k| self.key(k.trim())).collect();
                    keys.join(",")
                } else {
                    let groups: Vec<String> = value
                        .split(';')
                        .map(|group| {
                            let tasks: Vec<String> =
                                group.split(',').map(|task| self.value(task)).collect();
                            tasks.join(",")
                        })
                        .collect();
                    groups.join(";")
                };
                (key, redacted)
            })
            .collect();
    }

    fn meta(&self, meta: &mut ObjectMeta) {
        meta.name = self.value(&meta.name);
        meta.namespace = self.value(&meta.namespace);
        self.labels(&mut meta.labels);
        self.annotations(&mut meta.annotations);
    }

    /// Node selector terms: label keys and values; `matchFields` name object fields
    /// (`metadata.name`), whose keys are kept and whose values are names.
    fn term(&self, term: &mut NodeSelectorTerm) {
        for requirement in &mut term.match_expressions {
            requirement.key = self.key(&requirement.key);
            self.values(&mut requirement.values);
        }
        for requirement in &mut term.match_fields {
            self.values(&mut requirement.values);
        }
    }

    fn node_selector(&self, selector: &mut NodeSelector) {
        selector
            .node_selector_terms
            .iter_mut()
            .for_each(|t| self.term(t));
    }

    fn label_selector(&self, selector: &mut LabelSelector) {
        self.labels(&mut selector.match_labels);
        for requirement in &mut selector.match_expressions {
            requirement.key = self.key(&requirement.key);
            self.values(&mut requirement.values);
        }
    }

    fn pod_affinity(&self, affinity: &mut PodAffinity) {
        let terms = affinity.required.iter_mut().chain(
            affinity
                .preferred
                .iter_mut()
                .map(|weighted| &mut weighted.pod_affinity_term),
        );
        for term in terms {
            if let Some(s) = &mut term.label_selector {
                self.label_selector(s);
            }
            if let Some(s) = &mut term.namespace_selector {
                self.label_selector(s);
            }
            self.values(&mut term.namespaces);
            term.topology_key = self.key(&term.topology_key);
            self.keys(&mut term.match_label_keys);
            self.keys(&mut term.mismatch_label_keys);
        }
    }

    fn affinity(&self, affinity: &mut Affinity) {
        if let Some(node) = &mut affinity.node_affinity {
            if let Some(required) = &mut node.required {
                self.node_selector(required);
            }
            for preferred in &mut node.preferred {
                self.term(&mut preferred.preference);
            }
        }
        if let Some(a) = &mut affinity.pod_affinity {
            self.pod_affinity(a);
        }
        if let Some(a) = &mut affinity.pod_anti_affinity {
            self.pod_affinity(a);
        }
    }

    /// A pod spec. Kept: resources, ports (host IPs and ports conflict by value), scheduler
    /// name (it picks the scheduler), taint effects and operators, and every number.
    fn pod_spec(&self, spec: &mut PodSpec) {
        spec.node_name = self.value(&spec.node_name);
        for volume in &mut spec.volumes {
            self.volume(volume);
        }
        spec.priority_class_name = self.priority_class(&spec.priority_class_name);
        if let Some(reference) = &mut spec.workload_ref {
            reference.name = self.value(&reference.name);
            reference.pod_group = self.value(&reference.pod_group);
        }
        if let Some(name) = spec
            .scheduling_group
            .as_mut()
            .and_then(|group| group.pod_group_name.as_mut())
        {
            *name = self.value(name);
        }
        self.labels(&mut spec.node_selector);
        if let Some(affinity) = &mut spec.affinity {
            self.affinity(affinity);
        }
        for toleration in &mut spec.tolerations {
            toleration.key = self.key(&toleration.key).into();
            toleration.value = self.value(&toleration.value).into();
        }
        for container in spec
            .containers
            .iter_mut()
            .chain(spec.init_containers.iter_mut())
        {
            container.name = self.value(&container.name).into();
            container.image = self.image(&normalized_image_name(&container.image)).into();
        }
        for constraint in &mut spec.topology_spread_constraints {
            constraint.topology_key = self.key(&constraint.topology_key);
            if let Some(s) = &mut constraint.label_selector {
                self.label_selector(s);
            }
            self.keys(&mut constraint.match_label_keys);
        }
        for gate in &mut spec.scheduling_gates {
            gate.name = self.value(&gate.name);
        }
        for claim in &mut spec.resource_claims {
            claim.name = self.value(&claim.name);
            for name in [
                &mut claim.resource_claim_name,
                &mut claim.resource_claim_template_name,
            ]
            .into_iter()
            .flatten()
            {
                *name = self.value(name);
            }
        }
    }

    /// A claim's requests: class names as the classes' own; selectors and constraints are
    /// kept as written, since they compare device attributes, which are kept too.
    fn claim_spec(&self, spec: &mut ResourceClaimSpec) {
        for request in &mut spec.devices.requests {
            let alternatives = request.first_available.iter_mut().map(|s| &mut s.request);
            for exact in request.exactly.iter_mut().chain(alternatives) {
                exact.device_class_name = self.value(&exact.device_class_name);
            }
        }
    }

    /// A pod volume: its name, the claim it names, and what identifies an in-line disk (disks
    /// conflict and count by equality, which the hashes keep).
    fn volume(&self, volume: &mut df_model::Volume) {
        volume.name = self.value(&volume.name);
        if let Some(claim) = &mut volume.persistent_volume_claim {
            claim.claim_name = self.value(&claim.claim_name);
        }
        if let Some(disk) = &mut volume.gce_persistent_disk {
            disk.pd_name = self.value(&disk.pd_name);
        }
        if let Some(disk) = &mut volume.aws_elastic_block_store {
            disk.volume_id = self.value(&disk.volume_id);
        }
        if let Some(rbd) = &mut volume.rbd {
            self.values(&mut rbd.monitors);
            rbd.pool = self.value(&rbd.pool);
            rbd.image = self.value(&rbd.image);
        }
        if let Some(iscsi) = &mut volume.iscsi {
            iscsi.iqn = self.value(&iscsi.iqn);
        }
        if let Some(disk) = &mut volume.azure_disk {
            disk.disk_uri = self.value(&disk.disk_uri);
        }
        for id in [&mut volume.cinder, &mut volume.portworx_volume]
            .into_iter()
            .flatten()
        {
            id.volume_id = self.value(&id.volume_id);
        }
    }

    /// A volume's or claim's metadata; owner references name the pod of a generic ephemeral
    /// volume, hashed as its name is.
    fn storage_meta(&self, meta: &mut storage::StorageMeta) {
        self.meta(&mut meta.common);
        meta.uid = self.value(&meta.uid);
        for owner in &mut meta.owner_references {
            owner.name = self.value(&owner.name);
            owner.uid = self.value(&owner.uid);
        }
    }

    /// A CSI driver or provisioner name: the in-tree plugins and the drivers that took them
    /// over are matched by name (`kubernetes.io/aws-ebs` is `ebs.csi.aws.com`) and stay; any
    /// other is hashed like a name.
    fn driver(&self, name: &str) -> String {
        let known = storage::IN_TREE_DRIVERS
            .iter()
            .any(|(plugin, driver)| name == *plugin || name == *driver)
            || name == storage::NO_PROVISIONER;
        if known {
            name.to_string()
        } else {
            self.value(name)
        }
    }

    /// A PersistentVolume's labels: its zone labels may list several zones (`a__b`), each
    /// hashed as the nodes' zone label values are.
    fn volume_labels(&self, labels: &mut Labels) {
        *labels = std::mem::take(labels)
            .into_iter()
            .map(|(key, value)| {
                let value = if storage::ZONE_LABELS.contains(&key.as_str()) {
                    let zones: Vec<String> = value.split("__").map(|z| self.value(z)).collect();
                    zones.join("__")
                } else {
                    self.value(&value)
                };
                (self.key(&key), value)
            })
            .collect();
    }

    fn state(&self, state: &mut ClusterState) {
        redact_lists(&mut state.objects, self);
    }

    /// A PriorityClass name: the built-in `system-` classes are resolved by name and identify
    /// nobody, so they stay; others are hashed like any name, on the class and on its pods.
    fn priority_class(&self, name: &str) -> String {
        if name.starts_with("system-") {
            name.to_string()
        } else {
            self.value(name)
        }
    }
}

/// How the objects of one kind are redacted: every name, label key and value that identifies
/// the cluster is hashed, consistently with every place that refers to it.
trait Redact {
    fn redact(&mut self, r: &Redaction);
}

/// Every list of the one table of kinds ([`df_model::object_kinds`]) goes through its
/// [`Redact`]: a kind without one does not compile, so none is written unredacted.
macro_rules! redact_each_list {
    ($($variant:ident($ty:ty) $(in $($list:ident).+)?;)*) => {
        fn redact_lists(lists: &mut ObjectLists, r: &Redaction) {
            $($(lists.$($list).+.iter_mut().for_each(|o| o.redact(r));)?)*
        }
    };
}

df_model::object_kinds!(redact_each_list);

impl Redact for Node {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        for taint in &mut self.spec.taints {
            taint.key = r.key(&taint.key);
            taint.value = r.value(&taint.value);
        }
        for image in &mut self.status.images {
            for name in &mut image.names {
                *name = r.image(name);
            }
        }
    }
}

impl Redact for DeviceClass {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
    }
}

impl Redact for ResourceSlice {
    /// Node names and selectors as the nodes' own, and pool names (drivers often name a pool
    /// after its node). Drivers, device names, attributes and capacities describe hardware
    /// and are what selectors compare: they are kept.
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        let spec = &mut self.spec;
        spec.pool.name = r.value(&spec.pool.name);
        let devices = spec
            .devices
            .iter_mut()
            .map(|d| (&mut d.node_name, &mut d.node_selector));
        for (name, selector) in
            std::iter::once((&mut spec.node_name, &mut spec.node_selector)).chain(devices)
        {
            if let Some(name) = name {
                *name = r.value(name);
            }
            if let Some(selector) = selector {
                r.node_selector(selector);
            }
        }
    }
}

impl Redact for ResourceClaim {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata.meta);
        for owner in &mut self.metadata.owner_references {
            owner.name = r.value(&owner.name);
        }
        r.claim_spec(&mut self.spec);
        if let Some(allocation) = &mut self.status.allocation {
            for result in &mut allocation.devices.results {
                result.pool = r.value(&result.pool);
            }
            if let Some(selector) = &mut allocation.node_selector {
                r.node_selector(selector);
            }
        }
        for consumer in &mut self.status.reserved_for {
            consumer.name = r.value(&consumer.name);
        }
    }
}

impl Redact for ResourceClaimTemplate {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        r.claim_spec(&mut self.spec.spec);
    }
}

impl Redact for Namespace {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
    }
}

impl Redact for Pod {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        r.pod_spec(&mut self.spec);
        for status in &mut self.status.resource_claim_statuses {
            status.name = r.value(&status.name);
            if let Some(claim) = &mut status.resource_claim_name {
                *claim = r.value(claim);
            }
        }
    }
}

impl Redact for FluidOp {
    /// Names, the dataset and runAfter references, the affinity and the recorded affinity.
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        let spec = &mut self.spec;
        if let Some(dataset) = &mut spec.dataset {
            dataset.name = r.value(&dataset.name);
            dataset.namespace = r.value(&dataset.namespace);
        }
        if let Some(after) = &mut spec.run_after {
            after.name = r.value(&after.name);
            after.namespace = r.value(&after.namespace);
            if let Some(source) = &mut after.affinity_strategy.depend_on {
                source.name = r.value(&source.name);
                source.namespace = r.value(&source.namespace);
            }
        }
        if let Some(affinity) = &mut spec.affinity {
            r.affinity(affinity);
        }
        r.labels(&mut spec.node_selector);
        spec.image = r.value(&spec.image);
        if let Some(processor) = &mut spec.processor {
            if let Some(job) = &mut processor.job {
                r.pod_spec(&mut job.pod_spec);
            }
            if let Some(script) = &mut processor.script {
                script.image = r.value(&script.image);
            }
        }
        if let Some(recorded) = &mut self.status.node_affinity
            && let Some(required) = &mut recorded.required
        {
            r.node_selector(required);
        }
    }
}

impl Redact for FluidRuntime {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        r.labels(&mut self.fuse_node_selector);
        if let Some(required) = self
            .cache_affinity
            .as_mut()
            .and_then(|a| a.required.as_mut())
        {
            r.node_selector(required);
        }
    }
}

impl Redact for GodelPodGroup {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        if let Some(affinity) = self
            .spec
            .affinity
            .as_mut()
            .and_then(|a| a.pod_group_affinity.as_mut())
        {
            for term in affinity.required.iter_mut().chain(&mut affinity.preferred) {
                term.topology_key = r.key(&term.topology_key);
            }
            if let Some(selector) = &mut affinity.node_selector {
                r.node_selector(selector);
            }
        }
    }
}

impl Redact for VolcanoJob {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        self.spec.queue = r.value(&self.spec.queue);
        for task in &mut self.spec.tasks {
            task.name = r.value(&task.name);
            r.labels(&mut task.template.metadata.labels);
            task.template.metadata.annotations.clear();
            r.pod_spec(&mut task.template.spec);
        }
    }
}

impl Redact for df_model::operators::OperatorObject {
    /// Names, and every pod template's labels and spec (annotations dropped, as a Volcano
    /// Job's are: they hold the operators' free-form settings).
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        for (_, template) in self.templates_mut() {
            r.labels(&mut template.metadata.labels);
            template.metadata.annotations.clear();
            r.pod_spec(&mut template.spec);
        }
    }
}

impl Redact for VolcanoPodGroup {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        self.spec.queue = r.value(&self.spec.queue);
    }
}

impl Redact for VolcanoQueue {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
    }
}

impl Redact for PodGroup {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        self.spec.queue = r.value(&self.spec.queue);
    }
}

impl Redact for SchedulingWorkload {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        let spec = &mut self.spec;
        for group in spec
            .pod_groups
            .iter_mut()
            .chain(&mut spec.pod_group_templates)
        {
            group.name = r.value(&group.name);
        }
    }
}

impl Redact for PriorityClass {
    fn redact(&mut self, r: &Redaction) {
        let name = r.priority_class(&self.metadata.name);
        r.meta(&mut self.metadata);
        self.metadata.name = name;
    }
}

impl Redact for PodDisruptionBudget {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        if let Some(selector) = &mut self.spec.selector {
            r.label_selector(selector);
        }
        self.status.disrupted_pods = std::mem::take(&mut self.status.disrupted_pods)
            .into_iter()
            .map(|(pod, time)| (r.value(&pod), time))
            .collect();
    }
}

impl Redact for ResourceQuota {
    /// Resource names and amounts are kept (they are what admission counts); a
    /// `PriorityClass` scope names classes, mapped as the pods' are.
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        let expressions = self
            .spec
            .scope_selector
            .iter_mut()
            .flat_map(|s| &mut s.match_expressions);
        for requirement in expressions.filter(|e| e.scope_name == "PriorityClass") {
            for class in &mut requirement.values {
                *class = r.priority_class(class);
            }
        }
    }
}

impl Redact for LimitRange {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
    }
}

impl Redact for Topology {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        for level in &mut self.spec.levels {
            level.node_label = r.key(&level.node_label);
        }
    }
}

impl Redact for ResourceFlavor {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        let spec = &mut self.spec;
        r.labels(&mut spec.node_labels);
        for taint in &mut spec.node_taints {
            taint.key = r.key(&taint.key);
            taint.value = r.value(&taint.value);
        }
        for toleration in &mut spec.tolerations {
            toleration.key = r.key(&toleration.key).into();
            toleration.value = r.value(&toleration.value).into();
        }
        if let Some(topology) = &mut spec.topology_name {
            *topology = r.value(topology);
        }
    }
}

impl Redact for ClusterQueue {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        let flavors = self
            .spec
            .resource_groups
            .iter_mut()
            .flat_map(|g| &mut g.flavors);
        for flavor in flavors {
            flavor.name = r.value(&flavor.name);
        }
        if !self.spec.cohort_name.is_empty() {
            self.spec.cohort_name = r.value(&self.spec.cohort_name);
        }
    }
}

/// Quotas and cohort names are kept: they are numbers and the names redaction maps alike.
impl Redact for Cohort {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        if !self.spec.parent_name.is_empty() {
            self.spec.parent_name = r.value(&self.spec.parent_name);
        }
        let flavors = self
            .spec
            .resource_groups
            .iter_mut()
            .flat_map(|g| &mut g.flavors);
        for flavor in flavors {
            flavor.name = r.value(&flavor.name);
        }
    }
}

impl Redact for WorkloadPriorityClass {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
    }
}

impl Redact for KueueWorkload {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        self.spec.queue_name = r.value(&self.spec.queue_name);
        self.spec.pod_sets.clear();
        if let Some(admission) = &mut self.status.admission {
            admission.cluster_queue = r.value(&admission.cluster_queue);
            for assignment in &mut admission.pod_set_assignments {
                for (_, flavor) in assignment.flavors.iter_mut() {
                    *flavor = r.value(flavor);
                }
            }
        }
    }
}

impl Redact for LocalQueue {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        self.spec.cluster_queue = r.value(&self.spec.cluster_queue);
    }
}

impl Redact for HyperNode {
    /// Names as `meta` maps them, so exact members still name their nodes and HyperNodes; a
    /// name regex cannot be mapped and is hidden like any other value.
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        for member in &mut self.spec.members {
            let selector = &mut member.selector;
            if let Some(exact) = &mut selector.exact_match {
                exact.name = r.value(&exact.name);
            }
            if let Some(regex) = &mut selector.regex_match {
                regex.pattern = r.value(&regex.pattern);
            }
            if let Some(labels) = &mut selector.label_match {
                r.label_selector(labels);
            }
        }
    }
}

impl Redact for Service {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        if let Some(selector) = &mut self.spec.selector {
            r.labels(selector);
        }
    }
}

impl Redact for Workload {
    /// Its selector and pod template as the pods' are: the pods it selects still match.
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        if let Some(selector) = &mut self.selector {
            r.label_selector(selector);
        }
        r.labels(&mut self.template.metadata.labels);
        self.template.metadata.annotations.clear();
        r.pod_spec(&mut self.template.spec);
    }
}

impl Redact for ConfigMap {
    /// The one ConfigMap placement reads is Volcano's scheduler configuration: its well-known
    /// name and its plugin list say nothing of the cluster and stay as they are. Any other a
    /// recorded state holds is hashed like the rest, and its data is dropped: nothing reads it.
    fn redact(&mut self, r: &Redaction) {
        let meta = &self.metadata;
        if (meta.namespace.as_str(), meta.name.as_str()) == (CONFIG_NAMESPACE, CONFIG_NAME) {
            return;
        }
        r.meta(&mut self.metadata);
        self.data.clear();
    }
}

impl Redact for PersistentVolume {
    fn redact(&mut self, r: &Redaction) {
        let labels = std::mem::take(&mut self.metadata.common.labels);
        r.storage_meta(&mut self.metadata);
        self.metadata.common.labels = labels;
        r.volume_labels(&mut self.metadata.common.labels);
        let spec = &mut self.spec;
        redact_class(r, &mut spec.storage_class_name);
        if let Some(class) = &mut spec.volume_attributes_class_name {
            *class = r.value(class);
        }
        if let Some(claim) = &mut spec.claim_ref {
            claim.namespace = r.value(&claim.namespace);
            claim.name = r.value(&claim.name);
            claim.uid = r.value(&claim.uid);
        }
        if let Some(required) = spec
            .node_affinity
            .as_mut()
            .and_then(|a| a.required.as_mut())
        {
            r.node_selector(required);
        }
        if let Some(csi) = &mut spec.csi {
            csi.driver = r.driver(&csi.driver);
            csi.volume_handle = r.value(&csi.volume_handle);
        }
        if let Some(disk) = &mut spec.gce_persistent_disk {
            disk.pd_name = r.value(&disk.pd_name);
        }
        if let Some(disk) = &mut spec.aws_elastic_block_store {
            disk.volume_id = r.value(&disk.volume_id);
        }
        if let Some(disk) = &mut spec.azure_disk {
            disk.disk_uri = r.value(&disk.disk_uri);
        }
        for id in [&mut spec.cinder, &mut spec.portworx_volume]
            .into_iter()
            .flatten()
        {
            id.volume_id = r.value(&id.volume_id);
        }
    }
}

fn redact_class(r: &Redaction, class: &mut Option<String>) {
    if let Some(class) = class {
        *class = r.value(class);
    }
}

impl Redact for PersistentVolumeClaim {
    fn redact(&mut self, r: &Redaction) {
        r.storage_meta(&mut self.metadata);
        let spec = &mut self.spec;
        redact_class(r, &mut spec.storage_class_name);
        if let Some(class) = &mut spec.volume_attributes_class_name {
            *class = r.value(class);
        }
        spec.volume_name = r.value(&spec.volume_name);
        if let Some(selector) = &mut spec.selector {
            r.label_selector(selector);
        }
    }
}

impl Redact for StorageClass {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        self.provisioner = r.driver(&self.provisioner);
        let expressions = self
            .allowed_topologies
            .iter_mut()
            .flat_map(|t| &mut t.match_label_expressions);
        for requirement in expressions {
            requirement.key = r.key(&requirement.key);
            r.values(&mut requirement.values);
        }
    }
}

impl Redact for CSINode {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        for driver in &mut self.spec.drivers {
            driver.name = r.driver(&driver.name);
        }
    }
}

impl Redact for CSIDriver {
    /// Named by its driver: hashed as the volumes and classes that name it are.
    fn redact(&mut self, r: &Redaction) {
        let name = r.driver(&self.metadata.name);
        r.meta(&mut self.metadata);
        self.metadata.name = name;
    }
}

impl Redact for CSIStorageCapacity {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        self.storage_class_name = r.value(&self.storage_class_name);
        if let Some(selector) = &mut self.node_topology {
            r.label_selector(selector);
        }
    }
}

impl Redact for VolumeAttachment {
    fn redact(&mut self, r: &Redaction) {
        r.meta(&mut self.metadata);
        let spec = &mut self.spec;
        spec.attacher = r.driver(&spec.attacher);
        spec.node_name = r.value(&spec.node_name);
        if let Some(volume) = &mut spec.source.persistent_volume_name {
            *volume = r.value(volume);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded::parse_state;

    const STATE: &str = r#"{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "loader-0", "namespace": "team",
     "labels": {"app": "loader"}, "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
     "deletionTimestamp": "2024-05-01T10:00:00Z"},
   "spec": {"nodeName": "node-b", "containers": [{"name": "c", "image": "registry.corp/loader:1",
     "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
     "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
       {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-b"]},
                             {"key": "gpu-count", "operator": "Gt", "values": ["2"]}]}]}}}},
   "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"},
     {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]}},
  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-b",
     "labels": {"kubernetes.io/hostname": "node-b", "gpu-count": "4"}},
   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
     "images": [{"names": ["registry.corp/loader:1", "registry.corp/loader"], "sizeBytes": 1048576}]}},
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team",
     "labels": {"kubernetes.io/metadata.name": "team"}}},
  {"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataProcess", "metadata": {"name": "train", "namespace": "team",
     "annotations": {"affinity.dataflow.fluid.io/labels": "gpu-count"}},
   "spec": {"runAfter": {"kind": "DataLoad", "name": "warmup", "affinityStrategy": {"policy": "Require"}}},
   "status": {"phase": "Pending"}},
  {"apiVersion": "data.fluid.io/v1alpha1", "kind": "AlluxioRuntime", "metadata": {"name": "coco", "namespace": "team"}},
  {"apiVersion": "data.fluid.io/v1alpha1", "kind": "JuiceFSRuntime", "metadata": {"name": "imagenet", "namespace": "team"},
   "spec": {"fuse": {"nodeSelector": {"fuse": "on"}}, "worker": {"replicas": 2}},
   "status": {"cacheAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
     {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z1"]}]}]}}}}
]}"#;

    fn state() -> ClusterState {
        ClusterState::from_objects(parse_state("s.json", STATE.as_bytes()).unwrap())
    }

    #[test]
    fn json_and_yaml_snapshots_read_back_as_the_same_objects() {
        let state = state();
        for format in [Format::Json, Format::Yaml] {
            let text = render(&state, format, None).unwrap();
            let back = ClusterState::from_objects(parse_state("snap", text.as_bytes()).unwrap());
            assert_eq!(back.nodes, state.nodes, "{format:?}");
            assert_eq!(back.pods, state.pods, "{format:?}");
            assert!(back.pods[0].terminating_by_preemption(), "{format:?}");
            assert_eq!(back.namespaces, state.namespaces, "{format:?}");
            assert_eq!(back.fluid_ops, state.fluid_ops, "{format:?}");
            assert_eq!(back.fluid_runtimes, state.fluid_runtimes, "{format:?}");
        }
    }

    /// The key of the tests: bytes 0..16.
    const KEY: &str = "000102030405060708090a0b0c0d0e0f";

    fn redaction(state: &ClusterState) -> Redaction {
        Redaction::new(RedactKey::parse(KEY).unwrap(), state)
    }

    #[test]
    fn redaction_hashes_names_keys_and_values_consistently() {
        let state = state();
        let r = redaction(&state);
        let text = render(&state, Format::Json, Some(&r)).unwrap();
        let back = ClusterState::from_objects(parse_state("snap", text.as_bytes()).unwrap());
        let node = r.value("node-b");
        let team = r.value("team");
        let gpu_count = r.key("gpu-count");
        assert_eq!(back.nodes[0].metadata.name, node);
        assert_eq!(
            back.nodes[0].metadata.labels["kubernetes.io/hostname"],
            node
        );
        assert_eq!(back.nodes[0].metadata.labels[&gpu_count], "4");
        let pod = &back.pods[0];
        assert_eq!(pod.metadata.name, r.value("loader-0"));
        assert_eq!(pod.metadata.namespace, team);
        assert_eq!(pod.metadata.labels[&r.key("app")], r.value("loader"));
        assert!(pod.metadata.annotations.is_empty());
        assert_eq!(pod.spec.node_name, node);
        let container = &pod.spec.containers[0];
        assert_eq!(container.name, r.value("c"));
        assert_eq!(
            container.image,
            format!("{}:redacted", r.value("registry.corp/loader:1"))
        );
        // The nodes' image names are hashed as listed, the pod's once normalised: a pod's
        // untagged `loader` (`loader:latest`) misses a node's untagged `loader`, redacted too.
        assert_eq!(
            back.nodes[0].status.images[0].names,
            [
                format!("{}:redacted", r.value("registry.corp/loader:1")),
                format!("{}:redacted", r.value("registry.corp/loader")),
            ]
        );
        let node_affinity = pod.spec.affinity.as_ref().unwrap().node_affinity.as_ref();
        let requirements: Vec<(&str, &str)> = node_affinity
            .unwrap()
            .required
            .as_ref()
            .unwrap()
            .node_selector_terms[0]
            .match_expressions
            .iter()
            .map(|e| (e.key.as_str(), e.values[0].as_str()))
            .collect();
        assert_eq!(
            requirements,
            [
                ("kubernetes.io/hostname", node.as_str()),
                (gpu_count.as_str(), "2")
            ]
        );
        assert_eq!(
            back.namespaces[0].metadata.labels["kubernetes.io/metadata.name"],
            team
        );
        let op = &back.fluid_ops[0];
        assert_eq!(op.spec.run_after.as_ref().unwrap().name, r.value("warmup"));
        assert_eq!(
            op.metadata.annotations[fluid::AFFINITY_LABELS_ANNOTATION],
            gpu_count
        );
        for identifying in [
            "node-b",
            "team",
            "loader",
            "gpu-count",
            "registry",
            "warmup",
        ] {
            assert!(!text.contains(identifying), "{identifying}: {text}");
        }
    }

    #[test]
    fn hashes_are_keyed_hmac_sha256_and_keep_integers_and_system_keys() {
        let r = redaction(&ClusterState::default());
        // Expected values: HMAC-SHA256 under the test key, first 64 bits (Python's `hmac`).
        let values = [
            ("", ""),
            ("42", "42"),
            ("-7", "-7"),
            ("a", "xc48c3eee999ca881"),
            ("team", "xf811c11a0c8b3cd8"),
        ];
        for (input, expected) in values {
            assert_eq!(r.value(input), expected, "{input}");
        }
        let keys = [
            ("kubernetes.io/hostname", "kubernetes.io/hostname"),
            ("topology.kubernetes.io/zone", "topology.kubernetes.io/zone"),
            (
                "node.kubernetes.io/unschedulable",
                "node.kubernetes.io/unschedulable",
            ),
            ("volcano.sh/task-spec", "volcano.sh/task-spec"),
            (
                "scheduling.x-k8s.io/pod-group",
                "scheduling.x-k8s.io/pod-group",
            ),
            ("example.com/rack", "xc848c9c556012128"),
            ("notkubernetes.io/x", &r.value("notkubernetes.io/x")),
        ];
        for (input, expected) in keys {
            assert_eq!(r.key(input), expected, "{input}");
        }
        let other = Redaction::new(RedactKey::random().unwrap(), &ClusterState::default());
        assert_ne!(other.value("team"), r.value("team"));
    }

    #[test]
    fn redaction_keys_are_32_hex_digits() {
        assert!(RedactKey::parse(KEY).is_ok());
        for bad in [
            "",
            "00",
            &format!("{KEY}00"),
            "zz0102030405060708090a0b0c0d0e0f",
        ] {
            assert_eq!(
                RedactKey::parse(bad).unwrap_err().to_string(),
                format!("invalid redaction key {bad:?}: expected 32 hexadecimal digits (128 bits)")
            );
        }
        assert_eq!(
            format!("{:?}", RedactKey::parse(KEY).unwrap()),
            "RedactKey(..)"
        );
    }
}
