//! The members of the benchmarks' 1,000-pod gangs: `bench-0..` in `ns-00`, each with one
//! container asking for 500m CPU and 1Gi, so the gang and topology figures compare.

use df_model::{
    Container, Labels, ObjectMeta, Pod, PodSpec, Quantity, ResourceList, ResourceRequirements,
};

/// `count` member pods with these labels, for the scheduler named `scheduler_name` (empty for
/// the default scheduler).
pub fn member_pods(count: usize, labels: &Labels, scheduler_name: &str) -> Vec<Pod> {
    let requests = ResourceList::from([
        ("cpu".to_string(), Quantity::parse("500m").unwrap()),
        ("memory".to_string(), Quantity::parse("1Gi").unwrap()),
    ]);
    (0..count)
        .map(|i| Pod {
            metadata: ObjectMeta {
                name: format!("bench-{i}"),
                namespace: "ns-00".into(),
                labels: labels.clone(),
                ..Default::default()
            },
            spec: PodSpec {
                scheduler_name: scheduler_name.into(),
                containers: vec![Container {
                    name: "worker".into(),
                    resources: ResourceRequirements {
                        requests: requests.clone(),
                        ..Default::default()
                    },
                    ..Default::default()
                }],
                ..Default::default()
            },
            status: Default::default(),
        })
        .collect()
}
