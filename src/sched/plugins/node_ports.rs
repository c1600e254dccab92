//! NodePorts: a host port the pod wants must be free on the node for its protocol and address.

use crate::sched::framework::{Code, Context, Filter, PreFilter, Status};
use crate::sched::host_ports;

pub const REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// PreFilter: the (protocol, hostIP, hostPort) the pod wants.
pub(in crate::sched) struct WantedPorts(Vec<(String, String, i32)>);

impl PreFilter for WantedPorts {
    fn pre_filter(cx: &Context) -> Self {
        WantedPorts(host_ports(cx.pod))
    }
}

/// Upstream `HostPortInfo.CheckConflict`: same protocol and port, and overlapping addresses
/// (0.0.0.0 overlaps every address).
fn conflicts(used: &(String, String, i32), wanted: &(String, String, i32)) -> bool {
    let ((used_protocol, used_ip, used_port), (protocol, ip, port)) = (used, wanted);
    used_protocol == protocol
        && used_port == port
        && (used_ip == ip || used_ip == "0.0.0.0" || ip == "0.0.0.0")
}

impl Filter for WantedPorts {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let used = &cx.sched.nodes[node].used_ports;
        if self
            .0
            .iter()
            .any(|wanted| used.iter().any(|u| conflicts(u, wanted)))
        {
            Status::new(Code::Unschedulable, REASON)
        } else {
            Status::success()
        }
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        format!(
            "{} host port(s) requested, {} in use on the node",
            self.0.len(),
            cx.sched.nodes[node].used_ports.len()
        )
    }
}
