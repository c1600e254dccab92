//! The objects preemption reads besides pods: PriorityClasses (scheduling.k8s.io/v1), which give
//! pods their priority and preemption policy, and PodDisruptionBudgets (policy/v1), whose
//! recorded `status.disruptionsAllowed` decides which victims would violate a budget.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::core::{LabelSelector, ObjectMeta, null_as_default};

/// `value`, `globalDefault` and `preemptionPolicy` sit at the top level, not under a spec.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PriorityClass {
    pub metadata: ObjectMeta,
    pub value: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub global_default: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudgetSpec {
    /// A missing or empty selector matches no pod (upstream preemption skips such budgets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudgetStatus {
    pub disruptions_allowed: i32,
    /// Pods whose eviction the API server already processed: they no longer count against the
    /// budget.
    #[serde(
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub disrupted_pods: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudget {
    pub metadata: ObjectMeta,
    pub spec: PodDisruptionBudgetSpec,
    pub status: PodDisruptionBudgetStatus,
}

/// The priority classes every cluster has without recording them (the API server creates them).
pub(crate) const SYSTEM_PRIORITY_CLASSES: [(&str, i32); 2] = [
    ("system-cluster-critical", 2_000_000_000),
    ("system-node-critical", 2_000_001_000),
];

/// What the Priority admission plugin gives a pod: its priority and preemption policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodPriority {
    pub value: i32,
    /// `false` for `preemptionPolicy: Never`.
    pub may_preempt: bool,
    /// Set when the pod names a PriorityClass the state does not hold (admission would refuse
    /// the pod; the preview goes on with priority 0 and says so).
    pub missing_class: Option<String>,
}

/// Resolve a pod's priority as admission does: an explicit `spec.priority` (already admitted)
/// wins; else its `priorityClassName`; else the global default class (the lowest value if
/// several claim it); else 0. The policy comes from the pod, else from the class it resolved to.
pub fn pod_priority(spec: &super::PodSpec, classes: &[PriorityClass]) -> PodPriority {
    let named = (!spec.priority_class_name.is_empty()).then_some(spec.priority_class_name.as_str());
    let class = match named {
        Some(name) => classes.iter().find(|c| c.metadata.name == name),
        None => classes
            .iter()
            .filter(|c| c.global_default)
            .min_by_key(|c| c.value),
    };
    let system = named.and_then(|name| {
        SYSTEM_PRIORITY_CLASSES
            .iter()
            .find(|(system, _)| *system == name)
            .map(|(_, value)| *value)
    });
    let missing_class = match (named, class, system) {
        (Some(name), None, None) if spec.priority.is_none() => Some(name.to_string()),
        _ => None,
    };
    let value = spec
        .priority
        .or(class.map(|c| c.value))
        .or(system)
        .unwrap_or(0);
    let policy = spec
        .preemption_policy
        .as_deref()
        .or(class.and_then(|c| c.preemption_policy.as_deref()));
    PodPriority {
        value,
        may_preempt: policy != Some("Never"),
        missing_class,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PodSpec;

    fn class(name: &str, value: i32, global_default: bool, policy: Option<&str>) -> PriorityClass {
        PriorityClass {
            metadata: ObjectMeta {
                name: name.into(),
                ..Default::default()
            },
            value,
            global_default,
            preemption_policy: policy.map(String::from),
        }
    }

    #[test]
    fn priority_resolves_as_admission_does() {
        let classes = [
            class("high", 1000, false, None),
            class("batch", 10, true, Some("Never")),
            class("low-default", 5, true, None),
        ];
        let spec = |priority: Option<i32>, name: &str, policy: Option<&str>| PodSpec {
            priority,
            priority_class_name: name.into(),
            preemption_policy: policy.map(String::from),
            ..Default::default()
        };
        let cases = [
            (
                "explicit priority wins",
                spec(Some(7), "high", None),
                7,
                true,
                None,
            ),
            ("named class", spec(None, "high", None), 1000, true, None),
            ("lowest global default", spec(None, "", None), 5, true, None),
            (
                "pod policy overrides the class",
                spec(None, "high", Some("Never")),
                1000,
                false,
                None,
            ),
            (
                "system class needs no record",
                spec(None, "system-node-critical", None),
                2_000_001_000,
                true,
                None,
            ),
            (
                "missing class",
                spec(None, "gone", None),
                0,
                true,
                Some("gone".to_string()),
            ),
        ];
        for (name, spec, value, may_preempt, missing_class) in cases {
            assert_eq!(
                pod_priority(&spec, &classes),
                PodPriority {
                    value,
                    may_preempt,
                    missing_class
                },
                "{name}"
            );
        }
        let never_default = [class("batch", 10, true, Some("Never"))];
        let resolved = pod_priority(&PodSpec::default(), &never_default);
        assert_eq!((resolved.value, resolved.may_preempt), (10, false));
    }
}
