//! The 200-operation DataFlow the flow and load benchmarks plan.

/// How many operations the flow has.
pub const OPERATIONS: usize = 200;

/// A binary fan-out tree of operations cycling through the policies and the kinds.
pub fn flow() -> String {
    let kinds = ["DataLoad", "DataProcess", "DataLoad", "DataMigrate"];
    let strategies = [
        "{policy: Require}",
        "{policy: Prefer, prefers: [{name: topology.kubernetes.io/zone, weight: 80}, {name: kubernetes.io/hostname, weight: 20}]}",
        "{policy: Require, requires: [{name: topology.kubernetes.io/zone}, {name: tor}]}",
        "{policy: Prefer}",
        "{policy: \"\"}",
    ];
    let mut docs = Vec::with_capacity(OPERATIONS);
    for i in 0..OPERATIONS {
        let kind = kinds[i % kinds.len()];
        let mut doc = format!(
            "apiVersion: data.fluid.io/v1alpha1\nkind: {kind}\nmetadata: {{name: op-{i:03}, namespace: bench, annotations: {{affinity.dataflow.fluid.io/labels: tor}}}}\nspec:\n"
        );
        if kind == "DataProcess" {
            doc.push_str("  processor: {script: {image: worker, resources: {requests: {cpu: 500m, memory: 1Gi}}}}\n");
        } else {
            doc.push_str("  resources: {requests: {cpu: 500m, memory: 1Gi}}\n");
        }
        if i > 0 {
            let parent = (i - 1) / 2;
            doc.push_str(&format!(
                "  runAfter: {{kind: {}, name: op-{parent:03}, affinityStrategy: {}}}\n",
                kinds[parent % kinds.len()],
                strategies[i % strategies.len()]
            ));
        }
        docs.push(doc);
    }
    docs.join("---\n")
}
