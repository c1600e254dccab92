//! Pod requests and node allocatable, computed the way Kubernetes' resource helpers do (the
//! scheduler's NodeInfo, the kubelet's admission): API semantics, so they live with the model.

use std::collections::BTreeMap;

use super::{Container, Node, PodSpec, Quantity, ResourceList};

/// Defaults the scorers use for containers that leave CPU or memory unset, so best-effort pods
/// are not all piled onto one node.
pub(crate) const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
pub(crate) const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// Requested or allocatable amounts: CPU in millicores, the rest in whole units.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub pods: i64,
    /// Extended resources (`nvidia.com/gpu`, hugepages...), by name.
    pub scalar: BTreeMap<String, i64>,
}

impl Resources {
    pub fn from_list(list: &ResourceList) -> Resources {
        let mut out = Resources::default();
        for (name, quantity) in list {
            out.set(name, *quantity);
        }
        out
    }

    fn set(&mut self, name: &str, quantity: Quantity) {
        match name {
            "cpu" => self.milli_cpu = quantity.milli_value(),
            "memory" => self.memory = quantity.value(),
            "ephemeral-storage" => self.ephemeral_storage = quantity.value(),
            "pods" => self.pods = quantity.value(),
            other if is_scalar_resource(other) => {
                self.scalar.insert(other.to_string(), quantity.value());
            }
            _ => {}
        }
    }

    pub fn add(&mut self, other: &Resources) {
        self.milli_cpu += other.milli_cpu;
        self.memory += other.memory;
        self.ephemeral_storage += other.ephemeral_storage;
        self.pods += other.pods;
        for (name, v) in &other.scalar {
            match self.scalar.get_mut(name) {
                Some(total) => *total += v,
                None => {
                    self.scalar.insert(name.clone(), *v);
                }
            }
        }
    }

    pub fn sub(&mut self, other: &Resources) {
        self.milli_cpu -= other.milli_cpu;
        self.memory -= other.memory;
        self.ephemeral_storage -= other.ephemeral_storage;
        self.pods -= other.pods;
        for (name, v) in &other.scalar {
            *self.scalar.entry(name.clone()).or_default() -= v;
        }
    }

    fn max_with(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.max(other.milli_cpu);
        self.memory = self.memory.max(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.max(other.ephemeral_storage);
        for (name, v) in &other.scalar {
            let e = self.scalar.entry(name.clone()).or_default();
            *e = (*e).max(*v);
        }
    }

    pub fn scalar(&self, name: &str) -> i64 {
        self.scalar.get(name).copied().unwrap_or(0)
    }

    /// Amount of a named resource, as the scorers address them.
    pub fn get(&self, name: &str) -> i64 {
        match name {
            "cpu" => self.milli_cpu,
            "memory" => self.memory,
            "ephemeral-storage" => self.ephemeral_storage,
            "pods" => self.pods,
            other => self.scalar(other),
        }
    }

    pub fn is_zero(&self) -> bool {
        self.milli_cpu == 0
            && self.memory == 0
            && self.ephemeral_storage == 0
            && self.scalar.values().all(|v| *v == 0)
    }
}

/// Extended and hugepages resources are tracked per name; native ones have fields.
fn is_scalar_resource(name: &str) -> bool {
    name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
        || (name.contains('/') && !name.starts_with("kubernetes.io/"))
}

/// A container's effective requests (requests, falling back to limits per resource as the API
/// server defaults them), and whether CPU and memory were set at all.
fn container_requests(container: &Container) -> (Resources, bool, bool) {
    let resources = &container.resources;
    let mut r = Resources::default();
    for (name, quantity) in &resources.limits {
        if !resources.requests.contains_key(name) {
            r.set(name, *quantity);
        }
    }
    for (name, quantity) in &resources.requests {
        r.set(name, *quantity);
    }
    let is_set =
        |name: &str| resources.requests.contains_key(name) || resources.limits.contains_key(name);
    (r, is_set("cpu"), is_set("memory"))
}

/// The scorers' view: unset CPU and memory take the defaults.
fn with_defaults((requests, cpu_set, memory_set): &(Resources, bool, bool)) -> Resources {
    let mut r = requests.clone();
    if !cpu_set {
        r.milli_cpu = DEFAULT_MILLI_CPU_REQUEST;
    }
    if !memory_set {
        r.memory = DEFAULT_MEMORY_REQUEST;
    }
    r
}

/// The two ways a container's requests are counted: as declared (what fits where), and with
/// the scorers' defaults for unset CPU and memory.
type View = fn(&(Resources, bool, bool)) -> Resources;

const VIEWS: [View; 2] = [|(r, _, _)| r.clone(), with_defaults];

/// Resources a pod may set at pod level (upstream `IsSupportedPodLevelResource`).
fn is_pod_level_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory") || name.starts_with("hugepages-")
}

/// The pod-level requests that replace the containers' sum, per resource: as written, or, as
/// the API server defaults them, the pod-level limit when no container asks for that resource.
fn pod_level_requests(spec: &PodSpec) -> Option<ResourceList> {
    let pod_level = spec.resources.as_ref()?;
    let container_sets = |name: &str| {
        spec.containers
            .iter()
            .chain(&spec.init_containers)
            .any(|c| {
                c.resources.requests.contains_key(name) || c.resources.limits.contains_key(name)
            })
    };
    let mut requests: ResourceList = pod_level
        .requests
        .iter()
        .filter(|(name, _)| is_pod_level_resource(name))
        .map(|(name, quantity)| (name.clone(), *quantity))
        .collect();
    for (name, quantity) in &pod_level.limits {
        if is_pod_level_resource(name) && !requests.contains_key(name) && !container_sets(name) {
            requests.insert(name.clone(), *quantity);
        }
    }
    (!requests.is_empty()).then_some(requests)
}

/// What a pod asks of a node, in each of `views`: the sum of its containers, or the largest
/// init container if larger (sidecar init containers with `restartPolicy: Always` run alongside
/// and add up); then, with `pod_level`, the pod-level requests in place of that sum for the
/// resources they set; plus overhead. Each container is read once, whatever the number of views.
fn aggregate<const N: usize>(spec: &PodSpec, views: [View; N], pod_level: bool) -> [Resources; N] {
    let mut total: [Resources; N] = std::array::from_fn(|_| Resources::default());
    for c in &spec.containers {
        let container = container_requests(c);
        for (total, view) in total.iter_mut().zip(views) {
            total.add(&view(&container));
        }
    }
    let mut sidecars: [Resources; N] = std::array::from_fn(|_| Resources::default());
    let mut init_peak: [Resources; N] = std::array::from_fn(|_| Resources::default());
    for c in &spec.init_containers {
        let container = container_requests(c);
        for v in 0..N {
            let mut r = views[v](&container);
            if c.restart_policy.as_deref() == Some("Always") {
                total[v].add(&r);
                sidecars[v].add(&r);
                r = sidecars[v].clone();
            } else {
                r.add(&sidecars[v]);
            }
            init_peak[v].max_with(&r);
        }
    }
    let pod_level = if pod_level {
        pod_level_requests(spec)
    } else {
        None
    };
    let overhead = Resources::from_list(&spec.overhead);
    for v in 0..N {
        total[v].max_with(&init_peak[v]);
        if let Some(requests) = &pod_level {
            for (name, quantity) in requests {
                total[v].set(name, *quantity);
            }
        }
        total[v].add(&overhead);
    }
    total
}

/// What a pod asks of a node, pod-level requests included; with `non_zero`, as the scorers
/// count it (unset CPU and memory take the defaults).
pub fn pod_requests(spec: &PodSpec, non_zero: bool) -> Resources {
    let [requests] = aggregate(spec, [VIEWS[usize::from(non_zero)]], true);
    requests
}

/// A pod's requests from its containers alone, pod-level requests ignored: upstream builds
/// NodeResourcesFit's scorer without the PodLevelResources feature, so that score (and only
/// it) sizes the incoming pod this way.
pub fn container_level_requests(spec: &PodSpec, non_zero: bool) -> Resources {
    let [requests] = aggregate(spec, [VIEWS[usize::from(non_zero)]], false);
    requests
}

/// Both views at once, reading each container once (done for every pod when a state loads).
pub fn pod_requests_and_non_zero(spec: &PodSpec) -> (Resources, Resources) {
    let [requests, non_zero] = aggregate(spec, VIEWS, true);
    (requests, non_zero)
}

/// Bytes as people read them in manifests (`512Mi`, `8Gi`), exact or to one decimal.
pub fn format_bytes(bytes: i64) -> String {
    const UNITS: [(&str, i64); 4] = [
        ("Ti", 1 << 40),
        ("Gi", 1 << 30),
        ("Mi", 1 << 20),
        ("Ki", 1 << 10),
    ];
    for (suffix, size) in UNITS {
        if bytes.abs() >= size {
            return if bytes % size == 0 {
                format!("{}{suffix}", bytes / size)
            } else {
                format!("{:.1}{suffix}", bytes as f64 / size as f64)
            };
        }
    }
    bytes.to_string()
}

/// What the scheduler may hand out on a node.
pub fn node_allocatable(node: &Node) -> Resources {
    Resources::from_list(node.allocatable())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ResourceRequirements;

    fn container(requests: &[(&str, &str)], restart: Option<&str>) -> Container {
        Container {
            name: "c".into(),
            resources: ResourceRequirements {
                requests: requests
                    .iter()
                    .map(|(k, v)| (k.to_string(), Quantity::parse(v).unwrap()))
                    .collect(),
                limits: Default::default(),
            },
            restart_policy: restart.map(String::from),
            ..Default::default()
        }
    }

    #[test]
    fn requests_follow_the_init_container_and_sidecar_rules() {
        let spec = |containers, init, overhead: &[(&str, &str)]| PodSpec {
            containers,
            init_containers: init,
            overhead: overhead
                .iter()
                .map(|(k, v)| (k.to_string(), Quantity::parse(v).unwrap()))
                .collect(),
            ..Default::default()
        };
        let cases = [
            // two containers sum
            (
                spec(
                    vec![
                        container(&[("cpu", "1")], None),
                        container(&[("cpu", "500m")], None),
                    ],
                    vec![],
                    &[],
                ),
                1500,
            ),
            // a larger init container wins
            (
                spec(
                    vec![container(&[("cpu", "1")], None)],
                    vec![container(&[("cpu", "3")], None)],
                    &[],
                ),
                3000,
            ),
            // a sidecar adds to the regular containers and to later init containers
            (
                spec(
                    vec![container(&[("cpu", "1")], None)],
                    vec![
                        container(&[("cpu", "500m")], Some("Always")),
                        container(&[("cpu", "2")], None),
                    ],
                    &[],
                ),
                2500,
            ),
            // overhead is added on top
            (
                spec(
                    vec![container(&[("cpu", "1")], None)],
                    vec![],
                    &[("cpu", "250m")],
                ),
                1250,
            ),
        ];
        for (spec, milli) in cases {
            assert_eq!(pod_requests(&spec, false).milli_cpu, milli, "{spec:?}");
        }
    }

    #[test]
    fn pod_level_requests_replace_the_containers_sum_for_cpu_memory_and_hugepages() {
        let list = |pairs: &[(&str, &str)]| -> ResourceList {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), Quantity::parse(v).unwrap()))
                .collect()
        };
        let spec = PodSpec {
            containers: vec![container(&[("cpu", "1"), ("nvidia.com/gpu", "1")], None)],
            init_containers: vec![container(&[("memory", "1Gi")], Some("Always"))],
            overhead: list(&[("cpu", "100m")]),
            resources: Some(Box::new(ResourceRequirements {
                requests: list(&[("cpu", "2"), ("nvidia.com/gpu", "8")]),
                limits: list(&[("memory", "4Gi"), ("hugepages-2Mi", "64Mi")]),
            })),
            ..Default::default()
        };
        let with_pod_level = pod_requests(&spec, false);
        // cpu: pod level 2 + overhead; gpu is not a pod-level resource: the container's 1;
        // memory: the sidecar sets it, so its 1Gi stands; hugepages: the pod-level limit.
        assert_eq!(with_pod_level.milli_cpu, 2100);
        assert_eq!(with_pod_level.scalar("nvidia.com/gpu"), 1);
        assert_eq!(with_pod_level.memory, 1 << 30);
        assert_eq!(with_pod_level.scalar("hugepages-2Mi"), 64 << 20);
        // Containers only, with the scorers' defaults: 1 + the sidecar's default 100m + overhead.
        let containers_only = container_level_requests(&spec, true);
        assert_eq!(containers_only.milli_cpu, 1200);
        assert_eq!(containers_only.scalar("hugepages-2Mi"), 0);
        assert_eq!(pod_requests_and_non_zero(&spec).1.milli_cpu, 2100);
    }

    #[test]
    fn bytes_read_like_quantities() {
        let cases = [
            (0, "0"),
            (512, "512"),
            (1 << 30, "1Gi"),
            (1536 << 20, "1.5Gi"),
            (200 << 20, "200Mi"),
        ];
        for (bytes, text) in cases {
            assert_eq!(format_bytes(bytes), text);
        }
    }

    #[test]
    fn non_zero_defaults_only_for_unset_values() {
        let spec = PodSpec {
            containers: vec![container(&[], None), container(&[("cpu", "0")], None)],
            ..Default::default()
        };
        let r = pod_requests(&spec, true);
        assert_eq!(
            pod_requests_and_non_zero(&spec),
            (pod_requests(&spec, false), r.clone())
        );
        assert_eq!(r.milli_cpu, 100);
        assert_eq!(r.memory, 2 * DEFAULT_MEMORY_REQUEST);
        assert!(pod_requests(&spec, false).is_zero());
    }

    #[test]
    fn limits_stand_in_for_missing_requests_and_gpus_are_scalar() {
        let mut c = container(&[("cpu", "1")], None);
        c.resources
            .limits
            .insert("nvidia.com/gpu".into(), Quantity::from_value(2));
        c.resources
            .limits
            .insert("cpu".into(), Quantity::from_value(4));
        let r = pod_requests(
            &PodSpec {
                containers: vec![c],
                ..Default::default()
            },
            false,
        );
        assert_eq!(r.milli_cpu, 1000);
        assert_eq!(r.scalar("nvidia.com/gpu"), 2);
    }
}
