//! The operator kinds' outlines (JobSet, LeaderWorkerSet, Kubeflow Trainer, training-operator
//! v1, KubeRay): every spec field of their CRDs at the versions read (unknown ones are
//! reported, as for the other custom resources), and each embedded pod or Job template
//! checked as strictly as a Pod or a Job.

use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use super::{Shape, kube};

const POD_TEMPLATE: Shape = Shape::Kube(kube::<core::PodTemplateSpec>);

/// `jobset.x-k8s.io/v1alpha2` JobSetSpec (also a training runtime's template).
const JOBSET_SPEC: Shape = Shape::Map(&[
    (
        "replicatedJobs",
        Shape::List(&Shape::Map(&[
            ("name", Shape::Any),
            ("groupName", Shape::Any),
            ("template", Shape::Kube(kube::<batch::JobTemplateSpec>)),
            ("replicas", Shape::Any),
            ("dependsOn", Shape::Any),
        ])),
    ),
    ("network", Shape::Any),
    ("successPolicy", Shape::Any),
    ("failurePolicy", Shape::Any),
    ("startupPolicy", Shape::Any),
    ("suspend", Shape::Any),
    ("coordinator", Shape::Any),
    ("managedBy", Shape::Any),
    ("ttlSecondsAfterFinished", Shape::Any),
    ("volumeClaimPolicies", Shape::Any),
]);

const LWS_SPEC: Shape = Shape::Map(&[
    ("replicas", Shape::Any),
    (
        "leaderWorkerTemplate",
        Shape::Map(&[
            ("leaderTemplate", POD_TEMPLATE),
            ("workerTemplate", POD_TEMPLATE),
            ("size", Shape::Any),
            ("restartPolicy", Shape::Any),
            ("subGroupPolicy", Shape::Any),
            ("volumeClaimTemplates", Shape::Any),
            ("resizePolicy", Shape::Any),
        ]),
    ),
    ("rolloutStrategy", Shape::Any),
    ("startupPolicy", Shape::Any),
    ("networkConfig", Shape::Any),
]);

const TRAIN_JOB_SPEC: Shape = Shape::Map(&[
    ("runtimeRef", Shape::Any),
    ("initializer", Shape::Any),
    ("trainer", Shape::Any),
    ("labels", Shape::Any),
    ("annotations", Shape::Any),
    ("podTemplateOverrides", Shape::Any),
    ("podSpecOverrides", Shape::Any),
    ("runtimePatches", Shape::Any),
    ("suspend", Shape::Any),
    ("managedBy", Shape::Any),
]);

const TRAINING_RUNTIME_SPEC: Shape = Shape::Map(&[
    ("mlPolicy", Shape::Any),
    ("podGroupPolicy", Shape::Any),
    (
        "template",
        Shape::Map(&[
            ("metadata", Shape::Kube(kube::<meta::ObjectMeta>)),
            ("spec", JOBSET_SPEC),
        ]),
    ),
]);

/// training-operator v1: replica specs are keyed by replica type, so only their presence is
/// outlined; the run policy and elastic policy as written.
const KUBEFLOW_JOB_SPEC: Shape = Shape::Map(&[
    ("pytorchReplicaSpecs", Shape::Any),
    ("mpiReplicaSpecs", Shape::Any),
    ("tfReplicaSpecs", Shape::Any),
    ("xgbReplicaSpecs", Shape::Any),
    ("paddleReplicaSpecs", Shape::Any),
    ("jaxReplicaSpecs", Shape::Any),
    ("successPolicy", Shape::Any),
    ("enableDynamicWorker", Shape::Any),
    ("runPolicy", Shape::Any),
    ("elasticPolicy", Shape::Any),
    ("nprocPerNode", Shape::Any),
    ("slotsPerWorker", Shape::Any),
    ("mainContainer", Shape::Any),
    ("cleanPodPolicy", Shape::Any),
]);

/// mpi-operator's `v2beta1` MPIJob: replica specs keyed `Launcher` and `Worker`.
const MPI_JOB_SPEC: Shape = Shape::Map(&[
    ("mpiReplicaSpecs", Shape::Any),
    ("slotsPerWorker", Shape::Any),
    ("runLauncherAsWorker", Shape::Any),
    ("runPolicy", Shape::Any),
    ("sshAuthMountPath", Shape::Any),
    ("launcherCreationPolicy", Shape::Any),
    ("mpiImplementation", Shape::Any),
]);

const RAY_GROUP_FIELDS: &[(&str, Shape)] = &[
    ("template", POD_TEMPLATE),
    ("rayStartParams", Shape::Any),
    ("serviceType", Shape::Any),
    ("headService", Shape::Any),
    ("enableIngress", Shape::Any),
    ("ingressOptions", Shape::Any),
    ("resources", Shape::Any),
    ("labels", Shape::Any),
];

const RAY_CLUSTER_SPEC: Shape = Shape::Map(&[
    ("headGroupSpec", Shape::Map(RAY_GROUP_FIELDS)),
    (
        "workerGroupSpecs",
        Shape::List(&Shape::Map(&[
            ("template", POD_TEMPLATE),
            ("rayStartParams", Shape::Any),
            ("groupName", Shape::Any),
            ("replicas", Shape::Any),
            ("minReplicas", Shape::Any),
            ("maxReplicas", Shape::Any),
            ("numOfHosts", Shape::Any),
            ("suspend", Shape::Any),
            ("scaleStrategy", Shape::Any),
            ("idleTimeoutSeconds", Shape::Any),
            ("priority", Shape::Any),
            ("resources", Shape::Any),
            ("labels", Shape::Any),
        ])),
    ),
    ("rayVersion", Shape::Any),
    ("enableInTreeAutoscaling", Shape::Any),
    ("autoscalerOptions", Shape::Any),
    ("headServiceAnnotations", Shape::Any),
    ("suspend", Shape::Any),
    ("managedBy", Shape::Any),
    ("gcsFaultToleranceOptions", Shape::Any),
    ("upgradeStrategy", Shape::Any),
    ("authOptions", Shape::Any),
    ("historyServerOptions", Shape::Any),
    ("networkPolicy", Shape::Any),
    ("tlsOptions", Shape::Any),
]);

const RAY_JOB_SPEC: Shape = Shape::Map(&[
    ("rayClusterSpec", RAY_CLUSTER_SPEC),
    ("clusterSelector", Shape::Any),
    ("entrypoint", Shape::Any),
    ("runtimeEnvYAML", Shape::Any),
    ("metadata", Shape::Any),
    ("jobId", Shape::Any),
    ("submissionMode", Shape::Any),
    ("submitterPodTemplate", POD_TEMPLATE),
    ("submitterConfig", Shape::Any),
    ("entrypointNumCpus", Shape::Any),
    ("entrypointNumGpus", Shape::Any),
    ("entrypointResources", Shape::Any),
    ("shutdownAfterJobFinishes", Shape::Any),
    ("ttlSecondsAfterFinished", Shape::Any),
    ("activeDeadlineSeconds", Shape::Any),
    ("backoffLimit", Shape::Any),
    ("suspend", Shape::Any),
    ("managedBy", Shape::Any),
    ("deletionStrategy", Shape::Any),
]);

const JOBSET: Shape = custom_resource!(JOBSET_SPEC);
const LWS: Shape = custom_resource!(LWS_SPEC);
const TRAIN_JOB: Shape = custom_resource!(TRAIN_JOB_SPEC);
const TRAINING_RUNTIME: Shape = custom_resource!(TRAINING_RUNTIME_SPEC);
const RAY_SERVICE_SPEC: Shape = Shape::Map(&[
    ("rayClusterConfig", RAY_CLUSTER_SPEC),
    ("serveConfigV2", Shape::Any),
    ("serveService", Shape::Any),
    ("upgradeStrategy", Shape::Any),
    ("excludeHeadPodFromServeSvc", Shape::Any),
    ("serviceUnhealthySecondThreshold", Shape::Any),
    ("deploymentUnhealthySecondThreshold", Shape::Any),
]);

const KUBEFLOW_JOB: Shape = custom_resource!(KUBEFLOW_JOB_SPEC);
const MPI_JOB: Shape = custom_resource!(MPI_JOB_SPEC);
const RAY_SERVICE: Shape = custom_resource!(RAY_SERVICE_SPEC);
const RAY_CLUSTER: Shape = custom_resource!(RAY_CLUSTER_SPEC);
const RAY_JOB: Shape = custom_resource!(RAY_JOB_SPEC);

/// The operator kinds by apiVersion and kind.
pub(super) const OPERATORS: &[(&str, &str, Shape)] = &[
    ("jobset.x-k8s.io/v1alpha2", "JobSet", JOBSET),
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", LWS),
    ("trainer.kubeflow.org/v1alpha1", "TrainJob", TRAIN_JOB),
    (
        "trainer.kubeflow.org/v1alpha1",
        "TrainingRuntime",
        TRAINING_RUNTIME,
    ),
    (
        "trainer.kubeflow.org/v1alpha1",
        "ClusterTrainingRuntime",
        TRAINING_RUNTIME,
    ),
    ("kubeflow.org/v1", "PyTorchJob", KUBEFLOW_JOB),
    ("kubeflow.org/v1", "MPIJob", KUBEFLOW_JOB),
    ("kubeflow.org/v2beta1", "MPIJob", MPI_JOB),
    ("kubeflow.org/v1", "TFJob", KUBEFLOW_JOB),
    ("kubeflow.org/v1", "XGBoostJob", KUBEFLOW_JOB),
    ("kubeflow.org/v1", "PaddleJob", KUBEFLOW_JOB),
    ("kubeflow.org/v1", "JAXJob", KUBEFLOW_JOB),
    ("ray.io/v1", "RayCluster", RAY_CLUSTER),
    ("ray.io/v1", "RayJob", RAY_JOB),
    ("ray.io/v1", "RayService", RAY_SERVICE),
];
