//! The structured allocator (k8s.io/dynamic-resource-allocation/structured), per node: gather
//! the pools whose slices reach the node, then search depth first for devices for every
//! request of every claim, in order, backtracking when a later request cannot be met. The
//! first complete solution wins, as upstream's.
//!
//! Pools are visited sorted by driver and name, slices by name, as upstream from 1.36; before,
//! Go's map order made the visit random, so where several solutions exist 1.34 and 1.35 may
//! pick another one.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use cel::Context;

use super::cel::{self as device_cel, Selector};
use crate::selector::node_selector_matches;
use crate::versions::KubeVersion;
use df_model::SortedMap;
use df_model::dra::{
    AllocationResult, DeviceAllocationResult, DeviceClass, DeviceConstraint,
    DeviceRequestAllocationResult, DeviceSelector, DeviceToleration, ExactDeviceRequest,
    ResourceClaimSpec, ResourceSlice,
};
use df_model::dra::{Device, DeviceAttribute, DeviceCapacity};
use df_model::{Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};

/// `AllocationResultsMaxSize`: devices one claim may get.
pub(crate) const MAX_DEVICES_PER_CLAIM: usize = 32;
/// Steps of the search one node may take. Upstream bounds the search by time (the filter's
/// 10 s timeout); a step count keeps the preview deterministic.
const MAX_STEPS: u64 = 1_000_000;

/// A device's identity: `driver/pool/device`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId {
    pub driver: String,
    pub pool: String,
    pub device: String,
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.driver, self.pool, self.device)
    }
}

/// One claim to allocate: its name as upstream's messages print it (`namespace/name`).
pub(crate) struct ClaimToAllocate<'c> {
    pub name: &'c str,
    pub spec: &'c ResourceClaimSpec,
}

/// Why no allocation was made on a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// No solution: the request the search could get least far with, and why, in words.
    Unsatisfiable { blocking: String },
    /// 1.35+: no solution, and some pool was invalid (`invalid resource pools were encountered`).
    InvalidPools,
    /// The search's step budget ran out.
    TimedOut,
    /// An error that aborts the pod's whole scheduling attempt.
    Error(String),
}

/// The inputs every node's allocation shares: the cluster's slices and classes, the devices
/// already in use, and the features of the release.
pub(crate) struct Allocator<'a> {
    pub version: KubeVersion,
    pub classes: &'a HashMap<&'a str, &'a DeviceClass>,
    pub in_use: &'a HashSet<DeviceId>,
    /// Every slice, for the completeness of a pool (1.35+ counts all its slices).
    pub all_slices: &'a [ResourceSlice],
    pub cel: &'a Context<'static, 'static>,
    /// Compiled selectors by expression, shared by every node of a cycle.
    pub selectors: &'a RefCell<Selectors>,
}

/// Selectors by expression, compiled once per cycle, with what each decided so far.
pub(crate) type Selectors = HashMap<String, CompiledSelector>;

/// A selector (or its compile error) and its verdicts (or cel-go's run-time errors) by what a
/// selector can see of a device: its driver, attributes and capacity. Devices alike in these
/// are selected alike, so a selector runs once per kind of device in a cycle, not once per
/// device of every node (a GPU fleet publishes thousands of identical GPUs).
pub(crate) struct CompiledSelector {
    program: Result<Selector, String>,
    verdicts: hashbrown::HashMap<SeenDevice, Result<bool, String>>,
}

/// What CEL's `device` holds of a device, owned for the verdicts' keys.
#[derive(Hash, PartialEq, Eq)]
struct SeenDevice {
    driver: String,
    attributes: SortedMap<String, DeviceAttribute>,
    capacity: SortedMap<String, DeviceCapacity>,
}

/// [`SeenDevice`] borrowed from a candidate, to look verdicts up without copying; hashes as
/// the owned form does (same fields, same order).
#[derive(Hash)]
struct SeenDeviceRef<'d> {
    driver: &'d str,
    attributes: &'d SortedMap<String, DeviceAttribute>,
    capacity: &'d SortedMap<String, DeviceCapacity>,
}

impl SeenDeviceRef<'_> {
    fn to_owned(&self) -> SeenDevice {
        SeenDevice {
            driver: self.driver.to_string(),
            attributes: self.attributes.clone(),
            capacity: self.capacity.clone(),
        }
    }
}

impl hashbrown::Equivalent<SeenDevice> for SeenDeviceRef<'_> {
    fn equivalent(&self, key: &SeenDevice) -> bool {
        self.driver == key.driver
            && *self.attributes == key.attributes
            && *self.capacity == key.capacity
    }
}

/// A pool visible from the node, its slices of the newest generation.
struct Pool<'s> {
    driver: &'s str,
    name: &'s str,
    slices: Vec<&'s ResourceSlice>,
    incomplete: bool,
    invalid: Option<String>,
}

/// A device candidate: where it is and what it is.
#[derive(Clone, Copy)]
struct Candidate<'s> {
    pool: usize,
    slice: &'s ResourceSlice,
    device: &'s Device,
}

/// One request (or one alternative of a `firstAvailable` request) ready for the search.
struct RequestData<'c> {
    /// As results name it: `<request>` or `<request>/<subrequest>`.
    name: String,
    /// The parent request's name (constraints may name either).
    parent: &'c str,
    class: &'c str,
    request: &'c ExactDeviceRequest,
    admin_access: bool,
    count: usize,
    /// `All`: the devices it takes, in order.
    all: Option<Vec<Candidate<'c>>>,
}

/// One claim ready for the search: its requests, each with its alternatives.
struct ClaimData<'c> {
    name: &'c str,
    requests: Vec<Vec<RequestData<'c>>>,
    constraints: &'c [DeviceConstraint],
}

/// A chosen device.
struct Chosen<'s> {
    claim: usize,
    request: String,
    candidate: Candidate<'s>,
    admin_access: bool,
}

impl<'a> Allocator<'a> {
    /// Whether a slice of this release reaches `node`, device by device where the slice leaves
    /// node selection to them.
    fn slice_reaches(&self, slice: &ResourceSlice, node: &Node) -> bool {
        let spec = &slice.spec;
        if let Some(name) = &spec.node_name {
            return *name == node.metadata.name;
        }
        if spec.all_nodes == Some(true) {
            return true;
        }
        if let Some(selector) = &spec.node_selector {
            return selects(selector, node);
        }
        if spec.per_device_node_selection == Some(true) {
            return self.version.dra_partitionable_devices()
                && spec.devices.iter().any(|d| device_reaches(d, node));
        }
        false
    }

    /// The pools whose slices reach `node`, sorted by driver and name, slices by name.
    fn pools<'s>(
        &self,
        slices: impl Iterator<Item = &'s ResourceSlice>,
        node: &Node,
    ) -> Vec<Pool<'s>> {
        let mut pools: BTreeMap<(&str, &str), Vec<&ResourceSlice>> = BTreeMap::new();
        for slice in slices.filter(|s| self.slice_reaches(s, node)) {
            let key = (slice.spec.driver.as_str(), slice.spec.pool.name.as_str());
            let collected = pools.entry(key).or_default();
            match collected.first().map(|s| s.spec.pool.generation) {
                Some(g) if g > slice.spec.pool.generation => continue,
                Some(g) if g < slice.spec.pool.generation => collected.clear(),
                _ => {}
            }
            collected.push(slice);
        }
        pools
            .into_iter()
            .filter_map(|((driver, name), mut slices)| {
                slices.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
                let generation = slices[0].spec.pool.generation;
                let wanted = slices[0].spec.pool.resource_slice_count;
                let mut incomplete = slices.len() as i64 != wanted;
                if incomplete && self.version.dra_skips_bad_pools() {
                    // 1.35+: counted over the whole cluster; a newer generation elsewhere means
                    // the driver is mid-update and the pool is left out.
                    let same_pool = self
                        .all_slices
                        .iter()
                        .filter(|s| s.spec.driver == driver && s.spec.pool.name == name);
                    let mut seen = 0;
                    for s in same_pool {
                        if s.spec.pool.generation > generation {
                            return None;
                        }
                        seen += i64::from(s.spec.pool.generation == generation);
                    }
                    incomplete = seen != wanted;
                }
                let mut names = HashSet::new();
                let invalid = slices
                    .iter()
                    .flat_map(|s| &s.spec.devices)
                    .find(|d| !names.insert(d.name.as_str()))
                    .map(|d| format!("duplicate device name {}", d.name));
                Some(Pool {
                    driver,
                    name,
                    slices,
                    incomplete,
                    invalid,
                })
            })
            .collect()
    }

    /// Allocate `claims` on `node` from `slices` (the ones that may reach it): one result per
    /// claim, in order, or why not.
    pub(crate) fn allocate<'s>(
        &self,
        node: &Node,
        slices: impl Iterator<Item = &'s ResourceSlice>,
        claims: &[ClaimToAllocate<'s>],
    ) -> Result<Vec<AllocationResult>, Failure>
    where
        'a: 's,
    {
        let pools = self.pools(slices, node);
        let mut search = Search {
            allocator: self,
            node,
            pools: &pools,
            claims: Vec::new(),
            chosen: Vec::new(),
            taken: HashSet::new(),
            selectable: HashMap::new(),
            counters: HashMap::new(),
            steps: 0,
            furthest: (0, 0),
        };
        for claim in claims {
            let data = search.claim_data(claim)?;
            search.claims.push(data);
        }
        search.init_counters();
        match search.allocate_one(0, 0, 0, 0, false) {
            Ok(true) => Ok(search.results()),
            Ok(false) => {
                if self.version.dra_skips_bad_pools() && pools.iter().any(|p| p.invalid.is_some()) {
                    return Err(Failure::InvalidPools);
                }
                Err(Failure::Unsatisfiable {
                    blocking: search.blocking(),
                })
            }
            Err(Stop::TimedOut) => Err(Failure::TimedOut),
            Err(Stop::Error(e)) => Err(Failure::Error(e)),
        }
    }
}

/// Whether a node matches a slice's or an allocation's node selector.
pub(crate) fn selects(selector: &NodeSelector, node: &Node) -> bool {
    node_selector_matches(selector, &node.metadata.name, &node.metadata.labels).0
}

fn device_reaches(device: &Device, node: &Node) -> bool {
    device.node_name.as_deref() == Some(node.metadata.name.as_str())
        || device.all_nodes == Some(true)
        || device
            .node_selector
            .as_ref()
            .is_some_and(|s| selects(s, node))
}

/// Why the search stopped early.
enum Stop {
    TimedOut,
    Error(String),
}

impl From<String> for Stop {
    fn from(e: String) -> Stop {
        Stop::Error(e)
    }
}

/// A counter of a pool: (pool index, counter set, counter) -> what is left, in thousandths.
type Counters = HashMap<(usize, String, String), i64>;

struct Search<'x, 's> {
    allocator: &'x Allocator<'s>,
    node: &'x Node,
    pools: &'x [Pool<'s>],
    claims: Vec<ClaimData<'s>>,
    chosen: Vec<Chosen<'s>>,
    /// Devices chosen so far, with the claim they were chosen for.
    taken: HashSet<(DeviceId, usize)>,
    /// is_selectable per (device, claim, request, alternative).
    selectable: HashMap<(DeviceId, usize, usize, usize), bool>,
    counters: Counters,
    steps: u64,
    /// The furthest (claim, request) the search failed at: the one to blame.
    furthest: (usize, usize),
}

fn id_of(pool: &Pool<'_>, device: &Device) -> DeviceId {
    DeviceId {
        driver: pool.driver.to_string(),
        pool: pool.name.to_string(),
        device: device.name.clone(),
    }
}

impl<'x, 's> Search<'x, 's> {
    fn version(&self) -> KubeVersion {
        self.allocator.version
    }

    /// Validate one request (or alternative) and, for `All`, gather its devices (upstream's
    /// `validateDeviceRequest`).
    fn request_data(
        &mut self,
        claim: &'s str,
        key: (usize, usize, usize),
        (name, parent): (String, &'s str),
        request: &'s ExactDeviceRequest,
        admin_field: bool,
    ) -> Result<RequestData<'s>, Failure> {
        let (ci, ri, si) = key;
        let shown = name.rsplit('/').next().unwrap_or(&name).to_string();
        for (i, selector) in request.selectors.iter().enumerate() {
            if selector.cel.is_none() {
                return Err(Failure::Error(format!(
                    "claim {claim}, request {shown}, selector #{i}: CEL expression empty (unsupported selector type?)"
                )));
            }
        }
        if request.device_class_name.is_empty() {
            return Err(Failure::Error(format!(
                "claim {claim}, request {shown}: missing device class name (unsupported request type?)"
            )));
        }
        if !self
            .allocator
            .classes
            .contains_key(request.device_class_name.as_str())
        {
            return Err(Failure::Error(format!(
                "claim {claim}, request {shown}: could not retrieve device class {}: deviceclass.resource.k8s.io \"{}\" not found",
                request.device_class_name, request.device_class_name
            )));
        }
        let mut data = RequestData {
            name,
            parent,
            class: &request.device_class_name,
            request,
            admin_access: admin_field && request.admin_access == Some(true),
            count: 0,
            all: None,
        };
        match request.allocation_mode.as_str() {
            "" | "ExactCount" => {
                let count = request.count();
                if !(0..=i64::from(u16::MAX)).contains(&count) {
                    return Err(Failure::Error(format!(
                        "claim {claim}, request {shown}: exact count {count} is too large"
                    )));
                }
                data.count = count as usize;
            }
            "All" => {
                let mut all = Vec::new();
                for (p, pool) in self.pools.iter().enumerate() {
                    if pool.incomplete {
                        return Err(Failure::Error(format!(
                            "claim {claim}, request {shown}: asks for all devices, but resource pool {}/{} is currently being updated",
                            pool.driver, pool.name
                        )));
                    }
                    if pool.invalid.is_some() {
                        return Err(Failure::Error(format!(
                            "claim {claim}, request {shown}: asks for all devices, but resource pool {}/{} is currently invalid",
                            pool.driver, pool.name
                        )));
                    }
                    for &slice in &pool.slices {
                        for device in &slice.spec.devices {
                            let candidate = Candidate {
                                pool: p,
                                slice,
                                device,
                            };
                            if self
                                .is_selectable(
                                    candidate,
                                    (ci, ri, si),
                                    claim,
                                    data.class,
                                    &data.request.selectors,
                                )
                                .map_err(Failure::Error)?
                            {
                                all.push(candidate);
                            }
                        }
                    }
                }
                data.count = all.len();
                data.all = Some(all);
            }
            mode => {
                return Err(Failure::Error(format!(
                    "claim {claim}, request {shown}: unsupported count mode {mode}"
                )));
            }
        }
        Ok(data)
    }

    fn claim_data(&mut self, claim: &ClaimToAllocate<'s>) -> Result<ClaimData<'s>, Failure> {
        let ci = self.claims.len();
        let name = claim.name;
        let devices = &claim.spec.devices;
        let mut requests = Vec::new();
        let mut min_devices = 0usize;
        for (ri, request) in devices.requests.iter().enumerate() {
            let mut alternatives = Vec::new();
            if !request.first_available.is_empty() {
                for (si, sub) in request.first_available.iter().enumerate() {
                    let full = format!("{}/{}", request.name, sub.name);
                    alternatives.push(self.request_data(
                        name,
                        (ci, ri, si),
                        (full, &request.name),
                        &sub.request,
                        false,
                    )?);
                }
                min_devices += alternatives.iter().map(|a| a.count).min().unwrap_or(0);
            } else if let Some(exactly) = &request.exactly {
                let data = self.request_data(
                    name,
                    (ci, ri, 0),
                    (request.name.clone(), &request.name),
                    exactly,
                    true,
                )?;
                min_devices += data.count;
                alternatives.push(data);
            } else {
                return Err(Failure::Error(format!(
                    "claim {name}, request {}: missing device class name (unsupported request type?)",
                    request.name
                )));
            }
            requests.push(alternatives);
        }
        if min_devices > MAX_DEVICES_PER_CLAIM {
            return Err(Failure::Error(format!(
                "claim {name}: number of requested devices {min_devices} exceeds the claim limit of {MAX_DEVICES_PER_CLAIM}"
            )));
        }
        for (i, constraint) in devices.constraints.iter().enumerate() {
            if constraint.match_attribute.is_none() && constraint.distinct_attribute.is_none() {
                return Err(Failure::Error(format!(
                    "claim {name}, constraint #{i}: empty constraint (unsupported constraint type?)"
                )));
            }
        }
        Ok(ClaimData {
            name,
            requests,
            constraints: &devices.constraints,
        })
    }

    /// Evaluate `expression` on the candidate: whether it selects it, or cel-go's compile
    /// (`Err(true, ..)`) or runtime (`Err(false, ..)`) error. Programs are compiled, and run,
    /// once per cycle and kind of device ([`CompiledSelector`]).
    fn evaluate(&mut self, expression: &str, c: Candidate<'s>) -> Result<bool, (bool, String)> {
        let version = self.version();
        let mut selectors = self.allocator.selectors.borrow_mut();
        if !selectors.contains_key(expression) {
            let program = device_cel::compile(expression, version).map_err(|e| e.message);
            let verdicts = hashbrown::HashMap::new();
            selectors.insert(
                expression.to_string(),
                CompiledSelector { program, verdicts },
            );
        }
        let selector = selectors.get_mut(expression).expect("inserted above");
        let program = selector.program.as_ref().map_err(|e| (true, e.clone()))?;
        let seen = SeenDeviceRef {
            driver: self.pools[c.pool].driver,
            attributes: &c.device.attributes,
            capacity: &c.device.capacity,
        };
        if let Some(verdict) = selector.verdicts.get(&seen) {
            return verdict.clone().map_err(|e| (false, e));
        }
        let verdict = device_cel::device_value(seen.driver, c.device, version)
            .map_err(|e| match e {
                cel::ExecutionError::FunctionError { message, .. } => message,
                other => other.to_string(),
            })
            .and_then(|device| program.matches(self.allocator.cel, device.as_ref()));
        selector.verdicts.insert(seen.to_owned(), verdict.clone());
        verdict.map_err(|e| (false, e))
    }

    /// Upstream's `isSelectable`: the class's selectors, then the request's, on the device
    /// (and the device's own nodes where the slice leaves them to it). A CEL error is the
    /// search's error, named after the class or the claim.
    fn is_selectable(
        &mut self,
        c: Candidate<'s>,
        key: (usize, usize, usize),
        claim: &str,
        class: &'s str,
        selectors: &'s [DeviceSelector],
    ) -> Result<bool, String> {
        let id = id_of(&self.pools[c.pool], c.device);
        let (ci, ri, si) = key;
        if let Some(&known) = self.selectable.get(&(id.clone(), ci, ri, si)) {
            return Ok(known);
        }
        let class_selectors: &'s [DeviceSelector] = &self.allocator.classes[class].spec.selectors;
        let groups = [
            (class_selectors, ("class", class)),
            (selectors, ("claim", claim)),
        ];
        let mut selected = true;
        'groups: for (selectors, (owner, name)) in groups {
            for (i, selector) in selectors.iter().enumerate() {
                let Some(cel) = &selector.cel else { continue };
                match self.evaluate(&cel.expression, c) {
                    Ok(true) => {}
                    Ok(false) => {
                        selected = false;
                        break 'groups;
                    }
                    Err((true, e)) => {
                        return Err(format!(
                            "{owner} {name}: selector #{i}: CEL compile error: {e}"
                        ));
                    }
                    Err((false, e)) => {
                        if !self.version().dra_cel_error_names_device() {
                            return Err(format!(
                                "{owner} {name}: selector #{i}: CEL runtime error: {e}"
                            ));
                        }
                        let hint = if e.starts_with("no such key") {
                            ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"
                        } else {
                            ""
                        };
                        return Err(format!(
                            "{owner} {name}: selector #{i} on device {id}: CEL runtime error: {e}{hint}"
                        ));
                    }
                }
            }
        }
        if selected && c.slice.spec.per_device_node_selection == Some(true) {
            selected = device_reaches(c.device, self.node);
        }
        self.selectable.insert((id, ci, ri, si), selected);
        Ok(selected)
    }
}

/// The value of attribute `name` (`domain/id`) of a device of `driver`: the qualified key, or
/// the bare id when the domain is the driver's.
fn attribute<'d>(device: &'d Device, driver: &str, name: &str) -> Option<&'d DeviceAttribute> {
    device.attributes.get(name).or_else(|| {
        let (domain, id) = name.split_once('/')?;
        (domain == driver)
            .then(|| device.attributes.get(id))
            .flatten()
    })
}

/// Whether one of `tolerations` tolerates a device taint (upstream `ToleratesTaint`).
fn tolerated(tolerations: &[DeviceToleration], key: &str, value: &str, effect: &str) -> bool {
    tolerations.iter().any(|t| {
        (t.effect.is_empty() || t.effect == effect)
            && (t.key.is_empty() || t.key == key)
            && match t.operator.as_str() {
                "Exists" => true,
                _ => t.value == value,
            }
    })
}

impl<'x, 's> Search<'x, 's> {
    fn request(&self, ci: usize, ri: usize, si: usize) -> &RequestData<'s> {
        &self.claims[ci].requests[ri][si]
    }

    fn in_use(&self, id: &DeviceId, ci: usize, admin_access: bool) -> bool {
        if admin_access {
            self.taken.contains(&(id.clone(), ci))
        } else {
            self.allocator.in_use.contains(id)
                || self.chosen.iter().any(|c| {
                    !c.admin_access
                        && id_of(&self.pools[c.candidate.pool], c.candidate.device) == *id
                })
                || self.taken.iter().any(|(taken, _)| taken == id)
        }
    }

    /// What is left of each pool's counters once the devices in use consumed theirs.
    fn init_counters(&mut self) {
        if !self.version().dra_partitionable_devices() {
            return;
        }
        for (p, pool) in self.pools.iter().enumerate() {
            for slice in &pool.slices {
                for set in &slice.spec.shared_counters {
                    for (name, counter) in set.counters.iter() {
                        let key = (p, set.name.clone(), name.clone());
                        self.counters.insert(key, counter.value.milli_value());
                    }
                }
            }
            for slice in &pool.slices {
                for device in &slice.spec.devices {
                    if self.allocator.in_use.contains(&id_of(pool, device)) {
                        consume(&mut self.counters, p, device, -1);
                    }
                }
            }
        }
    }

    /// Whether the device's counters are left, taking them if so.
    fn take_counters(&mut self, c: Candidate<'s>) -> bool {
        if c.device.consumes_counters.is_empty() {
            return true;
        }
        if !self.version().dra_partitionable_devices() {
            return false;
        }
        let enough = c.device.consumes_counters.iter().all(|consumption| {
            consumption.counters.iter().all(|(name, counter)| {
                let key = (c.pool, consumption.counter_set.clone(), name.clone());
                self.counters
                    .get(&key)
                    .is_some_and(|left| *left >= counter.value.milli_value())
            })
        });
        if enough {
            consume(&mut self.counters, c.pool, c.device, -1);
        }
        enough
    }

    /// Whether the device passes the claim's constraints next to the devices chosen for it.
    fn constraints_hold(&self, ci: usize, request: (&str, &str), c: Candidate<'s>) -> bool {
        let claim = &self.claims[ci];
        let driver = self.pools[c.pool].driver;
        claim.constraints.iter().all(|constraint| {
            let applies = |name: &str, parent: &str| {
                constraint.requests.is_empty()
                    || constraint.requests.iter().any(|r| r == name || r == parent)
            };
            if !applies(request.0, request.1) {
                return true;
            }
            let others = self.chosen.iter().filter(|other| {
                other.claim == ci && {
                    let parent = other.request.split('/').next().unwrap_or(&other.request);
                    applies(&other.request, parent)
                }
            });
            let value_of = |candidate: &Candidate<'s>, name: &str| {
                attribute(candidate.device, self.pools[candidate.pool].driver, name)
            };
            if let Some(name) = &constraint.match_attribute {
                let Some(value) = attribute(c.device, driver, name) else {
                    return false;
                };
                if !others
                    .clone()
                    .all(|o| value_of(&o.candidate, name) == Some(value))
                {
                    return false;
                }
            }
            if let Some(name) = &constraint.distinct_attribute {
                let Some(value) = attribute(c.device, driver, name) else {
                    return false;
                };
                if others
                    .clone()
                    .any(|o| value_of(&o.candidate, name) == Some(value))
                {
                    return false;
                }
            }
            true
        })
    }

    /// Upstream's `allocateDevice`: take the device for the request if nothing forbids it. With
    /// `must` (an `All` request), a constraint it breaks is an error, since its devices are
    /// fixed.
    fn allocate_device(
        &mut self,
        ci: usize,
        ri: usize,
        si: usize,
        c: Candidate<'s>,
        must: bool,
    ) -> Result<bool, Stop> {
        let request = self.request(ci, ri, si);
        let (admin_access, parent, name) =
            (request.admin_access, request.parent, request.name.clone());
        let tolerations: &'s [DeviceToleration] = &request.request.tolerations;
        let id = id_of(&self.pools[c.pool], c.device);
        if self.in_use(&id, ci, admin_access) {
            return Ok(false);
        }
        if self.version().dra_device_taints() {
            let untolerated = c.device.taints.iter().any(|taint| {
                let effective = taint.effect != "None" || !self.version().dra_skips_bad_pools();
                effective && !tolerated(tolerations, &taint.key, &taint.value, &taint.effect)
            });
            if untolerated {
                return Ok(false);
            }
        }
        if !self.constraints_hold(ci, (&name, parent), c) {
            if must {
                return Err(Stop::Error(format!(
                    "claim {}, request {name}: cannot add device {id} because a claim constraint would not be satisfied",
                    self.claims[ci].name
                )));
            }
            return Ok(false);
        }
        if !self.take_counters(c) {
            return Ok(false);
        }
        self.taken.insert((id, ci));
        self.chosen.push(Chosen {
            claim: ci,
            request: name,
            candidate: c,
            admin_access,
        });
        Ok(true)
    }

    /// Undo the last [`allocate_device`](Self::allocate_device).
    fn undo_device(&mut self) {
        if let Some(chosen) = self.chosen.pop() {
            let id = id_of(&self.pools[chosen.candidate.pool], chosen.candidate.device);
            self.taken.remove(&(id, chosen.claim));
            if !chosen.candidate.device.consumes_counters.is_empty() {
                consume(
                    &mut self.counters,
                    chosen.candidate.pool,
                    chosen.candidate.device,
                    1,
                );
            }
        }
    }

    fn devices_of_claim(&self, ci: usize) -> usize {
        self.chosen.iter().filter(|c| c.claim == ci).count()
    }

    /// Upstream's `allocateOne`: device `di` of alternative `si` of request `ri` of claim
    /// `ci`, and everything after it.
    fn allocate_one(
        &mut self,
        ci: usize,
        ri: usize,
        si: usize,
        di: usize,
        in_alternative: bool,
    ) -> Result<bool, Stop> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Stop::TimedOut);
        }
        if ci == self.claims.len() {
            return Ok(true);
        }
        if ri == self.claims[ci].requests.len() {
            return self.allocate_one(ci + 1, 0, 0, 0, false);
        }
        let alternatives = self.claims[ci].requests[ri].len();
        let first_available = self.request(ci, ri, 0).name != self.request(ci, ri, 0).parent;
        if first_available && !in_alternative {
            for s in 0..alternatives {
                if self.allocate_one(ci, ri, s, di, true)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        let request = self.request(ci, ri, si);
        if request.all.as_ref().is_some_and(Vec::is_empty) {
            self.furthest = self.furthest.max((ci, ri));
            return Ok(false);
        }
        if di == request.count {
            return self.allocate_one(ci, ri + 1, 0, 0, false);
        }
        if self.devices_of_claim(ci) + request.count - di > MAX_DEVICES_PER_CLAIM {
            return Ok(false);
        }
        if let Some(all) = &request.all {
            let candidate = all[di];
            if !self.allocate_device(ci, ri, si, candidate, true)? {
                self.furthest = self.furthest.max((ci, ri));
                return Ok(false);
            }
            if self.allocate_one(ci, ri, si, di + 1, in_alternative)? {
                return Ok(true);
            }
            self.undo_device();
            return Ok(false);
        }
        let claim = self.claims[ci].name;
        for p in 0..self.pools.len() {
            let pool = &self.pools[p];
            if pool.incomplete && self.version().dra_skips_bad_pools() {
                continue;
            }
            if let Some(reason) = &pool.invalid {
                if self.version().dra_skips_bad_pools() {
                    continue;
                }
                return Err(Stop::Error(format!(
                    "pool {} is invalid: {reason}",
                    pool.name
                )));
            }
            for &slice in &pool.slices {
                for device in &slice.spec.devices {
                    let candidate = Candidate {
                        pool: p,
                        slice,
                        device,
                    };
                    let request = self.request(ci, ri, si);
                    let (class, selectors) = (request.class, &request.request.selectors[..]);
                    let id = id_of(&self.pools[p], device);
                    if self.in_use(&id, ci, request.admin_access) {
                        continue;
                    }
                    let selectable =
                        self.is_selectable(candidate, (ci, ri, si), claim, class, selectors)?;
                    if !selectable || !self.allocate_device(ci, ri, si, candidate, false)? {
                        continue;
                    }
                    if self.allocate_one(ci, ri, si, di + 1, in_alternative)? {
                        return Ok(true);
                    }
                    self.undo_device();
                }
            }
        }
        self.furthest = self.furthest.max((ci, ri));
        Ok(false)
    }
}

/// Add (`sign` 1) or take (`sign` -1) what `device` consumes of its pool's counters.
fn consume(counters: &mut Counters, pool: usize, device: &Device, sign: i64) {
    for consumption in &device.consumes_counters {
        for (name, counter) in consumption.counters.iter() {
            let key = (pool, consumption.counter_set.clone(), name.clone());
            if let Some(left) = counters.get_mut(&key) {
                *left += sign * counter.value.milli_value();
            }
        }
    }
}

impl Search<'_, '_> {
    /// One allocation per claim: its devices in the order chosen, and the nodes that reach
    /// them (upstream's `createNodeSelector`: a device of one node pins that node; otherwise
    /// the slices' selectors, merged; none when every device is reachable from everywhere).
    fn results(&self) -> Vec<AllocationResult> {
        (0..self.claims.len())
            .map(|ci| {
                let chosen: Vec<&Chosen> = self.chosen.iter().filter(|c| c.claim == ci).collect();
                let results = chosen
                    .iter()
                    .map(|c| {
                        let pool = &self.pools[c.candidate.pool];
                        DeviceRequestAllocationResult {
                            request: c.request.clone(),
                            driver: pool.driver.to_string(),
                            pool: pool.name.to_string(),
                            device: c.candidate.device.name.clone(),
                            admin_access: c.admin_access.then_some(true),
                        }
                    })
                    .collect();
                AllocationResult {
                    devices: DeviceAllocationResult { results },
                    node_selector: node_selector(&chosen),
                }
            })
            .collect()
    }

    /// The request the search could not get past, with what the node offers it.
    fn blocking(&mut self) -> String {
        let (ci, ri) = self.furthest;
        let Some(claim) = self.claims.get(ci) else {
            return String::new();
        };
        let name = claim.name;
        let Some(alternatives) = claim.requests.get(ri) else {
            return format!("claim {name}");
        };
        let request = &alternatives[0];
        let (class, selectors, admin, parent, count, all) = (
            request.class,
            &request.request.selectors[..],
            request.admin_access,
            request.parent,
            request.count,
            request.all.is_some(),
        );
        let (mut published, mut in_use, mut unselected) = (0, 0, 0);
        let pools = self.pools;
        for (p, pool) in pools.iter().enumerate() {
            for &slice in &pool.slices {
                for device in &slice.spec.devices {
                    published += 1;
                    if !admin && self.allocator.in_use.contains(&id_of(pool, device)) {
                        in_use += 1;
                        continue;
                    }
                    let candidate = Candidate {
                        pool: p,
                        slice,
                        device,
                    };
                    if !matches!(
                        self.is_selectable(candidate, (ci, ri, 0), name, class, selectors),
                        Ok(true)
                    ) {
                        unselected += 1;
                    }
                }
            }
        }
        let free = published - in_use - unselected;
        let wanted = if all {
            format!("all devices of class {class}")
        } else {
            format!("{count} device(s) of class {class}")
        };
        format!(
            "claim {name}, request {parent}: {wanted}; the node's slices publish {published} device(s): {in_use} in use, {unselected} not selected, {free} free"
        )
    }
}

/// The node selector of an allocation from the slices (or devices) of its devices.
fn node_selector(chosen: &[&Chosen<'_>]) -> Option<NodeSelector> {
    let mut requirements: Vec<NodeSelectorRequirement> = Vec::new();
    let mut fields: Vec<NodeSelectorRequirement> = Vec::new();
    for c in chosen {
        let spec = &c.candidate.slice.spec;
        let device = c.candidate.device;
        let (name, selector) = if spec.per_device_node_selection == Some(true) {
            (&device.node_name, &device.node_selector)
        } else {
            (&spec.node_name, &spec.node_selector)
        };
        if let Some(node) = name {
            return Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Vec::new(),
                    match_fields: vec![NodeSelectorRequirement {
                        key: "metadata.name".into(),
                        operator: "In".into(),
                        values: vec![node.clone()],
                    }],
                }],
            });
        }
        if let Some(term) = selector
            .as_ref()
            .and_then(|s| s.node_selector_terms.first())
        {
            for (from, into) in [
                (&term.match_expressions, &mut requirements),
                (&term.match_fields, &mut fields),
            ] {
                for r in from {
                    if !into.contains(r) {
                        into.push(r.clone());
                    }
                }
            }
        }
    }
    (!requirements.is_empty() || !fields.is_empty()).then(|| NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_expressions: requirements,
            match_fields: fields,
        }],
    })
}
