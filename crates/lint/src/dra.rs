//! Rules for Dynamic Resource Allocation (DF6xx): claims and templates a pod names that do not
//! exist (DF601), DeviceClasses a request names that do not exist (DF602), CEL device
//! selectors that do not compile or are too expensive to evaluate, at their position (DF603),
//! and requests no ResourceSlice of the state could ever meet (DF604). The selectors are
//! compiled, and the requests tried, by the engine's DynamicResources plugin: the same calls
//! that decide placements.

use std::collections::HashSet;

use super::{Context, Finding};
use df_engine::plugins::dynamic_resources::{cel, ever_satisfiable};
use df_engine::versions::KubeVersion;
use df_manifest::Manifest;
use df_model::dra::{DeviceSelector, ExactDeviceRequest, ResourceClaimSpec};
use df_model::{Object, PodSpec};
use df_state::ClusterState;

/// The DRA objects of the inputs and the state, by name.
pub(crate) struct Index<'a> {
    state: Option<&'a ClusterState>,
    classes: HashSet<&'a str>,
    /// (kind, namespace, name) of claims and templates.
    claims: HashSet<(&'static str, &'a str, &'a str)>,
}

const CLAIM: &str = "ResourceClaim";
const TEMPLATE: &str = "ResourceClaimTemplate";

impl<'a> Index<'a> {
    pub(crate) fn new(manifests: &'a [Manifest], state: Option<&'a ClusterState>) -> Index<'a> {
        let mut index = Index {
            state,
            classes: HashSet::new(),
            claims: HashSet::new(),
        };
        let objects = manifests.iter().map(|m| &m.object);
        for object in objects {
            match object {
                Object::DeviceClass(c) => {
                    index.classes.insert(&c.metadata.name);
                }
                Object::ResourceClaim(c) => {
                    let meta = &c.metadata.meta;
                    index.claims.insert((CLAIM, &meta.namespace, &meta.name));
                }
                Object::ResourceClaimTemplate(t) => {
                    let meta = &t.metadata;
                    index.claims.insert((TEMPLATE, &meta.namespace, &meta.name));
                }
                _ => {}
            }
        }
        if let Some(state) = state {
            let dra = &state.dra;
            index
                .classes
                .extend(dra.device_classes.iter().map(|c| c.metadata.name.as_str()));
            for c in &dra.resource_claims {
                let meta = &c.metadata.meta;
                index.claims.insert((CLAIM, &meta.namespace, &meta.name));
            }
            for t in &dra.resource_claim_templates {
                let meta = &t.metadata;
                index.claims.insert((TEMPLATE, &meta.namespace, &meta.name));
            }
        }
        index
    }
}

pub(crate) fn check(ctx: &mut Context<'_>, index: &Index<'_>, m: &Manifest) {
    let namespace = m.object.metadata().namespace.as_str();
    match &m.object {
        Object::Pod(pod) => check_pod_claims(ctx, index, m, "spec", namespace, &pod.spec),
        Object::Workload(w) => check_pod_claims(
            ctx,
            index,
            m,
            "spec.template.spec",
            namespace,
            &w.template.spec,
        ),
        Object::DeviceClass(class) => {
            check_selectors(ctx, m, "spec.selectors", &class.spec.selectors);
        }
        Object::ResourceClaim(claim) => {
            let name = format!("{namespace}/{}", claim.metadata.meta.name);
            check_claim(ctx, index, m, "spec", &name, &claim.spec);
        }
        Object::ResourceClaimTemplate(template) => {
            let name = format!("{namespace}/{}", template.metadata.name);
            check_claim(ctx, index, m, "spec.spec", &name, &template.spec.spec);
        }
        _ => {}
    }
}

/// DF601: with a state, every claim and template a pod names exists in the inputs or the state.
fn check_pod_claims(
    ctx: &mut Context<'_>,
    index: &Index<'_>,
    m: &Manifest,
    path: &str,
    namespace: &str,
    spec: &PodSpec,
) {
    if index.state.is_none() {
        return;
    }
    for (i, entry) in spec.resource_claims.iter().enumerate() {
        let named = [
            (CLAIM, "resourceClaimName", &entry.resource_claim_name),
            (
                TEMPLATE,
                "resourceClaimTemplateName",
                &entry.resource_claim_template_name,
            ),
        ];
        for (kind, field, name) in named {
            let Some(name) = name else { continue };
            if index.claims.contains(&(kind, namespace, name.as_str())) {
                continue;
            }
            let waits = if kind == CLAIM {
                "the pod waits until it exists"
            } else {
                "the resourceclaim controller cannot make the pod's claim, and the pod waits"
            };
            let message = format!(
                "{kind} {namespace}/{name} is neither in the inputs nor in the cluster state: {waits}"
            );
            let at = format!("{path}.resourceClaims[{i}].{field}");
            ctx.emit(m, Finding::at(m, "DF601", &at, message));
        }
    }
}

/// A claim's or template's requests: DF602 classes, DF603 selectors, DF604 satisfiability.
fn check_claim(
    ctx: &mut Context<'_>,
    index: &Index<'_>,
    m: &Manifest,
    path: &str,
    name: &str,
    spec: &ResourceClaimSpec,
) {
    for (i, request) in spec.devices.requests.iter().enumerate() {
        let at = format!("{path}.devices.requests[{i}]");
        let mut exact: Vec<(String, &ExactDeviceRequest)> = Vec::new();
        if let Some(e) = &request.exactly {
            exact.push((format!("{at}.exactly"), e));
        }
        for (j, sub) in request.first_available.iter().enumerate() {
            exact.push((format!("{at}.firstAvailable[{j}]"), &sub.request));
        }
        let mut usable = true;
        for (at, e) in &exact {
            usable &= check_selectors(ctx, m, &format!("{at}.selectors"), &e.selectors);
            if index.state.is_some() && !index.classes.contains(e.device_class_name.as_str()) {
                usable = false;
                let message = format!(
                    "DeviceClass {:?} is neither in the inputs nor in the cluster state: the scheduler rejects every pod of this claim (request {}: device class {} does not exist)",
                    e.device_class_name, request.name, e.device_class_name
                );
                ctx.emit(
                    m,
                    Finding::at(m, "DF602", &format!("{at}.deviceClassName"), message),
                );
            }
        }
        let Some(state) = index.state else { continue };
        if !usable || exact.is_empty() {
            continue;
        }
        let message = match ever_satisfiable(state, KubeVersion::DEFAULT, name, request) {
            Ok(true) => continue,
            Ok(false) => format!(
                "no node of the cluster state has devices for request {:?} in its ResourceSlices, even with every device free: pods of this claim never schedule (cannot allocate all claims)",
                request.name
            ),
            Err(e) => format!("the scheduler's attempt would fail: {e}"),
        };
        ctx.emit(m, Finding::at(m, "DF604", &at, message));
    }
}

/// DF603: every selector compiles and is cheap enough to evaluate; whether all did.
fn check_selectors(
    ctx: &mut Context<'_>,
    m: &Manifest,
    path: &str,
    selectors: &[DeviceSelector],
) -> bool {
    let mut valid = true;
    for (i, selector) in selectors.iter().enumerate() {
        let Some(expression) = selector.cel.as_ref().map(|c| &c.expression) else {
            continue;
        };
        let at = format!("{path}[{i}].cel.expression");
        let problem = match cel::check(expression, KubeVersion::DEFAULT) {
            Ok(()) => continue,
            Err(e) => e,
        };
        valid = false;
        // The first line: lint shows the position itself, not cel-go's caret lines.
        let message = problem
            .message
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let mut finding = Finding::at(m, "DF603", &at, message);
        if problem.line == 1
            && let Some(node) = super::node_at(m, &at)
        {
            finding.pos = ctx.pos_in_scalar(m, node, problem.column.saturating_sub(1));
        }
        ctx.emit(m, finding);
    }
    valid
}
