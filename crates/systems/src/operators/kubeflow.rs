//! training-operator v1 (`kubeflow.org/v1`, read at tags v1.9.0 and v1.9.3): the pods of a
//! PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob or MPIJob per replica spec
//! (`common/pod.go`, `GenGeneralName`), with the labels the operator sets. Gang scheduling
//! needs the operator's `--gang-scheduler-name`, which no manifest holds: not modelled, and
//! said so.

use std::collections::BTreeMap;

use df_model::operators::{KubeflowJobSpec, ReplicaSpec};
use df_model::{Container, Object, ObjectMeta};

use super::{Expansion, pod_of};

pub const JOB_NAME: &str = "training.kubeflow.org/job-name";
pub const REPLICA_TYPE: &str = "training.kubeflow.org/replica-type";
pub const REPLICA_INDEX: &str = "training.kubeflow.org/replica-index";
pub const JOB_ROLE: &str = "training.kubeflow.org/job-role";
pub const OPERATOR_NAME: &str = "training.kubeflow.org/operator-name";

/// What tells one replica-spec framework from another: its controller's name (the
/// `operator-name` label) and which pod its `IsMasterRole` names.
#[derive(Debug, Clone, Copy)]
pub struct Framework {
    pub controller: &'static str,
    /// Replica types (lower-cased) whose pods hold the master role when the job has any of them.
    pub master_types: &'static [&'static str],
    /// Without any of `master_types`, whether worker 0 holds the role.
    pub worker_zero_fallback: bool,
}

/// `PyTorchJobReconciler.IsMasterRole`: the Master, else worker 0.
pub const PYTORCH: Framework = Framework {
    controller: "pytorchjob-controller",
    master_types: &["master"],
    worker_zero_fallback: true,
};

/// `TFJobReconciler.IsMasterRole`: the Chief or the Master, else worker 0.
pub const TENSORFLOW: Framework = Framework {
    controller: "tfjob-controller",
    master_types: &["chief", "master"],
    worker_zero_fallback: true,
};

/// `XGBoostJobReconciler.IsMasterRole`: the Master only.
pub const XGBOOST: Framework = Framework {
    controller: "xgboostjob-controller",
    master_types: &["master"],
    worker_zero_fallback: false,
};

/// `PaddleJobReconciler.IsMasterRole`: the Master only.
pub const PADDLE: Framework = Framework {
    controller: "paddlejob-controller",
    master_types: &["master"],
    worker_zero_fallback: false,
};

/// `JAXJobReconciler.IsMasterRole` is `index == 0`; a JAXJob has Workers only (its one
/// replica type), so that is worker 0.
pub const JAX: Framework = Framework {
    controller: "jaxjob-controller",
    master_types: &[],
    worker_zero_fallback: true,
};

/// `<job>-<type>-<i>` per replica type, master types first, then the others by name, with
/// `job-role: master` on the pods `framework`'s `IsMasterRole` names. Replicas default to 1
/// (every framework's `setDefaultReplicas(spec, 1)`).
pub fn expand(
    meta: &ObjectMeta,
    spec: &KubeflowJobSpec,
    replica_specs: &BTreeMap<String, ReplicaSpec>,
    framework: &Framework,
) -> Expansion {
    let mut out = Expansion::default();
    if suspended(meta, spec, &mut out) {
        return out;
    }
    let specs = normalised(replica_specs);
    let has_master = specs
        .iter()
        .any(|(t, _)| framework.master_types.contains(&t.as_str()));
    for (kind, replica) in &specs {
        for i in 0..replica.replicas.unwrap_or(1).max(0) {
            let master = if has_master {
                framework.master_types.contains(&kind.as_str())
            } else {
                framework.worker_zero_fallback && kind == "worker" && i == 0
            };
            let pod = member(meta, replica, kind, i, master, framework.controller);
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

/// Whether the job is suspended (`runPolicy.suspend`), noted when it is: it has no pods.
pub(super) fn suspended(meta: &ObjectMeta, spec: &KubeflowJobSpec, out: &mut Expansion) -> bool {
    let suspended = spec.run_policy.as_ref().and_then(|p| p.suspend) == Some(true);
    if suspended {
        out.note(format!("{} suspended: 0 pods", meta.name));
    }
    suspended
}

/// Replica types lower-cased (the operator normalises `master` and `MASTER` to `Master`),
/// Chief, Master and Launcher first, then the others by name.
fn normalised(specs: &BTreeMap<String, ReplicaSpec>) -> Vec<(String, &ReplicaSpec)> {
    let mut out: Vec<(String, &ReplicaSpec)> =
        specs.iter().map(|(k, v)| (k.to_lowercase(), v)).collect();
    out.sort_by_key(|(kind, _)| {
        (
            !matches!(kind.as_str(), "chief" | "master" | "launcher"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::operators::RunPolicy;

    fn replicas(types: &[(&str, Option<i32>)]) -> BTreeMap<String, ReplicaSpec> {
        types
            .iter()
            .map(|&(kind, replicas)| {
                let spec = ReplicaSpec {
                    replicas,
                    ..ReplicaSpec::default()
                };
                (kind.to_string(), spec)
            })
            .collect()
    }

    /// (pod name, replica-type label, replica-index label, job-role label) of each pod.
    fn pods(expansion: &Expansion) -> Vec<(String, String, String, Option<String>)> {
        expansion
            .objects
            .iter()
            .map(|object| {
                let Object::Pod(pod) = object else {
                    panic!("not a pod: {object:?}")
                };
                let label = |key: &str| pod.metadata.labels.get(key).map(ToString::to_string);
                (
                    pod.metadata.name.to_string(),
                    label(REPLICA_TYPE).unwrap_or_default(),
                    label(REPLICA_INDEX).unwrap_or_default(),
                    label(JOB_ROLE),
                )
            })
            .collect()
    }

    /// Each framework's pods, names (`GenGeneralName`: `<job>-<lower-cased type>-<index>`) and
    /// master role (each reconciler's `IsMasterRole`), in the operators' controller tests'
    /// shapes: TFJob `dist-mnist` (Chief 1, PS 1, Worker 2), XGBoostJob and PaddleJob with a
    /// Master, PaddleJob and JAXJob with Workers only (examples `simple-cpu`, `cpu-demo`).
    #[test]
    fn each_framework_names_its_pods_and_its_master() {
        type Row = (
            &'static str,
            Framework,
            &'static [(&'static str, Option<i32>)],
            &'static [(&'static str, &'static str, &'static str, bool)],
        );
        let rows: [Row; 8] = [
            // Chief holds the role; PS and Worker follow by name; Worker 0 is not master.
            (
                "tf chief",
                TENSORFLOW,
                &[("Worker", Some(2)), ("PS", Some(1)), ("Chief", Some(1))],
                &[
                    ("j-chief-0", "chief", "0", true),
                    ("j-ps-0", "ps", "0", false),
                    ("j-worker-0", "worker", "0", false),
                    ("j-worker-1", "worker", "1", false),
                ],
            ),
            // No Chief nor Master: worker 0 is the master (`index == 0` on Worker).
            (
                "tf workers",
                TENSORFLOW,
                &[("Worker", Some(2)), ("PS", Some(1))],
                &[
                    ("j-ps-0", "ps", "0", false),
                    ("j-worker-0", "worker", "0", true),
                    ("j-worker-1", "worker", "1", false),
                ],
            ),
            // `MASTER` is normalised to the `master` type; replicas default to 1.
            (
                "tf master",
                TENSORFLOW,
                &[("MASTER", None), ("Evaluator", Some(1))],
                &[
                    ("j-master-0", "master", "0", true),
                    ("j-evaluator-0", "evaluator", "0", false),
                ],
            ),
            (
                "xgboost",
                XGBOOST,
                &[("Master", Some(1)), ("Worker", Some(2))],
                &[
                    ("j-master-0", "master", "0", true),
                    ("j-worker-0", "worker", "0", false),
                    ("j-worker-1", "worker", "1", false),
                ],
            ),
            // XGBoost and Paddle name only the Master: workers alone have no master.
            (
                "xgboost workers",
                XGBOOST,
                &[("Worker", Some(2))],
                &[
                    ("j-worker-0", "worker", "0", false),
                    ("j-worker-1", "worker", "1", false),
                ],
            ),
            (
                "paddle workers",
                PADDLE,
                &[("Worker", Some(2))],
                &[
                    ("j-worker-0", "worker", "0", false),
                    ("j-worker-1", "worker", "1", false),
                ],
            ),
            (
                "jax",
                JAX,
                &[("Worker", Some(2))],
                &[
                    ("j-worker-0", "worker", "0", true),
                    ("j-worker-1", "worker", "1", false),
                ],
            ),
            // Master present: worker 0 is not master; zero replicas make no pod.
            (
                "pytorch",
                PYTORCH,
                &[("Master", Some(1)), ("Worker", Some(0))],
                &[("j-master-0", "master", "0", true)],
            ),
        ];
        let meta = ObjectMeta {
            name: "j".into(),
            namespace: "ml".into(),
            ..ObjectMeta::default()
        };
        for (name, framework, types, want) in rows {
            let specs = replicas(types);
            let expansion = expand(&meta, &KubeflowJobSpec::default(), &specs, &framework);
            let want: Vec<_> = want
                .iter()
                .map(|&(pod, kind, index, master)| {
                    let role = master.then(|| "master".to_string());
                    (pod.to_string(), kind.to_string(), index.to_string(), role)
                })
                .collect();
            assert_eq!(pods(&expansion), want, "{name}");
            for object in &expansion.objects {
                let Object::Pod(pod) = object else {
                    unreachable!()
                };
                let operator = pod.metadata.labels.get(OPERATOR_NAME).map(|v| v.as_str());
                assert_eq!(operator, Some(framework.controller), "{name}");
                assert_eq!(pod.metadata.namespace, "ml", "{name}");
            }
        }
    }

    /// The controllers' "Shouldn't create resources if ... is suspended" tests: a suspended
    /// job makes no pod, and the plan says so.
    #[test]
    fn a_suspended_job_creates_no_pod() {
        let meta = ObjectMeta {
            name: "j".into(),
            ..ObjectMeta::default()
        };
        let spec = KubeflowJobSpec {
            run_policy: Some(RunPolicy {
                suspend: Some(true),
                ..RunPolicy::default()
            }),
            ..KubeflowJobSpec::default()
        };
        for framework in [PYTORCH, TENSORFLOW, XGBOOST, PADDLE, JAX] {
            let specs = replicas(&[("Master", Some(1)), ("Worker", Some(2))]);
            let expansion = expand(&meta, &spec, &specs, &framework);
            assert!(expansion.objects.is_empty(), "{}", framework.controller);
            assert_eq!(expansion.notes, ["j suspended: 0 pods"]);
        }
    }
}
