//! KubeRay (`ray.io/v1`): a RayCluster's head and worker pods (`raycluster_controller.go`,
//! `common/pod.go`) with the containers the operator adds, and a RayJob's cluster and submitter
//! Job (`rayjob_controller.go`, `common/job.go`), as ray-project/kuberay computes them.
//! Placement-wise KubeRay injects no affinity: only resources (the autoscaler sidecar, the
//! workers' `wait-gcs-ready` init container, the submitter).

use df_model::operators::{RayClusterSpec, RayJobSpec, RayServiceSpec, WorkerGroupSpec};
use df_model::{Container, Object, ObjectMeta, PodTemplateSpec, ResourceRequirements};

use super::{Expansion, pod_of};

pub const CLUSTER: &str = "ray.io/cluster";
pub const NODE_TYPE: &str = "ray.io/node-type";
pub const GROUP: &str = "ray.io/group";
pub const REPLICA_INDEX: &str = "ray.io/worker-group-replica-index";
pub const HOST_INDEX: &str = "ray.io/replica-host-index";

/// What stands for the random suffix of a name the operator generates.
const GENERATED: &str = "<generated>";

/// The head and the workers of `spec`, named `<cluster>` as the operator names them.
pub fn expand_cluster(meta: &ObjectMeta, spec: &RayClusterSpec) -> Expansion {
    let mut out = Expansion::default();
    cluster_pods(&meta.name, &meta.namespace, spec, &mut out);
    out
}

/// A RayService's RayCluster `<service>-<generated>` (upstream `GenerateRayClusterName`: five
/// random characters) from `rayClusterConfig`, which it serves its applications from.
pub fn expand_service(meta: &ObjectMeta, spec: &RayServiceSpec) -> Expansion {
    let mut out = Expansion::default();
    let cluster = format!("{}-{GENERATED}", meta.name);
    cluster_pods(
        &cluster,
        &meta.namespace,
        &spec.ray_cluster_config,
        &mut out,
    );
    out
}

/// Upstream `GetWorkerGroupDesiredReplicas`: `replicas` (default 0) clamped to
/// `[minReplicas, maxReplicas]`, times `numOfHosts` (at least 1); none when suspended.
pub fn desired_workers(group: &WorkerGroupSpec) -> i32 {
    if group.suspend == Some(true) {
        return 0;
    }
    let min = group.min_replicas.unwrap_or(0);
    let max = group.max_replicas.unwrap_or(i32::MAX);
    let replicas = match group.replicas {
        Some(r) if r < min => min,
        Some(r) if r > max => max,
        Some(r) => r,
        None => min,
    };
    replicas.max(0) * group.num_of_hosts.unwrap_or(1).max(1)
}

fn cluster_pods(cluster: &str, namespace: &str, spec: &RayClusterSpec, out: &mut Expansion) {
    if spec.suspend == Some(true) {
        out.note(format!("RayCluster {cluster} suspended: 0 pods"));
        return;
    }
    let mut head = pod_of(
        &labelled(&spec.head_group_spec.template, cluster, "head", "headgroup"),
        namespace,
        format!("{cluster}-head"),
    );
    if spec.enable_in_tree_autoscaling == Some(true) {
        let resources = spec
            .autoscaler_options
            .as_ref()
            .and_then(|o| o.resources.clone())
            .unwrap_or_else(|| fixed("500m", "512Mi"));
        head.spec.containers.push(Container {
            name: "autoscaler".into(),
            resources,
            ..Container::default()
        });
    }
    out.objects.push(Object::Pod(head));
    for group in &spec.worker_group_specs {
        let template = labelled(&group.template, cluster, "worker", &group.group_name);
        let hosts = group.num_of_hosts.unwrap_or(1).max(1);
        for k in 0..desired_workers(group) {
            let name = format!("{cluster}-{}-worker-{k}", group.group_name);
            let mut pod = pod_of(&template, namespace, name);
            let labels = &mut pod.metadata.labels;
            labels.insert(REPLICA_INDEX.into(), (k / hosts).to_string().into());
            if hosts > 1 {
                labels.insert(HOST_INDEX.into(), (k % hosts).to_string().into());
            }
            pod.spec.init_containers.push(Container {
                name: "wait-gcs-ready".into(),
                resources: fixed("200m", "256Mi"),
                ..Container::default()
            });
            out.objects.push(Object::Pod(pod));
        }
    }
}

/// `template` with the labels `labelPod` sets (over the user's, which may not override the
/// node type, the group or the cluster).
fn labelled(
    template: &PodTemplateSpec,
    cluster: &str,
    node_type: &str,
    group: &str,
) -> PodTemplateSpec {
    let mut template = template.clone();
    let identifier = format!("{cluster}-{node_type}");
    let labels = &mut template.metadata.labels;
    for (key, value) in [
        ("ray.io/is-ray-node", "yes"),
        (CLUSTER, cluster),
        (NODE_TYPE, node_type),
        (GROUP, group),
        ("ray.io/identifier", identifier.as_str()),
        ("app.kubernetes.io/name", "kuberay"),
        ("app.kubernetes.io/created-by", "kuberay-operator"),
    ] {
        labels.insert(key.into(), value.into());
    }
    template
}

/// Requests equal to limits of `cpu` and `memory`.
fn fixed(cpu: &str, memory: &str) -> ResourceRequirements {
    super::fixed(&[("cpu", cpu), ("memory", memory)])
}

/// A RayJob's cluster `<rayjob>-<generated>` (unless it selects an existing one), then, in
/// `K8sJobMode`, the submitter Job `<rayjob>`'s one pod once the cluster is ready.
pub fn expand_job(meta: &ObjectMeta, spec: &RayJobSpec) -> Expansion {
    let mut out = Expansion::default();
    if spec.suspend == Some(true) {
        out.note(format!("RayJob {} suspended: 0 pods", meta.name));
        return out;
    }
    let mode = spec.submission_mode.as_deref().unwrap_or("K8sJobMode");
    let selected = spec.cluster_selector.get(CLUSTER);
    let cluster = match (selected, &spec.ray_cluster_spec) {
        (Some(existing), _) => {
            out.note(format!(
                "RayJob {}: runs on the existing RayCluster {existing} (clusterSelector)",
                meta.name
            ));
            existing.clone()
        }
        (None, Some(cluster_spec)) => {
            let cluster = format!("{}-{GENERATED}", meta.name);
            let before = out.objects.len();
            cluster_pods(&cluster, &meta.namespace, cluster_spec, &mut out);
            if mode == "SidecarMode"
                && let Some(Object::Pod(head)) = out.objects.get_mut(before)
            {
                head.spec.containers.push(submitter_container());
            }
            cluster
        }
        (None, None) => {
            out.note(format!(
                "RayJob {}: neither rayClusterSpec nor clusterSelector: nothing is created",
                meta.name
            ));
            return out;
        }
    };
    if mode != "K8sJobMode" {
        return out;
    }
    let template = spec
        .submitter_pod_template
        .clone()
        .unwrap_or_else(|| PodTemplateSpec {
            spec: df_model::PodSpec {
                containers: vec![submitter_container()],
                ..df_model::PodSpec::default()
            },
            ..PodTemplateSpec::default()
        });
    let mut pod = pod_of(&template, &meta.namespace, format!("{}-0", meta.name));
    let labels = &mut pod.metadata.labels;
    for key in df_model::JOB_NAME_LABELS {
        labels.insert(key.into(), meta.name.as_str().into());
    }
    labels.insert(
        "ray.io/originated-from-cr-name".into(),
        meta.name.as_str().into(),
    );
    labels.insert("ray.io/originated-from-crd".into(), "RayJob".into());
    labels.insert(
        "app.kubernetes.io/created-by".into(),
        "kuberay-operator".into(),
    );
    out.note(format!(
        "RayJob {}: the submitter Job {} is created once RayCluster {cluster} is ready",
        meta.name, meta.name
    ));
    out.objects.push(Object::Pod(pod));
    out
}

/// The default submitter: requests 500m/200Mi, limits 1/1Gi.
fn submitter_container() -> Container {
    let mut resources = fixed("500m", "200Mi");
    resources.limits = fixed("1", "1Gi").limits;
    Container {
        name: "ray-job-submitter".into(),
        resources,
        ..Container::default()
    }
}
