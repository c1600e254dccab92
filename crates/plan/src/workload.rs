//! What each workload kind creates, in one place the planner calls: a DaemonSet one pod per
//! node that should run it (the DaemonSet controller's tolerations and node-name affinity
//! added), a Deployment, ReplicaSet or StatefulSet its replicas, a Job or CronJob the pods the
//! Job controller starts (parallelism capped by the remaining completions, decided when the
//! manifest is read).

use df_engine::{Given, Profile, Scheduler};
use df_manifest::ManifestSet;
use df_model::storage::PersistentVolumeClaim;
use df_model::{
    NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Object, ObjectMeta, Pod,
    PodSpec, Toleration, Workload,
};
use df_state::ClusterState;

pub use df_model::{JOB_NAME_LABELS, POD_INDEX_LABEL, STATEFULSET_POD_NAME_LABEL};

/// Tolerations (key, effect; `operator: Exists`) the DaemonSet controller adds to every daemon
/// pod (upstream `AddOrUpdateDaemonPodTolerations`).
const DAEMON_TOLERATIONS: [(&str, &str); 6] = [
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
];
/// The one it adds to daemon pods on the host's network (`spec.hostNetwork`), which need no
/// pod network.
const HOST_NETWORK_TOLERATION: (&str, &str) =
    ("node.kubernetes.io/network-unavailable", "NoSchedule");

/// The pods `w` creates against `state`, in the order its controller names them.
pub fn pods(w: &Workload, state: &ClusterState) -> Vec<Pod> {
    if w.kind == "DaemonSet" {
        return daemon_pods(w, state);
    }
    let count = usize::try_from(w.replicas).unwrap_or(0);
    (0..count).map(|i| replica(w, i)).collect()
}

/// Replica `index` of a workload ([`Workload::replica`]), a Kueue Job's or StatefulSet's
/// marked as its workload's member.
pub fn replica(w: &Workload, index: usize) -> Pod {
    let mut pod = w.replica(index);
    df_systems::gang::kueue::mark_job_pod(w, &mut pod);
    pod
}

/// What the inputs give the scheduler's listers by the time their pods are scheduled: their
/// Services, their ReplicaSets and StatefulSets, and the ReplicaSet each Deployment creates
/// (its selector narrowed by the pod-template-hash), which default spreading selects by.
pub fn given(manifests: &ManifestSet) -> Given {
    let mut given = Given::default();
    for manifest in &manifests.manifests {
        match &manifest.object {
            Object::Service(service) => given.services.push(service.clone()),
            Object::Workload(w) if matches!(w.kind.as_str(), "ReplicaSet" | "StatefulSet") => {
                given.controllers.push((**w).clone());
            }
            Object::Workload(w) if w.kind == "Deployment" => {
                let Some(owner) = w.controller_of_pods() else {
                    continue;
                };
                let mut selector = w.selector.clone().unwrap_or_default();
                selector.match_labels.insert(
                    df_model::POD_TEMPLATE_HASH_LABEL.into(),
                    w.template_hash().into(),
                );
                given.controllers.push(Workload {
                    kind: owner.kind.as_str().to_string(),
                    metadata: ObjectMeta {
                        name: owner.name.to_string(),
                        namespace: w.metadata.namespace.clone(),
                        ..ObjectMeta::default()
                    },
                    replicas: w.replicas,
                    selector: Some(selector),
                    template: w.template.clone(),
                    volume_claim_templates: Vec::new(),
                });
            }
            _ => {}
        }
    }
    given
}

/// The claims the StatefulSets of the inputs create before their pods (the controller's
/// `createPersistentVolumeClaims`): for each replica the claim of each of its
/// `volumeClaimTemplates` ([`Workload::claims_for`]) that `state` does not hold in the set's
/// namespace (an existing one is used as it is, bound or not), each as the API server admits
/// it: without a class, it gets the default StorageClass. Replicas are the set's own, or
/// `replicas` when more (the copies `--replicas` makes of a template that joins a gang).
///
/// A state that records no PersistentVolumeClaim and no StorageClass says nothing of storage
/// (a dump of nodes and pods): no claim is made, and the pods' claims go unchecked as every
/// claim of such a state does.
pub fn claims(
    manifests: &ManifestSet,
    state: &ClusterState,
    replicas: Option<usize>,
) -> Vec<PersistentVolumeClaim> {
    let storage = &state.storage;
    if storage.claims.is_empty() && storage.classes.is_empty() {
        return Vec::new();
    }
    let exists = |claim: &PersistentVolumeClaim| {
        let meta = &claim.metadata.common;
        storage.claims.iter().any(|c| {
            let existing = &c.metadata.common;
            existing.namespace == meta.namespace && existing.name == meta.name
        })
    };
    let mut created = Vec::new();
    for manifest in &manifests.manifests {
        let Object::Workload(w) = &manifest.object else {
            continue;
        };
        if w.kind != "StatefulSet" || w.volume_claim_templates.is_empty() {
            continue;
        }
        let count = usize::try_from(w.replicas)
            .unwrap_or(0)
            .max(replicas.unwrap_or(0));
        for ordinal in 0..count {
            for mut claim in w.claims_for(ordinal) {
                if !exists(&claim) {
                    claim.admit_default_class(&storage.classes);
                    created.push(claim);
                }
            }
        }
    }
    created
}

/// One pod per node the DaemonSet controller finds should run it (`NodeShouldRunDaemonPod`:
/// node name, required node affinity and nodeSelector, NoSchedule/NoExecute taints, judged
/// with the daemon tolerations added), each pinned to its node by a required
/// `metadata.name` term that replaces the template's required terms, as upstream
/// `ReplaceDaemonSetPodNodeNameNodeAffinity` does. Named `<name>-<node>`.
fn daemon_pods(w: &Workload, state: &ClusterState) -> Vec<Pod> {
    let mut template = w.pod_named(w.metadata.name.clone());
    add_daemon_tolerations(&mut template.spec);
    let judge = Scheduler::new(state, Profile::default());
    state
        .nodes
        .iter()
        .filter(|node| judge.daemon_should_run(&template, node))
        .map(|node| {
            let mut pod = template.clone();
            pod.metadata.name = format!("{}-{}", w.metadata.name, node.metadata.name);
            pin_to_node(&mut pod, &node.metadata.name);
            pod
        })
        .collect()
}

/// Add the daemon tolerations as upstream's `AddOrUpdateTolerationInPodSpec` does each: every
/// toleration of the pod that `MatchToleration`s it (the same key, operator, value and effect,
/// compared as written) is replaced by it, which drops a `tolerationSeconds`; with none, it is
/// appended. (Upstream first looks for an identical one to keep the list as it is, but compares
/// a pointer with a value, which is never equal; replacing an identical one changes nothing.)
fn add_daemon_tolerations(spec: &mut PodSpec) {
    let host_network = spec.host_network.then_some(HOST_NETWORK_TOLERATION);
    for (key, effect) in DAEMON_TOLERATIONS.into_iter().chain(host_network) {
        let daemon = Toleration {
            key: key.into(),
            operator: "Exists".into(),
            effect: effect.into(),
            ..Default::default()
        };
        let mut matched = false;
        for toleration in &mut spec.tolerations {
            if (
                &toleration.key,
                &toleration.operator,
                &toleration.value,
                &toleration.effect,
            ) == (&daemon.key, &daemon.operator, &daemon.value, &daemon.effect)
            {
                *toleration = daemon.clone();
                matched = true;
            }
        }
        if !matched {
            spec.tolerations.push(daemon);
        }
    }
}

fn pin_to_node(pod: &mut Pod, node: &str) {
    let term = NodeSelectorTerm {
        match_expressions: Vec::new(),
        match_fields: vec![NodeSelectorRequirement {
            key: "metadata.name".to_string(),
            operator: "In".to_string(),
            values: vec![node.to_string()],
        }],
    };
    let affinity = pod.spec.affinity.get_or_insert_default();
    let node_affinity = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default);
    node_affinity.required = Some(NodeSelector {
        node_selector_terms: vec![term],
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use df_model::{JobCounts, Object};

    fn objects(yaml: &str) -> Vec<Object> {
        let (manifests, problems) = df_manifest::parse_text(&Arc::from("t.yaml"), yaml);
        assert!(problems.is_empty(), "{problems:?}");
        manifests.into_iter().map(|m| m.object).collect()
    }

    fn workload(yaml: &str) -> Workload {
        match objects(yaml).pop() {
            Some(Object::Workload(w)) => *w,
            other => panic!("{other:?}"),
        }
    }

    const NODES: &str = "\
apiVersion: v1
kind: Node
metadata: {name: plain, labels: {disk: ssd}}
---
apiVersion: v1
kind: Node
metadata: {name: cordoned, labels: {disk: ssd}}
spec:
  unschedulable: true
  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata: {name: tainted, labels: {disk: ssd}}
spec:
  taints: [{key: dedicated, value: db, effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata: {name: not-ready, labels: {disk: ssd}}
spec:
  taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]
---
apiVersion: v1
kind: Node
metadata: {name: hdd, labels: {disk: hdd}}
";

    fn names(pods: &[Pod]) -> Vec<&str> {
        pods.iter().map(|p| p.metadata.name.as_str()).collect()
    }

    #[test]
    fn a_daemon_set_runs_where_its_controller_would_put_it() {
        let state = ClusterState::from_objects(objects(NODES));
        // (template spec lines, expected pods)
        let cases = [
            (
                "",
                vec!["ds-plain", "ds-cordoned", "ds-not-ready", "ds-hdd"],
            ),
            (
                "      nodeSelector: {disk: ssd}\n",
                vec!["ds-plain", "ds-cordoned", "ds-not-ready"],
            ),
            (
                "      tolerations: [{key: dedicated, operator: Exists}]\n      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disk, operator: NotIn, values: [ssd]}]}, {matchFields: [{key: metadata.name, operator: In, values: [tainted]}]}]}}}\n",
                vec!["ds-tainted", "ds-hdd"],
            ),
        ];
        for (spec, expected) in cases {
            let w = workload(&format!(
                "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: ds, namespace: ops}}\nspec:\n  template:\n    spec:\n{spec}      containers: [{{name: c}}]\n"
            ));
            assert_eq!(names(&pods(&w, &state)), expected, "{spec}");
        }
    }

    #[test]
    fn a_daemon_pod_is_pinned_by_a_node_name_term_replacing_the_required_terms() {
        let state = ClusterState::from_objects(objects(NODES));
        let w = workload(
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds}\nspec:\n  template:\n    spec:\n      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disk, operator: In, values: [hdd]}]}]}, preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, preference: {matchExpressions: [{key: disk, operator: Exists}]}}]}}\n      containers: [{name: c}]\n",
        );
        let pods = pods(&w, &state);
        assert_eq!(names(&pods), ["ds-hdd"]);
        let affinity = pods[0].spec.affinity.as_ref().unwrap();
        let node_affinity = affinity.node_affinity.as_ref().unwrap();
        let terms = &node_affinity.required.as_ref().unwrap().node_selector_terms;
        assert_eq!(terms.len(), 1);
        assert!(terms[0].match_expressions.is_empty());
        assert_eq!(terms[0].match_fields[0].key, "metadata.name");
        assert_eq!(terms[0].match_fields[0].values, ["hdd"]);
        assert_eq!(node_affinity.preferred.len(), 1, "preferences are kept");
        let tolerations: Vec<(&str, &str)> = pods[0]
            .spec
            .tolerations
            .iter()
            .map(|t| (t.key.as_str(), t.effect.as_str()))
            .collect();
        assert_eq!(tolerations, DAEMON_TOLERATIONS);
    }

    /// Upstream daemonset_util_test.go (`AddOrUpdateDaemonPodTolerations`) and
    /// helpers_test.go (`AddOrUpdateTolerationInPodSpec`), on nodes tainted as the node
    /// lifecycle controller taints them.
    #[test]
    fn daemon_tolerations_are_added_or_updated_as_the_controller_does() {
        let state = ClusterState::from_objects(objects(
            "apiVersion: v1\nkind: Node\nmetadata: {name: plain}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: cordoned}\nspec:\n  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]\n---\napiVersion: v1\nkind: Node\nmetadata: {name: no-network}\nspec:\n  taints: [{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}]\n",
        ));
        let exists =
            |(key, effect): (&'static str, &'static str)| (key, "Exists", "", effect, None);
        let daemon = || DAEMON_TOLERATIONS.map(exists).to_vec();
        let with_host_network = || [daemon(), vec![exists(HOST_NETWORK_TOLERATION)]].concat();
        let equal_x = (
            "node.kubernetes.io/unschedulable",
            "Equal",
            "x",
            "NoSchedule",
            None,
        );
        let everything = ("", "Exists", "", "", None);
        type Listed<'a> = (&'a str, &'a str, &'a str, &'a str, Option<i64>);
        // (template spec lines, daemon pods, the tolerations they carry)
        let cases: Vec<(&str, Vec<&str>, Vec<Listed<'static>>)> = vec![
            // Only a pod on the host's network tolerates an unavailable pod network.
            ("", vec!["ds-plain", "ds-cordoned"], daemon()),
            (
                "      hostNetwork: true\n",
                vec!["ds-plain", "ds-cordoned", "ds-no-network"],
                with_host_network(),
            ),
            // Another operator and value do not match: the Exists one is appended.
            (
                "      tolerations: [{key: node.kubernetes.io/unschedulable, operator: Equal, value: x, effect: NoSchedule}]\n",
                vec!["ds-plain", "ds-cordoned"],
                [vec![equal_x], daemon()].concat(),
            ),
            // A matching one is replaced in place, without its seconds.
            (
                "      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]\n",
                vec!["ds-plain", "ds-cordoned"],
                daemon(),
            ),
            (
                "      hostNetwork: true\n      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]\n",
                vec!["ds-plain", "ds-cordoned", "ds-no-network"],
                with_host_network(),
            ),
            // Tolerating everything matches none of them (its key and effect are empty).
            (
                "      tolerations: [{operator: Exists}]\n",
                vec!["ds-plain", "ds-cordoned", "ds-no-network"],
                [vec![everything], daemon()].concat(),
            ),
        ];
        for (spec, expected, tolerations) in cases {
            let w = workload(&format!(
                "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: ds}}\nspec:\n  template:\n    spec:\n{spec}      containers: [{{name: c}}]\n"
            ));
            let pods = pods(&w, &state);
            assert_eq!(names(&pods), expected, "{spec}");
            let listed: Vec<Listed<'_>> = pods[0]
                .spec
                .tolerations
                .iter()
                .map(|t| {
                    (
                        t.key.as_str(),
                        t.operator.as_str(),
                        t.value.as_str(),
                        t.effect.as_str(),
                        t.toleration_seconds,
                    )
                })
                .collect();
            assert_eq!(listed, tolerations, "{spec}");
        }
    }

    #[test]
    fn job_controllers_start_parallelism_capped_by_remaining_completions() {
        // (parallelism, completions, succeeded, suspended, pods started)
        let cases = [
            (None, None, 0, false, 1),
            (Some(3), None, 0, false, 3),
            (Some(3), Some(2), 0, false, 2),
            (Some(2), Some(5), 0, false, 2),
            (Some(4), Some(5), 3, false, 2),
            (Some(4), Some(5), 6, false, 0),
            (Some(2), None, 1, false, 0),
            (Some(0), Some(5), 0, false, 0),
            (Some(3), Some(3), 0, true, 0),
        ];
        for (parallelism, completions, succeeded, suspend, active) in cases {
            let counts = JobCounts {
                parallelism,
                completions,
                succeeded,
                suspend,
            };
            assert_eq!(counts.active(), active, "{counts:?}");
        }
        let state = ClusterState::default();
        let job = workload(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec:\n  parallelism: 4\n  completions: 6\n  template: {spec: {containers: [{name: c}]}}\nstatus: {succeeded: 3}\n",
        );
        let started = pods(&job, &state);
        assert_eq!(names(&started), ["train-0", "train-1", "train-2"]);
        assert_eq!(
            started[0].metadata.labels["batch.kubernetes.io/job-name"],
            "train"
        );
        let cron = workload(
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  jobTemplate:\n    spec:\n      parallelism: 3\n      completions: 2\n      template: {spec: {containers: [{name: c}]}}\n",
        );
        assert_eq!(names(&pods(&cron, &state)), ["nightly-0", "nightly-1"]);
        let suspended = workload(
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: paused}\nspec:\n  suspend: true\n  jobTemplate: {spec: {template: {spec: {containers: [{name: c}]}}}}\n",
        );
        assert!(pods(&suspended, &state).is_empty());
    }

    #[test]
    fn replicated_kinds_create_their_replicas() {
        let state = ClusterState::default();
        // (kind, replicas line, pod names)
        let cases = [
            ("Deployment", "", vec!["w-0"]),
            ("Deployment", "  replicas: 0\n", vec![]),
            ("ReplicaSet", "  replicas: 2\n", vec!["w-0", "w-1"]),
            ("StatefulSet", "  replicas: 3\n", vec!["w-0", "w-1", "w-2"]),
        ];
        for (kind, replicas, expected) in cases {
            let w = workload(&format!(
                "apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: w}}\nspec:\n{replicas}  template: {{spec: {{containers: [{{name: c}}]}}}}\n"
            ));
            let created = pods(&w, &state);
            assert_eq!(names(&created), expected, "{kind} {replicas}");
        }
        let set = workload(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: kafka}\nspec:\n  replicas: 2\n  template: {metadata: {labels: {app: kafka}}, spec: {containers: [{name: c}]}}\n",
        );
        let second = &pods(&set, &state)[1];
        let labels: Vec<(&str, &str)> = second
            .metadata
            .labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            labels,
            [
                ("app", "kafka"),
                ("apps.kubernetes.io/pod-index", "1"),
                ("statefulset.kubernetes.io/pod-name", "kafka-1"),
            ]
        );
    }

    /// Nodes n1 and n3 in zone a, n2 in zone b (4 CPUs each, empty); StorageClasses
    /// `zonal-a` (WaitForFirstConsumer, provisioned only in zone a, the default class),
    /// `anywhere` (WaitForFirstConsumer, no topology) and `instant` (Immediate); and a claim
    /// no StatefulSet names, so the state records claims.
    const STORAGE_STATE: &str = "\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3, labels: {kubernetes.io/hostname: n3, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: zonal-a, annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}}
provisioner: disk.csi.example.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [a]}]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: anywhere}
provisioner: disk.csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: instant}
provisioner: disk.csi.example.com
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: other, namespace: default}
spec: {storageClassName: anywhere}
";

    /// Claim `data-db-1` of `namespace`, bound to a volume of class `anywhere` that only
    /// node n3 reaches.
    fn bound_to_n3(namespace: &str) -> String {
        format!(
            "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: pv-1}}\nspec:\n  storageClassName: anywhere\n  capacity: {{storage: 10Gi}}\n  accessModes: [ReadWriteOnce]\n  claimRef: {{namespace: {namespace}, name: data-db-1}}\n  nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [{{key: kubernetes.io/hostname, operator: In, values: [n3]}}]}}]}}}}\nstatus: {{phase: Bound}}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: data-db-1, namespace: {namespace}, annotations: {{pv.kubernetes.io/bind-completed: \"yes\"}}}}\nspec: {{storageClassName: anywhere, accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 10Gi}}}}, volumeName: pv-1}}\nstatus: {{phase: Bound}}\n"
        )
    }

    /// StatefulSet `default/db`, 2 replicas of 1 CPU, claim template `data` (10Gi) with the
    /// given class line.
    fn stateful_set(class: &str) -> String {
        format!(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db, namespace: default}}\nspec:\n  replicas: 2\n  selector: {{matchLabels: {{app: db}}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    spec:\n      containers: [{{name: c, resources: {{requests: {{cpu: \"1\"}}}}}}]\n  volumeClaimTemplates:\n  - metadata: {{name: data}}\n    spec: {{{class}accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 10Gi}}}}}}\n"
        )
    }

    /// Each replica's claim as the StatefulSet controller makes it (`data-db-<ordinal>`),
    /// judged by VolumeBinding as any claim: a new one from its class (the default class when
    /// the template names none), an existing one of the set's namespace as it is. Per replica,
    /// the nodes where it is feasible (or the rejection), and where the plan puts the two.
    #[test]
    fn a_stateful_sets_claims_bind_its_replicas() {
        let imm = "pod has unbound immediate PersistentVolumeClaims";
        let bind = "node(s) didn't find available persistent volumes to bind";
        let conflict = "node(s) had volume node affinity conflict";
        // (case, the template's class line, more state, per replica the verdict of n1, n2,
        // n3, and the planned nodes)
        type Case<'a> = (
            &'a str,
            &'a str,
            String,
            [[&'a str; 3]; 2],
            [Option<&'a str>; 2],
        );
        let cases: Vec<Case> = vec![
            // zonal-a provisions in zone a only: n2 (zone b) is rejected for both replicas.
            // db-0 ties on the equal n1 and n3 and takes the first name, n1; db-1 then scores
            // n3 higher (emptier, and its set's default spreading avoids db-0's node).
            (
                "zonal class",
                "storageClassName: zonal-a, ",
                String::new(),
                [["n1", bind, "n3"], ["n1", bind, "n3"]],
                [Some("n1"), Some("n3")],
            ),
            // No class: the API server's admission gives the default class, zonal-a.
            (
                "default class",
                "",
                String::new(),
                [["n1", bind, "n3"], ["n1", bind, "n3"]],
                [Some("n1"), Some("n3")],
            ),
            // db-1's claim exists, bound to pv-1 on n3: db-1 goes there only. db-0's new
            // claim (anywhere) fits all three: n1 by name; db-1 on n3 either way.
            (
                "existing bound claim",
                "storageClassName: anywhere, ",
                bound_to_n3("default"),
                [["n1", "n2", "n3"], [conflict, conflict, "n3"]],
                [Some("n1"), Some("n3")],
            ),
            // The same claim in another namespace is not the set's: db-1 gets a new one.
            // db-0 on n1 (first name of three equal nodes); db-1 then prefers the empty n2
            // and n3, and of those n2, outside db-0's zone (its set's default spreading by
            // zone).
            (
                "claim of another namespace",
                "storageClassName: anywhere, ",
                bound_to_n3("other"),
                [["n1", "n2", "n3"], ["n1", "n2", "n3"]],
                [Some("n1"), Some("n2")],
            ),
            // An Immediate class: the new claims wait for the PV controller, not the
            // scheduler; every node gets PreFilter's rejection.
            (
                "immediate class",
                "storageClassName: instant, ",
                String::new(),
                [[imm, imm, imm], [imm, imm, imm]],
                [None, None],
            ),
        ];
        for (case, class, more, verdicts, planned) in cases {
            let state = ClusterState::from_objects(objects(&format!("{STORAGE_STATE}{more}")));
            let set = workload(&stateful_set(class));
            let manifests = ManifestSet {
                manifests: df_manifest::parse_text(&Arc::from("t.yaml"), &stateful_set(class)).0,
                ..ManifestSet::default()
            };
            let created = claims(&manifests, &state, None);
            let mut scheduler = Scheduler::new(&state, Profile::default());
            scheduler.give_claims(&created);
            for (ordinal, pod) in pods(&set, &state).iter().enumerate() {
                let decision = scheduler.decide(pod);
                let got: Vec<&str> = decision
                    .nodes
                    .iter()
                    .map(|v| {
                        if v.feasible {
                            v.name
                        } else {
                            v.reasons[0].as_str()
                        }
                    })
                    .collect();
                assert_eq!(got, verdicts[ordinal], "{case}: db-{ordinal}");
            }
            let plan = crate::plan_all(
                &manifests,
                &state,
                df_engine::Profiles::default(),
                &crate::PlanOptions::default(),
            )
            .unwrap();
            let nodes: Vec<(&str, Option<&str>)> = plan
                .batch
                .iter()
                .flat_map(|b| &b.pods)
                .map(|p| (p.name.as_str(), p.node.as_deref()))
                .collect();
            assert_eq!(
                nodes,
                [("db-0", planned[0]), ("db-1", planned[1])],
                "{case}"
            );
        }
    }

    /// The claims a plan makes: one per template and replica the state lacks, admitted with
    /// the default class; none on a state that records no storage at all.
    #[test]
    fn a_plan_makes_the_claims_the_state_lacks() {
        let manifests = |class: &str| ManifestSet {
            manifests: df_manifest::parse_text(&Arc::from("t.yaml"), &stateful_set(class)).0,
            ..ManifestSet::default()
        };
        let listed = |claims: Vec<PersistentVolumeClaim>| -> Vec<String> {
            claims
                .iter()
                .map(|c| {
                    let meta = &c.metadata.common;
                    format!("{}/{} {}", meta.namespace, meta.name, c.class())
                })
                .collect()
        };
        let state = ClusterState::from_objects(objects(STORAGE_STATE));
        let bound = ClusterState::from_objects(objects(&format!(
            "{STORAGE_STATE}{}",
            bound_to_n3("default")
        )));
        let bare = ClusterState::from_objects(objects(NODES));
        // (case, state, class line, --replicas, claims made)
        type Case<'a> = (
            &'a str,
            &'a ClusterState,
            &'a str,
            Option<usize>,
            Vec<&'a str>,
        );
        let cases: Vec<Case> = vec![
            (
                "default class",
                &state,
                "",
                None,
                vec!["default/data-db-0 zonal-a", "default/data-db-1 zonal-a"],
            ),
            (
                "an empty class is a class",
                &state,
                "storageClassName: \"\", ",
                None,
                vec!["default/data-db-0 ", "default/data-db-1 "],
            ),
            (
                "data-db-1 exists",
                &bound,
                "storageClassName: anywhere, ",
                None,
                vec!["default/data-db-0 anywhere"],
            ),
            // --replicas 3 copies a gang's template three times: ordinals 0, 1, 2.
            (
                "more replicas",
                &state,
                "storageClassName: anywhere, ",
                Some(3),
                vec![
                    "default/data-db-0 anywhere",
                    "default/data-db-1 anywhere",
                    "default/data-db-2 anywhere",
                ],
            ),
            ("no storage recorded", &bare, "", None, vec![]),
        ];
        for (case, state, class, replicas, expected) in cases {
            assert_eq!(
                listed(claims(&manifests(class), state, replicas)),
                expected,
                "{case}"
            );
        }
    }

    /// A StatefulSet whose pods join a gang: the gang planner's copies of its template mount
    /// the claims of their ordinals too. db-1's claim is bound on n3, so the gang places db-1
    /// there; db-0's new claim (anywhere) fits every node, and the equal empty nodes tie: n1,
    /// the first name.
    #[test]
    fn a_gangs_stateful_set_copies_mount_their_claims() {
        let state = ClusterState::from_objects(objects(&format!(
            "{STORAGE_STATE}{}",
            bound_to_n3("default")
        )));
        let set = stateful_set("storageClassName: anywhere, ").replace(
            "labels: {app: db}}",
            "labels: {app: db, scheduling.x-k8s.io/pod-group: db}}",
        ) + "---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: db, namespace: default}\nspec: {minMember: 2}\n";
        let manifests = ManifestSet {
            manifests: df_manifest::parse_text(&Arc::from("t.yaml"), &set).0,
            ..ManifestSet::default()
        };
        let plan = crate::plan_all(
            &manifests,
            &state,
            df_engine::Profiles::default(),
            &crate::PlanOptions::default(),
        )
        .unwrap();
        assert!(plan.batch.is_none());
        let rows: Vec<(&str, Option<&str>)> = plan.groups[0]
            .pods
            .iter()
            .map(|r| (r.pod.as_str(), r.node.as_deref()))
            .collect();
        assert_eq!(rows, [("db-0", Some("n1")), ("db-1", Some("n3"))]);
    }
}
