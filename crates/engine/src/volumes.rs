//! What the four volume plugins share: the state's storage objects indexed as the scheduler's
//! listers find them, how a pod volume names its claim, and the bindings a plan assumes (the
//! scheduler's assume cache: a volume VolumeBinding chose for a claim is that claim's for every
//! later pod, a provisioned claim stays on its node).

use rustc_hash::FxHashMap as HashMap;

use crate::framework::{Code, Context, Filter, Status};
use df_model::storage::{
    CSIDriver, CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass,
    VolumeAttachment,
};
use df_model::{Pod, Volume};
use df_state::ClusterState;

/// The storage objects by the keys the plugins look them up with.
#[derive(Debug, Clone, Default)]
pub(crate) struct StorageIndex<'a> {
    claims: HashMap<(&'a str, &'a str), &'a PersistentVolumeClaim>,
    volumes: HashMap<&'a str, &'a PersistentVolume>,
    classes: HashMap<&'a str, &'a StorageClass>,
    csi_nodes: HashMap<&'a str, &'a CSINode>,
    drivers: HashMap<&'a str, &'a CSIDriver>,
    attachments: HashMap<&'a str, Vec<&'a VolumeAttachment>>,
    /// Every volume in name order: VolumeBinding's candidates, in a stable order (upstream
    /// walks its cache, whose order is undefined).
    by_name: Vec<&'a PersistentVolume>,
    /// Capacity objects in `namespace/name` order (upstream takes the first match of its
    /// cache, in no defined order).
    capacities: Vec<&'a CSIStorageCapacity>,
    /// Whether the state records claims at all: a state without any (recorded before they
    /// were, or written by hand) cannot say a claim is missing.
    records_claims: bool,
}

impl<'a> StorageIndex<'a> {
    pub fn new(state: &'a ClusterState) -> StorageIndex<'a> {
        let storage = &state.storage;
        let mut attachments: HashMap<&str, Vec<&VolumeAttachment>> = HashMap::default();
        for attachment in &storage.attachments {
            attachments
                .entry(attachment.spec.node_name.as_str())
                .or_default()
                .push(attachment);
        }
        let mut by_name: Vec<&PersistentVolume> = storage.volumes.iter().collect();
        by_name.sort_by(|a, b| a.metadata.common.name.cmp(&b.metadata.common.name));
        let mut capacities: Vec<&CSIStorageCapacity> = storage.capacities.iter().collect();
        capacities.sort_by(|a, b| {
            (&a.metadata.namespace, &a.metadata.name)
                .cmp(&(&b.metadata.namespace, &b.metadata.name))
        });
        StorageIndex {
            claims: storage
                .claims
                .iter()
                .map(|c| {
                    let meta = &c.metadata.common;
                    ((meta.namespace.as_str(), meta.name.as_str()), c)
                })
                .collect(),
            volumes: storage
                .volumes
                .iter()
                .map(|v| (v.metadata.common.name.as_str(), v))
                .collect(),
            classes: storage
                .classes
                .iter()
                .map(|c| (c.metadata.name.as_str(), c))
                .collect(),
            csi_nodes: storage
                .csi_nodes
                .iter()
                .map(|c| (c.metadata.name.as_str(), c))
                .collect(),
            drivers: storage
                .csi_drivers
                .iter()
                .map(|d| (d.metadata.name.as_str(), d))
                .collect(),
            attachments,
            by_name,
            capacities,
            records_claims: !storage.claims.is_empty(),
        }
    }

    /// Claims made by the plan, looked up as the state's (over one of the same name). Whether
    /// the state records claims stays the state's own answer.
    pub fn add_claims(&mut self, claims: &'a [PersistentVolumeClaim]) {
        for claim in claims {
            let meta = &claim.metadata.common;
            self.claims
                .insert((meta.namespace.as_str(), meta.name.as_str()), claim);
        }
    }

    pub fn claim(&self, namespace: &str, name: &str) -> Lookup<'a> {
        match self.claims.get(&(namespace, name)) {
            Some(claim) => Lookup::Found(claim),
            None if self.records_claims => Lookup::Missing,
            None => Lookup::Unrecorded,
        }
    }

    pub fn volume(&self, name: &str) -> Option<&'a PersistentVolume> {
        self.volumes.get(name).copied()
    }

    pub fn class(&self, name: &str) -> Option<&'a StorageClass> {
        self.classes.get(name).copied()
    }

    pub fn csi_node(&self, node: &str) -> Option<&'a CSINode> {
        self.csi_nodes.get(node).copied()
    }

    pub fn driver(&self, name: &str) -> Option<&'a CSIDriver> {
        self.drivers.get(name).copied()
    }

    pub fn attachments(&self, node: &str) -> &[&'a VolumeAttachment] {
        self.attachments.get(node).map_or(&[], Vec::as_slice)
    }

    pub fn volumes_by_name(&self) -> &[&'a PersistentVolume] {
        &self.by_name
    }

    pub fn capacities(&self) -> &[&'a CSIStorageCapacity] {
        &self.capacities
    }
}

/// A claim as a lister finds it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lookup<'a> {
    Found(&'a PersistentVolumeClaim),
    /// Not in a state that records claims: upstream's NotFound.
    Missing,
    /// The state records no claims at all: nothing can be said of it.
    Unrecorded,
}

/// The claim a pod volume uses: the one a `persistentVolumeClaim` volume names, or a generic
/// ephemeral volume's `<pod>-<volume>`; `None` for in-line volumes.
pub(crate) fn claim_name(pod: &Pod, volume: &Volume) -> Option<(String, bool)> {
    if let Some(name) = volume.claim_name() {
        return Some((name.to_string(), false));
    }
    volume
        .ephemeral
        .as_ref()
        .map(|_| (format!("{}-{}", pod.metadata.name, volume.name), true))
}

/// Whether `claim` was made for `pod`'s ephemeral volume: controlled by the pod. (Upstream
/// compares UIDs; the slim pod model keeps none, so the controller reference's kind and name
/// are compared.)
pub(crate) fn made_for(claim: &PersistentVolumeClaim, pod: &Pod) -> bool {
    claim
        .metadata
        .owner_references
        .iter()
        .any(|o| o.controller && o.kind == "Pod" && o.name == pod.metadata.name)
}

/// Upstream `ephemeral.VolumeIsForPod`'s error.
pub(crate) fn not_owner(claim: &PersistentVolumeClaim, pod: &Pod) -> String {
    format!(
        "PVC {}/{} was not created for pod {}/{} (pod is not owner)",
        claim.metadata.common.namespace,
        claim.metadata.common.name,
        pod.metadata.namespace,
        pod.metadata.name
    )
}

/// The client-go lister's NotFound text for a claim.
pub(crate) fn claim_not_found(name: &str) -> String {
    format!("persistentvolumeclaim {name:?} not found")
}

/// A PreFilter's outcome for plugins that may skip their Filter or reject the pod outright.
#[derive(Debug)]
pub(crate) enum PreFiltered<T> {
    /// Nothing for the Filter to check (upstream `Skip`).
    Skip,
    Run(T),
    /// Every node gets this status: upstream stops at an UnschedulableAndUnresolvable
    /// PreFilter and says its message once.
    Reject(Status),
}

impl<T> PreFiltered<T> {
    pub fn unresolvable(message: String) -> Self {
        PreFiltered::Reject(Status {
            code: Code::UnschedulableAndUnresolvable,
            reasons: vec![message],
        })
    }

    pub fn rejection(&self) -> Option<&Status> {
        match self {
            PreFiltered::Reject(status) => Some(status),
            _ => None,
        }
    }
}

/// The Filter of a plugin whose PreFilter gave [`PreFiltered::Run`].
pub(crate) trait PreFilteredCheck {
    /// Why PreFilter skipped the Filter, in words.
    const SKIPPED: &'static str;
    fn filter(&self, cx: &Context, node: usize) -> Status;
    fn describe_filter(&self, cx: &Context, node: usize) -> String;
}

impl<T: PreFilteredCheck> Filter for PreFiltered<T> {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        match self {
            PreFiltered::Skip => Status::success(),
            PreFiltered::Run(check) => check.filter(cx, node),
            PreFiltered::Reject(status) => status.clone(),
        }
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        match self {
            PreFiltered::Skip => format!("PreFilter: Skip ({})", T::SKIPPED),
            PreFiltered::Run(check) => check.describe_filter(cx, node),
            PreFiltered::Reject(status) => format!("PreFilter: {}", status.reasons.join(", ")),
        }
    }
}

/// A claim or a pod, as `(namespace, name)`.
pub(crate) type Key = (String, String);

/// What a plan assumed of the volumes, each with the pod whose placement assumed it: the claim
/// each statically bound volume now belongs to, and the node each provisioned claim is for.
#[derive(Debug, Clone, Default)]
pub(crate) struct AssumedVolumes {
    /// Volume name -> (its claim, the pod).
    bound: HashMap<String, (Key, Key)>,
    /// Claim -> (its node, the pod).
    provisioned: HashMap<Key, (String, Key)>,
}

impl AssumedVolumes {
    pub fn bind(&mut self, volume: &str, claim: Key, pod: Key) {
        self.bound.insert(volume.to_string(), (claim, pod));
    }

    pub fn provision(&mut self, claim: Key, node: &str, pod: Key) {
        self.provisioned.insert(claim, (node.to_string(), pod));
    }

    /// The claim `volume` is assumed bound to, if a planned pod bound it.
    pub fn claim_of(&self, volume: &str) -> Option<&Key> {
        self.bound.get(volume).map(|(claim, _)| claim)
    }

    /// The node `claim` is assumed provisioned on.
    pub fn node_of(&self, namespace: &str, claim: &str) -> Option<&str> {
        self.provisioned
            .get(&(namespace.to_string(), claim.to_string()))
            .map(|(node, _)| node.as_str())
    }

    /// Drop what the pod `namespace/name` assumed (it was forgotten).
    pub fn forget(&mut self, namespace: &str, name: &str) {
        let by = |pod: &Key| pod.0 == namespace && pod.1 == name;
        self.bound.retain(|_, (_, pod)| !by(pod));
        self.provisioned.retain(|_, (_, pod)| !by(pod));
    }
}
