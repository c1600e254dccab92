//! `-o html`: one self-contained page (inline CSS, no script, no external asset; its Content
//! Security Policy refuses any) holding the same document as `-o markdown`, with the diagrams
//! drawn in HTML, and for a plan a picture of the cluster: zones, racks and nodes, each node
//! with how full it is once the plan is applied and the planned pods that land on it.
//!
//! The document is the Markdown one rendered by a CommonMark renderer, so both say the same
//! and escape the same; the picture reads the plan's [`df_plan::NodeRoom`]s and placements.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use df_engine::Resources;
use df_plan::explain::Explanation;
use df_plan::{NodeRoom, Plan};

use super::markdown::{self, Pictures, html};

/// The zone label nodes are grouped by first.
const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// `plan -o html`: the cluster picture, then the plan document.
pub fn plan(plan: &Plan) -> String {
    let mut body = cluster(plan);
    body.push_str(&from_markdown(&markdown::plan_document(
        plan,
        Pictures::Html,
    )));
    page("kubectl-dataflow plan", &body)
}

/// `explain-placement -o html`: the explanation document as a page.
pub fn explain(explanation: &Explanation, top: usize) -> String {
    let body = from_markdown(&markdown::explain(explanation, top));
    page("kubectl-dataflow explain-placement", &body)
}

/// The Markdown document as HTML (GitHub's tables; raw HTML passes through, as the document
/// escapes every text it holds).
fn from_markdown(text: &str) -> String {
    let parser = pulldown_cmark::Parser::new_ext(text, pulldown_cmark::Options::ENABLE_TABLES);
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, parser);
    out
}

const STYLE: &str = "\
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:78em;padding:0 1em;color:#1f2328}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f6f8fa}details{margin:.6em 0;border:1px solid #d0d7de;border-radius:6px;padding:.4em .8em}
summary{cursor:pointer;font-weight:600}pre{background:#f6f8fa;padding:.6em;overflow:auto}
ul.diagram,ul.diagram ul{list-style:none;padding-left:1.6em;border-left:1px dashed #8c959f}ul.diagram{padding-left:0;border:0}
ul.diagram li{margin:.3em 0}.box{display:inline-block;border:1px solid #1a7f37;border-radius:4px;padding:.2em .5em;background:#f0fff4}
.box.pending{border:2px solid #d1242f;background:#fff5f5}.edge{color:#57606a;font-size:.85em;margin-right:.5em}.edge::before{content:'\\2192  '}
.zone{border:2px solid #8c959f;border-radius:8px;padding:.5em;margin:.5em 0}.zone>h3,.rack>h4{margin:.1em 0 .4em}
.rack{border:1px dashed #8c959f;border-radius:6px;padding:.4em;margin:.3em 0;display:inline-block;vertical-align:top}
.node{display:inline-block;vertical-align:top;width:13em;border:1px solid #d0d7de;border-radius:6px;padding:.4em;margin:.25em;background:#fff}
.node.gets{border:2px solid #0969da}.node b{word-break:break-all}.bar{height:.55em;background:#eaeef2;border-radius:3px;margin:.15em 0}
.bar>span{display:block;height:100%;border-radius:3px;background:#2da44e}.bar>span.full{background:#d1242f}.meter{font-size:.8em;color:#57606a}
.pod{display:inline-block;background:#ddf4ff;border-radius:3px;padding:0 .3em;margin:.1em;font-size:.85em;word-break:break-all}
";

/// A whole page around `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n{body}</body>\n</html>\n",
        html(title),
        html(title)
    )
}

/// The cluster as the plan leaves it: nodes by zone, then by rack where nodes carry a rack
/// level, each node with its CPU, memory and pod slots used and the planned pods on it.
fn cluster(plan: &Plan) -> String {
    if plan.nodes.is_empty() {
        return String::new();
    }
    let landing = landing(plan);
    let rack = rack_label(plan);
    let mut zones: BTreeMap<&str, BTreeMap<&str, Vec<&NodeRoom>>> = BTreeMap::new();
    for node in &plan.nodes {
        let zone = node.labels.get(ZONE_LABEL).map_or("", |z| z.as_str());
        let rack = rack
            .and_then(|key| node.labels.get(key))
            .map_or("", |r| r.as_str());
        zones
            .entry(zone)
            .or_default()
            .entry(rack)
            .or_default()
            .push(node);
    }
    let mut out = format!(
        "<h2>Cluster after the plan</h2>\n<p>{} by zone{}; a blue border marks a node that planned pods land on. The bars are the CPU and memory its pods request (bound and planned) of what it can allocate.</p>\n",
        html(&super::plural(plan.nodes.len(), "node")),
        rack.map(|key| format!(" and {}", html(key)))
            .unwrap_or_default()
    );
    for (zone, racks) in &zones {
        let title = if zone.is_empty() {
            "no zone".to_string()
        } else {
            format!("zone {zone}")
        };
        let _ = write!(out, "<section class=\"zone\"><h3>{}</h3>", html(&title));
        for (rack_name, nodes) in racks {
            if !rack_name.is_empty() {
                let _ = write!(
                    out,
                    "<div class=\"rack\"><h4>{} {}</h4>",
                    html(
                        rack.and_then(|key| key.rsplit('/').next())
                            .unwrap_or_default()
                    ),
                    html(rack_name)
                );
            }
            for node in nodes {
                out.push_str(&node_box(node, landing.get(node.name.as_str())));
            }
            if !rack_name.is_empty() {
                out.push_str("</div>");
            }
        }
        out.push_str("</section>\n");
    }
    out
}

/// The pods the plan puts on each node (operations, gang members it places, batch pods), by
/// node, in plan order.
fn landing(plan: &Plan) -> BTreeMap<&str, Vec<String>> {
    let mut by_node: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for op in &plan.operations {
        if let Some(node) = &op.node {
            by_node
                .entry(node)
                .or_default()
                .push(format!("{} {}/{}", op.kind, op.namespace, op.name));
        }
    }
    for group in &plan.groups {
        for pod in group.pods.iter().filter(|p| !p.running) {
            if let Some(node) = &pod.node {
                by_node
                    .entry(node)
                    .or_default()
                    .push(format!("{}/{}", group.namespace, pod.pod));
            }
        }
    }
    for pod in plan.batch.iter().flat_map(|b| &b.pods) {
        if let Some(node) = &pod.node {
            by_node
                .entry(node)
                .or_default()
                .push(format!("{}/{}", pod.namespace, pod.name));
        }
    }
    by_node
}

/// The label racks are read from: the first topology level of the plan's gangs that nodes
/// carry below the zone (a rack, a block), else a label named `rack`; `None` when no node
/// carries one.
fn rack_label(plan: &Plan) -> Option<&str> {
    let on_nodes = |key: &str| plan.nodes.iter().any(|n| n.labels.contains_key(key));
    let wide = [
        ZONE_LABEL,
        "topology.kubernetes.io/region",
        df_model::fluid::HOSTNAME_LABEL,
    ];
    plan.groups
        .iter()
        .flat_map(|g| &g.levels)
        .map(String::as_str)
        .find(|key| !wide.contains(key) && on_nodes(key))
        .or_else(|| {
            plan.nodes
                .iter()
                .flat_map(|n| n.labels.keys())
                .map(|key| key.as_str())
                .filter(|key| key.rsplit('/').next() == Some("rack"))
                .min()
        })
}

/// One node: its name, a bar each for CPU and memory, its free pod slots, and the planned pods
/// that land on it.
fn node_box(node: &NodeRoom, pods: Option<&Vec<String>>) -> String {
    let class = if pods.is_some() { "node gets" } else { "node" };
    let mut out = format!("<div class=\"{class}\"><b>{}</b>", html(&node.name));
    let used = |alloc: i64, free: i64| (alloc > 0).then(|| (alloc - free) * 100 / alloc);
    let Resources {
        milli_cpu, memory, ..
    } = node.allocatable;
    for (what, percent) in [
        ("cpu", used(milli_cpu, node.free.milli_cpu)),
        ("memory", used(memory, node.free.memory)),
    ] {
        match percent {
            Some(percent) => {
                let full = if percent >= 90 { " class=\"full\"" } else { "" };
                let _ = write!(
                    out,
                    "<div class=\"meter\">{what} {percent}%</div><div class=\"bar\"><span{full} style=\"width:{}%\"></span></div>",
                    percent.clamp(0, 100)
                );
            }
            None => {
                let _ = write!(out, "<div class=\"meter\">{what}: none allocatable</div>");
            }
        }
    }
    let _ = write!(
        out,
        "<div class=\"meter\">{} free</div>",
        super::plural(node.free.pods.max(0) as usize, "pod slot")
    );
    for pod in pods.into_iter().flatten() {
        let _ = write!(out, "<span class=\"pod\">{}</span>", html(pod));
    }
    out.push_str("</div>");
    out
}
