//! NodeName: a pod that names a node fits only there.

use crate::sched::framework::{Code, Context, Filter, PreFilter, Status};

pub const REASON: &str = "node(s) didn't match the requested node name";

pub(in crate::sched) struct NodeName;

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
