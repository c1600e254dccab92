//! A gang's topology placement as people read it: what it asked for, the domain chosen, the
//! placed pods as a tree (domain -> sub-domain -> node -> pods) and every domain turned down
//! with its numbers. Empty for gangs no network-topology-aware system constrains.

use std::collections::BTreeMap;

use df_systems::gang::GroupPlan;

/// The topology lines under a gang's table.
pub(crate) fn section(group: &GroupPlan) -> String {
    let Some(topology) = &group.topology else {
        return String::new();
    };
    let chosen = if topology.chosen.is_empty() {
        "no domain takes the gang whole".to_string()
    } else {
        let path: Vec<String> = topology
            .chosen
            .iter()
            .map(|d| format!("{} ({})", d.domain, d.level))
            .collect();
        format!("kept in {}", path.join(" > "))
    };
    let mut out = format!(
        "Topology ({}, {}, {}): {chosen}\n",
        topology.system,
        topology.mode.as_str(),
        topology.constraint
    );
    out.push_str(&tree(group));
    if !group.rejected.is_empty() {
        out.push_str(&format!(
            "Rejected domains (up to {}):\n",
            topology.constraining_level
        ));
        for r in &group.rejected {
            out.push_str(&format!("  {} ({}): {}\n", r.domain, r.level, r.reason));
        }
    }
    out
}

/// The placed pods under their domains, one level per indent, the node last with its pods in
/// planning order. Domains are sorted by name; a pod on a node outside any domain of a level
/// shows `-` there.
fn tree(group: &GroupPlan) -> String {
    let mut by_path: BTreeMap<Vec<String>, Vec<&str>> = BTreeMap::new();
    for row in &group.pods {
        if row.node.is_none() {
            continue;
        }
        let path: Vec<String> = row
            .domains
            .iter()
            .map(|d| d.clone().unwrap_or_else(|| "-".into()))
            .collect();
        by_path.entry(path).or_default().push(&row.pod);
    }
    let node_level = group.levels.len().saturating_sub(1);
    let mut out = String::new();
    let mut previous: Option<&Vec<String>> = None;
    for (path, pods) in &by_path {
        // The first level where this path leaves the previous one: print from there down.
        let from = previous.map_or(0, |p| {
            p.iter().zip(path).take_while(|(a, b)| a == b).count()
        });
        for (depth, domain) in path.iter().enumerate().skip(from) {
            let indent = "  ".repeat(depth + 1);
            if depth == node_level {
                out.push_str(&format!(
                    "{indent}{domain}: {}\n",
                    crate::excerpt::name_list(pods)
                ));
            } else {
                out.push_str(&format!("{indent}{domain} ({})\n", group.levels[depth]));
            }
        }
        previous = Some(path);
    }
    out
}

#[cfg(test)]
mod tests {
    use df_systems::topology::Mode;
    use df_systems::topology::fixtures::{cluster, gang, plan, request};

    use super::section;

    /// A gang of six kept in spine s0: the chosen domain, the tree of placed pods, and every
    /// rack turned down with its numbers (racks r2 and r1 hold 2 and 4 of the 2-CPU pods, r3's
    /// only node is tainted).
    #[test]
    fn a_kept_gang_reads_as_its_domain_tree_and_the_domains_turned_down() {
        let state = cluster();
        let plan = plan(&state, &gang(6, 6), &request(Mode::Hard, 2));
        assert_eq!(
            section(&plan),
            "Topology (test-topology, hard, highestTierAllowed 2): kept in s0 (tier2)\n\
             \x20 s0 (tier2)\n\
             \x20   r1 (tier1)\n\
             \x20     n1: train-0, train-4\n\
             \x20     n2: train-1, train-5\n\
             \x20   r2 (tier1)\n\
             \x20     n3: train-2\n\
             \x20     n4: train-3\n\
             Rejected domains (up to tier2):\n\
             \x20 r2 (tier1): 2 of 6 pods fit (free resources and pod slots of its 2 nodes)\n\
             \x20 r1 (tier1): 4 of 6 pods fit (free resources and pod slots of its 2 nodes)\n\
             \x20 r3 (tier1): 0 of 6 pods fit (free resources and pod slots of its 1 node)\n"
        );
    }
}
