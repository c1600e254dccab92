//! NodeName: a pod that names a node fits only there.

use crate::framework::{Code, Context, Filter, PreFilter, Status};

pub const REASON: &str = "node(s) didn't match the requested node name";

pub(crate) struct NodeName;

impl PreFilter for NodeName {
    fn pre_filter(_: &Context) -> Self {
        NodeName
    }
}

impl Filter for NodeName {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let wanted = &cx.pod.spec.node_name;
        if !wanted.is_empty() && *wanted != cx.node(node).metadata.name {
            Status::new(Code::UnschedulableAndUnresolvable, REASON)
        } else {
            Status::success()
        }
    }

    fn describe_filter(&self, cx: &Context, _: usize) -> String {
        if cx.pod.spec.node_name.is_empty() {
            "pod names no node".into()
        } else {
            format!("pod asks for node {:?}", cx.pod.spec.node_name)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;

    /// Upstream node_name_test.go.
    #[test]
    fn only_the_named_node_fits() {
        let cluster = nodes(&["zone: a", "zone: b"]);
        let miss = "n1: node(s) didn't match the requested node name";
        let cases: &[(&str, &str, &[&str])] = &[
            ("no node name", "spec: {}\n", &["n1", "n2"]),
            ("named node", "spec: {nodeName: n2}\n", &[miss, "n2"]),
        ];
        for (name, spec, want) in cases {
            assert_eq!(verdicts(&decide(&cluster, spec)), *want, "{name}");
        }
        let nowhere = decide(&cluster, "spec: {nodeName: ghost}\n");
        assert_eq!(
            nowhere.summary.as_deref(),
            Some("0/2 nodes are available: 2 node(s) didn't match the requested node name.")
        );
    }
}
