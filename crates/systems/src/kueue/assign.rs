//! Kueue's flavor assigner (upstream `pkg/scheduler/flavorassigner/flavorassigner.go`): per pod
//! set and resource group, the flavors in order, each checked (missing, topology, taints, node
//! selector) and then classed against the quota tree as fit, preempt (with or without
//! candidates), reclaim or no fit, with flavor fungibility deciding when to stop. The reasons
//! and their order are upstream's, so the message is Kueue's own.

use std::collections::BTreeMap;

use df_engine::plugins::taint_toleration::tolerates;
use df_engine::selector::{node_selector_map_matches, node_selector_matches};
use df_model::kueue::ResourceFlavor;
use df_model::{Labels, NodeSelector, Pod, Taint};

use super::quota::{Fr, Tree};

/// How a flavor serves a request, worst first (upstream's `preemptionMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pm {
    NoFit,
    NoCandidates,
    Preempt,
    Reclaim,
    Fit,
}

/// A mode with the height of the quota subtree it borrows from (0: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Granular {
    pub pm: Pm,
    pub borrow: usize,
}

/// Upstream `isPreferred`: whether `a` is a better outcome than `b`.
pub fn is_preferred(a: Granular, b: Granular, preemption_over_borrowing: bool) -> bool {
    if a.pm == Pm::NoFit {
        return false;
    }
    if b.pm == Pm::NoFit {
        return true;
    }
    if (a.pm == Pm::NoCandidates) != (b.pm == Pm::NoCandidates) {
        return a.pm != Pm::NoCandidates;
    }
    if preemption_over_borrowing {
        (a.borrow, std::cmp::Reverse(a.pm)) < (b.borrow, std::cmp::Reverse(b.pm))
    } else {
        (std::cmp::Reverse(a.pm), a.borrow) < (std::cmp::Reverse(b.pm), b.borrow)
    }
}

/// Why a workload stays pending (v0.19+ condition reasons), mildest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NoFitReason {
    TopologyPlacementFailed,
    WaitingForQuota,
    ExceedsMaxQuota,
    NoMatchingFlavor,
}

impl NoFitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            NoFitReason::TopologyPlacementFailed => "TopologyPlacementFailed",
            NoFitReason::WaitingForQuota => "WaitingForQuota",
            NoFitReason::ExceedsMaxQuota => "ExceedsMaxQuota",
            NoFitReason::NoMatchingFlavor => "NoMatchingFlavor",
        }
    }
}

/// One pod set as Kueue's Workload holds it.
#[derive(Debug, Clone)]
pub struct PodSetShape {
    pub name: String,
    pub count: i32,
    /// `minCount` (partial admission), from `kueue.x-k8s.io/job-min-parallelism`.
    pub min_count: Option<i32>,
    /// One pod's requests: cpu in millicores, the rest in whole units; zeros kept out.
    pub per_pod: BTreeMap<String, i64>,
    /// The template: its tolerations, node selector and required node affinity filter flavors.
    pub pod: Pod,
    /// Whether the template asks for Topology Aware Scheduling.
    pub asks_topology: bool,
}

/// A resource group as the ClusterQueue lists it.
#[derive(Debug, Clone, Default)]
pub struct Group {
    pub covered: Vec<String>,
    pub flavors: Vec<String>,
}

/// Flavor fungibility with Kueue's defaults applied.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fungibility {
    pub borrow_try_next: bool,
    pub preempt_try_next: bool,
    pub preemption_over_borrowing: bool,
}

/// What the assigner needs of a ClusterQueue.
#[derive(Debug, Clone, Default)]
pub struct QueueShape {
    pub node: usize,
    pub groups: Vec<Group>,
    pub fungibility: Fungibility,
    /// `borrowWithinCohort` allows preempting while borrowing.
    pub preempt_while_borrowing: bool,
    /// Every flavor has a topology: pod sets without a topology request get an implied one.
    pub tas_only: bool,
}

/// Decides whether preemption could make room for `qty` of `fr` (upstream's preemption
/// oracle), and the borrowing height after it.
pub trait Oracle {
    fn simulate(&self, tree: &Tree, queue: &QueueShape, fr: &Fr, qty: i64) -> (Pm, usize);
}

/// One resource's flavor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceFlavorChoice {
    pub flavor: String,
    pub mode: Granular,
}

#[derive(Debug, Clone, Default)]
pub struct PodSetAssignment {
    pub name: String,
    pub count: i32,
    pub flavors: BTreeMap<String, ResourceFlavorChoice>,
    /// Total requests of the pod set at `count` (what admission reserves).
    pub requests: BTreeMap<String, i64>,
    pub reasons: Vec<String>,
    pub no_fit: Option<NoFitReason>,
    /// The assigner stopped here: this pod set could not be given flavors.
    pub failed: bool,
}

impl PodSetAssignment {
    /// The worst mode of its resources; `NoFit` when it failed.
    pub fn mode(&self) -> Pm {
        if self.failed {
            return Pm::NoFit;
        }
        self.flavors
            .values()
            .map(|c| c.mode.pm)
            .min()
            .unwrap_or(Pm::Fit)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Assignment {
    pub pod_sets: Vec<PodSetAssignment>,
    pub borrowing: usize,
    pub usage: BTreeMap<Fr, i64>,
}

/// Kueue's public modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    NoFit,
    Preempt,
    Fit,
}

impl Assignment {
    pub fn mode(&self) -> Mode {
        match self.pod_sets.iter().map(PodSetAssignment::mode).min() {
            None | Some(Pm::Fit) => Mode::Fit,
            Some(Pm::NoFit) => Mode::NoFit,
            Some(_) => Mode::Preempt,
        }
    }

    /// Upstream `Assignment.Message`: `couldn't assign flavors to pod set <ps>: <reasons>`
    /// per pod set that is not a plain fit, reasons sorted, pod sets joined by `; `.
    pub fn message(&self) -> String {
        self.pod_sets
            .iter()
            .filter(|ps| !ps.reasons.is_empty())
            .map(|ps| {
                let mut reasons = ps.reasons.clone();
                reasons.sort();
                format!(
                    "couldn't assign flavors to pod set {}: {}",
                    ps.name,
                    reasons.join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub fn no_fit_reason(&self) -> NoFitReason {
        self.pod_sets
            .iter()
            .filter_map(|ps| ps.no_fit)
            .max()
            .unwrap_or(NoFitReason::WaitingForQuota)
    }

    /// The (flavor, resource) pairs that need preemption.
    pub fn needs_preemption(&self) -> Vec<Fr> {
        let mut frs: Vec<Fr> = self
            .pod_sets
            .iter()
            .flat_map(|ps| {
                ps.flavors
                    .iter()
                    .filter(|(_, c)| {
                        matches!(c.mode.pm, Pm::NoCandidates | Pm::Preempt | Pm::Reclaim)
                    })
                    .map(|(r, c)| (c.flavor.clone(), r.clone()))
            })
            .collect();
        frs.sort();
        frs.dedup();
        frs
    }
}

/// FNV-1a 64 of a resource name: Kueue iterates a pod set's resources in this order
/// (`VectorizedResourceRequests`), which decides which resource group fails first.
fn fnv1a64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

pub fn in_hash_order<'a>(names: impl IntoIterator<Item = &'a String>) -> Vec<&'a String> {
    let mut names: Vec<&String> = names.into_iter().collect();
    names.sort_by_key(|n| (fnv1a64(n), (*n).clone()));
    names
}

/// An amount as Kueue prints it: cpu as a milli quantity, memory and ephemeral storage in
/// binary units, the rest in decimal ones.
pub fn format_amount(resource: &str, v: i64) -> String {
    if v == super::quota::UNLIMITED {
        return "<unlimited>".into();
    }
    if resource == "cpu" {
        return df_model::Quantity::from_milli(v).to_string();
    }
    let (base, suffixes): (i64, &[&str]) = if matches!(resource, "memory" | "ephemeral-storage") {
        (1024, &["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])
    } else {
        (1000, &["", "k", "M", "G", "T", "P", "E"])
    };
    let (mut n, mut i) = (v, 0);
    while n != 0 && n % base == 0 && i + 1 < suffixes.len() {
        n /= base;
        i += 1;
    }
    format!("{n}{}", suffixes[i])
}

/// The flavor's taint the pod set does not tolerate, with the flavor's own tolerations
/// counted; printed as Go prints the struct (`{key value Effect <nil>}`).
fn untolerated(flavor: &ResourceFlavor, pod: &Pod) -> Option<String> {
    let taint: &Taint = flavor.spec.node_taints.iter().find(|taint| {
        matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
            && !pod
                .spec
                .tolerations
                .iter()
                .chain(&flavor.spec.tolerations)
                .any(|t| tolerates(t, taint))
    })?;
    Some(format!(
        "{{{} {} {} <nil>}}",
        taint.key, taint.value, taint.effect
    ))
}

/// Upstream `flavorSelector` (v0.19+): the pod's node selector and required affinity narrowed
/// to this flavor's own label keys, matched against a node with only the flavor's labels. A
/// term left empty drops the whole affinity (terms are ORed, so it matches anything).
fn matches_selector(flavor: &ResourceFlavor, pod: &Pod) -> bool {
    let labels: &Labels = &flavor.spec.node_labels;
    let allowed = |key: &str| labels.contains_key(key);
    let mut selector = Labels::default();
    for (k, v) in pod.spec.node_selector.iter() {
        if allowed(k) {
            selector.insert(k.clone(), v.clone());
        }
    }
    if !node_selector_map_matches(&selector, labels) {
        return false;
    }
    let Some(required) = pod
        .spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required.as_ref())
    else {
        return true;
    };
    let mut terms = Vec::new();
    for term in &required.node_selector_terms {
        let mut term = term.clone();
        term.match_fields.clear();
        term.match_expressions.retain(|e| allowed(&e.key));
        if term.match_expressions.is_empty() {
            return true;
        }
        terms.push(term);
    }
    let narrowed = NodeSelector {
        node_selector_terms: terms,
    };
    node_selector_matches(&narrowed, "", labels).0
}

/// The flavor checks before quota, or the reason the flavor is skipped.
fn flavor_check(
    name: &str,
    flavor: Option<&ResourceFlavor>,
    ps: &PodSetShape,
    queue: &QueueShape,
) -> Result<(), String> {
    let Some(flavor) = flavor else {
        return Err(format!("flavor {name} not found"));
    };
    let tas = flavor.spec.topology_name.is_some();
    if ps.asks_topology && !tas {
        return Err(format!(
            "Flavor \"{name}\" does not support TopologyAwareScheduling"
        ));
    }
    if !ps.asks_topology && tas && !queue.tas_only {
        return Err(format!(
            "Flavor \"{name}\" supports only TopologyAwareScheduling"
        ));
    }
    if let Some(taint) = untolerated(flavor, &ps.pod) {
        return Err(format!("untolerated taint {taint} in flavor {name}"));
    }
    if !matches_selector(flavor, &ps.pod) {
        return Err(format!("flavor {name} doesn't match node affinity"));
    }
    Ok(())
}

/// The assigner over one ClusterQueue's quota tree.
pub struct Assigner<'a> {
    pub tree: &'a Tree,
    pub queue: &'a QueueShape,
    pub flavor: &'a dyn Fn(&str) -> Option<&'a ResourceFlavor>,
    pub oracle: &'a dyn Oracle,
}

impl Assigner<'_> {
    /// Upstream `Assign(counts)`: every pod set in order, at `counts` when given (partial
    /// admission), stopping at the first pod set that cannot be given flavors.
    pub fn assign(&self, pod_sets: &[PodSetShape], counts: Option<&[i32]>) -> Assignment {
        let mut out = Assignment::default();
        let covers_pods = self
            .queue
            .groups
            .iter()
            .any(|g| g.covered.iter().any(|r| r == "pods"));
        for (i, ps) in pod_sets.iter().enumerate() {
            let count = counts.and_then(|c| c.get(i).copied()).unwrap_or(ps.count);
            let mut requests: BTreeMap<String, i64> = ps
                .per_pod
                .iter()
                .map(|(r, v)| (r.clone(), v.saturating_mul(i64::from(count))))
                .collect();
            if covers_pods {
                requests.insert("pods".into(), i64::from(count));
            }
            let mut psa = PodSetAssignment {
                name: ps.name.clone(),
                count,
                requests: requests.clone(),
                ..PodSetAssignment::default()
            };
            for resource in in_hash_order(requests.keys()) {
                if psa.flavors.contains_key(resource) {
                    continue;
                }
                let Some(group) = self
                    .queue
                    .groups
                    .iter()
                    .find(|g| g.covered.contains(resource))
                else {
                    if requests[resource] == 0 {
                        continue;
                    }
                    psa.reasons = vec![format!("resource {resource} unavailable in ClusterQueue")];
                    psa.no_fit = Some(NoFitReason::NoMatchingFlavor);
                    psa.failed = true;
                    break;
                };
                let found = self.find_flavor(group, ps, &requests, &out.usage);
                match found.choices {
                    None => {
                        psa.reasons = found.reasons;
                        psa.no_fit = found.no_fit;
                        psa.failed = true;
                        break;
                    }
                    Some(choices) => {
                        psa.reasons.extend(found.reasons);
                        psa.no_fit = psa.no_fit.max(found.no_fit);
                        psa.flavors.extend(choices);
                    }
                }
            }
            let failed = psa.failed;
            if !failed {
                for (resource, choice) in &psa.flavors {
                    let fr = (choice.flavor.clone(), resource.clone());
                    *out.usage.entry(fr).or_default() += psa.requests[resource];
                    out.borrowing = out.borrowing.max(choice.mode.borrow);
                }
            }
            out.pod_sets.push(psa);
            if failed {
                break;
            }
        }
        out
    }

    fn find_flavor(
        &self,
        group: &Group,
        ps: &PodSetShape,
        requests: &BTreeMap<String, i64>,
        assumed: &BTreeMap<Fr, i64>,
    ) -> Found {
        let fungibility = self.queue.fungibility;
        let wanted: Vec<&String> = in_hash_order(requests.keys())
            .into_iter()
            .filter(|r| group.covered.contains(r))
            .collect();
        let mut reasons = Vec::new();
        let mut best: Option<BTreeMap<String, ResourceFlavorChoice>> = None;
        let mut best_mode = Granular {
            pm: Pm::NoFit,
            borrow: 0,
        };
        // Each flavor tried that cannot serve, by why: the group's reason is the mildest.
        let mut severities: Vec<NoFitReason> = Vec::new();
        for name in &group.flavors {
            if let Err(reason) = flavor_check(name, (self.flavor)(name), ps, self.queue) {
                reasons.push(reason);
                severities.push(NoFitReason::NoMatchingFlavor);
                continue;
            }
            let mut rep = Granular {
                pm: Pm::Fit,
                borrow: 0,
            };
            let mut choices = BTreeMap::new();
            let mut flavor_severity = None;
            for resource in &wanted {
                let fr = (name.clone(), (*resource).clone());
                let before = assumed.get(&fr).copied().unwrap_or(0);
                let (mode, reason, why) = self.fits_quota(&fr, before, requests[*resource]);
                reasons.extend(reason);
                flavor_severity = flavor_severity.max(why);
                if is_preferred(rep, mode, fungibility.preemption_over_borrowing) {
                    rep = mode;
                }
                if rep.pm == Pm::NoFit {
                    continue;
                }
                choices.insert(
                    (*resource).clone(),
                    ResourceFlavorChoice {
                        flavor: name.clone(),
                        mode,
                    },
                );
            }
            if rep.pm == Pm::NoFit {
                severities.push(flavor_severity.unwrap_or(NoFitReason::WaitingForQuota));
            }
            let try_next = matches!(rep.pm, Pm::NoFit | Pm::NoCandidates)
                || (matches!(rep.pm, Pm::Preempt | Pm::Reclaim) && fungibility.preempt_try_next)
                || (rep.borrow > 0 && fungibility.borrow_try_next);
            if !try_next {
                best = Some(choices);
                best_mode = rep;
                break;
            }
            if is_preferred(rep, best_mode, fungibility.preemption_over_borrowing) {
                best = Some(choices);
                best_mode = rep;
            }
        }
        if best_mode.pm == Pm::Fit {
            return Found {
                choices: best,
                reasons: Vec::new(),
                no_fit: None,
            };
        }
        Found {
            choices: best,
            reasons,
            no_fit: severities.into_iter().min(),
        }
    }

    /// Upstream `fitsResourceQuota`: the mode of `request` on `fr` after `assumed` from the
    /// pod sets before, and the reason when it does not simply fit.
    fn fits_quota(
        &self,
        fr: &Fr,
        assumed: i64,
        request: i64,
    ) -> (Granular, Option<String>, Option<NoFitReason>) {
        let tree = self.tree;
        let cq = self.queue.node;
        let (flavor, resource) = fr;
        let available = tree.available(cq, fr);
        let max_capacity = tree.potential_available(cq, fr);
        let val = assumed.saturating_add(request);
        let no_fit = |borrow| Granular {
            pm: Pm::NoFit,
            borrow,
        };
        if val > max_capacity {
            let reason = format!(
                "insufficient quota for {resource} in flavor {flavor}, previously considered \
                 podsets requests ({}) + current podset request ({}) > maximum capacity ({})",
                format_amount(resource, assumed),
                format_amount(resource, request),
                format_amount(resource, max_capacity)
            );
            return (no_fit(0), Some(reason), Some(NoFitReason::ExceedsMaxQuota));
        }
        let (borrow, may_reclaim) = tree.lowest_fitting_height(cq, fr, val);
        if val <= available {
            return (
                Granular {
                    pm: Pm::Fit,
                    borrow,
                },
                None,
                None,
            );
        }
        let reason = format!(
            "insufficient unused quota for {resource} in flavor {flavor}, {} more needed",
            format_amount(resource, val - available)
        );
        if tree.nominal(cq, fr) >= val || may_reclaim || self.queue.preempt_while_borrowing {
            let (pm, borrow) = self.oracle.simulate(tree, self.queue, fr, val);
            return (Granular { pm, borrow }, Some(reason), None);
        }
        (
            no_fit(borrow),
            Some(reason),
            Some(NoFitReason::WaitingForQuota),
        )
    }
}

struct Found {
    choices: Option<BTreeMap<String, ResourceFlavorChoice>>,
    reasons: Vec<String>,
    no_fit: Option<NoFitReason>,
}
