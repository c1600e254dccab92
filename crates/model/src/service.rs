//! Services: kube-scheduler's default topology spreading selects a pod's peers by the selectors
//! of the Services that select the pod (`helper.DefaultSelector`).

use serde::{Deserialize, Serialize};

use crate::core::{Labels, ObjectMeta};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Service {
    pub metadata: ObjectMeta,
    pub spec: ServiceSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ServiceSpec {
    /// `None` (absent or null) selects nothing; an empty map selects every pod of the
    /// namespace (and narrows nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<Labels>,
}

impl Service {
    /// Whether the Service selects a pod with `labels` (upstream `GetPodServices`).
    pub fn selects(&self, labels: &Labels) -> bool {
        self.spec
            .selector
            .as_ref()
            .is_some_and(|selector| selector.iter().all(|(k, v)| labels.get(k) == Some(v)))
    }
}
