//! NodeUnschedulable: a cordoned node takes only pods that tolerate its unschedulable taint.

use super::taint_toleration::tolerates;
use crate::model::Taint;
use crate::sched::framework::{Code, Context, Filter, PreFilter, Status};

pub const REASON: &str = "node(s) were unschedulable";

pub(in crate::sched) struct NodeUnschedulable;

impl PreFilter for NodeUnschedulable {
    fn pre_filter(_: &Context) -> Self {
        NodeUnschedulable
    }
}

impl Filter for NodeUnschedulable {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let unschedulable_taint = Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            value: String::new(),
            effect: "NoSchedule".into(),
        };
        let tolerated = cx
            .pod
            .spec
            .tolerations
            .iter()
            .any(|t| tolerates(t, &unschedulable_taint));
        if cx.node(node).spec.unschedulable && !tolerated {
            Status::new(Code::UnschedulableAndUnresolvable, REASON)
        } else {
            Status::success()
        }
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        format!("node unschedulable: {}", cx.node(node).spec.unschedulable)
    }
}
