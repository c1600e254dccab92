//! mpi-operator's `kubeflow.org/v2beta1` MPIJob (read at master caa3c47,
//! `pkg/controller/mpi_job_controller.go`, `pkg/apis/kubeflow/v2beta1/default.go`): worker
//! pods `<job>-worker-<i>` (`newWorker`) and the launcher, a batch Job `<job>-launcher`
//! (`newLauncherJob`) whose one pod the plan names `<job>-launcher-0`, as it names any Job's
//! pods. Each pod carries the operator's labels: `operator-name: mpi-operator`, `job-name`,
//! `job-role` (`launcher` or `worker`), and a worker its `replica-index`. Gang scheduling
//! needs the operator's own gang-scheduling setting, which no manifest holds: not modelled,
//! and said so.

use df_model::operators::{KubeflowJobSpec, ReplicaSpec};
use df_model::{Object, ObjectMeta, Pod};

use super::kubeflow::{JOB_NAME, JOB_ROLE, OPERATOR_NAME, REPLICA_INDEX, suspended};
use super::{Expansion, pod_of};

/// The `operator-name` label's value.
const OPERATOR: &str = "mpi-operator";

/// Workers (replicas default 0) in index order, then the launcher (default 1 replica; the
/// operator makes one launcher Job whatever the count). With `WaitForWorkersReady` the
/// launcher Job is created only once every worker is ready: it comes last all the same, and
/// a note says when. With `runLauncherAsWorker` the launcher takes replica index 0 and the
/// workers count from 1 (`workerReplicaIndexLabel`).
pub fn expand(meta: &ObjectMeta, spec: &KubeflowJobSpec) -> Expansion {
    let mut out = Expansion::default();
    if suspended(meta, spec, &mut out) {
        return out;
    }
    let launcher_is_worker = spec.run_launcher_as_worker == Some(true);
    let replica = |kind: &str| spec.mpi_replica_specs.get(kind);
    let workers = replica("Worker").map_or(0, |w| w.replicas.unwrap_or(0).max(0));
    if let Some(worker) = replica("Worker") {
        for i in 0..workers {
            let index = if launcher_is_worker { i + 1 } else { i };
            let mut pod = member(meta, worker, format!("{}-worker-{i}", meta.name), "worker");
            let labels = &mut pod.metadata.labels;
            labels.insert(REPLICA_INDEX.into(), index.to_string().into());
            out.objects.push(Object::Pod(pod));
        }
    }
    if let Some(launcher) = replica("Launcher") {
        let job = format!("{}-launcher", meta.name);
        let mut pod = member(meta, launcher, format!("{job}-0"), "launcher");
        let labels = &mut pod.metadata.labels;
        for key in df_model::JOB_NAME_LABELS {
            labels.insert(key.into(), job.as_str().into());
        }
        if launcher_is_worker {
            labels.insert(REPLICA_INDEX.into(), "0".into());
        }
        out.objects.push(Object::Pod(pod));
        if spec.launcher_creation_policy.as_deref() == Some("WaitForWorkersReady") {
            out.note(format!(
                "MPIJob {}: the launcher Job {job} is created once its {workers} workers are ready (WaitForWorkersReady)",
                meta.name
            ));
        }
    }
    out.note(format!(
        "{}: planned without a gang (mpi-operator makes a PodGroup only when started with gang scheduling, its own configuration: not modelled)",
        meta.name
    ));
    out
}

/// A pod of `replica`'s template named `name`, with the labels `defaultLabels` gives `role`.
fn member(meta: &ObjectMeta, replica: &ReplicaSpec, name: String, role: &str) -> Pod {
    let mut pod = pod_of(&replica.template, &meta.namespace, name);
    let labels = &mut pod.metadata.labels;
    labels.insert(OPERATOR_NAME.into(), OPERATOR.into());
    labels.insert(JOB_NAME.into(), meta.name.as_str().into());
    labels.insert(JOB_ROLE.into(), role.into());
    pod
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use df_model::operators::RunPolicy;

    fn spec(launcher: bool, workers: Option<i32>) -> KubeflowJobSpec {
        let mut specs = BTreeMap::new();
        if launcher {
            specs.insert("Launcher".to_string(), ReplicaSpec::default());
        }
        if workers.is_some() {
            let worker = ReplicaSpec {
                replicas: workers,
                ..ReplicaSpec::default()
            };
            specs.insert("Worker".to_string(), worker);
        }
        KubeflowJobSpec {
            mpi_replica_specs: specs,
            ..KubeflowJobSpec::default()
        }
    }

    /// (name, job-role, replica-index, batch job-name) of each pod.
    fn pods(expansion: &Expansion) -> Vec<(String, String, Option<String>, Option<String>)> {
        expansion
            .objects
            .iter()
            .map(|object| {
                let Object::Pod(pod) = object else {
                    panic!("not a pod: {object:?}")
                };
                let label = |key: &str| pod.metadata.labels.get(key).map(ToString::to_string);
                assert_eq!(label(OPERATOR_NAME).as_deref(), Some("mpi-operator"));
                assert_eq!(label(JOB_NAME).as_deref(), Some("foo"));
                (
                    pod.metadata.name.to_string(),
                    label(JOB_ROLE).unwrap_or_default(),
                    label(REPLICA_INDEX),
                    label("batch.kubernetes.io/job-name"),
                )
            })
            .collect()
    }

    fn row(
        name: &str,
        role: &str,
        index: Option<&str>,
        job: Option<&str>,
    ) -> (String, String, Option<String>, Option<String>) {
        (
            name.into(),
            role.into(),
            index.map(Into::into),
            job.map(Into::into),
        )
    }

    /// `TestNewLauncherAndWorker`'s two shapes (job `foo`: a launcher and one worker; then with
    /// `runLauncherAsWorker`, where the launcher takes index 0 and the worker 1), plus the
    /// defaults of `SetDefaults_MPIJob`: workers default to 0.
    #[test]
    fn workers_then_the_launcher_with_the_operators_labels() {
        let meta = ObjectMeta {
            name: "foo".into(),
            namespace: "bar".into(),
            ..ObjectMeta::default()
        };
        let launcher_pod = |index| row("foo-launcher-0", "launcher", index, Some("foo-launcher"));
        let rows: [(&str, KubeflowJobSpec, Vec<_>); 3] = [
            (
                "launcher and one worker",
                spec(true, Some(1)),
                vec![
                    row("foo-worker-0", "worker", Some("0"), None),
                    launcher_pod(None),
                ],
            ),
            (
                "launcher as worker",
                KubeflowJobSpec {
                    run_launcher_as_worker: Some(true),
                    ..spec(true, Some(1))
                },
                vec![
                    row("foo-worker-0", "worker", Some("1"), None),
                    launcher_pod(Some("0")),
                ],
            ),
            (
                "workers default to none",
                spec(true, None),
                vec![launcher_pod(None)],
            ),
        ];
        for (what, spec, want) in rows {
            let expansion = expand(&meta, &spec);
            assert_eq!(pods(&expansion), want, "{what}");
            assert!(
                expansion
                    .objects
                    .iter()
                    .all(|o| o.metadata().namespace == "bar")
            );
        }
    }

    #[test]
    fn a_suspended_job_creates_no_pod_and_a_late_launcher_is_noted() {
        let meta = ObjectMeta {
            name: "foo".into(),
            ..ObjectMeta::default()
        };
        let suspended = KubeflowJobSpec {
            run_policy: Some(RunPolicy {
                suspend: Some(true),
                ..RunPolicy::default()
            }),
            ..spec(true, Some(2))
        };
        let expansion = expand(&meta, &suspended);
        assert!(expansion.objects.is_empty());
        assert_eq!(expansion.notes, ["foo suspended: 0 pods"]);
        let waiting = KubeflowJobSpec {
            launcher_creation_policy: Some("WaitForWorkersReady".into()),
            ..spec(true, Some(2))
        };
        assert_eq!(
            expand(&meta, &waiting).notes[0],
            "MPIJob foo: the launcher Job foo-launcher is created once its 2 workers are ready (WaitForWorkersReady)"
        );
    }
}
