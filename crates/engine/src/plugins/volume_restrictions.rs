//! VolumeRestrictions: in-line disks a node's pods already use cannot be mounted again
//! (GCE PD and iSCSI unless both are read-only, EBS in any case, RBD images sharing a
//! monitor), and a ReadWriteOncePod claim another pod uses blocks every node. Both are
//! Unschedulable: preemption may evict the pod holding the disk or the claim.

use crate::Scheduler;
use crate::framework::{Code, Context, Status};
use crate::volumes::{self, Lookup, PreFiltered, PreFilteredCheck};
use df_model::{Pod, Volume};

pub(crate) const REASON_DISK_CONFLICT: &str = "node(s) had no available disk";
pub(crate) const REASON_READ_WRITE_ONCE_POD: &str =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

/// PreFilter: whether the pod has in-line disks to compare, and how many placed pods use its
/// ReadWriteOncePod claims.
#[derive(Debug)]
pub(crate) struct Restrictions {
    disks: bool,
    /// Uses of the pod's ReadWriteOncePod claims by placed pods, anywhere in the cluster.
    conflicts: usize,
}

pub(crate) type VolumeRestrictions = PreFiltered<Restrictions>;

fn has_disk(volume: &Volume) -> bool {
    volume.gce_persistent_disk.is_some()
        || volume.aws_elastic_block_store.is_some()
        || volume.rbd.is_some()
        || volume.iscsi.is_some()
}

/// Upstream PreFilter: every `persistentVolumeClaim` volume's claim must exist (ephemeral
/// volumes are not read here); the pod's ReadWriteOncePod claims are counted against every
/// placed pod's volumes (preemption's what-ifs take victims off, which lowers the count).
pub(crate) fn pre_filter(sched: &Scheduler, pod: &Pod) -> VolumeRestrictions {
    let namespace = pod.metadata.namespace.as_str();
    let mut once: Vec<&str> = Vec::new();
    for volume in &pod.spec.volumes {
        let Some(name) = volume.claim_name() else {
            continue;
        };
        match sched.storage.claim(namespace, name) {
            Lookup::Found(claim) => {
                if claim
                    .spec
                    .access_modes
                    .iter()
                    .any(|m| m == "ReadWriteOncePod")
                {
                    once.push(name);
                }
            }
            Lookup::Missing => return PreFiltered::unresolvable(volumes::claim_not_found(name)),
            Lookup::Unrecorded => {}
        }
    }
    let conflicts = if once.is_empty() {
        0
    } else {
        sched
            .placed_pods_in(namespace)
            .flat_map(|p| &p.spec.volumes)
            .filter(|v| v.claim_name().is_some_and(|c| once.contains(&c)))
            .count()
    };
    let disks = pod.spec.volumes.iter().any(has_disk);
    if !disks && conflicts == 0 {
        PreFiltered::Skip
    } else {
        PreFiltered::Run(Restrictions { disks, conflicts })
    }
}

/// Upstream `isVolumeConflict`: the same disk mounted twice where the API forbids it.
fn conflicts(volume: &Volume, existing: &Volume) -> bool {
    if let (Some(a), Some(b)) = (&volume.gce_persistent_disk, &existing.gce_persistent_disk) {
        return a.pd_name == b.pd_name && !(a.read_only && b.read_only);
    }
    if let (Some(a), Some(b)) = (
        &volume.aws_elastic_block_store,
        &existing.aws_elastic_block_store,
    ) {
        return a.volume_id == b.volume_id;
    }
    if let (Some(a), Some(b)) = (&volume.iscsi, &existing.iscsi) {
        return a.iqn == b.iqn && !(a.read_only && b.read_only);
    }
    if let (Some(a), Some(b)) = (&volume.rbd, &existing.rbd) {
        // The API defaults an unset pool to `rbd`.
        let pool = |p: &str| if p.is_empty() { "rbd" } else { p }.to_string();
        return a.monitors.iter().any(|m| b.monitors.contains(m))
            && pool(&a.pool) == pool(&b.pool)
            && a.image == b.image
            && !(a.read_only && b.read_only);
    }
    false
}

impl PreFilteredCheck for Restrictions {
    const SKIPPED: &'static str =
        "no in-line disk, and no ReadWriteOncePod claim of the pod is in use";

    fn filter(&self, cx: &Context, node: usize) -> Status {
        if self.disks {
            let on_node = cx.sched.pods_on(node).flat_map(|p| &p.spec.volumes);
            for existing in on_node {
                if cx.pod.spec.volumes.iter().any(|v| conflicts(v, existing)) {
                    return Status::new(Code::Unschedulable, REASON_DISK_CONFLICT);
                }
            }
        }
        if self.conflicts > 0 {
            return Status::new(Code::Unschedulable, REASON_READ_WRITE_ONCE_POD);
        }
        Status::success()
    }

    fn describe_filter(&self, _: &Context, _: usize) -> String {
        let mut parts = Vec::new();
        if self.disks {
            parts.push("in-line disks compared with the node's pods'".to_string());
        }
        if self.conflicts > 0 {
            parts.push(format!(
                "{} use(s) of the pod's ReadWriteOncePod claims by placed pods",
                self.conflicts
            ));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;
    use crate::*;

    const DISK: &str = "node(s) had no available disk";
    const RWOP: &str = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

    /// A running pod on `node` with one volume.
    fn holder(name: &str, node: &str, volume: &str) -> String {
        running(
            name,
            node,
            "",
            &format!("  volumes:\n  - {{name: d, {volume}}}\n"),
        )
    }

    /// Upstream volume_restrictions_test.go (disk conflicts): the node's pods' in-line disks.
    #[test]
    fn in_line_disks_conflict_on_the_node() {
        let pd =
            |name: &str, ro: bool| format!("gcePersistentDisk: {{pdName: {name}, readOnly: {ro}}}");
        let ebs = |id: &str, ro: bool| {
            format!("awsElasticBlockStore: {{volumeID: {id}, readOnly: {ro}}}")
        };
        let rbd = |mons: &str| format!("rbd: {{monitors: [{mons}], pool: p, image: i}}");
        let iscsi = |iqn: &str, ro: bool| {
            format!(
                "iscsi: {{targetPortal: \"10.0.0.1:3260\", iqn: {iqn}, lun: 0, readOnly: {ro}}}"
            )
        };
        let cases: Vec<(&str, String, String, &str, bool)> = vec![
            (
                "VR-02 nothing to compare",
                "configMap: {name: x}".into(),
                pd("alpha", false),
                "n1",
                true,
            ),
            (
                "VR-03 the same PD",
                pd("alpha", false),
                pd("alpha", false),
                "n1",
                false,
            ),
            (
                "VR-04 both read-only",
                pd("alpha", true),
                pd("alpha", true),
                "n1",
                true,
            ),
            (
                "VR-05 one read-write",
                pd("alpha", true),
                pd("alpha", false),
                "n1",
                false,
            ),
            (
                "VR-06 another PD",
                pd("beta", false),
                pd("alpha", false),
                "n1",
                true,
            ),
            (
                "VR-07 EBS ignores read-only",
                ebs("vol-1", true),
                ebs("vol-1", true),
                "n1",
                false,
            ),
            (
                "VR-08 another EBS volume",
                ebs("vol-2", false),
                ebs("vol-1", false),
                "n1",
                true,
            ),
            (
                "VR-09 one monitor shared",
                rbd("m1, m2"),
                rbd("m2, m3"),
                "n1",
                false,
            ),
            (
                "VR-10 no monitor shared",
                rbd("m5, m6"),
                rbd("m1, m2"),
                "n1",
                true,
            ),
            (
                "VR-11 the same iSCSI target",
                iscsi("q1", false),
                iscsi("q1", false),
                "n1",
                false,
            ),
            (
                "VR-12 both read-only",
                iscsi("q1", true),
                iscsi("q1", true),
                "n1",
                true,
            ),
            (
                "VR-13 only the node's pods count",
                ebs("vol-1", false),
                ebs("vol-1", false),
                "n2",
                true,
            ),
        ];
        for (name, wanted, held, holder_node, fits) in cases {
            let cluster = nodes(&["zone: a", "zone: b"]) + &holder("holder", holder_node, &held);
            let decision = decide(&cluster, &with_volumes(&[&wanted]));
            let n1 = &decision.nodes[0];
            assert_eq!(n1.feasible, fits, "{name}: {:?}", n1.reasons);
            if !fits {
                assert_eq!(n1.reasons, [DISK], "{name}");
                assert_eq!(n1.code, Some(Code::Unschedulable), "{name}");
            }
        }
    }

    /// Upstream volume_restrictions_test.go (ReadWriteOncePod): a claim another pod uses
    /// blocks every node with an Unschedulable status, so preemption may evict the user.
    #[test]
    fn a_read_write_once_pod_claim_in_use_blocks_every_node() {
        // Bound claims, so that VolumeBinding (after it) lets the pod through.
        let bound = |name: &str, mode: &str| {
            let done = ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}";
            claim(
                name,
                done,
                &format!("accessModes: [{mode}], volumeName: pv-{name}"),
            ) + &volume(
                &format!("pv-{name}"),
                "",
                "capacity: {storage: 1Gi}",
                "Bound",
            )
        };
        let once = |name: &str| bound(name, "ReadWriteOncePod");
        let cluster = nodes(&["zone: a", "zone: b"])
            + &once("once-1")
            + &once("once-2")
            + &bound("shared", "ReadWriteMany")
            + &holder("user", "n1", &uses("once-1"))
            + &running(
                "both",
                "n2",
                "",
                &format!(
                    "  volumes:\n  - {{name: a, {}}}\n  - {{name: b, {}}}\n",
                    uses("once-2"),
                    uses("shared")
                ),
            );
        // VR-16: every node gets the reason, n2 as well as the user's n1.
        let decision = decide(&cluster, &with_volumes(&[&uses("once-1")]));
        assert_eq!(reasons(&decision), [RWOP, RWOP]);
        assert_eq!(
            decision.summary.as_deref(),
            Some(format!("0/2 nodes are available: 2 {RWOP}.").as_str())
        );
        assert!(
            decision
                .nodes
                .iter()
                .all(|v| v.code == Some(Code::Unschedulable))
        );
        // VR-18: two of them in use: the same reason.
        let decision = decide(&cluster, &with_volumes(&[&uses("once-1"), &uses("once-2")]));
        assert_eq!(reasons(&decision), [RWOP, RWOP]);
        // VR-17: a claim of another access mode is not restricted; VR-15: a claim no pod uses.
        let free = cluster.clone() + &once("once-3");
        for unused in ["shared", "once-3"] {
            let decision = decide(&free, &with_volumes(&[&uses(unused)]));
            assert_eq!(decision.feasible_count(), 2, "{unused}");
        }
        // VR-14: a missing claim.
        let decision = decide(&cluster, &with_volumes(&[&uses("missing")]));
        assert_eq!(
            decision.summary.as_deref(),
            Some("0/2 nodes are available: persistentvolumeclaim \"missing\" not found.")
        );
        // Preemption (VR-16): only evicting the claim's user, on n1, makes room; the pod is
        // nominated there with that victim.
        let state = state(&cluster);
        let mut scheduler = Scheduler::new(&state, Profile::default());
        let mut urgent = pod(&with_volumes(&[&uses("once-1")]));
        urgent.spec.priority = Some(1000);
        let mut decision = scheduler.decide(&urgent);
        let preemption = scheduler.preempt(&urgent, &mut decision).unwrap();
        assert_eq!(preemption.node.as_deref(), Some("n1"));
        let victims: Vec<&str> = preemption.victims.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(victims, ["user"]);
        // Once the user is gone, the claim is free everywhere.
        assert!(scheduler.forget("default", "user"));
        let decision = scheduler.decide(&urgent);
        assert!(
            decision
                .nodes
                .iter()
                .all(|v| v.failed_plugin != Some("VolumeRestrictions"))
        );
    }
}
