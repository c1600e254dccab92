//! training-operator v1 (`kubeflow.org/v1`, read at tag v1.9.3): a PyTorchJob's or MPIJob's
//! pods per replica spec (`common/pod.go`, `GenGeneralName`), with the labels the operator
//! sets. Gang scheduling needs the operator's `--gang-scheduler-name`, which no manifest
//! holds: not modelled, and said so.

use std::collections::BTreeMap;

use df_model::operators::{KubeflowJobSpec, ReplicaSpec};
use df_model::{Container, Object, ObjectMeta};

use super::{Expansion, pod_of};

pub const JOB_NAME: &str = "training.kubeflow.org/job-name";
pub const REPLICA_TYPE: &str = "training.kubeflow.org/replica-type";
pub const REPLICA_INDEX: &str = "training.kubeflow.org/replica-index";
pub const JOB_ROLE: &str = "training.kubeflow.org/job-role";
pub const OPERATOR_NAME: &str = "training.kubeflow.org/operator-name";

/// `<job>-<type>-<i>` per replica type, Master before Worker; `job-role: master` on the
/// Master, or on worker 0 without one (`IsMasterRole`). Replicas default to 1.
pub fn expand_pytorch(meta: &ObjectMeta, spec: &KubeflowJobSpec) -> Expansion {
    let mut out = Expansion::default();
    if suspended(meta, spec, &mut out) {
        return out;
    }
    let specs = normalised(&spec.pytorch_replica_specs);
    let has_master = specs.iter().any(|(t, _)| t == "master");
    for (kind, replica) in &specs {
        for i in 0..replica.replicas.unwrap_or(1).max(0) {
            let master = kind == "master" || (!has_master && kind == "worker" && i == 0);
            let pod = member(meta, replica, kind, i, master, "pytorchjob-controller");
            out.objects.push(Object::Pod(pod));
        }
    }
    gang_note(meta, &mut out);
    out
}

/// Workers `<job>-worker-<i>` (default 0 of them), created before the launcher `<job>-launcher`
/// (1), which carries the `kubectl-delivery` init container (100m, 512Mi, 5Gi of ephemeral
/// storage, requests equal to limits).
pub fn expand_mpi(meta: &ObjectMeta, spec: &KubeflowJobSpec) -> Expansion {
    let mut out = Expansion::default();
    if suspended(meta, spec, &mut out) {
        return out;
    }
    let specs = normalised(&spec.mpi_replica_specs);
    let of = |kind: &str| specs.iter().find(|(t, _)| t == kind).map(|(_, r)| r);
    if let Some(worker) = of("worker") {
        for i in 0..worker.replicas.unwrap_or(0).max(0) {
            let pod = member(meta, worker, "worker", i, false, "mpijob-controller");
            out.objects.push(Object::Pod(pod));
        }
    }
    if let Some(launcher) = of("launcher") {
        let mut pod = member(meta, launcher, "launcher", 0, true, "mpijob-controller");
        pod.metadata.name = format!("{}-launcher", meta.name);
        pod.metadata.labels.remove(REPLICA_INDEX);
        pod.spec.init_containers.push(Container {
            name: "kubectl-delivery".into(),
            resources: super::fixed(&[
                ("cpu", "100m"),
                ("memory", "512Mi"),
                ("ephemeral-storage", "5Gi"),
            ]),
            ..Container::default()
        });
        out.objects.push(Object::Pod(pod));
    }
    gang_note(meta, &mut out);
    out
}

fn suspended(meta: &ObjectMeta, spec: &KubeflowJobSpec, out: &mut Expansion) -> bool {
    let suspended = spec.run_policy.as_ref().and_then(|p| p.suspend) == Some(true);
    if suspended {
        out.note(format!("{} suspended: 0 pods", meta.name));
    }
    suspended
}

/// Replica types lower-cased (the operator normalises `master` and `MASTER` to `Master`),
/// Master and Launcher first, then the others by name.
fn normalised(specs: &BTreeMap<String, ReplicaSpec>) -> Vec<(String, &ReplicaSpec)> {
    let mut out: Vec<(String, &ReplicaSpec)> =
        specs.iter().map(|(k, v)| (k.to_lowercase(), v)).collect();
    out.sort_by_key(|(kind, _)| {
        (
            !matches!(kind.as_str(), "master" | "launcher"),
            kind.clone(),
        )
    });
    out
}

fn member(
    meta: &ObjectMeta,
    replica: &ReplicaSpec,
    kind: &str,
    index: i32,
    master: bool,
    operator: &str,
) -> df_model::Pod {
    let name = format!("{}-{kind}-{index}", meta.name.replace('/', "-"));
    let mut pod = pod_of(&replica.template, &meta.namespace, name);
    let labels = &mut pod.metadata.labels;
    labels.insert(OPERATOR_NAME.into(), operator.into());
    labels.insert(JOB_NAME.into(), meta.name.as_str().into());
    labels.insert(REPLICA_TYPE.into(), kind.into());
    labels.insert(REPLICA_INDEX.into(), index.to_string().into());
    if master {
        labels.insert(JOB_ROLE.into(), "master".into());
    }
    pod
}

fn gang_note(meta: &ObjectMeta, out: &mut Expansion) {
    out.note(format!(
        "{}: planned without a gang (training-operator makes a PodGroup only when started with a gang scheduler name, its own configuration: not modelled)",
        meta.name
    ));
}
