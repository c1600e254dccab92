//! One scheduling cycle, run as upstream's framework runs a profile: every plugin's PreFilter
//! once, its Filter on each candidate node (stopping at the first failure, as upstream), then
//! PreScore, Score and NormalizeScore over the feasible nodes. The per-node explanation comes
//! out of the same calls.

use serde::Serialize;

use super::framework::{Code, Context, Filter, PreFilter, PreScore, Score, Status};
use super::plugins::{
    self, PluginKind,
    balanced_allocation::BalancedAllocation,
    dynamic_resources::{self, DynamicResources},
    image_locality::ImageLocality,
    inter_pod_affinity, node_affinity,
    node_name::NodeName,
    node_ports::WantedPorts,
    node_resources_fit::NodeResourcesFit,
    node_unschedulable::NodeUnschedulable,
    node_volume_limits, pod_topology_spread, taint_toleration, volume_binding, volume_restrictions,
    volume_zone,
};
use super::preemption::{DRA_NO_CLAIMS, DRA_STATE_NOT_FOUND};
use super::reuse::{self, Kept};
use super::volumes::PreFiltered;
use super::{Decision, NodeScores, NodeVerdict, Scheduler};
use crate::profile::{NODE_AFFINITY, Point};

/// Upstream's ErrNoNodesAvailable: the FailedScheduling message of a cluster without nodes.
pub(crate) const NO_NODES: &str = "no nodes available to schedule pods";
use df_model::Pod;

/// One filter's verdict on one node, for `explain-placement --node`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterOutcome {
    pub plugin: &'static str,
    pub passed: bool,
    /// The status code upstream's plugin returns.
    #[serde(skip)]
    pub code: Code,
    pub reasons: Vec<String>,
    /// The inputs that decided it, in words.
    pub detail: String,
}

/// One score on one node, with its inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreOutcome {
    pub plugin: String,
    pub raw: i64,
    pub normalized: i64,
    pub weight: i64,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeDetail {
    pub node: String,
    pub feasible: bool,
    pub filters: Vec<FilterOutcome>,
    /// Empty for an infeasible node: upstream scores only the nodes that pass every filter.
    pub scores: Vec<ScoreOutcome>,
    pub total: Option<i64>,
}

/// Every filter plugin's PreFilter state for this cycle.
pub(super) struct Cycle<'s, 'a> {
    cx: Context<'s, 'a>,
    node_affinity: node_affinity::NodeNameSet,
    node_ports: WantedPorts,
    volume_restrictions: volume_restrictions::VolumeRestrictions,
    node_volume_limits: node_volume_limits::NodeVolumeLimits,
    volume_binding: volume_binding::VolumeBinding<'a>,
    volume_zone: volume_zone::VolumeZone,
    spread: pod_topology_spread::HardSpread,
    inter_pod_affinity: inter_pod_affinity::RequiredTerms,
    dynamic_resources: DynamicResources,
}

/// One score plugin's normalised scores over the feasible nodes (in their order), their raw
/// scores, and the explained node's raw score and inputs.
struct PluginScores {
    name: &'static str,
    weight: i64,
    raw: Vec<i64>,
    normalized: Vec<i64>,
    explained: Option<(i64, String)>,
}

/// A cycle's verdicts before scoring (with, for the explained node, every filter's outcome),
/// and for a pod whose work can be kept, that work.
struct Judged {
    verdicts: Vec<NodeVerdict>,
    detail_filters: Vec<FilterOutcome>,
    work: Option<Work>,
}

/// A template's work in a cycle: taken from what was kept, with the candidates (by position)
/// judged again since; or judged afresh (the verdicts before scoring).
enum Work {
    Reused { changed: Vec<bool>, kept: Kept },
    Fresh(Vec<NodeVerdict>),
}

/// The feasible nodes a cycle scores, with what it may take from a template's kept work.
struct Feasible<'k> {
    /// Node indexes.
    nodes: Vec<usize>,
    /// Their positions among the candidates.
    positions: Vec<usize>,
    /// Kept raw scores, per plugin by candidate position, and by candidate position whether
    /// the node changed since (it is scored again).
    kept: Option<(&'k [Vec<i64>], &'k [bool])>,
}

impl Feasible<'_> {
    /// The kept raw score of plugin `slot` on the `k`-th feasible node, when it still holds.
    fn kept(&self, slot: usize, k: usize) -> Option<i64> {
        let (raw, changed) = self.kept?;
        let position = self.positions[k];
        if changed[position] {
            return None;
        }
        raw.get(slot).map(|scores| scores[position])
    }
}

impl<'s, 'a> Cycle<'s, 'a> {
    /// PreFilter: each plugin's state, computed once for every node this cycle filters.
    pub(super) fn new(sched: &'s Scheduler<'a>, pod: &'s Pod) -> Self {
        let cx = Context::new(sched, pod);
        Cycle {
            node_affinity: PreFilter::pre_filter(&cx),
            node_ports: PreFilter::pre_filter(&cx),
            volume_restrictions: volume_restrictions::pre_filter(sched, pod),
            node_volume_limits: node_volume_limits::pre_filter(pod),
            volume_binding: volume_binding::pre_filter(sched, pod),
            volume_zone: volume_zone::pre_filter(sched, pod),
            spread: PreFilter::pre_filter(&cx),
            inter_pod_affinity: PreFilter::pre_filter(&cx),
            dynamic_resources: PreFilter::pre_filter(&cx),
            cx,
        }
    }

    /// The PreFilter that rejected the pod outright, in upstream's PreFilter order (it stops at
    /// the first UnschedulableAndUnresolvable one): every node gets its status, with the
    /// PreFilter's inputs in words.
    fn rejection(&self) -> Option<(PluginKind, Status, String)> {
        let runs = |kind: PluginKind| self.cx.profile.runs(Point::Filter, kind.name());
        if self.node_affinity == node_affinity::NodeNameSet::Conflict
            && runs(PluginKind::NodeAffinity)
        {
            return Some((
                PluginKind::NodeAffinity,
                Status::new(
                    Code::UnschedulableAndUnresolvable,
                    node_affinity::REASON_CONFLICT,
                ),
                self.node_affinity.describe(),
            ));
        }
        [
            (
                PluginKind::VolumeRestrictions,
                self.volume_restrictions.rejection(),
            ),
            (PluginKind::VolumeBinding, self.volume_binding.rejection()),
            (PluginKind::VolumeZone, self.volume_zone.rejection()),
            (
                PluginKind::DynamicResources,
                self.dynamic_resources.pre_filtered.rejection(),
            ),
        ]
        .into_iter()
        .filter(|(kind, _)| runs(*kind))
        .find_map(|(kind, status)| {
            let status = status?.clone();
            let detail = status.reasons.join(", ");
            Some((kind, status, detail))
        })
    }

    /// Whether `kind`'s PreFilter said Skip: upstream runs no Filter of it, and an
    /// explanation leaves it out.
    fn skipped(&self, kind: PluginKind) -> bool {
        fn skip<T>(state: &PreFiltered<T>) -> bool {
            matches!(state, PreFiltered::Skip)
        }
        match kind {
            PluginKind::VolumeRestrictions => skip(&self.volume_restrictions),
            PluginKind::NodeVolumeLimits => skip(&self.node_volume_limits),
            PluginKind::VolumeBinding => skip(&self.volume_binding),
            PluginKind::VolumeZone => skip(&self.volume_zone),
            PluginKind::DynamicResources => skip(&self.dynamic_resources.pre_filtered),
            _ => false,
        }
    }

    /// Filter: `kind`'s verdict on `node`, and with `describe`, the inputs in words.
    fn filter(&self, kind: PluginKind, node: usize, describe: bool) -> (Status, String) {
        fn call(
            plugin: &dyn Filter,
            cx: &Context,
            node: usize,
            describe: bool,
        ) -> (Status, String) {
            let detail = if describe {
                plugin.describe_filter(cx, node)
            } else {
                String::new()
            };
            (plugin.filter(cx, node), detail)
        }
        let plugin: &dyn Filter = match kind {
            PluginKind::NodeUnschedulable => &NodeUnschedulable,
            PluginKind::NodeName => &NodeName,
            PluginKind::TaintToleration => &taint_toleration::TaintToleration,
            PluginKind::NodeAffinity => &self.node_affinity,
            PluginKind::NodePorts => &self.node_ports,
            PluginKind::NodeResourcesFit => &NodeResourcesFit,
            PluginKind::VolumeRestrictions => &self.volume_restrictions,
            PluginKind::NodeVolumeLimits => &self.node_volume_limits,
            PluginKind::VolumeBinding => &self.volume_binding,
            PluginKind::VolumeZone => &self.volume_zone,
            PluginKind::PodTopologySpread => &self.spread,
            PluginKind::InterPodAffinity => &self.inter_pod_affinity,
            PluginKind::DynamicResources => &self.dynamic_resources.pre_filtered,
            PluginKind::BalancedAllocation | PluginKind::ImageLocality => {
                return (Status::success(), String::new());
            }
        };
        call(plugin, &self.cx, node, describe)
    }

    /// PreScore, Score and NormalizeScore of one plugin (the `slot`-th scorer) over the
    /// feasible nodes.
    fn score<P: PreScore + Score>(
        &self,
        (slot, name, weight): (usize, &'static str, i64),
        feasible: &Feasible,
        explained: Option<usize>,
    ) -> PluginScores {
        let state = P::pre_score(&self.cx, &feasible.nodes);
        let mut scores: Vec<(usize, i64)> = feasible
            .nodes
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let raw = feasible
                    .kept(slot, k)
                    .unwrap_or_else(|| state.score(&self.cx, i));
                (i, raw)
            })
            .collect();
        let raw = scores.iter().map(|(_, s)| *s).collect();
        let explained = explained.and_then(|node| {
            let raw = scores.iter().find(|(i, _)| *i == node)?.1;
            Some((raw, state.describe_score(&self.cx, node)))
        });
        state.normalize(&mut scores);
        PluginScores {
            name,
            weight,
            raw,
            normalized: scores.into_iter().map(|(_, s)| s).collect(),
            explained,
        }
    }

    fn score_plugins(&self, feasible: &Feasible, explained: Option<usize>) -> Vec<PluginScores> {
        use pod_topology_spread::SoftSpread;
        use taint_toleration::PreferNoScheduleTolerations;
        let mut out = Vec::new();
        for (name, &weight) in &self.cx.profile.score_weights {
            let Some(registration) = plugins::registration(name).filter(|r| r.score) else {
                continue;
            };
            let plugin = (out.len(), registration.name, weight);
            out.push(match registration.kind {
                PluginKind::TaintToleration => {
                    self.score::<PreferNoScheduleTolerations>(plugin, feasible, explained)
                }
                PluginKind::NodeAffinity => {
                    self.score::<node_affinity::PreferredNodeAffinity>(plugin, feasible, explained)
                }
                PluginKind::NodeResourcesFit => {
                    self.score::<NodeResourcesFit>(plugin, feasible, explained)
                }
                PluginKind::BalancedAllocation => {
                    self.score::<BalancedAllocation>(plugin, feasible, explained)
                }
                PluginKind::ImageLocality => {
                    self.score::<ImageLocality>(plugin, feasible, explained)
                }
                PluginKind::InterPodAffinity => {
                    self.score::<inter_pod_affinity::PreferredTerms>(plugin, feasible, explained)
                }
                PluginKind::PodTopologySpread => {
                    self.score::<SoftSpread>(plugin, feasible, explained)
                }
                // VolumeBinding's PreScore skips without the StorageCapacityScoring gate;
                // DynamicResources scores from 1.35 on, only `firstAvailable` choices (not
                // modelled).
                PluginKind::NodeUnschedulable
                | PluginKind::NodeName
                | PluginKind::NodePorts
                | PluginKind::VolumeRestrictions
                | PluginKind::NodeVolumeLimits
                | PluginKind::VolumeBinding
                | PluginKind::VolumeZone
                | PluginKind::DynamicResources => {
                    continue;
                }
            });
        }
        out
    }

    /// Whether the nodes' verdicts and raw scores for this pod change only where pods come
    /// and go (see [`reuse`](crate::reuse)): no volume or claim to look up, no ScheduleAnyway
    /// spreading.
    fn reusable(&self) -> bool {
        [
            PluginKind::VolumeRestrictions,
            PluginKind::NodeVolumeLimits,
            PluginKind::VolumeBinding,
            PluginKind::VolumeZone,
            PluginKind::DynamicResources,
        ]
        .into_iter()
        .all(|kind| self.skipped(kind))
            && !pod_topology_spread::spreads_softly(&self.cx)
    }

    /// What DynamicResources' PostFilter says when no node fits (the gate on, 1.34+): `not
    /// found` when its PreFilter never ran (an earlier PreFilter rejected the pod, or the
    /// profile turns its filter off), so it has no cycle state; `no new claims to deallocate`
    /// for a pod without claims (or rejected in its own PreFilter); else whether an allocated
    /// claim out of a rejected node's reach would be deallocated.
    fn dra_post_filter(
        &self,
        rejected_by: Option<PluginKind>,
        verdicts: &[NodeVerdict],
    ) -> Option<&'static str> {
        let profile = self.cx.profile;
        if !profile.version.dynamic_resources_enabled() {
            return None;
        }
        let ran = profile.runs(Point::Filter, dynamic_resources::NAME)
            && rejected_by.is_none_or(|kind| kind == PluginKind::DynamicResources);
        if !ran {
            return Some(DRA_STATE_NOT_FOUND);
        }
        Some(match &self.dynamic_resources.pre_filtered {
            PreFiltered::Run(state) => {
                let rejected: Vec<&df_model::Node> = verdicts
                    .iter()
                    .filter(|v| !v.feasible)
                    .map(|v| self.cx.node(v.index))
                    .collect();
                state.post_filter(self.cx.pod, &rejected)
            }
            PreFiltered::Skip | PreFiltered::Reject(_) => DRA_NO_CLAIMS,
        })
    }

    /// Filter: one node's verdict, and with `explained` naming it, every filter's outcome on
    /// it (without stopping at the first failure).
    fn judge(
        &self,
        index: usize,
        explained: Option<usize>,
        rejection: Option<&(PluginKind, Status, String)>,
        filters: &[&plugins::Registration],
    ) -> (NodeVerdict, Vec<FilterOutcome>) {
        let explain = explained == Some(index);
        let name = self.cx.sched.node_names[index];
        let mut detail_filters = Vec::new();
        let mut failed: Option<(&'static str, Status)> = None;
        let node_affinity_runs = self.cx.profile.runs(Point::Filter, NODE_AFFINITY);
        if let Some((kind, status, detail)) = rejection {
            // Rejected at PreFilter: upstream runs no filter at all.
            if explain {
                detail_filters.push(FilterOutcome {
                    plugin: kind.name(),
                    passed: false,
                    code: status.code,
                    reasons: status.reasons.clone(),
                    detail: format!("PreFilter: {detail}"),
                });
            }
            failed = Some((kind.name(), status.clone()));
        } else if let Some(status) = self
            .node_affinity
            .status(&self.cx.node(index).metadata.name)
            .filter(|_| node_affinity_runs)
        {
            // Left out at PreFilter: upstream runs no filter on it.
            if explain {
                detail_filters.push(FilterOutcome {
                    plugin: PluginKind::NodeAffinity.name(),
                    passed: false,
                    code: status.code,
                    reasons: status.reasons.clone(),
                    detail: format!("PreFilter: {}", self.node_affinity.describe()),
                });
            }
            failed = Some((PluginKind::NodeAffinity.name(), status));
        } else {
            for registration in filters {
                let (status, detail) = self.filter(registration.kind, index, explain);
                if explain {
                    detail_filters.push(FilterOutcome {
                        plugin: registration.name,
                        passed: status.is_success(),
                        code: status.code,
                        reasons: status.reasons.clone(),
                        detail,
                    });
                }
                if !status.is_success() && failed.is_none() {
                    failed = Some((registration.name, status));
                    if !explain {
                        break;
                    }
                }
            }
        }
        let verdict = NodeVerdict {
            name,
            index,
            feasible: failed.is_none(),
            code: failed.as_ref().map(|(_, s)| s.code),
            failed_plugin: failed.as_ref().map(|(p, _)| *p),
            reasons: failed.map(|(_, s)| s.reasons.into()).unwrap_or_default(),
            scores: NodeScores::default(),
            score: None,
        };
        (verdict, detail_filters)
    }

    /// Every candidate's verdict, and with `explained` naming one, every filter's outcome on
    /// it. Judged on this thread: a cycle is about a millisecond of work on 5,000 nodes, less
    /// than starting threads for it costs (measured: 4.3 s for 2,000 pods here, 4.7 s with the
    /// nodes shared out over two cores per cycle).
    fn judge_all(
        &self,
        candidates: &[usize],
        explained: Option<usize>,
        rejection: Option<&(PluginKind, Status, String)>,
        filters: &[&plugins::Registration],
    ) -> (Vec<NodeVerdict>, Vec<FilterOutcome>) {
        let mut detail_filters = Vec::new();
        let mut verdicts = Vec::with_capacity(candidates.len());
        for &index in candidates {
            let (verdict, filters) = self.judge(index, explained, rejection, filters);
            detail_filters.extend(filters);
            verdicts.push(verdict);
        }
        (verdicts, detail_filters)
    }

    /// The candidates' verdicts, judged afresh or, for the next pod of a template, taken from
    /// the work kept for it with only the nodes that changed since judged again.
    fn judge_candidates(
        &self,
        candidates: &[usize],
        explained: Option<usize>,
        rejection: Option<&(PluginKind, Status, String)>,
        filters: &[&plugins::Registration],
    ) -> Judged {
        let reusable = explained.is_none() && rejection.is_none() && self.reusable();
        let reused = reusable
            .then(|| self.cx.sched.memory.take(self.cx.pod, candidates))
            .flatten()
            .filter(|(_, kept)| kept.spread_minimum == self.spread.minimum())
            .and_then(|(seen, kept)| {
                let changed = reuse::changed_since(&self.cx, &self.spread, seen, candidates)?;
                Some((changed, kept))
            });
        if let Some((changed, mut kept)) = reused {
            for (position, &index) in candidates.iter().enumerate() {
                if changed[position] {
                    kept.verdicts[position] = self.judge(index, None, None, filters).0;
                }
            }
            return Judged {
                verdicts: kept.verdicts.clone(),
                detail_filters: Vec::new(),
                work: Some(Work::Reused { changed, kept }),
            };
        }
        let (verdicts, detail_filters) = self.judge_all(candidates, explained, rejection, filters);
        Judged {
            work: reusable.then(|| Work::Fresh(verdicts.clone())),
            verdicts,
            detail_filters,
        }
    }

    /// Keep this cycle's work for the next pod of its template: the verdicts before scoring
    /// and the raw scores of the feasible nodes (at candidate `positions`).
    fn keep_work(
        &self,
        candidates: &[usize],
        work: Work,
        scored: &[PluginScores],
        positions: &[usize],
    ) {
        let mut kept = match work {
            Work::Reused { kept, .. } => kept,
            Work::Fresh(verdicts) => Kept {
                verdicts,
                raw: Vec::new(),
                spread_minimum: self.spread.minimum().to_vec(),
            },
        };
        kept.raw
            .resize_with(scored.len(), || vec![0; candidates.len()]);
        for (by_position, plugin) in kept.raw.iter_mut().zip(scored) {
            for (k, &position) in positions.iter().enumerate() {
                by_position[position] = plugin.raw[k];
            }
        }
        let seen = self.cx.sched.changes.len();
        self.cx
            .sched
            .memory
            .keep(self.cx.pod, candidates, seen, kept);
    }

    /// Decide among `candidates`; with `explained`, also every filter's verdict (without
    /// stopping at the first failure) and every score of that node, from the same calls.
    pub(super) fn run(
        &self,
        candidates: &[usize],
        explained: Option<usize>,
    ) -> (Decision, Option<NodeDetail>) {
        let gated = plugins::scheduling_gates::pre_enqueue(self.cx.pod).filter(|_| {
            self.cx
                .profile
                .runs(Point::PreEnqueue, plugins::scheduling_gates::NAME)
        });
        if let Some(waiting) = gated.or_else(|| self.dynamic_resources.waiting.clone()) {
            // PreEnqueue: the pod never reaches a scheduling cycle.
            let decision = Decision {
                summary: Some(waiting),
                problems: self.cx.problems.clone(),
                aborted: true,
                ..Decision::default()
            };
            return (decision, None);
        }
        let rejection = self.rejection();
        let profile = self.cx.profile;
        let filters: Vec<&plugins::Registration> = plugins::filters()
            .filter(|r| profile.runs(Point::Filter, r.name) && !self.skipped(r.kind))
            .collect();
        let Judged {
            mut verdicts,
            mut detail_filters,
            work,
        } = self.judge_candidates(candidates, explained, rejection.as_ref(), &filters);
        let positions: Vec<usize> = (0..verdicts.len())
            .filter(|&p| verdicts[p].feasible)
            .collect();
        let feasible = Feasible {
            nodes: positions.iter().map(|&p| verdicts[p].index).collect(),
            positions,
            kept: match &work {
                Some(Work::Reused { changed, kept }) => Some((&kept.raw[..], &changed[..])),
                _ => None,
            },
        };
        let scored = if feasible.nodes.is_empty() {
            Vec::new()
        } else {
            self.score_plugins(&feasible, explained)
        };
        let Feasible {
            nodes: feasible,
            positions,
            ..
        } = feasible;
        if let Some(work) = work {
            self.keep_work(candidates, work, &scored, &positions);
        }
        let slots: Vec<(usize, &PluginScores)> = scored
            .iter()
            .filter_map(|p| Some((NodeScores::slot(p.name)?, p)))
            .collect();
        let mut best: Option<i64> = None;
        for (position, verdict) in verdicts.iter_mut().filter(|v| v.feasible).enumerate() {
            let mut total = 0;
            for &(slot, plugin) in &slots {
                let score = plugin.normalized[position];
                verdict.scores.set(slot, score);
                total += score * plugin.weight;
            }
            verdict.score = Some(total);
            best = Some(best.map_or(total, |b| b.max(total)));
        }
        let mut tied: Vec<&NodeVerdict> = verdicts
            .iter()
            .filter(|v| v.score.is_some() && v.score == best)
            .collect();
        tied.sort_unstable_by_key(|v| self.cx.sched.name_rank[v.index]);
        let tied: Vec<&'static str> = tied.into_iter().map(|v| v.name).collect();
        // A Filter error (the first node whose first failure is one) ends the attempt: no
        // node is chosen, no summary of the nodes, no PostFilter (upstream `running
        // "<plugin>" filter plugin: <error>`).
        let error = verdicts
            .iter()
            .find(|v| v.code == Some(Code::Error))
            .map(|v| {
                format!(
                    "running {:?} filter plugin: {}",
                    v.failed_plugin.unwrap_or_default(),
                    v.reasons.join(", ")
                )
            });
        let selected = tied
            .first()
            .map(|name| name.to_string())
            .filter(|_| error.is_none());
        let summary = error.clone().or_else(|| {
            selected.is_none().then(|| {
                if self.cx.sched.state.nodes.is_empty() {
                    // Upstream's ErrNoNodesAvailable: no filter runs, nothing is counted.
                    NO_NODES.to_string()
                } else if let Some((_, status, _)) = &rejection {
                    // A PreFilter rejection is said once, not counted per node (FitError).
                    format!(
                        "0/{} nodes are available: {}.",
                        candidates.len(),
                        status.reasons.join(", ")
                    )
                } else {
                    super::unschedulable_summary(candidates.len(), &verdicts)
                }
            })
        });
        let dra_post_filter = self.dra_post_filter(rejection.as_ref().map(|r| r.0), &verdicts);
        let detail = explained.and_then(|index| {
            let verdict = verdicts.iter().find(|v| v.index == index)?;
            let scores = if verdict.feasible {
                scored
                    .iter()
                    .map(|p| {
                        let position = feasible.iter().position(|&i| i == index).unwrap_or(0);
                        let (raw, detail) = p.explained.clone().unwrap_or_default();
                        ScoreOutcome {
                            plugin: p.name.to_string(),
                            raw,
                            normalized: p.normalized[position],
                            weight: p.weight,
                            detail,
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
            Some(NodeDetail {
                node: verdict.name.to_string(),
                feasible: verdict.feasible,
                filters: std::mem::take(&mut detail_filters),
                scores,
                total: verdict.score,
            })
        });
        let decision = Decision {
            nodes: verdicts,
            selected,
            tied: if tied.len() > 1 { tied } else { Vec::new() },
            summary,
            problems: self.cx.problems.clone(),
            dra_post_filter,
            aborted: error.is_some(),
        };
        (decision, detail)
    }
}
