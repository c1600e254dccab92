//! VolumeBinding: a pod's claims must be bindable on the node. Bound claims need their
//! volume's node affinity to hold there; WaitForFirstConsumer claims need an available volume
//! that fits them there (the smallest one) or a class that can provision there (its allowed
//! topologies, and room in a CSIStorageCapacity when the CSI driver asks for that check).
//! Claims that are neither (Immediate and still unbound) reject the pod at PreFilter.
//!
//! Its Score is not modelled: v1.34 runs it only with the `StorageCapacityScoring` feature
//! gate, off by default, and PreScore skips without it.

use std::collections::BTreeSet;

use crate::Scheduler;
use crate::framework::{Code, Context, Status};
use crate::selector::{self, label_selector_matches};
use crate::volumes::{self, Lookup, PreFiltered};
use df_model::storage::{
    CSIStorageCapacity, IN_TREE_DRIVERS, NO_PROVISIONER, PersistentVolume, PersistentVolumeClaim,
    SELECTED_NODE_ANNOTATION, StorageClass, TopologySelectorTerm,
};
use df_model::{Labels, Node, NodeSelector, NodeSelectorRequirement, Pod};

pub(crate) const REASON_NODE_CONFLICT: &str = "node(s) had volume node affinity conflict";
pub(crate) const REASON_BIND_CONFLICT: &str =
    "node(s) didn't find available persistent volumes to bind";
pub(crate) const REASON_NOT_ENOUGH_SPACE: &str = "node(s) did not have enough free storage";
pub(crate) const REASON_PV_NOT_EXIST: &str =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
pub(crate) const REASON_UNBOUND_IMMEDIATE: &str =
    "pod has unbound immediate PersistentVolumeClaims";

/// PreFilter: the pod's claims, sorted as upstream's `podVolumeClaims`.
#[derive(Debug, Default)]
pub(crate) struct PodClaims<'a> {
    /// Bound: their volume must exist and accept the node.
    pub bound: Vec<&'a PersistentVolumeClaim>,
    /// WaitForFirstConsumer and unbound: matched or provisioned per node.
    pub delayed: Vec<&'a PersistentVolumeClaim>,
}

pub(crate) type VolumeBinding<'a> = PreFiltered<PodClaims<'a>>;

/// Upstream PreFilter: every claim looked up in volume order (the first problem wins), then
/// sorted into bound, delayed and unbound Immediate claims.
pub(crate) fn pre_filter<'a>(sched: &Scheduler<'a>, pod: &Pod) -> VolumeBinding<'a> {
    let mut claims = Vec::new();
    for volume in &pod.spec.volumes {
        let Some((name, ephemeral)) = volumes::claim_name(pod, volume) else {
            continue;
        };
        let claim = match sched.storage.claim(&pod.metadata.namespace, &name) {
            Lookup::Found(claim) => claim,
            Lookup::Unrecorded => continue,
            Lookup::Missing if ephemeral => {
                return PreFiltered::unresolvable(format!(
                    "waiting for ephemeral volume controller to create the persistentvolumeclaim {name:?}"
                ));
            }
            Lookup::Missing => return PreFiltered::unresolvable(volumes::claim_not_found(&name)),
        };
        if claim.status.phase == "Lost" {
            return PreFiltered::unresolvable(format!(
                "persistentvolumeclaim {name:?} bound to non-existent persistentvolume {:?}",
                claim.spec.volume_name
            ));
        }
        if claim.metadata.deletion_timestamp.is_some() {
            return PreFiltered::unresolvable(format!(
                "persistentvolumeclaim {name:?} is being deleted"
            ));
        }
        if ephemeral && !volumes::made_for(claim, pod) {
            return PreFiltered::unresolvable(volumes::not_owner(claim, pod));
        }
        claims.push(claim);
    }
    if claims.is_empty() {
        return PreFiltered::Skip;
    }
    let mut sorted = PodClaims::default();
    let mut immediate = false;
    for claim in claims {
        if claim.is_fully_bound() {
            sorted.bound.push(claim);
        } else if delays_binding(sched, claim) && claim.spec.volume_name.is_empty() {
            sorted.delayed.push(claim);
        } else {
            // An Immediate class, no class or a missing one, or a claim that names its volume
            // before the controller finished binding it.
            immediate = true;
        }
    }
    if immediate {
        return PreFiltered::unresolvable(REASON_UNBOUND_IMMEDIATE.to_string());
    }
    PreFiltered::Run(sorted)
}

/// Whether the claim's class waits for the first consumer. A class without a mode is
/// `Immediate`, as the API server defaults it.
fn delays_binding(sched: &Scheduler, claim: &PersistentVolumeClaim) -> bool {
    let class = claim.class();
    !class.is_empty()
        && sched
            .storage
            .class(class)
            .is_some_and(StorageClass::waits_for_first_consumer)
}

/// What the Filter found for one node: the volume chosen for each claim matched statically,
/// and the claims to provision there.
#[derive(Debug, Default)]
pub(crate) struct NodeBindings<'a> {
    pub matched: Vec<(&'a PersistentVolumeClaim, &'a PersistentVolume)>,
    pub provisioned: Vec<&'a PersistentVolumeClaim>,
}

impl<'a> PodClaims<'a> {
    /// Upstream `FindPodVolumes`: the reasons the node cannot bind the claims (none: it can,
    /// with these bindings), or the error that aborts the cycle.
    pub fn find(
        &self,
        sched: &Scheduler<'a>,
        node: &Node,
    ) -> Result<(Vec<&'static str>, NodeBindings<'a>), String> {
        let mut reasons = Vec::new();
        let mut bindings = NodeBindings::default();
        let (affinity_ok, volumes_exist) = self.check_bound(sched, node);
        let mut satisfied = true;
        let mut enough_space = true;
        if !self.delayed.is_empty() {
            let node_name = node.metadata.name.as_str();
            let mut to_match = Vec::new();
            let mut to_provision = Vec::new();
            let mut elsewhere = false;
            for &claim in &self.delayed {
                match selected_node(sched, claim) {
                    Some(selected) if selected != node_name => {
                        elsewhere = true;
                        break;
                    }
                    Some(_) => to_provision.push(claim),
                    None => to_match.push(claim),
                }
            }
            if elsewhere {
                // Upstream returns at once: the claim is being provisioned for another node.
                satisfied = false;
            } else {
                if !to_match.is_empty() {
                    let unmatched;
                    (satisfied, unmatched) =
                        match_volumes(sched, &to_match, node, &mut bindings.matched)?;
                    to_provision.extend(unmatched);
                }
                if !to_provision.is_empty() {
                    (satisfied, enough_space) =
                        provision(sched, &to_provision, node, &mut bindings.provisioned)?;
                }
            }
        }
        for (ok, reason) in [
            (affinity_ok, REASON_NODE_CONFLICT),
            (satisfied, REASON_BIND_CONFLICT),
            (enough_space, REASON_NOT_ENOUGH_SPACE),
            (volumes_exist, REASON_PV_NOT_EXIST),
        ] {
            if !ok {
                reasons.push(reason);
            }
        }
        Ok((reasons, bindings))
    }

    /// Upstream `checkBoundClaims`: (node affinity holds, every volume exists), stopping at
    /// the first failure.
    fn check_bound(&self, sched: &Scheduler, node: &Node) -> (bool, bool) {
        let csi_node = sched.storage.csi_node(&node.metadata.name);
        for claim in &self.bound {
            let Some(volume) = sched.storage.volume(&claim.spec.volume_name) else {
                return (true, false);
            };
            let migrated = migrated_affinity(volume, csi_node);
            let affinity = migrated.as_ref().or_else(|| required_affinity(volume));
            if !affinity_matches(affinity, &node.metadata.labels) {
                return (false, true);
            }
        }
        (true, true)
    }
}

/// The node a claim is being provisioned for: its annotation, or what a planned pod assumed.
fn selected_node<'s>(sched: &'s Scheduler, claim: &'s PersistentVolumeClaim) -> Option<&'s str> {
    let meta = &claim.metadata.common;
    meta.annotations
        .get(SELECTED_NODE_ANNOTATION)
        .map(|n| n.as_str())
        .or_else(|| sched.assumed_volumes.node_of(&meta.namespace, &meta.name))
}

fn required_affinity(volume: &PersistentVolume) -> Option<&NodeSelector> {
    volume
        .spec
        .node_affinity
        .as_ref()
        .and_then(|a| a.required.as_ref())
}

/// Upstream `CheckNodeAffinity`: no required affinity matches every node; the terms are
/// matched against the node's labels alone (a `metadata.name` field matches no node).
pub(crate) fn affinity_matches(affinity: Option<&NodeSelector>, labels: &Labels) -> bool {
    affinity.is_none_or(|required| selector::node_selector_matches(required, "", labels).0)
}

/// Upstream `findMatchingVolumes`: claims smallest first, each taking the smallest fitting
/// volume not yet chosen. (whether every claim matched, the claims left to provision)
fn match_volumes<'a>(
    sched: &Scheduler<'a>,
    claims: &[&'a PersistentVolumeClaim],
    node: &Node,
    chosen: &mut Vec<(&'a PersistentVolumeClaim, &'a PersistentVolume)>,
) -> Result<(bool, Vec<&'a PersistentVolumeClaim>), String> {
    let mut claims = claims.to_vec();
    // Upstream's sort is not stable; claims of one size keep the pod's volume order here.
    claims.sort_by_key(|c| c.request());
    let mut unmatched = Vec::new();
    for claim in claims {
        let taken: BTreeSet<&str> = chosen
            .iter()
            .map(|(_, v)| v.metadata.common.name.as_str())
            .collect();
        match find_matching_volume(sched, claim, node, &taken)? {
            Some(volume) => chosen.push((claim, volume)),
            None => unmatched.push(claim),
        }
    }
    Ok((unmatched.is_empty(), unmatched))
}

/// Whether `volume` is bound (or assumed bound) to `claim`: its claimRef names the claim, and
/// its UID when the reference has one.
fn bound_to(sched: &Scheduler, volume: &PersistentVolume, claim: &PersistentVolumeClaim) -> bool {
    let meta = &claim.metadata;
    if let Some((namespace, name)) = sched.assumed_volumes.claim_of(&volume.metadata.common.name) {
        return *namespace == meta.common.namespace && *name == meta.common.name;
    }
    volume.spec.claim_ref.as_ref().is_some_and(|r| {
        r.namespace == meta.common.namespace
            && r.name == meta.common.name
            && (r.uid.is_empty() || r.uid == meta.uid)
    })
}

fn is_claimed(sched: &Scheduler, volume: &PersistentVolume) -> bool {
    volume.spec.claim_ref.is_some()
        || sched
            .assumed_volumes
            .claim_of(&volume.metadata.common.name)
            .is_some()
}

/// Upstream `FindMatchingVolume` (component-helpers): a volume pre-bound to the claim ends
/// the search (matched if its affinity holds); else the smallest available volume of the
/// claim's class, size, mode, attributes class, selector and access modes whose affinity
/// holds. Without the VolumeAttributesClass gate (before 1.34) a claim naming an attributes
/// class is an error and a volume naming one is never chosen.
fn find_matching_volume<'a>(
    sched: &Scheduler<'a>,
    claim: &PersistentVolumeClaim,
    node: &Node,
    taken: &BTreeSet<&str>,
) -> Result<Option<&'a PersistentVolume>, String> {
    let requested = claim.request();
    let mode = |m: &Option<String>| m.clone().unwrap_or_else(|| "Filesystem".into());
    let attributes = |c: &Option<String>| c.clone().unwrap_or_default();
    let gated = !sched.profile().version.volume_attributes_class_enabled();
    if gated && !attributes(&claim.spec.volume_attributes_class_name).is_empty() {
        let meta = &claim.metadata.common;
        return Err(format!(
            "unsupported volumeAttributesClassName is set on claim {}/{} when the feature-gate VolumeAttributesClass is disabled",
            meta.namespace, meta.name
        ));
    }
    let mut best: Option<&PersistentVolume> = None;
    // The candidates are the volumes of the claim's class (upstream lists them by class).
    let class = claim.class();
    let candidates = sched.storage.volumes_by_name().iter();
    for &volume in candidates.filter(|v| v.class() == class) {
        let name = volume.metadata.common.name.as_str();
        if taken.contains(name) {
            continue;
        }
        let pre_bound = bound_to(sched, volume, claim);
        if is_claimed(sched, volume) && !pre_bound {
            continue;
        }
        if volume.capacity() < requested
            || mode(&volume.spec.volume_mode) != mode(&claim.spec.volume_mode)
            || attributes(&volume.spec.volume_attributes_class_name)
                != attributes(&claim.spec.volume_attributes_class_name)
            || gated && volume.spec.volume_attributes_class_name.is_some()
            || volume.metadata.deletion_timestamp.is_some()
        {
            continue;
        }
        let affinity_ok = affinity_matches(required_affinity(volume), &node.metadata.labels);
        if pre_bound {
            return Ok(affinity_ok.then_some(volume));
        }
        if volume.status.phase != "Available" {
            continue;
        }
        if let Some(selector) = &claim.spec.selector {
            let selected = label_selector_matches(selector, &volume.metadata.common.labels)
                .map_err(|e| format!("error creating claim selector: {}: {}", e.path, e.message))?;
            if !selected {
                continue;
            }
        }
        if !affinity_ok {
            continue;
        }
        let modes = &volume.spec.access_modes;
        if !claim.spec.access_modes.iter().all(|m| modes.contains(m)) {
            continue;
        }
        if best.is_none_or(|b| volume.capacity() < b.capacity()) {
            best = Some(volume);
        }
    }
    Ok(best)
}

/// Upstream `checkVolumeProvisions`, stopping at the first claim that cannot be provisioned:
/// (every claim can be, there is room for each).
fn provision<'a>(
    sched: &Scheduler<'a>,
    claims: &[&'a PersistentVolumeClaim],
    node: &Node,
    provisioned: &mut Vec<&'a PersistentVolumeClaim>,
) -> Result<(bool, bool), String> {
    for &claim in claims {
        let class_name = claim.class();
        let meta = &claim.metadata.common;
        if class_name.is_empty() {
            return Err(format!(
                "no class for claim \"{}/{}\"",
                meta.namespace, meta.name
            ));
        }
        let Some(class) = sched.storage.class(class_name) else {
            return Err(format!("failed to find storage class {class_name:?}"));
        };
        if class.provisioner.is_empty() || class.provisioner == NO_PROVISIONER {
            return Ok((false, true));
        }
        if !topology_matches(&class.allowed_topologies, &node.metadata.labels) {
            return Ok((false, true));
        }
        if !has_enough_capacity(sched, claim, class, node) {
            return Ok((true, false));
        }
        provisioned.push(claim);
    }
    Ok((true, true))
}

/// Upstream `MatchTopologySelectorTerms`: no terms match every node; terms are ORed, a term
/// without expressions selects nothing, expressions are ANDed (`key` has one of `values`).
fn topology_matches(terms: &[TopologySelectorTerm], labels: &Labels) -> bool {
    terms.is_empty()
        || terms.iter().any(|term| {
            !term.match_label_expressions.is_empty()
                && term.match_label_expressions.iter().all(|e| {
                    labels
                        .get(e.key.as_str())
                        .is_some_and(|v| e.values.iter().any(|x| x == v.as_str()))
                })
        })
}

/// Upstream `hasEnoughCapacity`: without a request, or unless the class's CSI driver asks for
/// the capacity check, there is room; else some CSIStorageCapacity of the class whose
/// topology selects the node must hold a volume of the requested size.
fn has_enough_capacity(
    sched: &Scheduler,
    claim: &PersistentVolumeClaim,
    class: &StorageClass,
    node: &Node,
) -> bool {
    let Some(requested) = claim.spec.resources.requests.storage else {
        return true;
    };
    let checks = sched
        .storage
        .driver(&class.provisioner)
        .is_some_and(|d| d.spec.storage_capacity == Some(true));
    !checks
        || sched
            .storage
            .capacities()
            .iter()
            .any(|c| holds(c, class, requested, &node.metadata.labels))
}

fn holds(
    capacity: &CSIStorageCapacity,
    class: &StorageClass,
    requested: df_model::Bytes,
    labels: &Labels,
) -> bool {
    capacity.storage_class_name == class.metadata.name
        && capacity.limit().is_some_and(|limit| limit >= requested)
        && capacity
            .node_topology
            .as_ref()
            .is_some_and(|t| label_selector_matches(t, labels).unwrap_or(false))
}

/// The in-tree plugins whose volumes a node's CSI driver may serve, with the PV label and the
/// driver's zone topology key their node affinity is rewritten to (csi-translation-lib).
const MIGRATED_TOPOLOGY: [(&str, &str); 4] = [
    ("kubernetes.io/aws-ebs", "topology.ebs.csi.aws.com/zone"),
    ("kubernetes.io/gce-pd", "topology.gke.io/zone"),
    (
        "kubernetes.io/azure-disk",
        "topology.disk.csi.azure.com/zone",
    ),
    (
        "kubernetes.io/cinder",
        "topology.cinder.csi.openstack.org/zone",
    ),
];

const GA_ZONE: &str = "topology.kubernetes.io/zone";
const BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
const GA_REGION: &str = "topology.kubernetes.io/region";
const BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";

/// The in-tree plugin of a volume's source, if it is one a CSI driver may take over.
pub(crate) fn in_tree_plugin(volume: &PersistentVolume) -> Option<&'static str> {
    let spec = &volume.spec;
    let plugin = if spec.aws_elastic_block_store.is_some() {
        "kubernetes.io/aws-ebs"
    } else if spec.gce_persistent_disk.is_some() {
        "kubernetes.io/gce-pd"
    } else if spec.azure_disk.is_some() {
        "kubernetes.io/azure-disk"
    } else if spec.cinder.is_some() {
        "kubernetes.io/cinder"
    } else if spec.portworx_volume.is_some() {
        "kubernetes.io/portworx-volume"
    } else {
        return None;
    };
    IN_TREE_DRIVERS
        .iter()
        .any(|(p, _)| *p == plugin)
        .then_some(plugin)
}

/// Whether the node's CSINode says its CSI driver serves `plugin`'s volumes (the in-tree
/// plugins whose migration is always on, and Portworx, on by default).
pub(crate) fn migrated_on(csi_node: Option<&df_model::storage::CSINode>, plugin: &str) -> bool {
    csi_node.is_some_and(|c| {
        c.metadata
            .annotations
            .get(df_model::storage::MIGRATED_PLUGINS_ANNOTATION)
            .is_some_and(|list| list.split(',').any(|p| p.trim() == plugin))
    })
}

/// The node affinity of an in-tree volume translated to its CSI driver's topology, when the
/// node's CSINode says the driver took the plugin over: the zone key renamed to the driver's,
/// or the PV's zone label added as one; a beta region key renamed to the GA one.
fn migrated_affinity(
    volume: &PersistentVolume,
    csi_node: Option<&df_model::storage::CSINode>,
) -> Option<NodeSelector> {
    let plugin = in_tree_plugin(volume)?;
    if !migrated_on(csi_node, plugin) {
        return None;
    }
    let mut affinity = required_affinity(volume).cloned();
    let Some(&(_, driver_key)) = MIGRATED_TOPOLOGY.iter().find(|(p, _)| *p == plugin) else {
        return affinity;
    };
    let keys_in = |selector: &NodeSelector, key: &str| {
        selector
            .node_selector_terms
            .iter()
            .flat_map(|t| &t.match_expressions)
            .any(|e| e.key == key)
    };
    let zone_key = affinity
        .as_ref()
        .and_then(|a| [GA_ZONE, BETA_ZONE].into_iter().find(|key| keys_in(a, key)));
    let labels = &volume.metadata.common.labels;
    let rename = |affinity: &mut NodeSelector, from: &str, to: &str| {
        for term in &mut affinity.node_selector_terms {
            for e in &mut term.match_expressions {
                if e.key == from {
                    e.key = to.to_string();
                }
            }
        }
    };
    match (&mut affinity, zone_key) {
        (Some(a), Some(key)) => rename(a, key, driver_key),
        _ => {
            let zones = labels
                .get(GA_ZONE)
                .or_else(|| labels.get(BETA_ZONE))
                .map(|z| z.split("__").map(str::to_string).collect::<Vec<_>>());
            if let Some(zones) = zones {
                let requirement = NodeSelectorRequirement {
                    key: driver_key.to_string(),
                    operator: "In".into(),
                    values: zones,
                };
                let a = affinity.get_or_insert_with(|| NodeSelector {
                    node_selector_terms: vec![Default::default()],
                });
                for term in &mut a.node_selector_terms {
                    term.match_expressions.push(requirement.clone());
                }
            }
        }
    }
    if let Some(a) = &mut affinity {
        rename(a, BETA_REGION, GA_REGION);
    }
    affinity
}

impl volumes::PreFilteredCheck for PodClaims<'_> {
    const SKIPPED: &'static str = "pod uses no PersistentVolumeClaim";

    fn filter(&self, cx: &Context, node: usize) -> Status {
        match self.find(cx.sched, cx.node(node)) {
            Ok((reasons, _)) if reasons.is_empty() => Status::success(),
            Ok((reasons, _)) => Status {
                code: Code::UnschedulableAndUnresolvable,
                reasons: reasons.into_iter().map(str::to_string).collect(),
            },
            Err(error) => Status::new(
                Code::Error,
                &format!("running \"VolumeBinding\" filter plugin: {error}"),
            ),
        }
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        let names = |claims: &[&PersistentVolumeClaim]| {
            claims
                .iter()
                .map(|c| c.metadata.common.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        for claim in &self.bound {
            parts.push(format!(
                "claim {} bound to volume {}",
                claim.metadata.common.name, claim.spec.volume_name
            ));
        }
        if !self.delayed.is_empty() {
            parts.push(format!(
                "WaitForFirstConsumer claims {}",
                names(&self.delayed)
            ));
        }
        if let Ok((reasons, bindings)) = self.find(cx.sched, cx.node(node))
            && reasons.is_empty()
        {
            for (claim, volume) in &bindings.matched {
                parts.push(format!(
                    "{} would bind {}",
                    claim.metadata.common.name, volume.metadata.common.name
                ));
            }
            for claim in &bindings.provisioned {
                parts.push(format!(
                    "{} would be provisioned here",
                    claim.metadata.common.name
                ));
            }
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;
    use crate::volumes::PreFiltered;
    use crate::*;

    const BIND: &str = "node(s) didn't find available persistent volumes to bind";
    const AFF: &str = "node(s) had volume node affinity conflict";
    const SPACE: &str = "node(s) did not have enough free storage";
    const NOPV: &str = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
    const IMM: &str = "pod has unbound immediate PersistentVolumeClaims";
    const DONE: &str = ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}";

    /// Nodes n1, n2, n3 in racks r1, r2, r9; an Immediate class, a WaitForFirstConsumer class
    /// without a provisioner, one with, and one allowed in rack r9 only; and a claim no pod
    /// uses (so the state records claims).
    fn cluster(objects: &str) -> String {
        nodes(&["rack: r1", "rack: r2", "rack: r9"])
            + &class("instant", "Immediate", "csi.example.io", "")
            + &class(
                "later",
                "WaitForFirstConsumer",
                "kubernetes.io/no-provisioner",
                "",
            )
            + &class("later-any", "WaitForFirstConsumer", "csi.example.io", "")
            + &class(
                "later-r9",
                "WaitForFirstConsumer",
                "csi.example.io",
                "allowedTopologies: [{matchLabelExpressions: [{key: rack, values: [r9]}]}]\n",
            )
            + &claim("unrelated", "", "storageClassName: instant")
            + objects
    }

    /// A volume of `class` and `size`, ReadWriteOnce, Available, in `rack` (none: anywhere).
    fn free(name: &str, class: &str, size: &str, rack: &str, extra: &str) -> String {
        let affinity = if rack.is_empty() {
            String::new()
        } else {
            format!(
                ", nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [{{key: rack, operator: In, values: [{rack}]}}]}}]}}}}"
            )
        };
        volume(
            name,
            "",
            &format!(
                "storageClassName: {class}, capacity: {{storage: {size}}}, accessModes: [ReadWriteOnce]{affinity}{extra}"
            ),
            "Available",
        )
    }

    fn wants(class: &str, size: &str, extra: &str) -> String {
        format!(
            "storageClassName: {class}, accessModes: [ReadWriteOnce], resources: {{requests: {{storage: {size}}}}}{extra}"
        )
    }

    fn bound_claim(name: &str, volume: &str, extra: &str) -> String {
        claim(
            name,
            DONE,
            &format!("storageClassName: later, volumeName: {volume}{extra}"),
        )
    }

    fn capacity(name: &str, rack: &str, fields: &str) -> String {
        format!(
            "apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata: {{name: {name}, namespace: default}}\nstorageClassName: later-any\nnodeTopology: {{matchLabels: {{rack: {rack}}}}}\n{fields}\n---\n"
        )
    }

    fn driver(capacity_check: bool) -> String {
        format!(
            "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {{name: csi.example.io}}\nspec: {{storageCapacity: {capacity_check}}}\n---\n"
        )
    }

    /// Upstream volume_binding_test.go and binder_test.go (FindPodVolumes): per node, its
    /// verdict. Every message is upstream's `ErrReason*` constant.
    #[test]
    fn volume_binding_filter() {
        let ok = |n: &str| n.to_string();
        let no = |n: &str, reasons: &[&str]| format!("{n}: {}", reasons.join("; "));
        let a1 = claim("a", "", &wants("later", "1Gi", ""));
        let cases: Vec<(&str, String, Vec<String>, [String; 3])> = vec![
            (
                "VB-01 no claim: PreFilter skips",
                String::new(),
                vec!["emptyDir: {}".into()],
                [ok("n1"), ok("n2"), ok("n3")],
            ),
            (
                "VB-02 bound claim, volume without affinity",
                bound_claim("logs", "pv-logs", "")
                    + &volume(
                        "pv-logs",
                        "",
                        "storageClassName: later, capacity: {storage: 5Gi}",
                        "Bound",
                    ),
                vec![uses("logs")],
                [ok("n1"), ok("n2"), ok("n3")],
            ),
            (
                "VB-08 WaitForFirstConsumer, no volume, no provisioner",
                a1.clone(),
                vec![uses("a")],
                [no("n1", &[BIND]), no("n2", &[BIND]), no("n3", &[BIND])],
            ),
            (
                "VB-09 a bound claim's affinity and an unmatched claim: one status, two reasons",
                bound_claim("old", "pv-old", "")
                    + &volume(
                        "pv-old",
                        "",
                        "storageClassName: later, capacity: {storage: 5Gi}, claimRef: {namespace: default, name: old}, nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}}",
                        "Bound",
                    )
                    + &claim("new", "", &wants("later", "1Gi", "")),
                vec![uses("old"), uses("new")],
                [
                    no("n1", &[BIND]),
                    no("n2", &[AFF, BIND]),
                    no("n3", &[AFF, BIND]),
                ],
            ),
            (
                "VB-15 the smallest fitting volume on each node",
                a1.clone()
                    + &free("big", "later", "10Gi", "r1", "")
                    + &free("mid", "later", "5Gi", "r1", "")
                    + &free("far", "later", "1Gi", "r2", ""),
                vec![uses("a")],
                [ok("n1"), ok("n2"), no("n3", &[BIND])],
            ),
            (
                "VB-16 claims smallest first: b takes p5, a p10",
                claim("a", "", &wants("later", "5Gi", ""))
                    + &claim("b", "", &wants("later", "1Gi", ""))
                    + &free("p5", "later", "5Gi", "r1", "")
                    + &free("p10", "later", "10Gi", "r1", ""),
                vec![uses("a"), uses("b")],
                [ok("n1"), no("n2", &[BIND]), no("n3", &[BIND])],
            ),
            (
                "VB-17 a takes the only volume, b finds none",
                a1.clone()
                    + &claim("b", "", &wants("later", "5Gi", ""))
                    + &free("p5", "later", "5Gi", "r1", ""),
                vec![uses("a"), uses("b")],
                [no("n1", &[BIND]), no("n2", &[BIND]), no("n3", &[BIND])],
            ),
            (
                "VB-18 the volume's access modes must include the claim's",
                claim(
                    "a",
                    "",
                    "storageClassName: later, accessModes: [ReadWriteMany], resources: {requests: {storage: 1Gi}}",
                ) + &free("p5", "later", "5Gi", "r1", ""),
                vec![uses("a")],
                [no("n1", &[BIND]), no("n2", &[BIND]), no("n3", &[BIND])],
            ),
            (
                "VB-19 volume modes must be equal",
                claim("a", "", &wants("later", "1Gi", ", volumeMode: Block"))
                    + &free("p5", "later", "5Gi", "r1", ""),
                vec![uses("a")],
                [no("n1", &[BIND]), no("n2", &[BIND]), no("n3", &[BIND])],
            ),
            (
                "VB-20 a volume pre-bound to the claim ends the search, even where it does not fit",
                claim("a", ", uid: u1", &wants("later", "1Gi", ""))
                    + &free("good", "later", "5Gi", "r1", "")
                    + &free(
                        "mine",
                        "later",
                        "5Gi",
                        "r2",
                        ", claimRef: {namespace: default, name: a, uid: u1}",
                    ),
                vec![uses("a")],
                [no("n1", &[BIND]), ok("n2"), no("n3", &[BIND])],
            ),
            (
                "VB-21 a claim being provisioned for n2 binds nowhere else",
                claim(
                    "s",
                    ", annotations: {volume.kubernetes.io/selected-node: n2}",
                    &wants("later-any", "1Gi", ""),
                ),
                vec![uses("s")],
                [no("n1", &[BIND]), ok("n2"), no("n3", &[BIND])],
            ),
            (
                "VB-22 the class's allowed topologies",
                claim("t", "", &wants("later-r9", "1Gi", "")),
                vec![uses("t")],
                [no("n1", &[BIND]), no("n2", &[BIND]), ok("n3")],
            ),
            (
                "VB-23 storage capacity: maximumVolumeSize wins over capacity",
                claim("c", "", &wants("later-any", "10Gi", ""))
                    + &driver(true)
                    + &capacity("ca", "r1", "capacity: 50Gi")
                    + &capacity("cb", "r2", "capacity: 100Gi\nmaximumVolumeSize: 8Gi"),
                vec![uses("c")],
                [ok("n1"), no("n2", &[SPACE]), no("n3", &[SPACE])],
            ),
            (
                "VB-24 storage capacity checked and none reported",
                claim("c", "", &wants("later-any", "10Gi", "")) + &driver(true),
                vec![uses("c")],
                [no("n1", &[SPACE]), no("n2", &[SPACE]), no("n3", &[SPACE])],
            ),
            (
                "VB-25 a driver that does not ask for the capacity check",
                claim("c", "", &wants("later-any", "10Gi", "")) + &driver(false),
                vec![uses("c")],
                [ok("n1"), ok("n2"), ok("n3")],
            ),
            (
                "VB-26 a claim without a request needs no capacity",
                claim("c", "", "storageClassName: later-any") + &driver(true),
                vec![uses("c")],
                [ok("n1"), ok("n2"), ok("n3")],
            ),
            (
                "VB-27 no static match: provisioned instead",
                claim("d", "", &wants("later-any", "20Gi", ""))
                    + &free("small", "later-any", "5Gi", "r1", ""),
                vec![uses("d")],
                [ok("n1"), ok("n2"), ok("n3")],
            ),
            (
                "VB-29 v1.34 (VolumeAttributesClass GA): attribute classes must be equal",
                claim(
                    "v",
                    "",
                    &wants("later", "1Gi", ", volumeAttributesClassName: fast"),
                ) + &free("q", "later", "5Gi", "r1", ""),
                vec![uses("v")],
                [no("n1", &[BIND]), no("n2", &[BIND]), no("n3", &[BIND])],
            ),
            (
                "VB-29 with a volume of that attribute class",
                claim(
                    "v",
                    "",
                    &wants("later", "1Gi", ", volumeAttributesClassName: fast"),
                ) + &free("q", "later", "5Gi", "r1", "")
                    + &free(
                        "p",
                        "later",
                        "5Gi",
                        "r1",
                        ", volumeAttributesClassName: fast",
                    ),
                vec![uses("v")],
                [ok("n1"), no("n2", &[BIND]), no("n3", &[BIND])],
            ),
        ];
        for (name, objects, volumes, want) in cases {
            let volumes: Vec<&str> = volumes.iter().map(String::as_str).collect();
            let decision = decide(&cluster(&objects), &with_volumes(&volumes));
            assert_eq!(verdicts(&decision), want, "{name}");
            for verdict in decision.nodes.iter().filter(|v| !v.feasible) {
                assert_eq!(verdict.failed_plugin, Some("VolumeBinding"), "{name}");
                assert_eq!(
                    verdict.code,
                    Some(Code::UnschedulableAndUnresolvable),
                    "{name}"
                );
            }
        }
    }

    /// Claims the plan makes (a StatefulSet's) are looked up as the state's, over a state's
    /// claim of the same name; a state that records no claim still says nothing of the others.
    #[test]
    fn claims_given_by_the_plan_are_looked_up_over_the_states() {
        let given =
            |name: &str, class: &str| match objects(&claim(name, "", &wants(class, "1Gi", "")))
                .pop()
            {
                Some(df_model::Object::PersistentVolumeClaim(c)) => c,
                other => panic!("{other:?}"),
            };
        let given = [given("t", "later-r9"), given("unrelated", "later-r9")];
        let with_claims = cluster("");
        let without_claims =
            with_claims.replace(&claim("unrelated", "", "storageClassName: instant"), "");
        // (case, state, the pod's claims, verdicts)
        let cases = [
            // later-r9 provisions in rack r9 only: n3.
            (
                "a given claim",
                &with_claims,
                vec![uses("t")],
                ["n1: BIND", "n2: BIND", "n3"],
            ),
            // The state's `unrelated` is Immediate (rejected at PreFilter); the given one is
            // later-r9.
            (
                "over the state's claim",
                &with_claims,
                vec![uses("unrelated")],
                ["n1: BIND", "n2: BIND", "n3"],
            ),
            (
                "a claim neither has",
                &with_claims,
                vec![uses("nope")],
                ["n1: NOTFOUND", "n2: NOTFOUND", "n3: NOTFOUND"],
            ),
            (
                "a state without claims: a given one is checked",
                &without_claims,
                vec![uses("t")],
                ["n1: BIND", "n2: BIND", "n3"],
            ),
            (
                "a state without claims: the others are not",
                &without_claims,
                vec![uses("nope")],
                ["n1", "n2", "n3"],
            ),
        ];
        for (name, objects, volumes, want) in cases {
            let state = state(objects);
            let mut scheduler = Scheduler::new(&state, Profile::default());
            scheduler.give_claims(&given);
            let volumes: Vec<&str> = volumes.iter().map(String::as_str).collect();
            let decision = scheduler.decide(&pod(&with_volumes(&volumes)));
            let want: Vec<String> = want
                .iter()
                .map(|v| {
                    v.replace("BIND", BIND)
                        .replace("NOTFOUND", "persistentvolumeclaim \"nope\" not found")
                })
                .collect();
            assert_eq!(verdicts(&decision), want, "{name}");
        }
    }

    /// Before 1.34 (VolumeAttributesClass off by default) a claim naming an attributes class
    /// makes VolumeBinding's Filter fail with upstream's error, and volumes naming one are
    /// never chosen.
    #[test]
    fn attributes_classes_before_the_gate_was_on() {
        let objects = cluster(
            &(claim(
                "v",
                "",
                &wants("later", "1Gi", ", volumeAttributesClassName: fast"),
            ) + &claim("w", "", &wants("later", "1Gi", ""))
                + &free(
                    "p",
                    "later",
                    "5Gi",
                    "r1",
                    ", volumeAttributesClassName: fast",
                )),
        );
        let state = state(&objects);
        let profile = Profile {
            version: crate::versions::KubeVersion { minor: 33 },
            ..Profile::default()
        };
        let scheduler = Scheduler::new(&state, profile);
        let named = scheduler.decide(&pod(&with_volumes(&[&uses("v")])));
        assert_eq!(named.nodes[0].code, Some(Code::Error));
        assert_eq!(
            named.nodes[0].reasons,
            [
                "running \"VolumeBinding\" filter plugin: unsupported volumeAttributesClassName is set on claim default/v when the feature-gate VolumeAttributesClass is disabled"
            ]
        );
        let plain = scheduler.decide(&pod(&with_volumes(&[&uses("w")])));
        assert_eq!(plain.feasible_count(), 0, "the only volume names a class");
    }

    /// Upstream volume_binding_test.go (PreFilter): a rejection gives every node one status,
    /// said once in the summary.
    #[test]
    fn volume_binding_pre_filter_rejects_the_pod() {
        let gone = |phase: &str| {
            claim("gone", DONE, "storageClassName: later, volumeName: pv-x")
                .replace("---\n", &format!("status: {{phase: {phase}}}\n---\n"))
        };
        let ephemeral = "ephemeral: {volumeClaimTemplate: {spec: {storageClassName: later-any}}}";
        let owned_by = |pod: &str| {
            claim(
                "incoming-v0",
                &format!(
                    ", ownerReferences: [{{kind: Pod, name: {pod}, uid: x, controller: true}}]"
                ),
                &wants("later-any", "1Gi", ""),
            )
        };
        let logs = bound_claim("logs", "pv-logs", "")
            + &volume(
                "pv-logs",
                "",
                "storageClassName: later, capacity: {storage: 5Gi}",
                "Bound",
            );
        // (case, objects, pod volumes, the plugin whose PreFilter rejects, its message)
        type Case = (
            &'static str,
            String,
            Vec<String>,
            Option<&'static str>,
            String,
        );
        let cases: Vec<Case> = vec![
            (
                "VB-03 missing claim (VolumeRestrictions' PreFilter sees it first)",
                String::new(),
                vec![uses("cache")],
                Some("VolumeRestrictions"),
                "persistentvolumeclaim \"cache\" not found".into(),
            ),
            (
                "VB-04 the first missing claim",
                logs.clone(),
                vec![uses("logs"), uses("scratch")],
                Some("VolumeRestrictions"),
                "persistentvolumeclaim \"scratch\" not found".into(),
            ),
            (
                "VB-05 unbound claim of an Immediate class",
                claim("a", "", &wants("instant", "1Gi", "")),
                vec![uses("a")],
                Some("VolumeBinding"),
                IMM.into(),
            ),
            (
                "VB-06 a class that does not exist is Immediate",
                claim("a", "", &wants("nosuch", "1Gi", "")),
                vec![uses("a")],
                Some("VolumeBinding"),
                IMM.into(),
            ),
            (
                "VB-07 a claim naming its volume before the binding completed",
                claim("a", "", &wants("later", "1Gi", ", volumeName: pv-a"))
                    + &free("pv-a", "later", "5Gi", "", ""),
                vec![uses("a")],
                Some("VolumeBinding"),
                IMM.into(),
            ),
            (
                "VB-11 a Lost claim",
                gone("Lost"),
                vec![uses("gone")],
                Some("VolumeBinding"),
                "persistentvolumeclaim \"gone\" bound to non-existent persistentvolume \"pv-x\""
                    .into(),
            ),
            (
                "VB-12 a claim being deleted",
                logs.replace(
                    "name: logs, namespace: default",
                    "name: logs, namespace: default, deletionTimestamp: \"2026-01-01T00:00:00Z\"",
                ),
                vec![uses("logs")],
                Some("VolumeBinding"),
                "persistentvolumeclaim \"logs\" is being deleted".into(),
            ),
            (
                "VB-13 an ephemeral volume's claim not created yet",
                String::new(),
                vec![ephemeral.into()],
                Some("VolumeBinding"),
                "waiting for ephemeral volume controller to create the persistentvolumeclaim \"incoming-v0\"".into(),
            ),
            (
                "VB-14 an ephemeral volume's claim made for another pod",
                owned_by("other"),
                vec![ephemeral.into()],
                Some("VolumeBinding"),
                "PVC default/incoming-v0 was not created for pod default/incoming (pod is not owner)"
                    .into(),
            ),
            (
                "the pod's own ephemeral claim binds",
                owned_by("incoming"),
                vec![ephemeral.into()],
                None,
                String::new(),
            ),
            (
                "VB-10 a bound claim whose volume is missing: VolumeZone's PreFilter looks it up",
                gone("Bound"),
                vec![uses("gone")],
                Some("VolumeZone"),
                "persistentvolume \"pv-x\" not found".into(),
            ),
        ];
        for (name, objects, volumes, plugin, message) in cases {
            let volumes: Vec<&str> = volumes.iter().map(String::as_str).collect();
            let decision = decide(&cluster(&objects), &with_volumes(&volumes));
            match plugin {
                Some(plugin) => {
                    assert_eq!(
                        decision.summary,
                        Some(format!("0/3 nodes are available: {message}.")),
                        "{name}"
                    );
                    for verdict in &decision.nodes {
                        assert_eq!(verdict.failed_plugin, Some(plugin), "{name}");
                        assert_eq!(verdict.reasons, [message.as_str()], "{name}");
                    }
                }
                None => assert_eq!(decision.feasible_count(), 3, "{name}"),
            }
        }
        // VB-10 for VolumeBinding alone: its Filter finds the volume missing on every node.
        let state = state(&cluster(&gone("Bound")));
        let scheduler = Scheduler::new(&state, Profile::default());
        let incoming = pod(&with_volumes(&[&uses("gone")]));
        let PreFiltered::Run(claims) = super::pre_filter(&scheduler, &incoming) else {
            panic!("VolumeBinding's PreFilter passes a bound claim");
        };
        for node in &state.nodes {
            let (reasons, _) = claims.find(&scheduler, node).unwrap();
            assert_eq!(reasons, [NOPV]);
        }
    }

    /// Upstream binder_test.go (bound claims of in-tree volumes, CSI migration): a GCE PD
    /// volume labelled with its zone is read as the CSI driver's, whose nodes carry the
    /// driver's zone label, when the node's CSINode says the driver took the plugin over.
    #[test]
    fn migrated_in_tree_volumes_are_matched_on_the_driver_topology() {
        let csi_node = |name: &str, migrated: bool| {
            let annotation = if migrated {
                ", annotations: {storage.alpha.kubernetes.io/migrated-plugins: kubernetes.io/gce-pd}"
            } else {
                ""
            };
            format!(
                "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {{name: {name}{annotation}}}\nspec: {{drivers: [{{name: pd.csi.storage.gke.io}}]}}\n---\n"
            )
        };
        let objects = nodes(&[
            "topology.gke.io/zone: east-1",
            "topology.gke.io/zone: east-2",
        ]) + &bound_claim("m", "pv-m", "")
            + &volume(
                "pv-m",
                ", labels: {failure-domain.beta.kubernetes.io/zone: east-1}",
                "storageClassName: later, capacity: {storage: 5Gi}, gcePersistentDisk: {pdName: disk-1}",
                "Bound",
            );
        let pod = with_volumes(&[&uses("m")]);
        let migrated = objects.clone() + &csi_node("n1", true) + &csi_node("n2", true);
        assert_eq!(
            verdicts(&decide(&migrated, &pod)),
            ["n1".to_string(), format!("n2: {AFF}")]
        );
        let not_migrated = objects.clone() + &csi_node("n1", false) + &csi_node("n2", false);
        assert_eq!(verdicts(&decide(&not_migrated, &pod)), ["n1", "n2"]);
        assert_eq!(verdicts(&decide(&objects, &pod)), ["n1", "n2"]);
    }

    /// What the Filter chose is said in the explanation (upstream keeps it for Reserve).
    #[test]
    fn the_explanation_names_the_volume_each_claim_would_bind() {
        let objects = cluster(
            &(claim("a", "", &wants("later", "5Gi", ""))
                + &claim("b", "", &wants("later", "1Gi", ""))
                + &free("p5", "later", "5Gi", "r1", "")
                + &free("p10", "later", "10Gi", "r1", "")
                + &claim("c", "", &wants("later-any", "1Gi", ""))),
        );
        let state = state(&objects);
        let scheduler = Scheduler::new(&state, Profile::default());
        let incoming = pod(&with_volumes(&[&uses("a"), &uses("b"), &uses("c")]));
        let detail = explain_node(&scheduler, &incoming, "n1");
        let binding = detail
            .filters
            .iter()
            .find(|f| f.plugin == "VolumeBinding")
            .unwrap();
        assert_eq!(
            binding.detail,
            "WaitForFirstConsumer claims a, b, c; b would bind p5; a would bind p10; c would be provisioned here"
        );
        // A pod without claims: PreFilter skipped it, so no filter of it is listed.
        let plain = pod("spec: {containers: [{name: c}]}\n");
        let detail = explain_node(&scheduler, &plain, "n1");
        assert!(
            detail
                .filters
                .iter()
                .all(|f| !f.plugin.starts_with("Volume"))
        );
    }

    /// Upstream's assume cache: a volume a planned pod's claim took is that claim's for later
    /// pods (pre-bound: only where it fits), no other claim's; a provisioned claim stays on
    /// its node. Forgetting the pod gives them back.
    #[test]
    fn planned_pods_keep_the_volumes_their_claims_took() {
        let objects = cluster(
            &(claim("a", "", &wants("later", "1Gi", ""))
                + &claim("b", "", &wants("later", "1Gi", ""))
                + &free("only", "later", "5Gi", "r2", "")
                + &claim("p", "", &wants("later-any", "1Gi", ""))),
        );
        let state = state(&objects);
        let mut scheduler = Scheduler::new(&state, Profile::default());
        let named = |name: &str, claims: &[&str]| {
            let uses: Vec<String> = claims.iter().map(|c| uses(c)).collect();
            let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
            let mut p = pod(&with_volumes(&uses));
            p.metadata.name = name.into();
            p
        };
        let first = scheduler.decide(&named("first", &["a"]));
        assert_eq!(first.selected.as_deref(), Some("n2"));
        scheduler.assume(named("first", &["a"]), "n2");
        // Another claim finds the volume taken.
        let other = scheduler.decide(&named("other", &["b"]));
        assert_eq!(other.feasible_count(), 0);
        // The same claim again: the volume is pre-bound to it, so only its node fits.
        let again = scheduler.decide(&named("again", &["a"]));
        assert_eq!(verdicts(&again)[1], "n2");
        assert_eq!(again.feasible_count(), 1);
        // A provisioned claim is for the node it was provisioned on.
        scheduler.assume(named("maker", &["p"]), "n3");
        let reader = scheduler.decide(&named("reader", &["p"]));
        assert_eq!(reader.selected.as_deref(), Some("n3"));
        assert_eq!(reader.feasible_count(), 1);
        assert!(scheduler.forget("default", "first"));
        assert_eq!(
            scheduler.decide(&named("other", &["b"])).feasible_count(),
            1
        );
    }

    /// A state that records no claims at all (recorded before they were, or written by hand)
    /// cannot say a claim is missing: the claim is not checked.
    #[test]
    fn claims_of_a_state_without_any_are_not_checked() {
        let decision = decide(&nodes(&["rack: r1"]), &with_volumes(&[&uses("data")]));
        assert_eq!(verdicts(&decision), ["n1"]);
    }
}
