//! DynamicResources (pkg/scheduler/framework/plugins/dynamicresources): a pod's
//! ResourceClaims must be met by devices the nodes' ResourceSlices publish. PreEnqueue holds a
//! pod whose claims do not exist yet (or are being deleted, or belong to another pod);
//! PreFilter rejects a claim whose DeviceClass is missing; Filter, on each node that passed
//! every other filter, lets an allocated claim through only where its allocation's node
//! selector matches, and asks the structured allocator ([`allocator`]) for devices for the
//! others. Every rejection is UnschedulableAndUnresolvable, so preemption never helps; an
//! allocator error (a CEL error, an incomplete pool asked for `All`) aborts the pod's attempt.
//!
//! The scheduler's view of the claims ([`Ledger`]) is the state's claims plus what the plan
//! itself allocated: a pod placed by a plan takes its devices for every pod after it, and a
//! shared claim it allocated pins the later ones to its node (Reserve and PreBind, as if the
//! binding succeeded at once). A claim from a template that the resourceclaim controller has
//! not made yet is made as it would be, one per pod, named `<pod>-<claim>` where the
//! controller adds a random suffix.
//!
//! Not modelled: the Score of 1.35+ (which only ranks `firstAvailable` alternatives), extended
//! resources backed by DRA, binding conditions, consumable capacity, DeviceTaintRules and
//! claims of PodGroups.

pub(crate) mod allocator;
pub mod cel;

use std::collections::{HashMap, HashSet};

use self::allocator::{Allocator, ClaimToAllocate, DeviceId, Failure};
use super::super::framework::{Code, Context, PreFilter, Status};
use crate::profile::Point;
use crate::versions::KubeVersion;
use crate::volumes::{PreFiltered, PreFilteredCheck};
use df_model::dra::{
    AllocationResult, DeviceClass, OwnerReference, ResourceClaim, ResourceClaimConsumerReference,
    ResourceSlice,
};
use df_model::{Node, Pod};
use df_state::ClusterState;

pub(crate) use crate::profile::DYNAMIC_RESOURCES as NAME;
/// Filter: the allocator found no devices for the claims on the node.
pub(crate) const CANNOT_ALLOCATE: &str = "cannot allocate all claims";
/// Filter: an allocated claim's node selector does not match the node.
pub(crate) const NOT_AVAILABLE: &str = "resourceclaim not available on the node";
/// Filter, 1.35+: no solution, and some pool of the node was invalid.
const INVALID_POOLS: &str = "invalid resource pools were encountered";
/// Filter: the search's budget ran out (upstream: the filter's timeout).
const TIMED_OUT: &str = "timed out trying to allocate devices";
/// PostFilter, for a pod with claims when nothing can be deallocated.
pub(crate) const STILL_NOT_SCHEDULABLE: &str = "still not schedulable";
/// PostFilter, when an allocated claim no other pod uses could be moved.
pub(crate) const DEALLOCATED: &str = "deallocation of ResourceClaim completed";

/// A claim as the plugin sees it: the state's, or one the plan made from a template, with the
/// allocation and reservations the plan wrote.
#[derive(Debug, Clone)]
pub(crate) struct PodClaim {
    pub namespace: String,
    pub claim: ResourceClaim,
}

impl PodClaim {
    /// `namespace/name`, as upstream's messages print a claim.
    pub(crate) fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.claim.metadata.meta.name)
    }
}

/// What the plan wrote to claims (their allocation and reservations), claims it made from
/// templates, and the devices in use: the scheduler's assume cache of claims.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ledger {
    /// Claims as the plan left them, by (namespace, name); they override the state's.
    written: HashMap<(String, String), ResourceClaim>,
    /// Devices of every allocated claim (admin access aside).
    in_use: HashSet<DeviceId>,
    /// Slices by the node they name; those that select nodes otherwise.
    slices_by_node: HashMap<String, Vec<usize>>,
    other_slices: Vec<usize>,
    classes: Vec<(String, usize)>,
}

impl Ledger {
    /// The view of `state`'s claims and slices.
    pub(crate) fn new(state: &ClusterState) -> Ledger {
        let mut ledger = Ledger::default();
        for (i, slice) in state.dra.resource_slices.iter().enumerate() {
            match &slice.spec.node_name {
                Some(node) => ledger
                    .slices_by_node
                    .entry(node.clone())
                    .or_default()
                    .push(i),
                None => ledger.other_slices.push(i),
            }
        }
        for claim in &state.dra.resource_claims {
            ledger.take_devices(claim);
        }
        ledger.classes = state
            .dra
            .device_classes
            .iter()
            .enumerate()
            .map(|(i, c)| (c.metadata.name.clone(), i))
            .collect();
        ledger
    }

    fn take_devices(&mut self, claim: &ResourceClaim) {
        for result in allocated_devices(claim) {
            self.in_use.insert(result);
        }
    }

    /// The claim as the plan sees it now.
    fn claim<'s>(
        &'s self,
        state: &'s ClusterState,
        namespace: &str,
        name: &str,
    ) -> Option<&'s ResourceClaim> {
        self.written
            .get(&(namespace.to_string(), name.to_string()))
            .or_else(|| {
                state.dra.resource_claims.iter().find(|c| {
                    c.metadata.meta.namespace == namespace && c.metadata.meta.name == name
                })
            })
    }

    /// The slices that may reach `node`.
    fn slices_for<'s>(
        &'s self,
        state: &'s ClusterState,
        node: &str,
    ) -> impl Iterator<Item = &'s ResourceSlice> {
        let named = self.slices_by_node.get(node).into_iter().flatten();
        named
            .chain(&self.other_slices)
            .map(|&i| &state.dra.resource_slices[i])
    }

    fn classes<'s>(&self, state: &'s ClusterState) -> HashMap<&'s str, &'s DeviceClass> {
        self.classes
            .iter()
            .map(|(_, i)| {
                let class = &state.dra.device_classes[*i];
                (class.metadata.name.as_str(), class)
            })
            .collect()
    }

    /// Write `pod`'s allocations on `node` (Reserve and PreBind): its new claims get
    /// `allocations` (in the order of [`PreFilterState::unallocated`]) and every claim reserves
    /// the pod.
    pub(crate) fn write(
        &mut self,
        pod: &Pod,
        claims: &[PodClaim],
        allocations: Vec<AllocationResult>,
    ) {
        let mut allocations = allocations.into_iter();
        for pod_claim in claims {
            let mut claim = pod_claim.claim.clone();
            if claim.status.allocation.is_none() {
                claim.status.allocation = allocations.next();
                self.take_devices(&claim);
            }
            let reference = ResourceClaimConsumerReference {
                resource: "pods".into(),
                name: pod.metadata.name.clone(),
            };
            if !claim.status.reserved_for.contains(&reference) {
                claim.status.reserved_for.push(reference);
            }
            let key = (
                pod_claim.namespace.clone(),
                claim.metadata.meta.name.clone(),
            );
            self.written.insert(key, claim);
        }
    }

    #[cfg(test)]
    pub(crate) fn written(&self) -> impl Iterator<Item = &ResourceClaim> {
        self.written.values()
    }

    /// Undo [`write`](Self::write) for `pod` (a forgotten assumption): its reservations go,
    /// and the claims it alone used are deallocated.
    pub(crate) fn forget(&mut self, namespace: &str, pod: &str) {
        let mut freed = Vec::new();
        for (_, claim) in self
            .written
            .iter_mut()
            .filter(|((claim_namespace, _), _)| claim_namespace == namespace)
        {
            let before = claim.status.reserved_for.len();
            claim.status.reserved_for.retain(|r| r.name != pod);
            if before != claim.status.reserved_for.len() && claim.status.reserved_for.is_empty() {
                freed.extend(allocated_devices(claim));
                claim.status.allocation = None;
            }
        }
        for id in freed {
            self.in_use.remove(&id);
        }
    }
}

/// The devices an allocated claim takes (admin access takes none).
fn allocated_devices(claim: &ResourceClaim) -> impl Iterator<Item = DeviceId> + '_ {
    claim
        .status
        .allocation
        .iter()
        .flat_map(|a| &a.devices.results)
        .filter(|r| r.admin_access != Some(true))
        .map(|r| DeviceId {
            driver: r.driver.clone(),
            pool: r.pool.clone(),
            device: r.device.clone(),
        })
}

/// The name `claim` of `pod` resolves to (upstream `resourceclaim.Name`), whether the claim
/// must be the pod's own, or the PreEnqueue message. `Ok(None)`: deliberately no claim.
fn claim_name(pod: &Pod, index: usize) -> Result<(Option<String>, bool), String> {
    let entry = &pod.spec.resource_claims[index];
    let pod_key = format!("{}/{}", pod.metadata.namespace, pod.metadata.name);
    if let Some(name) = &entry.resource_claim_name {
        return Ok((Some(name.clone()), false));
    }
    if entry.resource_claim_template_name.is_some() {
        return match pod
            .status
            .resource_claim_statuses
            .iter()
            .find(|s| s.name == entry.name)
        {
            Some(status) => Ok((status.resource_claim_name.clone(), true)),
            // The resourceclaim controller has not made it yet: the plan makes it.
            None => Ok((Some(generated_name(pod, &entry.name)), true)),
        };
    }
    Err(format!(
        "pod \"{pod_key}\", spec.resourceClaim \"{}\": none of the supported fields are set",
        entry.name
    ))
}

/// The stand-in for the resourceclaim controller's `<pod>-<claim>-<random>`.
pub fn generated_name(pod: &Pod, claim: &str) -> String {
    format!("{}-{}", pod.metadata.name, claim)
}

/// The pod's claims, resolved, or why the pod waits before any cycle (PreEnqueue). A claim
/// from a template that the controller has not made yet is made here, owned by the pod.
pub(crate) fn pod_claims(
    state: &ClusterState,
    ledger: &Ledger,
    version: KubeVersion,
    pod: &Pod,
) -> Result<Vec<PodClaim>, String> {
    let namespace = &pod.metadata.namespace;
    let mut claims = Vec::new();
    for (i, entry) in pod.spec.resource_claims.iter().enumerate() {
        let (Some(name), must_own) = claim_name(pod, i)? else {
            continue;
        };
        let claim = match ledger.claim(state, namespace, &name) {
            Some(claim) => claim.clone(),
            None => match entry.resource_claim_template_name.as_deref() {
                Some(template) if name == generated_name(pod, &entry.name) => {
                    generate(state, pod, &name, template).ok_or_else(|| {
                        format!(
                            "pod \"{namespace}/{}\": ResourceClaim not created yet",
                            pod.metadata.name
                        )
                    })?
                }
                _ => {
                    return Err(format!(
                        "could not find ResourceClaim \"{namespace}/{name}\""
                    ));
                }
            },
        };
        if claim.metadata.meta.deletion_timestamp.is_some() {
            return Err(format!("resourceclaim \"{name}\" is being deleted"));
        }
        if must_own && !claim.controlled_by_pod(&pod.metadata.name) {
            let (pod_word, owner) = if version.dra_capitalises_pod() {
                ("Pod", "Pod is not owner")
            } else {
                ("pod", "pod is not owner")
            };
            return Err(format!(
                "ResourceClaim {namespace}/{name} was not created for {pod_word} {namespace}/{} ({owner})",
                pod.metadata.name
            ));
        }
        claims.push(PodClaim {
            namespace: namespace.clone(),
            claim,
        });
    }
    Ok(claims)
}

/// The claim the resourceclaim controller makes for `pod` from `template`; `None` when the
/// template does not exist (the controller cannot make it; the pod waits).
fn generate(state: &ClusterState, pod: &Pod, name: &str, template: &str) -> Option<ResourceClaim> {
    let template =
        state.dra.resource_claim_templates.iter().find(|t| {
            t.metadata.namespace == pod.metadata.namespace && t.metadata.name == template
        })?;
    let mut claim = ResourceClaim {
        spec: template.spec.spec.clone(),
        ..ResourceClaim::default()
    };
    claim.metadata.meta.name = name.to_string();
    claim.metadata.meta.namespace = pod.metadata.namespace.clone();
    claim.metadata.owner_references.push(OwnerReference {
        kind: "Pod".into(),
        name: pod.metadata.name.clone(),
        controller: Some(true),
    });
    Some(claim)
}

/// The plugin's PreEnqueue and PreFilter for one cycle.
pub(crate) struct DynamicResources {
    /// PreEnqueue holds the pod (a claim missing, being deleted or another pod's): upstream's
    /// message.
    pub(crate) waiting: Option<String>,
    /// Skip: the plugin is off (by release or profile), or the pod has no claims.
    pub(crate) pre_filtered: PreFiltered<PreFilterState>,
}

/// The pod's claims and what Reserve writes of them on the chosen node: the allocations of its
/// unallocated claims, in their order.
pub(crate) type Reserved = (Vec<PodClaim>, Vec<AllocationResult>);

pub(crate) struct PreFilterState {
    claims: Vec<PodClaim>,
    cel: ::cel::Context<'static, 'static>,
    selectors: std::cell::RefCell<allocator::Selectors>,
}

impl PreFilterState {
    /// The claims that need devices, in pod order.
    fn unallocated(&self) -> impl Iterator<Item = &PodClaim> {
        self.claims
            .iter()
            .filter(|c| c.claim.status.allocation.is_none())
    }

    /// Allocated claims whose node selector `node` does not match.
    fn unavailable<'c>(&'c self, node: &'c Node) -> impl Iterator<Item = &'c PodClaim> {
        self.claims.iter().filter(|c| {
            c.claim
                .status
                .allocation
                .as_ref()
                .and_then(|a| a.node_selector.as_ref())
                .is_some_and(|selector| !allocator::selects(selector, node))
        })
    }

    /// The allocator's answer for `node`.
    fn allocate(&self, cx: &Context, node: &Node) -> Result<Vec<AllocationResult>, Failure> {
        let sched = cx.sched;
        let state = sched.state;
        let classes = sched.dra.classes(state);
        let allocator = Allocator {
            version: cx.profile.version,
            classes: &classes,
            in_use: &sched.dra.in_use,
            all_slices: &state.dra.resource_slices,
            cel: &self.cel,
            selectors: &self.selectors,
        };
        let claims: Vec<(String, &PodClaim)> = self.unallocated().map(|c| (c.key(), c)).collect();
        let to_allocate: Vec<ClaimToAllocate> = claims
            .iter()
            .map(|(key, c)| ClaimToAllocate {
                name: key,
                spec: &c.claim.spec,
            })
            .collect();
        allocator.allocate(
            node,
            sched.dra.slices_for(state, &node.metadata.name),
            &to_allocate,
        )
    }

    /// The PostFilter's reason when no node fitted: an allocated claim that only this pod (or
    /// no pod) uses and that is out of some node's reach would be deallocated.
    pub(crate) fn post_filter(&self, pod: &Pod, rejected: &[&Node]) -> &'static str {
        let movable = rejected.iter().any(|node| {
            self.unavailable(node).any(|c| {
                let reserved = &c.claim.status.reserved_for;
                reserved.is_empty() || reserved.iter().all(|r| r.name == pod.metadata.name)
            })
        });
        if movable {
            DEALLOCATED
        } else {
            STILL_NOT_SCHEDULABLE
        }
    }
}

impl PreFilter for DynamicResources {
    fn pre_filter(cx: &Context) -> Self {
        let skip = DynamicResources {
            waiting: None,
            pre_filtered: PreFiltered::Skip,
        };
        let sched = cx.sched;
        let profile = cx.profile;
        let pre_enqueue = profile.runs(Point::PreEnqueue, NAME);
        let filter = profile.runs(Point::Filter, NAME);
        if !profile.version.dynamic_resources_enabled()
            || !(pre_enqueue || filter)
            || cx.pod.spec.resource_claims.is_empty()
        {
            return skip;
        }
        let claims = match pod_claims(sched.state, &sched.dra, profile.version, cx.pod) {
            Ok(claims) => claims,
            Err(waiting) if pre_enqueue => {
                return DynamicResources {
                    waiting: Some(waiting),
                    pre_filtered: PreFiltered::Skip,
                };
            }
            // Without PreEnqueue the pod reaches PreFilter, which finds the same problem and
            // rejects it.
            Err(problem) => {
                return DynamicResources {
                    waiting: None,
                    pre_filtered: PreFiltered::unresolvable(problem),
                };
            }
        };
        if claims.is_empty() || !filter {
            return skip;
        }
        let rejected = |status| DynamicResources {
            waiting: None,
            pre_filtered: PreFiltered::Reject(status),
        };
        let classes = sched.dra.classes(sched.state);
        for pod_claim in claims
            .iter()
            .filter(|c| c.claim.status.allocation.is_none())
        {
            for request in &pod_claim.claim.spec.devices.requests {
                let wanted: Vec<(String, &str)> = match &request.exactly {
                    Some(exact) if request.first_available.is_empty() => {
                        vec![(request.name.clone(), &exact.device_class_name)]
                    }
                    _ if !request.first_available.is_empty() => request
                        .first_available
                        .iter()
                        .map(|s| {
                            (
                                format!("{}/{}", request.name, s.name),
                                s.request.device_class_name.as_str(),
                            )
                        })
                        .collect(),
                    _ => {
                        return rejected(Status::new(
                            Code::UnschedulableAndUnresolvable,
                            &format!(
                                "resource claim {}, request {}: unknown request type",
                                pod_claim.key(),
                                request.name
                            ),
                        ));
                    }
                };
                for (name, class) in wanted {
                    if class.is_empty() {
                        return rejected(Status::new(
                            Code::Error,
                            &format!("request {name}: unsupported request type"),
                        ));
                    }
                    if !classes.contains_key(class) {
                        return rejected(Status::new(
                            Code::UnschedulableAndUnresolvable,
                            &format!("request {name}: device class {class} does not exist"),
                        ));
                    }
                }
            }
        }
        DynamicResources {
            waiting: None,
            pre_filtered: PreFiltered::Run(PreFilterState {
                claims,
                cel: cel::root_context(),
                selectors: Default::default(),
            }),
        }
    }
}

fn unresolvable(reason: &str) -> Status {
    Status::new(Code::UnschedulableAndUnresolvable, reason)
}

impl PreFilterState {
    /// Filter's verdict and, for explanations, the devices each claim gets or what blocked.
    fn decide(&self, cx: &Context, node: usize) -> (Status, String) {
        let state = self;
        let node = cx.node(node);
        let unavailable: Vec<String> = state.unavailable(node).map(PodClaim::key).collect();
        let allocated = if state.unallocated().next().is_some() {
            match state.allocate(cx, node) {
                Ok(results) => results,
                Err(Failure::Unsatisfiable { blocking }) => {
                    return (unresolvable(CANNOT_ALLOCATE), blocking);
                }
                Err(Failure::InvalidPools) => {
                    return (unresolvable(INVALID_POOLS), INVALID_POOLS.into());
                }
                Err(Failure::TimedOut) => {
                    let version = cx.profile.version;
                    let status = if version.dra_timeout_is_an_error() {
                        Status::new(
                            Code::Error,
                            &format!("node {}: {TIMED_OUT}", node.metadata.name),
                        )
                    } else {
                        unresolvable(TIMED_OUT)
                    };
                    return (status, "the allocator's search ran past its budget".into());
                }
                Err(Failure::Error(e)) => return (Status::new(Code::Error, &e), e),
            }
        } else {
            Vec::new()
        };
        if !unavailable.is_empty() {
            let detail = format!(
                "allocated claim(s) {} not reachable from this node",
                unavailable.join(", ")
            );
            return (unresolvable(NOT_AVAILABLE), detail);
        }
        let mut parts: Vec<String> = state
            .unallocated()
            .zip(&allocated)
            .map(|(c, a)| format!("claim {} gets {}", c.key(), devices_text(a)))
            .collect();
        parts.extend(
            state
                .claims
                .iter()
                .filter(|c| c.claim.status.allocation.is_some())
                .map(|c| format!("claim {} is allocated and reachable", c.key())),
        );
        (Status::success(), parts.join("; "))
    }
}

impl DynamicResources {
    /// The devices the pod gets on `node`, as Reserve writes them: for the plan's ledger.
    /// `None` when the plugin does not run for the pod.
    pub(crate) fn reserve(&self, cx: &Context, node: usize) -> Option<Reserved> {
        let PreFiltered::Run(state) = &self.pre_filtered else {
            return None;
        };
        let results = if state.unallocated().next().is_some() {
            state.allocate(cx, cx.node(node)).ok()?
        } else {
            Vec::new()
        };
        Some((state.claims.clone(), results))
    }
}

/// `r0 -> gpu.example.com/p1/g0, ...`.
fn devices_text(allocation: &AllocationResult) -> String {
    allocation
        .devices
        .results
        .iter()
        .map(|r| {
            let admin = if r.admin_access == Some(true) {
                " (admin access)"
            } else {
                ""
            };
            format!(
                "{} -> {}/{}/{}{admin}",
                r.request, r.driver, r.pool, r.device
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl PreFilteredCheck for PreFilterState {
    const SKIPPED: &'static str = "the pod has no resource claims";

    fn filter(&self, cx: &Context, node: usize) -> Status {
        self.decide(cx, node).0
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        self.decide(cx, node).1
    }
}

/// Whether `request` of `claim` (`namespace/name`) alone (no other request, no constraint, no device in use) could be met on
/// some node of `state`: what lint asks of a claim before any pod uses it. `Err` is the
/// allocator's error (a selector that fails at run time, say).
pub fn ever_satisfiable(
    state: &ClusterState,
    version: KubeVersion,
    claim: &str,
    request: &df_model::dra::DeviceRequest,
) -> Result<bool, String> {
    let ledger = Ledger::new(state);
    let classes = ledger.classes(state);
    let in_use = HashSet::new();
    let root = cel::root_context();
    let selectors = Default::default();
    let allocator = Allocator {
        version,
        classes: &classes,
        in_use: &in_use,
        all_slices: &state.dra.resource_slices,
        cel: &root,
        selectors: &selectors,
    };
    let spec = df_model::dra::ResourceClaimSpec {
        devices: df_model::dra::DeviceClaim {
            requests: vec![request.clone()],
            constraints: Vec::new(),
        },
    };
    let claims = [ClaimToAllocate {
        name: claim,
        spec: &spec,
    }];
    for node in &state.nodes {
        match allocator.allocate(node, ledger.slices_for(state, &node.metadata.name), &claims) {
            Ok(_) => return Ok(true),
            Err(Failure::Error(e)) => return Err(e),
            Err(_) => {}
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests;
