//! The in-tree plugins the engine models, one file per upstream plugin, and the static
//! registry that maps a plugin's configuration name to its kind and extension points.
//! Profiles (`--scheduler-config`) and score weights are checked against it.

pub(crate) mod balanced_allocation;
pub mod dynamic_resources;
pub(crate) mod image_locality;
pub(crate) mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_name;
pub(crate) mod node_ports;
pub(crate) mod node_resources_fit;
pub(crate) mod node_unschedulable;
pub(crate) mod node_volume_limits;
pub(crate) mod pod_topology_spread;
pub mod scheduling_gates;
pub mod taint_toleration;
pub(crate) mod volume_binding;
pub(crate) mod volume_restrictions;
pub(crate) mod volume_zone;

/// Modelled plugins outside the filter and score registry: the PreEnqueue plugins, which the
/// engine runs before every cycle unless the profile turns them off.
pub(crate) const PRE_ENQUEUE: [&str; 2] = [scheduling_gates::NAME, dynamic_resources::NAME];

/// A modelled plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PluginKind {
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
    BalancedAllocation,
    ImageLocality,
}

/// One registry entry: the name configurations use and the extension points it implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    pub name: &'static str,
    pub kind: PluginKind,
    /// Implements PreFilter/Filter: the engine always runs it (a profile cannot disable it).
    pub filter: bool,
    /// Implements PreScore/Score(/NormalizeScore).
    pub score: bool,
}

const fn plugin(name: &'static str, kind: PluginKind, filter: bool, score: bool) -> Registration {
    Registration {
        name,
        kind,
        filter,
        score,
    }
}

/// Every modelled plugin; the filters in the order the default profile runs them.
pub(crate) const REGISTRY: [Registration; 15] = [
    plugin(
        "NodeUnschedulable",
        PluginKind::NodeUnschedulable,
        true,
        false,
    ),
    plugin("NodeName", PluginKind::NodeName, true, false),
    plugin("TaintToleration", PluginKind::TaintToleration, true, true),
    plugin("NodeAffinity", PluginKind::NodeAffinity, true, true),
    plugin("NodePorts", PluginKind::NodePorts, true, false),
    plugin("NodeResourcesFit", PluginKind::NodeResourcesFit, true, true),
    plugin(
        "VolumeRestrictions",
        PluginKind::VolumeRestrictions,
        true,
        false,
    ),
    plugin(
        "NodeVolumeLimits",
        PluginKind::NodeVolumeLimits,
        true,
        false,
    ),
    // Its Score exists upstream but is skipped at PreScore unless the StorageCapacityScoring
    // feature gate is on (off in v1.34): a profile may weigh it, and it changes no total.
    plugin("VolumeBinding", PluginKind::VolumeBinding, true, true),
    plugin("VolumeZone", PluginKind::VolumeZone, true, false),
    plugin(
        "PodTopologySpread",
        PluginKind::PodTopologySpread,
        true,
        true,
    ),
    plugin("InterPodAffinity", PluginKind::InterPodAffinity, true, true),
    // Just before DefaultPreemption in the default profile (1.34+): its Filter runs last.
    plugin(
        dynamic_resources::NAME,
        PluginKind::DynamicResources,
        true,
        false,
    ),
    plugin(
        "NodeResourcesBalancedAllocation",
        PluginKind::BalancedAllocation,
        false,
        true,
    ),
    plugin("ImageLocality", PluginKind::ImageLocality, false, true),
];

/// In-tree plugins the engine honours outside the filter and score registry: the queue order
/// of `plan --pending`, binding (which changes no placement) and preemption.
pub(crate) const HONOURED: [&str; 3] = ["PrioritySort", "DefaultBinder", "DefaultPreemption"];

/// In-tree plugins of v1.34 that act on what the engine does not model (the non-CSI volume
/// limits upstream removed in v1.32): a configuration may name them; a profile that
/// enables them is warned that they are left out.
pub(crate) const UNMODELLED: [&str; 4] = [
    "EBSLimits",
    "GCEPDLimits",
    "AzureDiskLimits",
    "CinderLimits",
];

pub(crate) fn registration(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// What the engine knows of an in-tree plugin name.
pub(crate) enum Known {
    /// A filter or score plugin of the registry.
    Registered(&'static Registration),
    /// Run by the engine outside the registry ([`PRE_ENQUEUE`], [`HONOURED`]).
    Honoured,
    /// In kube-scheduler, not modelled ([`UNMODELLED`]).
    InTree,
    /// Not an in-tree plugin of kube-scheduler.
    Unknown,
}

pub(crate) fn known(name: &str) -> Known {
    if let Some(r) = registration(name) {
        Known::Registered(r)
    } else if PRE_ENQUEUE.contains(&name) || HONOURED.contains(&name) {
        Known::Honoured
    } else if UNMODELLED.contains(&name) {
        Known::InTree
    } else {
        Known::Unknown
    }
}

/// Every in-tree plugin name, for did-you-mean.
pub(crate) fn known_names() -> impl Iterator<Item = &'static str> {
    REGISTRY
        .iter()
        .map(|r| r.name)
        .chain(PRE_ENQUEUE)
        .chain(HONOURED)
        .chain(UNMODELLED)
}

impl PluginKind {
    pub fn name(self) -> &'static str {
        REGISTRY
            .iter()
            .find(|r| r.kind == self)
            .map_or("", |r| r.name)
    }
}

/// The filter plugins in the order upstream runs them.
pub fn filters() -> impl Iterator<Item = &'static Registration> {
    REGISTRY.iter().filter(|r| r.filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Filter plugins of the default profile, in the order upstream runs them.
    /// (upstream `getDefaultPlugins`, the same from v1.32 to v1.37).
    const FILTER_ORDER: [&str; 13] = [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ];

    #[test]
    fn every_kind_has_one_registration_and_names_round_trip() {
        for r in &REGISTRY {
            assert_eq!(registration(r.name), Some(r));
            assert_eq!(r.kind.name(), r.name);
            assert!(matches!(known(r.name), Known::Registered(_)), "{}", r.name);
        }
        let order: Vec<&str> = filters().map(|r| r.name).collect();
        assert_eq!(order, FILTER_ORDER);
        for (name, _) in crate::profile::DEFAULT_SCORE_WEIGHTS {
            assert!(registration(name).is_some_and(|r| r.score), "{name}");
        }
    }
}
