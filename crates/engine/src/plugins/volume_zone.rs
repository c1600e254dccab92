//! VolumeZone: a node must be in the zones and regions the pod's bound PersistentVolumes are
//! labelled with (the GA topology labels and the deprecated beta ones). It reads labels only;
//! a volume's node affinity and a class's allowed topologies are VolumeBinding's.

use crate::Scheduler;
use crate::framework::{Code, Context, Status};
use crate::volumes::{self, Lookup, PreFiltered, PreFilteredCheck};
use df_model::Pod;
use df_model::storage::ZONE_LABELS;

pub(crate) const REASON: &str = "node(s) had no available volume zone";

/// One volume's constraint: its label key and the zones (or regions) it allows.
#[derive(Debug)]
pub(crate) struct Topology {
    volume: String,
    key: &'static str,
    values: Vec<String>,
}

pub(crate) type VolumeZone = PreFiltered<Vec<Topology>>;

/// Upstream PreFilter (`getPVbyPod`): the zone labels of the volumes of the pod's
/// `persistentVolumeClaim` volumes (ephemeral ones are not read); unbound WaitForFirstConsumer
/// claims have no volume yet and are left to VolumeBinding.
pub(crate) fn pre_filter(sched: &Scheduler, pod: &Pod) -> VolumeZone {
    let mut topologies = Vec::new();
    for volume in &pod.spec.volumes {
        let Some(name) = volume.claim_name() else {
            continue;
        };
        if name.is_empty() {
            return PreFiltered::unresolvable("PersistentVolumeClaim had no name".into());
        }
        let claim = match sched.storage.claim(&pod.metadata.namespace, name) {
            Lookup::Found(claim) => claim,
            Lookup::Unrecorded => continue,
            Lookup::Missing => return PreFiltered::unresolvable(volumes::claim_not_found(name)),
        };
        let volume_name = &claim.spec.volume_name;
        if volume_name.is_empty() {
            let class = claim.class();
            if class.is_empty() {
                return PreFiltered::unresolvable(
                    "PersistentVolumeClaim had no pv name and storageClass name".into(),
                );
            }
            let Some(class) = sched.storage.class(class) else {
                return PreFiltered::unresolvable(format!(
                    "storageclass.storage.k8s.io {class:?} not found"
                ));
            };
            if class.waits_for_first_consumer() {
                continue;
            }
            return PreFiltered::unresolvable("PersistentVolume had no name".into());
        }
        let Some(bound) = sched.storage.volume(volume_name) else {
            return PreFiltered::unresolvable(format!(
                "persistentvolume {volume_name:?} not found"
            ));
        };
        for key in ZONE_LABELS {
            let Some(value) = bound.metadata.common.labels.get(key) else {
                continue;
            };
            let values: Vec<String> = value.split("__").map(|v| v.trim().to_string()).collect();
            // A label with an empty element is ignored, not an error.
            if values.iter().any(String::is_empty) {
                continue;
            }
            topologies.push(Topology {
                volume: bound.metadata.common.name.clone(),
                key,
                values,
            });
        }
    }
    if topologies.is_empty() {
        PreFiltered::Skip
    } else {
        PreFiltered::Run(topologies)
    }
}

/// The GA key a beta key was replaced by: a volume's beta label may be met by the node's GA
/// one, never the reverse.
fn ga_key(key: &str) -> Option<&'static str> {
    match key {
        "failure-domain.beta.kubernetes.io/zone" => Some("topology.kubernetes.io/zone"),
        "failure-domain.beta.kubernetes.io/region" => Some("topology.kubernetes.io/region"),
        _ => None,
    }
}

impl PreFilteredCheck for Vec<Topology> {
    const SKIPPED: &'static str = "no bound volume of the pod has zone or region labels";

    /// A node without any zone or region label passes (single-zone clusters); else each
    /// volume's label must hold one of the node's values.
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let labels = &cx.node(node).metadata.labels;
        if !ZONE_LABELS.iter().any(|k| labels.contains_key(k)) {
            return Status::success();
        }
        for topology in self {
            let value = labels
                .get(topology.key)
                .or_else(|| ga_key(topology.key).and_then(|k| labels.get(k)));
            if !value.is_some_and(|v| topology.values.iter().any(|z| z == v.as_str())) {
                return Status::new(Code::UnschedulableAndUnresolvable, REASON);
            }
        }
        Status::success()
    }

    fn describe_filter(&self, _: &Context, _: usize) -> String {
        self.iter()
            .map(|t| {
                format!(
                    "volume {} needs {} in [{}]",
                    t.volume,
                    t.key,
                    t.values.join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;
    use crate::volumes::PreFiltered;
    use crate::{Profile, Scheduler};

    const ZONE: &str = "node(s) had no available volume zone";
    const BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
    const BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
    const GA_ZONE: &str = "topology.kubernetes.io/zone";
    const GA_REGION: &str = "topology.kubernetes.io/region";

    /// Volumes labelled with zones and regions, each bound to a claim of its name; an
    /// Immediate and a WaitForFirstConsumer class.
    fn volumes() -> String {
        let labelled: [(&str, String); 8] = [
            ("b-z", format!("{BETA_ZONE}: west-a")),
            ("b-r", format!("{BETA_REGION}: west")),
            ("g-z", format!("{GA_ZONE}: west-a")),
            ("g-r", format!("{GA_REGION}: west")),
            ("g-zr", format!("{GA_ZONE}: west-a, {GA_REGION}: west")),
            ("b-multi", format!("{BETA_ZONE}: west-c__west-a")),
            ("g-multi", format!("{GA_ZONE}: west-c__west-a")),
            ("bad", format!("{GA_ZONE}: \"west-a__\"")),
        ];
        let mut objects = class("imm", "Immediate", "csi.example.io", "")
            + &class("wait", "WaitForFirstConsumer", "csi.example.io", "");
        for (name, labels) in labelled {
            objects += &volume(
                name,
                &format!(", labels: {{{labels}}}"),
                "capacity: {storage: 1Gi}",
                "Bound",
            );
            objects += &claim(
                name,
                ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}",
                &format!("volumeName: {name}"),
            );
        }
        objects
    }

    /// Upstream volume_zone_test.go: one node with `labels`, the pod using `claims`.
    #[test]
    fn volume_zone_filter() {
        let cases: &[(&str, &[&str], &str, bool)] = &[
            (
                "VZ-02 a node without zone labels",
                &["b-z"],
                "other: x",
                true,
            ),
            (
                "VZ-03",
                &["b-z"],
                &format!("{BETA_ZONE}: west-a, other: x"),
                true,
            ),
            ("VZ-04", &["b-r"], &format!("{BETA_REGION}: west"), true),
            ("VZ-05", &["b-r"], &format!("{BETA_REGION}: east"), false),
            ("VZ-06", &["g-z"], &format!("{GA_ZONE}: west-b"), false),
            (
                "VZ-07 zone and region: both",
                &["g-zr"],
                &format!("{GA_ZONE}: west-a"),
                false,
            ),
            (
                "VZ-08 a GA label does not fall back to beta",
                &["g-z"],
                &format!("{BETA_ZONE}: west-a"),
                false,
            ),
            (
                "VZ-09 a beta label falls back to GA",
                &["b-z"],
                &format!("{GA_ZONE}: west-a"),
                true,
            ),
            ("VZ-10", &["b-z"], &format!("{GA_ZONE}: west-b"), false),
            (
                "VZ-11 several zones",
                &["b-multi"],
                &format!("{BETA_ZONE}: west-a"),
                true,
            ),
            (
                "VZ-11 several zones (GA)",
                &["g-multi"],
                &format!("{GA_ZONE}: west-a"),
                true,
            ),
            (
                "VZ-12",
                &["b-multi"],
                &format!("{BETA_ZONE}: west-b"),
                false,
            ),
            (
                "VZ-13 a label with an empty zone is ignored",
                &["bad"],
                &format!("{GA_ZONE}: west-z"),
                true,
            ),
            (
                "region only",
                &["g-r"],
                &format!("{GA_ZONE}: west-a, {GA_REGION}: west"),
                true,
            ),
        ];
        for (name, claims, labels, fits) in cases {
            let uses: Vec<String> = claims.iter().map(|c| uses(c)).collect();
            let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
            let decision = decide(&(nodes(&[labels]) + &volumes()), &with_volumes(&uses));
            let want = if *fits {
                "n1".to_string()
            } else {
                format!("n1: {ZONE}")
            };
            assert_eq!(verdicts(&decision), [want], "{name}");
            if !fits {
                assert_eq!(
                    decision.nodes[0].failed_plugin,
                    Some("VolumeZone"),
                    "{name}"
                );
                assert_eq!(
                    decision.nodes[0].code,
                    Some(crate::Code::UnschedulableAndUnresolvable)
                );
            }
        }
    }

    /// Upstream volume_zone_test.go (PreFilter), the plugin alone: what the pod's claims lack
    /// rejects it. In the whole profile VolumeBinding's PreFilter, earlier, rejects the same
    /// unbound claims as unbound Immediate ones.
    #[test]
    fn volume_zone_pre_filter() {
        let node = nodes(&[&format!("{GA_ZONE}: west-a")]);
        let cases: &[(&str, &str, &str, Option<&str>)] = &[
            (
                "VZ-14 no volume, no class",
                "nosc",
                "",
                Some("PersistentVolumeClaim had no pv name and storageClass name"),
            ),
            (
                "VZ-15 a class that does not exist",
                "x",
                "storageClassName: gold",
                Some("storageclass.storage.k8s.io \"gold\" not found"),
            ),
            (
                "VZ-16 unbound, Immediate",
                "i",
                "storageClassName: imm",
                Some("PersistentVolume had no name"),
            ),
            (
                "VZ-17 unbound, WaitForFirstConsumer: left to VolumeBinding",
                "w",
                "storageClassName: wait",
                None,
            ),
            (
                "VZ-18 bound to a volume that does not exist",
                "lost",
                "volumeName: pv-none",
                Some("persistentvolume \"pv-none\" not found"),
            ),
        ];
        for (name, claim_name, spec, rejected) in cases {
            let objects = node.clone() + &volumes() + &claim(claim_name, "", spec);
            let state = state(&objects);
            let scheduler = Scheduler::new(&state, Profile::default());
            let incoming = pod(&with_volumes(&[&uses(claim_name)]));
            let outcome = super::pre_filter(&scheduler, &incoming);
            match rejected {
                Some(message) => {
                    let status = outcome.rejection().expect(name);
                    assert_eq!(
                        status.code,
                        crate::Code::UnschedulableAndUnresolvable,
                        "{name}"
                    );
                    assert_eq!(status.reasons, [*message], "{name}");
                }
                None => assert!(matches!(outcome, PreFiltered::Skip), "{name}"),
            }
        }
        let objects = node.clone() + &volumes() + &claim("nosc", "", "");
        let decision = decide(&objects, &with_volumes(&[&uses("nosc")]));
        assert_eq!(
            decision.summary.as_deref(),
            Some("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
        );
        // VZ-19: a missing claim (VolumeRestrictions' PreFilter, earlier, says the same).
        let decision = decide(
            &(node.clone() + &volumes()),
            &with_volumes(&[&uses("absent")]),
        );
        assert_eq!(
            decision.summary.as_deref(),
            Some("0/1 nodes are available: persistentvolumeclaim \"absent\" not found.")
        );
    }
}
