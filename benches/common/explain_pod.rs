//! The pod the engine and load benchmarks explain: required node affinity, preferred
//! inter-pod affinity and a zone spread constraint, so every plugin has work on every node.

pub const POD: &str = r#"{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "bench", "namespace": "ns-0", "labels": {"app": "bench"}},
  "spec": {
    "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
    "affinity": {
      "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a", "zone-b"]}]}]}},
      "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"tier": "backend"}}, "topologyKey": "topology.kubernetes.io/zone"}}]}
    },
    "topologySpreadConstraints": [
      {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
       "labelSelector": {"matchLabels": {"app": "bench"}}}]
  }
}"#;
