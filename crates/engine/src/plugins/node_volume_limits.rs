//! NodeVolumeLimits (upstream `CSILimits`): a node's CSI drivers attach at most their
//! CSINode's `allocatable.count` volumes each. Counted on the node: the volumes of its pods,
//! its VolumeAttachments, unbound claims under their class's provisioner, and in-tree volumes
//! under the CSI driver that took their plugin over (when the CSINode says so). A node without
//! a CSINode, or a driver without a count, has no limit.

use std::collections::{BTreeMap, BTreeSet};

use crate::Scheduler;
use crate::framework::{Code, Context, Status};
use crate::plugins::volume_binding::{in_tree_plugin, migrated_on};
use crate::volumes::{self, Lookup, PreFiltered, PreFilteredCheck};
use df_model::storage::{CSINode, IN_TREE_DRIVERS, PersistentVolumeClaim};
use df_model::{Pod, Volume};

pub(crate) const REASON: &str = "node(s) exceed max volume count";

/// PreFilter found volumes the Filter may count.
#[derive(Debug)]
pub(crate) struct Counted;

pub(crate) type NodeVolumeLimits = PreFiltered<Counted>;

/// The in-line sources a CSI driver may take over, with the plugin they belong to.
fn inline_plugin(volume: &Volume) -> Option<&'static str> {
    if volume.aws_elastic_block_store.is_some() {
        Some("kubernetes.io/aws-ebs")
    } else if volume.gce_persistent_disk.is_some() {
        Some("kubernetes.io/gce-pd")
    } else if volume.azure_disk.is_some() {
        Some("kubernetes.io/azure-disk")
    } else if volume.cinder.is_some() {
        Some("kubernetes.io/cinder")
    } else if volume.portworx_volume.is_some() {
        Some("kubernetes.io/portworx-volume")
    } else {
        None
    }
}

/// Upstream PreFilter: Skip unless the pod has a claim, an ephemeral or a migratable in-line
/// volume.
pub(crate) fn pre_filter(pod: &Pod) -> NodeVolumeLimits {
    let counted = pod.spec.volumes.iter().any(|v| {
        v.persistent_volume_claim.is_some() || v.ephemeral.is_some() || inline_plugin(v).is_some()
    });
    if counted {
        PreFiltered::Run(Counted)
    } else {
        PreFiltered::Skip
    }
}

/// The CSI driver serving an in-tree plugin.
fn csi_name(plugin: &str) -> Option<&'static str> {
    IN_TREE_DRIVERS
        .iter()
        .find(|(p, _)| *p == plugin)
        .map(|(_, d)| *d)
}

/// Whether counting follows the plugin's volumes to its CSI driver on this node: the plugins
/// whose migration cannot be turned off, and Portworx (on by default), listed by the CSINode.
fn counts_migrated(csi_node: Option<&CSINode>, plugin: &str) -> bool {
    plugin != "kubernetes.io/azure-file"
        && plugin != "kubernetes.io/vsphere-volume"
        && migrated_on(csi_node, plugin)
}

/// The volume handle csi-translation-lib gives an in-line or in-tree source.
fn inline_handle(volume: &Volume) -> String {
    if let Some(ebs) = &volume.aws_elastic_block_store {
        ebs_handle(&ebs.volume_id)
    } else if let Some(pd) = &volume.gce_persistent_disk {
        format!(
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{}",
            pd.pd_name
        )
    } else if let Some(disk) = &volume.azure_disk {
        disk.disk_uri.clone()
    } else if let Some(id) = volume.cinder.as_ref().or(volume.portworx_volume.as_ref()) {
        id.volume_id.clone()
    } else {
        String::new()
    }
}

/// An EBS volume ID without its `aws://<zone>/` prefix.
fn ebs_handle(id: &str) -> String {
    id.rsplit('/').next().unwrap_or(id).to_string()
}

/// What counts of a pod's volumes on a node: `driver/handle` -> driver. `Err` for a new pod
/// whose claim cannot be read (its status), when `incoming`.
fn attachable(
    sched: &Scheduler,
    pod: &Pod,
    csi_node: Option<&CSINode>,
    incoming: bool,
) -> Result<BTreeMap<String, String>, Status> {
    let mut out = BTreeMap::new();
    for volume in &pod.spec.volumes {
        let Some((name, ephemeral)) = volumes::claim_name(pod, volume) else {
            if let Some(plugin) = inline_plugin(volume)
                && counts_migrated(csi_node, plugin)
                && let Some(driver) = csi_name(plugin)
            {
                out.insert(format!("{driver}/{}", inline_handle(volume)), driver.into());
            }
            continue;
        };
        if name.is_empty() {
            return Err(Status::new(
                Code::Error,
                "PersistentVolumeClaim had no name",
            ));
        }
        let namespace = &pod.metadata.namespace;
        let claim = match sched.storage.claim(namespace, &name) {
            Lookup::Found(claim) => claim,
            Lookup::Unrecorded => continue,
            Lookup::Missing if incoming => {
                return Err(Status::new(
                    Code::UnschedulableAndUnresolvable,
                    &format!(
                        "looking up PVC {namespace}/{name}: {}",
                        volumes::claim_not_found(&name)
                    ),
                ));
            }
            Lookup::Missing => continue,
        };
        if ephemeral && !volumes::made_for(claim, pod) {
            return Err(Status::new(Code::Error, &volumes::not_owner(claim, pod)));
        }
        if let Some((driver, handle)) = driver_of(sched, claim, csi_node) {
            out.insert(format!("{driver}/{handle}"), driver);
        }
    }
    Ok(out)
}

/// Upstream `getCSIDriverInfo`: the bound volume's CSI driver and handle (an in-tree volume's
/// when its plugin is taken over on the node); for an unbound claim, or one whose volume is
/// missing, its class's provisioner and a handle unique to the claim.
fn driver_of(
    sched: &Scheduler,
    claim: &PersistentVolumeClaim,
    csi_node: Option<&CSINode>,
) -> Option<(String, String)> {
    let bound = (!claim.spec.volume_name.is_empty())
        .then(|| sched.storage.volume(&claim.spec.volume_name))
        .flatten();
    let Some(volume) = bound else {
        let class = sched.storage.class(claim.class())?;
        let meta = &claim.metadata.common;
        let handle = format!("unbound-{}/{}", meta.namespace, meta.name);
        let provisioner = class.provisioner.as_str();
        return match csi_name(provisioner) {
            Some(driver) => {
                counts_migrated(csi_node, provisioner).then(|| (driver.to_string(), handle))
            }
            None => Some((provisioner.to_string(), handle)),
        };
    };
    if let Some(csi) = &volume.spec.csi {
        return Some((csi.driver.clone(), csi.volume_handle.clone()));
    }
    let plugin = in_tree_plugin(volume)?;
    if !counts_migrated(csi_node, plugin) {
        return None;
    }
    let spec = &volume.spec;
    let handle = if let Some(ebs) = &spec.aws_elastic_block_store {
        ebs_handle(&ebs.volume_id)
    } else if let Some(pd) = &spec.gce_persistent_disk {
        gce_pd_handle(volume, &pd.pd_name)
    } else if let Some(disk) = &spec.azure_disk {
        disk.disk_uri.clone()
    } else {
        spec.cinder
            .as_ref()
            .or(spec.portworx_volume.as_ref())
            .map(|id| id.volume_id.clone())
            .unwrap_or_default()
    };
    Some((csi_name(plugin)?.to_string(), handle))
}

/// A GCE PD volume's CSI handle: zonal from its zone label, regional when it lists two zones.
fn gce_pd_handle(volume: &df_model::storage::PersistentVolume, disk: &str) -> String {
    let labels = &volume.metadata.common.labels;
    let zone = labels
        .get("failure-domain.beta.kubernetes.io/zone")
        .or_else(|| labels.get("topology.kubernetes.io/zone"))
        .map(|z| z.to_string())
        .unwrap_or_else(|| "UNSPECIFIED".into());
    let zones: Vec<&str> = zone.split("__").collect();
    if zones.len() > 1 {
        let region = zones[0].rsplit_once('-').map_or(zones[0], |(r, _)| r);
        format!("projects/UNSPECIFIED/regions/{region}/disks/{disk}")
    } else {
        format!("projects/UNSPECIFIED/zones/{zone}/disks/{disk}")
    }
}

/// Per driver, the volumes already counted on the node and the limits, for the Filter and
/// its explanation: (new volumes by driver, counted by driver, limits), or the status.
type Tally = (
    BTreeMap<String, usize>,
    BTreeMap<String, usize>,
    BTreeMap<String, i64>,
);

fn tally(cx: &Context, node: usize) -> Result<Option<Tally>, Status> {
    let sched = cx.sched;
    let node_name = &cx.node(node).metadata.name;
    let csi_node = sched.storage.csi_node(node_name);
    let mut new = attachable(sched, cx.pod, csi_node, true)?;
    if new.is_empty() {
        return Ok(None);
    }
    let limits: BTreeMap<String, i64> = csi_node
        .into_iter()
        .flat_map(|c| &c.spec.drivers)
        .filter_map(|d| Some((d.name.clone(), d.allocatable.as_ref()?.count?)))
        .collect();
    if limits.is_empty() {
        return Ok(None);
    }
    let mut attached: BTreeMap<String, String> = BTreeMap::new();
    for pod in sched.pods_on(node) {
        // A placed pod's unreadable volumes are skipped, as upstream does.
        attached.extend(attachable(sched, pod, csi_node, false).unwrap_or_default());
    }
    let mut counted: BTreeMap<String, usize> = BTreeMap::new();
    for (unique, driver) in &attached {
        *counted.entry(driver.clone()).or_default() += 1;
        new.remove(unique);
    }
    let mut seen: BTreeSet<String> = attached.keys().cloned().collect();
    for attachment in sched.storage.attachments(node_name) {
        let attacher = &attachment.spec.attacher;
        let Some(volume) = attachment
            .spec
            .source
            .persistent_volume_name
            .as_deref()
            .and_then(|v| sched.storage.volume(v))
        else {
            continue;
        };
        let Some(csi) = volume.spec.csi.as_ref().filter(|_| !attacher.is_empty()) else {
            continue;
        };
        if seen.insert(format!("{attacher}/{}", csi.volume_handle)) {
            *counted.entry(attacher.clone()).or_default() += 1;
        }
    }
    let mut wanted: BTreeMap<String, usize> = BTreeMap::new();
    for driver in new.values() {
        *wanted.entry(driver.clone()).or_default() += 1;
    }
    Ok(Some((wanted, counted, limits)))
}

impl PreFilteredCheck for Counted {
    const SKIPPED: &'static str = "pod has no volume a CSI driver attaches";

    fn filter(&self, cx: &Context, node: usize) -> Status {
        let (wanted, counted, limits) = match tally(cx, node) {
            Ok(Some(tally)) => tally,
            Ok(None) => return Status::success(),
            Err(status) => return status,
        };
        for (driver, n) in &wanted {
            if let Some(&limit) = limits.get(driver) {
                let used = counted.get(driver).copied().unwrap_or(0);
                if (used + n) as i64 > limit {
                    return Status::new(Code::Unschedulable, REASON);
                }
            }
        }
        Status::success()
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        match tally(cx, node) {
            Ok(Some((wanted, counted, limits))) => wanted
                .iter()
                .map(|(driver, n)| {
                    let used = counted.get(driver).copied().unwrap_or(0);
                    match limits.get(driver) {
                        Some(limit) => format!("{driver}: {used} attached + {n} of {limit}"),
                        None => format!("{driver}: no limit"),
                    }
                })
                .collect::<Vec<_>>()
                .join("; "),
            Ok(None) => "no attach limit applies on this node".into(),
            Err(status) => status.reasons.join(", "),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;
    use crate::*;

    const MAX: &str = "node(s) exceed max volume count";
    const DONE: &str = ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}";

    /// A CSINode for n1 with `drivers` (`name` or `name(count)`) and migrated plugins.
    fn csi_node(drivers: &[(&str, Option<i64>)], migrated: &str) -> String {
        let drivers: Vec<String> = drivers
            .iter()
            .map(|(name, count)| match count {
                Some(n) => format!("{{name: {name}, allocatable: {{count: {n}}}}}"),
                None => format!("{{name: {name}}}"),
            })
            .collect();
        let annotation = if migrated.is_empty() {
            String::new()
        } else {
            format!(
                ", annotations: {{storage.alpha.kubernetes.io/migrated-plugins: \"{migrated}\"}}"
            )
        };
        format!(
            "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {{name: n1{annotation}}}\nspec: {{drivers: [{}]}}\n---\n",
            drivers.join(", ")
        )
    }

    /// Claim `pvc-k` bound to volume `pv-k` of driver `driver` (handle `h-k`).
    fn bound(k: &str, driver: &str) -> String {
        claim(
            &format!("pvc-{k}"),
            DONE,
            &format!("storageClassName: blk, volumeName: pv-{k}"),
        ) + &volume(
            &format!("pv-{k}"),
            "",
            &format!(
                "storageClassName: blk, capacity: {{storage: 1Gi}}, csi: {{driver: {driver}, volumeHandle: h-{k}}}"
            ),
            "Bound",
        )
    }

    /// Running pods on n1, one per claim.
    fn users(claims: &[&str]) -> String {
        claims
            .iter()
            .enumerate()
            .map(|(i, c)| {
                running(
                    &format!("user-{i}"),
                    "n1",
                    "",
                    &format!("  volumes:\n  - {{name: d, {}}}\n", uses(c)),
                )
            })
            .collect()
    }

    fn attachment(name: &str, volume: &str) -> String {
        format!(
            "apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata: {{name: {name}}}\nspec: {{attacher: blk.csi.example, nodeName: n1, source: {{persistentVolumeName: {volume}}}}}\n---\n"
        )
    }

    /// Upstream csi_test.go: n1's verdict for a pod using `wanted`, against `objects`.
    #[test]
    fn node_volume_limits_filter() {
        const D: &str = "blk.csi.example";
        let base = nodes(&["zone: a"])
            + &class("blk", "WaitForFirstConsumer", D, "")
            + &(1..=8)
                .map(|k| bound(&k.to_string(), D))
                .collect::<String>()
            + &bound("e1", "other.csi.example")
            + &bound("e2", "other.csi.example");
        let unbound =
            |name: &str, class: &str| claim(name, "", &format!("storageClassName: {class}"));
        let cases: Vec<(&str, String, &str, bool)> = vec![
            (
                "NL-02 under the limit",
                csi_node(&[(D, Some(4))], "") + &users(&["pvc-2", "pvc-3"]),
                "pvc-1",
                true,
            ),
            (
                "NL-03 over the limit",
                csi_node(&[(D, Some(2))], "") + &users(&["pvc-2", "pvc-3"]),
                "pvc-1",
                false,
            ),
            (
                "NL-04 a driver without a count",
                csi_node(&[(D, None)], "") + &users(&["pvc-2", "pvc-3"]),
                "pvc-1",
                true,
            ),
            (
                "NL-05 no CSINode",
                users(&["pvc-2", "pvc-3"]),
                "pvc-1",
                true,
            ),
            (
                "NL-06 an unbound claim counts under its class's provisioner",
                csi_node(&[(D, Some(2))], "")
                    + &unbound("pvc-u", "blk")
                    + &users(&["pvc-2", "pvc-u"]),
                "pvc-1",
                false,
            ),
            (
                "NL-07 a claim two pods share counts once",
                csi_node(&[(D, Some(3))], "")
                    + &unbound("pvc-u", "blk")
                    + &users(&["pvc-u", "pvc-u", "pvc-2"]),
                "pvc-1",
                true,
            ),
            (
                "NL-08 a claim whose volume is missing counts under its class",
                csi_node(&[(D, Some(2))], "")
                    + &claim("pvc-z", DONE, "storageClassName: blk, volumeName: pv-none")
                    + &users(&["pvc-z", "pvc-2"]),
                "pvc-1",
                false,
            ),
            (
                "NL-09 a claim of a class that does not exist is not counted",
                csi_node(&[(D, Some(2))], "")
                    + &unbound("pvc-n", "absent")
                    + &users(&["pvc-n", "pvc-2"]),
                "pvc-1",
                true,
            ),
            (
                "NL-10 a volume already on the node",
                csi_node(&[(D, Some(2))], "") + &users(&["pvc-2", "pvc-3"]),
                "pvc-2",
                true,
            ),
            (
                "NL-11 limits are per driver",
                csi_node(&[(D, Some(1)), ("other.csi.example", Some(1))], "")
                    + &users(&["pvc-e1", "pvc-e2"]),
                "pvc-1",
                true,
            ),
            (
                "NL-12 VolumeAttachments count",
                csi_node(&[(D, Some(2))], "")
                    + &attachment("va-a", "pv-7")
                    + &attachment("va-b", "pv-8"),
                "pvc-1",
                false,
            ),
            (
                "NL-13 one VolumeAttachment",
                csi_node(&[(D, Some(2))], "") + &attachment("va-a", "pv-7"),
                "pvc-1",
                true,
            ),
            (
                "NL-14 the attachment of a pod's volume counts once",
                csi_node(&[(D, Some(2))], "") + &users(&["pvc-2"]) + &attachment("va-a", "pv-2"),
                "pvc-1",
                true,
            ),
        ];
        for (name, objects, wanted, fits) in cases {
            let decision = decide(&(base.clone() + &objects), &with_volumes(&[&uses(wanted)]));
            let n1 = &decision.nodes[0];
            assert_eq!(n1.feasible, fits, "{name}: {:?}", n1.reasons);
            if !fits {
                assert_eq!(n1.reasons, [MAX], "{name}");
                assert_eq!(n1.failed_plugin, Some("NodeVolumeLimits"), "{name}");
                assert_eq!(n1.code, Some(Code::Unschedulable), "{name}");
            }
        }
    }

    /// Upstream csi_test.go (CSI migration): in-tree EBS volumes, in-line or through a claim,
    /// count under the EBS CSI driver when the node's CSINode says it took the plugin over.
    #[test]
    fn in_tree_volumes_count_under_the_driver_that_took_them_over() {
        const EBS: &str = "ebs.csi.aws.com";
        let in_tree = |k: &str| {
            claim(&format!("pvc-{k}"), DONE, &format!("volumeName: pv-{k}"))
                + &volume(
                    &format!("pv-{k}"),
                    "",
                    &format!(
                        "capacity: {{storage: 1Gi}}, awsElasticBlockStore: {{volumeID: \"aws://us-east-1a/vol-{k}\"}}"
                    ),
                    "Bound",
                )
        };
        let objects = |migrated: &str| {
            nodes(&["zone: a"])
                + &in_tree("7")
                + &in_tree("8")
                + &in_tree("9")
                + &csi_node(&[(EBS, Some(2))], migrated)
                + &users(&["pvc-7", "pvc-8"])
        };
        let inline = "awsElasticBlockStore: {volumeID: vol-10}";
        for wanted in [uses("pvc-9"), inline.to_string()] {
            // NL-15, NL-16
            let decision = decide(&objects("kubernetes.io/aws-ebs"), &with_volumes(&[&wanted]));
            assert_eq!(reasons(&decision), [MAX], "{wanted}");
            let decision = decide(&objects(""), &with_volumes(&[&wanted]));
            assert_eq!(decision.feasible_count(), 1, "{wanted}");
        }
        // The same EBS volume in-line and through a claim is one volume (`aws://zone/` cut).
        let decision = decide(
            &objects("kubernetes.io/aws-ebs"),
            &with_volumes(&["awsElasticBlockStore: {volumeID: vol-7}"]),
        );
        assert_eq!(decision.feasible_count(), 1);
    }

    /// Upstream csi_test.go: no counted volume skips the plugin; an ephemeral volume's claim
    /// is looked up (VolumeBinding's PreFilter rejects a missing one first, in the profile).
    #[test]
    fn node_volume_limits_pre_filter_and_claim_lookup() {
        let cluster = nodes(&["zone: a"])
            + &csi_node(&[("blk.csi.example", Some(0))], "")
            + &claim("unrelated", "", "storageClassName: blk");
        let state = state(&cluster);
        let scheduler = Scheduler::new(&state, Profile::default());
        // NL-01, NL-20: configMap, secret and hostPath volumes are not counted.
        let plain = pod(&with_volumes(&[
            "configMap: {name: c}",
            "secret: {secretName: s}",
            "hostPath: {path: /data}",
        ]));
        assert!(matches!(
            super::pre_filter(&plain),
            crate::volumes::PreFiltered::Skip
        ));
        let detail = explain_node(&scheduler, &plain, "n1");
        assert!(
            detail
                .filters
                .iter()
                .all(|f| f.plugin != "NodeVolumeLimits")
        );
        // NL-17: the plugin alone, on a missing ephemeral claim.
        let ephemeral = pod(&with_volumes(&[
            "ephemeral: {volumeClaimTemplate: {spec: {}}}",
        ]));
        let cx = crate::framework::Context::new(&scheduler, &ephemeral);
        let status = crate::framework::Filter::filter(&super::pre_filter(&ephemeral), &cx, 0);
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(
            status.reasons,
            ["looking up PVC default/incoming-v0: persistentvolumeclaim \"incoming-v0\" not found"]
        );
    }
}
