//! NodePorts: a host port the pod wants must be free on the node for its protocol and address.

use crate::framework::{Code, Context, Filter, PreFilter, Status};
use crate::host_ports;

pub const REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// PreFilter: the (protocol, hostIP, hostPort) the pod wants.
pub(crate) struct WantedPorts(Vec<(String, String, i32)>);

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

#[cfg(test)]
mod tests {
    use crate::tests::*;

    /// Upstream node_ports_test.go: a host port conflicts only when protocol and port match and
    /// the host IPs overlap (0.0.0.0, the default, overlaps every address); only containers and
    /// sidecar init containers hold ports.
    #[test]
    fn host_ports_conflict() {
        let port = |ip: &str, protocol: &str, host_port: u16| {
            let mut fields = format!("containerPort: 80, hostPort: {host_port}");
            if !ip.is_empty() {
                fields += &format!(", hostIP: {ip}");
            }
            if !protocol.is_empty() {
                fields += &format!(", protocol: {protocol}");
            }
            format!("{{{fields}}}")
        };
        let busy = "node(s) didn't have free ports for the requested pod ports";
        // existing container port, incoming container port, conflict?
        let cases: &[(&str, String, String, bool)] = &[
            (
                "same default port",
                port("", "", 8080),
                port("", "", 8080),
                true,
            ),
            ("other port", port("", "", 8080), port("", "", 8081), false),
            (
                "other protocol",
                port("", "", 8080),
                port("", "UDP", 8080),
                false,
            ),
            (
                "explicit TCP is the default",
                port("", "TCP", 8080),
                port("", "", 8080),
                true,
            ),
            (
                "existing on all addresses",
                port("", "", 8080),
                port("10.0.0.1", "", 8080),
                true,
            ),
            (
                "incoming on all addresses",
                port("10.0.0.1", "", 8080),
                port("0.0.0.0", "", 8080),
                true,
            ),
            (
                "same address",
                port("10.0.0.1", "", 8080),
                port("10.0.0.1", "", 8080),
                true,
            ),
            (
                "different addresses",
                port("10.0.0.1", "", 8080),
                port("10.0.0.2", "", 8080),
                false,
            ),
            (
                "different addresses and protocol",
                port("10.0.0.1", "UDP", 8080),
                port("0.0.0.0", "TCP", 8080),
                false,
            ),
        ];
        for (name, existing, incoming, conflict) in cases {
            let cluster = nodes(&["zone: a"])
                + &running(
                    "proxy",
                    "n1",
                    "app: p",
                    &format!("  containers: [{{name: c, ports: [{existing}]}}]\n"),
                );
            let decision = decide(
                &cluster,
                &format!("spec:\n  containers: [{{name: c, ports: [{incoming}]}}]\n"),
            );
            let want = if *conflict {
                format!("n1: {busy}")
            } else {
                "n1".to_string()
            };
            assert_eq!(verdicts(&decision), [want], "{name}");
        }
        // Init containers: a sidecar's port is held (on both sides), a plain init container's is not.
        let init = |restart: &str| {
            format!(
                "  initContainers: [{{name: i, {restart}ports: [{}]}}]\n  containers: [{{name: c}}]\n",
                port("", "", 8080)
            )
        };
        let with_container_port = nodes(&["zone: a"])
            + &running(
                "proxy",
                "n1",
                "app: p",
                &format!(
                    "  containers: [{{name: c, ports: [{}]}}]\n",
                    port("", "", 8080)
                ),
            );
        for (restart, want) in [
            ("restartPolicy: Always, ", format!("n1: {busy}")),
            ("", "n1".to_string()),
        ] {
            assert_eq!(
                verdicts(&decide(
                    &with_container_port,
                    &format!("spec:\n{}", init(restart))
                )),
                std::slice::from_ref(&want),
                "incoming {restart:?}"
            );
            let with_init_port =
                nodes(&["zone: a"]) + &running("proxy", "n1", "app: p", &init(restart));
            let incoming = format!(
                "spec:\n  containers: [{{name: c, ports: [{}]}}]\n",
                port("", "", 8080)
            );
            assert_eq!(
                verdicts(&decide(&with_init_port, &incoming)),
                [want],
                "existing {restart:?}"
            );
        }
    }
}
