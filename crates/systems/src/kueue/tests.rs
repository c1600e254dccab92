//! Kueue's resource order. Its flavor-assigner, scheduler and preemption tables run through
//! `plan` in `tests/cli/kueue_tables.rs`, where each row's Kueue objects and jobs are
//! manifests, as a user gives them.

use super::assign::in_hash_order;

#[test]
fn resources_go_in_kueues_hash_order() {
    let names: Vec<String> = [
        "cpu",
        "gpu",
        "example.com/gpu",
        "pods",
        "nvidia.com/gpu",
        "memory",
        "ephemeral-storage",
    ]
    .map(String::from)
    .to_vec();
    let order: Vec<&str> = in_hash_order(&names)
        .into_iter()
        .map(|s| s.as_str())
        .collect();
    assert_eq!(
        order,
        [
            "ephemeral-storage",
            "memory",
            "nvidia.com/gpu",
            "pods",
            "example.com/gpu",
            "gpu",
            "cpu"
        ]
    );
}
