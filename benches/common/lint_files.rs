//! The 10,000 manifests (1,000 files of ten) the lint and load benchmarks lint.

use std::fmt::Write as _;

/// How many files, and documents in each.
pub const FILES: usize = 1_000;
pub const PER_FILE: usize = 10;

/// One file of ten documents; `f` makes names unique and varies the content.
pub fn file_text(f: usize) -> String {
    let mut text = String::new();
    let ns = format!("team-{}", f % 7);
    let _ = write!(
        text,
        "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata:\n  name: load-{f}\n  namespace: {ns}\n  annotations:\n    affinity.dataflow.fluid.io/labels: example.com/rack\nspec:\n  dataset:\n    name: ds-{f}\n  target:\n  - path: /\n    replicas: 1\n---\n"
    );
    let _ = write!(
        text,
        "apiVersion: data.fluid.io/v1alpha1\nkind: DataProcess\nmetadata:\n  name: process-{f}\n  namespace: {ns}\nspec:\n  runAfter:\n    kind: DataLoad\n    name: load-{f}\n    affinityStrategy:\n      policy: Require\n      requires:\n      - name: example.com/rack\n  dataset:\n    name: ds-{f}\n    mountPath: /data\n  processor:\n    job:\n      podSpec:\n        containers:\n        - name: main\n          image: python:3.10\n---\n"
    );
    // Every tenth file carries mistakes, so the diagnostic path is measured too.
    let policy = if f.is_multiple_of(10) {
        "prefer"
    } else {
        "Prefer"
    };
    let _ = write!(
        text,
        "apiVersion: data.fluid.io/v1alpha1\nkind: DataMigrate\nmetadata:\n  name: export-{f}\n  namespace: {ns}\nspec:\n  runAfter:\n    kind: DataProcess\n    name: process-{f}\n    affinityStrategy:\n      policy: {policy}\n      dependOn:\n        kind: DataLoad\n        name: load-{f}\n      prefers:\n      - name: topology.kubernetes.io/zone\n        weight: 80\n  from:\n    dataset:\n      name: ds-{f}\n  to:\n    externalStorage:\n      uri: s3://out/{f}\n---\n"
    );
    let _ = write!(
        text,
        "apiVersion: scheduling.godel.kubewharf.io/v1alpha1\nkind: PodGroup\nmetadata:\n  name: pg-{f}\n  namespace: {ns}\nspec:\n  minMember: 2\n  affinity:\n    podGroupAffinity:\n      required:\n      - topologyKey: topology.kubernetes.io/zone\n      preferred:\n      - topologyKey: example.com/spine\n      sortRules:\n      - resource: GPU\n        dimension: Capacity\n        order: Descending\n---\n"
    );
    for p in 0..2 {
        let _ = write!(
            text,
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pg-{f}-{p}\n  namespace: {ns}\n  labels:\n    godel.bytedance.com/pod-group-name: pg-{f}\nspec:\n  schedulerName: godel-scheduler\n  containers:\n  - name: main\n    image: trainer\n    resources:\n      requests:\n        cpu: \"4\"\n        memory: 8Gi\n        nvidia.com/gpu: \"1\"\n---\n"
        );
    }
    let anti = if f.is_multiple_of(10) {
        "worker;ps,worker"
    } else {
        "worker"
    };
    let _ = write!(
        text,
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: tf-{f}\n  namespace: {ns}\n  annotations:\n    volcano.sh/task-topology-affinity: \"ps,worker\"\n    volcano.sh/task-topology-anti-affinity: \"{anti}\"\nspec:\n  minAvailable: 3\n  schedulerName: volcano\n  tasks:\n  - name: ps\n    replicas: 1\n    template:\n      spec:\n        containers:\n        - name: ps\n          image: tf\n  - name: worker\n    replicas: 2\n    template:\n      spec:\n        containers:\n        - name: worker\n          image: tf\n---\n"
    );
    let _ = write!(
        text,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{f}\n  namespace: {ns}\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {{app: web-{f}}}\n  template:\n    metadata:\n      labels: {{app: web-{f}}}\n    spec:\n      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - labelSelector:\n              matchLabels: {{app: web-{f}}}\n            topologyKey: kubernetes.io/hostname\n      containers:\n      - name: web\n        image: nginx\n---\n"
    );
    for p in 0..2 {
        let operator = if f.is_multiple_of(10) && p == 0 {
            "in"
        } else {
            "In"
        };
        let _ = write!(
            text,
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: zonal-{f}-{p}\n  namespace: {ns}\nspec:\n  nodeSelector:\n    kubernetes.io/os: linux\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - key: topology.kubernetes.io/zone\n            operator: {operator}\n            values: [zone-a, zone-b]\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 50\n        preference:\n          matchExpressions:\n          - key: example.com/gpu-count\n            operator: Gt\n            values: [\"2\"]\n  containers:\n  - name: main\n    image: nginx\n"
        );
        if p == 0 {
            text.push_str("---\n");
        }
    }
    text
}
