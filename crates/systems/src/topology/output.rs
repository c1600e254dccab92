//! How a topology placement reads in the plan, whatever system asked for it: the
//! `groups[].topology` and `groups[].rejected` fields of `plan -o json`. Each pod's domain path
//! is its row's `domains`, aligned with the group's `levels` (the topology's levels, widest
//! first, then the node). A leaf: the gang report shape embeds these types.

use serde::Serialize;

/// How strictly a gang must stay inside one domain, in the words of the system that asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Volcano `networkTopology.mode: hard`.
    Hard,
    /// Volcano `networkTopology.mode: soft`.
    Soft,
    /// Kueue `podset-required-topology`, KEP-5732 required constraints.
    Required,
    /// Kueue `podset-preferred-topology`.
    Preferred,
    /// Kueue `podset-unconstrained-topology`.
    Unconstrained,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hard => "hard",
            Mode::Soft => "soft",
            Mode::Required => "required",
            Mode::Preferred => "preferred",
            Mode::Unconstrained => "unconstrained",
        }
    }

    /// Whether a gang that no allowed domain takes whole stays pending (rather than being
    /// spread over several domains).
    pub fn is_strict(self) -> bool {
        matches!(self, Mode::Hard | Mode::Required)
    }
}

/// One domain at one level: `tier1` `r1`, `cloud.provider.com/topology-rack` `rack-2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DomainRef {
    pub level: String,
    pub domain: String,
}

/// `groups[].topology`: what the gang asked for and the domain that took it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyPlan {
    /// Which mechanism asked: `volcano-hypernodes`, `kueue-tas`, `workload-topology`.
    pub system: &'static str,
    pub mode: Mode,
    /// The constraint as the gang wrote it (`highestTierAllowed 2`, `required rack`).
    pub constraint: String,
    /// The level the gang was kept within (the chosen domain's level, or, when none took it,
    /// the widest level allowed).
    pub constraining_level: String,
    /// The chosen domain at the constraining level and at every level above it, widest
    /// first; empty when no domain took the gang whole.
    pub chosen: Vec<DomainRef>,
}

/// `groups[].rejected[]`: a domain the gang was not placed in, and why, in numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RejectedDomain {
    pub level: String,
    pub domain: String,
    /// Pods of the gang (running ones counted) that fit in the domain.
    pub fit: usize,
    /// Pods the gang needs (its minimum).
    pub needed: usize,
    /// `6 of 8 pods fit (free resources and pod slots of its 4 nodes)`.
    pub reason: String,
}
