//! The workload kinds AI teams run through operators: JobSet, LeaderWorkerSet, Kubeflow
//! Trainer's TrainJob and its (Cluster)TrainingRuntimes, training-operator v1's PyTorchJob,
//! MPIJob, TFJob, XGBoostJob, PaddleJob and JAXJob, mpi-operator's `v2beta1` MPIJob, KubeRay's
//! RayCluster, RayJob and RayService. Only the fields their controllers read to create
//! pods are decoded (unknown fields are skipped, as the API server prunes them), with the
//! CRDs' defaults left as `None` for the expansion (`systems::operators`) to apply, so a
//! snapshot writes back what the user wrote.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::core::{ObjectMeta, PodTemplateSpec, ResourceRequirements};
use crate::kinds::{DecodeError, Kind, KindObject, Reader, TypeMeta};

/// One object of an operator kind: its metadata and the spec of its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorObject {
    pub metadata: ObjectMeta,
    pub spec: OperatorSpec,
}

/// The spec of each operator kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OperatorSpec {
    JobSet(JobSetSpec),
    LeaderWorkerSet(LeaderWorkerSetSpec),
    TrainJob(TrainJobSpec),
    TrainingRuntime(TrainingRuntimeSpec),
    ClusterTrainingRuntime(TrainingRuntimeSpec),
    PyTorchJob(KubeflowJobSpec),
    MpiJob(KubeflowJobSpec),
    /// mpi-operator's `kubeflow.org/v2beta1` MPIJob: the same kind and group as
    /// training-operator's, another controller (a launcher Job, workers by job role).
    MpiJobV2beta1(KubeflowJobSpec),
    RayCluster(RayClusterSpec),
    RayJob(RayJobSpec),
    TfJob(KubeflowJobSpec),
    XgBoostJob(KubeflowJobSpec),
    PaddleJob(KubeflowJobSpec),
    JaxJob(KubeflowJobSpec),
    RayService(RayServiceSpec),
}

/// `jobset.x-k8s.io/v1alpha2` JobSet `spec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JobSetSpec {
    pub replicated_jobs: Vec<ReplicatedJob>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_policy: Option<StartupPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coordinator: Option<Coordinator>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<JobSetNetwork>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicatedJob {
    pub name: String,
    /// CRD default `default`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    /// CRD default 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    pub template: JobTemplateSpec,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<DependsOn>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DependsOn {
    pub name: String,
    /// `Ready` or `Complete`.
    pub status: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StartupPolicy {
    /// `AnyOrder` (default) or `InOrder`.
    pub startup_policy_order: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Coordinator {
    pub replicated_job: String,
    pub job_index: i32,
    pub pod_index: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JobSetNetwork {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_dns_hostnames: Option<bool>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub subdomain: String,
}

/// A batch Job template (`metadata` goes to the Job, `spec.template` to its pods).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JobTemplateSpec {
    pub metadata: ObjectMeta,
    pub spec: JobSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JobSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    pub template: PodTemplateSpec,
}

/// `leaderworkerset.x-k8s.io/v1` LeaderWorkerSet `spec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LeaderWorkerSetSpec {
    /// CRD default 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    pub leader_worker_template: LeaderWorkerTemplate,
    /// `LeaderCreated` (default) or `LeaderReady`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LeaderWorkerTemplate {
    /// CRD default 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_template: Option<PodTemplateSpec>,
    pub worker_template: PodTemplateSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub_group_policy: Option<SubGroupPolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SubGroupPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub_group_size: Option<i32>,
    /// `LeaderWorker` (CRD default) or `LeaderExcluded`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub_group_policy_type: Option<String>,
}

/// `trainer.kubeflow.org/v1alpha1` TrainJob `spec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TrainJobSpec {
    pub runtime_ref: RuntimeRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trainer: Option<Trainer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RuntimeRef {
    pub name: String,
    /// Default `ClusterTrainingRuntime`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Trainer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources_per_node: Option<ResourceRequirements>,
}

/// `trainer.kubeflow.org/v1alpha1` (Cluster)TrainingRuntime `spec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TrainingRuntimeSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ml_policy: Option<MlPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_group_policy: Option<PodGroupPolicy>,
    pub template: JobSetTemplate,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MlPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_nodes: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiPolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MpiPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_launcher_as_node: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodGroupPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coscheduling: Option<Coscheduling>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volcano: Option<VolcanoPolicy>,
}

/// Its settings (a network topology) do not change which pods make the gang.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VolcanoPolicy {}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Coscheduling {
    /// Default 60.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_timeout_seconds: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JobSetTemplate {
    pub metadata: ObjectMeta,
    pub spec: JobSetSpec,
}

/// `kubeflow.org/v1` training job `spec` (PyTorchJob, MPIJob, TFJob, XGBoostJob, PaddleJob,
/// JAXJob): replica specs by type (`Master`, `Worker`, `Launcher`, `Chief`, `PS`...), keyed as
/// written (the operator normalises their case). Each kind fills only its own field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KubeflowJobSpec {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pytorch_replica_specs: BTreeMap<String, ReplicaSpec>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub mpi_replica_specs: BTreeMap<String, ReplicaSpec>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tf_replica_specs: BTreeMap<String, ReplicaSpec>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub xgb_replica_specs: BTreeMap<String, ReplicaSpec>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub paddle_replica_specs: BTreeMap<String, ReplicaSpec>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub jax_replica_specs: BTreeMap<String, ReplicaSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_policy: Option<RunPolicy>,
    /// `v2beta1` MPIJob: the launcher is also a worker (the workers' replica indexes start
    /// at 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_launcher_as_worker: Option<bool>,
    /// `v2beta1` MPIJob: `AtStartup` (default) or `WaitForWorkersReady`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launcher_creation_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicaSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    pub template: PodTemplateSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_policy: Option<KubeflowSchedulingPolicy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KubeflowSchedulingPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_available: Option<i32>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub queue: String,
}

/// `ray.io/v1` RayCluster `spec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RayClusterSpec {
    pub head_group_spec: HeadGroupSpec,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub worker_group_specs: Vec<WorkerGroupSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_in_tree_autoscaling: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoscaler_options: Option<AutoscalerOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HeadGroupSpec {
    pub template: PodTemplateSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkerGroupSpec {
    pub group_name: String,
    /// CRD default 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// CRD default 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    /// CRD default 2147483647.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_replicas: Option<i32>,
    /// CRD default 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_of_hosts: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    pub template: PodTemplateSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AutoscalerOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
}

/// `ray.io/v1` RayJob `spec`.
/// `ray.io/v1` RayService `spec`: the RayCluster it serves from (its Serve config is not read).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RayServiceSpec {
    pub ray_cluster_config: RayClusterSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RayJobSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ray_cluster_spec: Option<RayClusterSpec>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cluster_selector: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    /// `K8sJobMode` (default), `HTTPMode`, `InteractiveMode` or `SidecarMode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitter_pod_template: Option<PodTemplateSpec>,
}

/// The operator kinds, in the order of [`OperatorSpec`]'s variants. Read from manifests and
/// recorded states; a live read lists only the training runtimes (a TrainJob is planned
/// through the runtime it names, which may be in the cluster alone; the other kinds' pods
/// are listed themselves).
/// mpi-operator's MPIJob version (training-operator's is `kubeflow.org/v1`).
pub const MPI_OPERATOR_VERSION: &str = "kubeflow.org/v2beta1";

const OPERATOR_KINDS: &[Kind] = &[
    Kind::new(
        "JobSet",
        &["jobset.x-k8s.io/v1alpha2"],
        "jobsets",
        "the planner (its pods)",
    )
    .short(&["js"])
    .addressable()
    .live(&[]),
    Kind::new(
        "LeaderWorkerSet",
        &["leaderworkerset.x-k8s.io/v1"],
        "leaderworkersets",
        "the planner (its pods)",
    )
    .short(&["lws"])
    .addressable()
    .live(&[]),
    Kind::new(
        "TrainJob",
        &["trainer.kubeflow.org/v1alpha1"],
        "trainjobs",
        "the planner (its pods)",
    )
    .short(&["tj"])
    .addressable()
    .live(&[]),
    Kind::new(
        "TrainingRuntime",
        &["trainer.kubeflow.org/v1alpha1"],
        "trainingruntimes",
        "the planner (the TrainJobs naming it)",
    ),
    Kind::new(
        "ClusterTrainingRuntime",
        &["trainer.kubeflow.org/v1alpha1"],
        "clustertrainingruntimes",
        "the planner (the TrainJobs naming it)",
    )
    .cluster_scoped(),
    Kind::new(
        "PyTorchJob",
        &["kubeflow.org/v1"],
        "pytorchjobs",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "MPIJob",
        &["kubeflow.org/v1", MPI_OPERATOR_VERSION],
        "mpijobs",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "RayCluster",
        &["ray.io/v1"],
        "rayclusters",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "RayJob",
        &["ray.io/v1"],
        "rayjobs",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "RayService",
        &["ray.io/v1"],
        "rayservices",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "TFJob",
        &["kubeflow.org/v1"],
        "tfjobs",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "XGBoostJob",
        &["kubeflow.org/v1"],
        "xgboostjobs",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "PaddleJob",
        &["kubeflow.org/v1"],
        "paddlejobs",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
    Kind::new(
        "JAXJob",
        &["kubeflow.org/v1"],
        "jaxjobs",
        "the planner (its pods)",
    )
    .addressable()
    .live(&[]),
];

#[derive(Deserialize, Default)]
#[serde(default, bound(deserialize = "S: Deserialize<'de> + Default"))]
struct Body<S> {
    metadata: ObjectMeta,
    /// `spec: null` is no spec: the API server prunes a null it is not told to keep.
    #[serde(deserialize_with = "crate::core::null_as_default")]
    spec: S,
}

impl KindObject for OperatorObject {
    const KINDS: &'static [Kind] = OPERATOR_KINDS;

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        fn body<'de, S: Deserialize<'de> + Default, D: Deserializer<'de>>(
            read: Reader<D>,
            spec: fn(S) -> OperatorSpec,
        ) -> Result<OperatorObject, DecodeError> {
            let body: Body<S> = read.get()?;
            Ok(OperatorObject {
                metadata: body.metadata,
                spec: spec(body.spec),
            })
        }
        match type_meta.kind.as_str() {
            "JobSet" => body(read, OperatorSpec::JobSet),
            "LeaderWorkerSet" => body(read, OperatorSpec::LeaderWorkerSet),
            "TrainJob" => body(read, OperatorSpec::TrainJob),
            "TrainingRuntime" => body(read, OperatorSpec::TrainingRuntime),
            "ClusterTrainingRuntime" => body(read, OperatorSpec::ClusterTrainingRuntime),
            "PyTorchJob" => body(read, OperatorSpec::PyTorchJob),
            "MPIJob" if type_meta.api_version == MPI_OPERATOR_VERSION => {
                body(read, OperatorSpec::MpiJobV2beta1)
            }
            "MPIJob" => body(read, OperatorSpec::MpiJob),
            "RayCluster" => body(read, OperatorSpec::RayCluster),
            "RayService" => body(read, OperatorSpec::RayService),
            "TFJob" => body(read, OperatorSpec::TfJob),
            "XGBoostJob" => body(read, OperatorSpec::XgBoostJob),
            "PaddleJob" => body(read, OperatorSpec::PaddleJob),
            "JAXJob" => body(read, OperatorSpec::JaxJob),
            _ => body(read, OperatorSpec::RayJob),
        }
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }

    /// The MPIJob's own: its two versions are two controllers' objects.
    fn api_version(&self) -> &str {
        match self.spec {
            OperatorSpec::MpiJob(_) => "kubeflow.org/v1",
            OperatorSpec::MpiJobV2beta1(_) => MPI_OPERATOR_VERSION,
            _ => self.kind_info().api_version(),
        }
    }

    fn kind_info(&self) -> &'static Kind {
        let index = match self.spec {
            OperatorSpec::JobSet(_) => 0,
            OperatorSpec::LeaderWorkerSet(_) => 1,
            OperatorSpec::TrainJob(_) => 2,
            OperatorSpec::TrainingRuntime(_) => 3,
            OperatorSpec::ClusterTrainingRuntime(_) => 4,
            OperatorSpec::PyTorchJob(_) => 5,
            OperatorSpec::MpiJob(_) | OperatorSpec::MpiJobV2beta1(_) => 6,
            OperatorSpec::RayCluster(_) => 7,
            OperatorSpec::RayJob(_) => 8,
            OperatorSpec::RayService(_) => 9,
            OperatorSpec::TfJob(_) => 10,
            OperatorSpec::XgBoostJob(_) => 11,
            OperatorSpec::PaddleJob(_) => 12,
            OperatorSpec::JaxJob(_) => 13,
        };
        &OPERATOR_KINDS[index]
    }
}

/// As snapshots and the cache write it: what [`OperatorObject::decode`] reads back.
impl Serialize for OperatorObject {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out<'a> {
            metadata: &'a ObjectMeta,
            spec: &'a OperatorSpec,
        }
        Out {
            metadata: &self.metadata,
            spec: &self.spec,
        }
        .serialize(s)
    }
}

impl From<Box<OperatorObject>> for OperatorObject {
    fn from(object: Box<OperatorObject>) -> OperatorObject {
        *object
    }
}

impl OperatorObject {
    /// Every pod template the object holds, with the path of its `spec` (for the checks of
    /// pod specs and for redaction, which must reach each one).
    pub fn templates_mut(&mut self) -> Vec<(String, &mut PodTemplateSpec)> {
        fn jobs<'a>(
            spec: &'a mut JobSetSpec,
            prefix: &str,
        ) -> Vec<(String, &'a mut PodTemplateSpec)> {
            spec.replicated_jobs
                .iter_mut()
                .enumerate()
                .map(|(i, r)| {
                    (
                        format!("{prefix}replicatedJobs[{i}].template.spec.template"),
                        &mut r.template.spec.template,
                    )
                })
                .collect()
        }
        fn ray<'a>(
            spec: &'a mut RayClusterSpec,
            prefix: &str,
        ) -> Vec<(String, &'a mut PodTemplateSpec)> {
            let mut out = vec![(
                format!("{prefix}headGroupSpec.template"),
                &mut spec.head_group_spec.template,
            )];
            for (i, group) in spec.worker_group_specs.iter_mut().enumerate() {
                out.push((
                    format!("{prefix}workerGroupSpecs[{i}].template"),
                    &mut group.template,
                ));
            }
            out
        }
        fn replicas<'a>(
            specs: &'a mut BTreeMap<String, ReplicaSpec>,
            field: &str,
        ) -> Vec<(String, &'a mut PodTemplateSpec)> {
            specs
                .iter_mut()
                .map(|(kind, r)| (format!("spec.{field}.{kind}.template"), &mut r.template))
                .collect()
        }
        match &mut self.spec {
            OperatorSpec::JobSet(spec) => jobs(spec, "spec."),
            OperatorSpec::TrainingRuntime(spec) | OperatorSpec::ClusterTrainingRuntime(spec) => {
                jobs(&mut spec.template.spec, "spec.template.spec.")
            }
            OperatorSpec::LeaderWorkerSet(spec) => {
                let template = &mut spec.leader_worker_template;
                let mut out = vec![(
                    "spec.leaderWorkerTemplate.workerTemplate".to_string(),
                    &mut template.worker_template,
                )];
                if let Some(leader) = &mut template.leader_template {
                    out.push((
                        "spec.leaderWorkerTemplate.leaderTemplate".to_string(),
                        leader,
                    ));
                }
                out
            }
            OperatorSpec::TrainJob(_) => Vec::new(),
            OperatorSpec::PyTorchJob(spec)
            | OperatorSpec::MpiJob(spec)
            | OperatorSpec::MpiJobV2beta1(spec)
            | OperatorSpec::TfJob(spec)
            | OperatorSpec::XgBoostJob(spec)
            | OperatorSpec::PaddleJob(spec)
            | OperatorSpec::JaxJob(spec) => {
                let mut out = replicas(&mut spec.pytorch_replica_specs, "pytorchReplicaSpecs");
                out.extend(replicas(&mut spec.mpi_replica_specs, "mpiReplicaSpecs"));
                out.extend(replicas(&mut spec.tf_replica_specs, "tfReplicaSpecs"));
                out.extend(replicas(&mut spec.xgb_replica_specs, "xgbReplicaSpecs"));
                out.extend(replicas(
                    &mut spec.paddle_replica_specs,
                    "paddleReplicaSpecs",
                ));
                out.extend(replicas(&mut spec.jax_replica_specs, "jaxReplicaSpecs"));
                out
            }
            OperatorSpec::RayCluster(spec) => ray(spec, "spec."),
            OperatorSpec::RayService(spec) => {
                ray(&mut spec.ray_cluster_config, "spec.rayClusterConfig.")
            }
            OperatorSpec::RayJob(spec) => {
                let mut out = spec
                    .ray_cluster_spec
                    .as_mut()
                    .map(|c| ray(c, "spec.rayClusterSpec."))
                    .unwrap_or_default();
                if let Some(submitter) = &mut spec.submitter_pod_template {
                    out.push(("spec.submitterPodTemplate".to_string(), submitter));
                }
                out
            }
        }
    }
}
