//! The Kubernetes minor whose kube-scheduler the engine reproduces, and the differences between
//! the supported minors that change a placement or a message: each is one method here, asked
//! where it matters, with a test for both sides.

use std::fmt;

use df_model::gang::{
    WORKLOAD_API_V1ALPHA1, WORKLOAD_API_V1ALPHA2, WORKLOAD_API_V1ALPHA3, WORKLOAD_API_V1BETA1,
};

/// The oldest and newest minors of Kubernetes 1.x the engine reproduces.
pub const OLDEST_MINOR: u32 = 32;
pub const NEWEST_MINOR: u32 = 37;

/// Every difference between the supported releases the engine reproduces: the release it
/// starts in and what changes, for `version` and the docs. Each is one switch below.
pub const DIFFERENCES: &[(u32, &str)] = &[
    (
        34,
        "DynamicResources joins the default profile (the DynamicResourceAllocation gate is on): \
         pods' ResourceClaims get devices from ResourceSlices; its Filter runs last and its \
         PostFilter before DefaultPreemption's, speaking first in FailedScheduling messages (\"no new claims to deallocate, preemption: \
         ...\"; \"not found\" when an earlier PreFilter rejected the pod)",
    ),
    (
        34,
        "TaintToleration's reason no longer names the taint: \"node(s) had untolerated \
         taint(s)\" (before: \"node(s) had untolerated taint {key: value}\")",
    ),
    (
        34,
        "VolumeAttributesClass is GA: VolumeBinding binds a claim only to a volume of the same \
         volumeAttributesClassName (before: a claim naming one fails VolumeBinding's Filter \
         with an error, and a volume naming one is never chosen)",
    ),
    (
        35,
        "The Workload API is served: scheduling.k8s.io/v1alpha1 Workload (gangs inline, pods \
         join by spec.workloadRef); before 1.35 none, and its objects are an error",
    ),
    (
        35,
        "DynamicResources skips an invalid or incomplete resource pool (\"invalid resource pools \
         were encountered\" when nothing else fits) instead of failing the pod's attempt",
    ),
    (
        36,
        "The Workload API moves to scheduling.k8s.io/v1alpha2: Workload (templates) and the \
         runtime PodGroup, pods join by spec.schedulingGroup; v1alpha1 is no longer served",
    ),
    (
        36,
        "NodeResourcesBalancedAllocation scores the change in balance: 50 + (50 + with - \
         without) / 2",
    ),
    (
        36,
        "DynamicResources allocates partitionable devices from their pool's shared counters",
    ),
    (
        36,
        "DynamicResources keeps a device tainted NoSchedule or NoExecute from requests that do \
         not tolerate the taint",
    ),
    (
        36,
        "DynamicResources: a device search that runs out of time fails the pod's attempt (before: \
         the node is UnschedulableAndUnresolvable)",
    ),
    (
        36,
        "DynamicResources: \"was not created for Pod ... (Pod is not owner)\" (before: lower-case \
         pod)",
    ),
    (
        37,
        "The Workload API is served in scheduling.k8s.io/v1alpha3 and v1beta1 (the same \
         fields); v1alpha2 is no longer served",
    ),
    (
        37,
        "DynamicResources: a CEL runtime error names the device, with a hint for missing keys",
    ),
];

/// A Kubernetes release, `1.MINOR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    #[error("invalid Kubernetes version {0:?}: expected MAJOR.MINOR, such as 1.34")]
    Invalid(String),
    #[error(
        "Kubernetes {0} is not supported: the engine reproduces 1.{OLDEST_MINOR} to 1.{NEWEST_MINOR}"
    )]
    Unsupported(String),
}

impl KubeVersion {
    /// The release the engine answers for when nothing says which one the cluster runs.
    pub const DEFAULT: KubeVersion = KubeVersion { minor: 34 };

    /// `1.34`, `v1.34`, or a full server version (`v1.34.2`, `1.34.1-gke.100`).
    pub fn parse(text: &str) -> Result<KubeVersion, VersionError> {
        let invalid = || VersionError::Invalid(text.to_string());
        let mut parts = text.trim().trim_start_matches('v').split('.');
        let major = parts.next().ok_or_else(invalid)?;
        let minor = parts.next().ok_or_else(invalid)?;
        // Providers append their own suffix to the minor (`34+`) or the patch.
        let digits: String = minor.chars().take_while(char::is_ascii_digit).collect();
        let minor: u32 = digits.parse().map_err(|_| invalid())?;
        if major != "1" || !(OLDEST_MINOR..=NEWEST_MINOR).contains(&minor) {
            return Err(VersionError::Unsupported(format!("{major}.{minor}")));
        }
        Ok(KubeVersion { minor })
    }

    /// DynamicResourceAllocation is on by default (beta, off, before 1.34; GA since): the
    /// DynamicResources plugin is in the default profile, before DefaultPreemption, so its
    /// PostFilter speaks first in every FailedScheduling message.
    pub fn dynamic_resources_enabled(self) -> bool {
        self.minor >= 34
    }
}

impl KubeVersion {
    /// TaintToleration names the untolerated taint in its reason (`node(s) had untolerated
    /// taint {key: value}`) before 1.34; from 1.34 (its later patches, and 1.35 on) the reason
    /// is `node(s) had untolerated taint(s)` and the taint is only logged.
    pub fn taint_reason_names_the_taint(self) -> bool {
        self.minor < 34
    }

    /// NodeResourcesBalancedAllocation scores the change in balance from 1.36 (kubernetes
    /// #135573): `50 + (50 + with - without) / 2`, where each is `(1 - std) * 100` of the
    /// node's fractions with and without the pod; before, the balance with the pod alone.
    pub fn balanced_allocation_scores_the_change(self) -> bool {
        self.minor >= 36
    }

    /// The VolumeAttributesClass feature gate is on (GA in 1.34; beta and off by default in
    /// 1.32 and 1.33): component-helpers' `FindMatchingVolume` compares the claim's and the
    /// volume's attributes classes; with it off, a claim that names one is an error and a
    /// volume that names one is skipped.
    pub fn volume_attributes_class_enabled(self) -> bool {
        self.minor >= 34
    }
}

/// The DynamicResources plugin and its allocator.
impl KubeVersion {
    /// An invalid pool (a device listed twice) is skipped, not an error of the pod's attempt,
    /// and so is a pool missing slices, counted over the whole cluster (1.35: kubernetes
    /// #133680); a device taint of effect `None` no longer blocks.
    pub fn dra_skips_bad_pools(self) -> bool {
        self.minor >= 35
    }

    /// DRAPartitionableDevices is on (beta, 1.36): devices consume their pool's shared counters.
    pub fn dra_partitionable_devices(self) -> bool {
        self.minor >= 36
    }

    /// DRADeviceTaints is on (beta, 1.36): a device tainted NoSchedule or NoExecute is only
    /// for requests that tolerate the taint.
    pub fn dra_device_taints(self) -> bool {
        self.minor >= 36
    }

    /// The search's timeout is an Error of the attempt (`node <n>: timed out trying to
    /// allocate devices`), before 1.36 an UnschedulableAndUnresolvable node.
    pub fn dra_timeout_is_an_error(self) -> bool {
        self.minor >= 36
    }

    /// `was not created for Pod ... (Pod is not owner)`, before 1.36 lower-case `pod`.
    pub fn dra_capitalises_pod(self) -> bool {
        self.minor >= 36
    }

    /// A CEL runtime error names the device (`selector #0 on device d/p/g0`) and, for a
    /// missing key, suggests `.?`/`has()`.
    pub fn dra_cel_error_names_device(self) -> bool {
        self.minor >= 37
    }

    /// The `scheduling.k8s.io` versions the release serves the Workload API (`Workload`, and
    /// from 1.36 the runtime `PodGroup`) in: kubernetes/api `scheduling/*/register.go` of each
    /// release branch. None before 1.35.
    pub fn workload_api_versions(self) -> &'static [&'static str] {
        match self.minor {
            35 => &[WORKLOAD_API_V1ALPHA1],
            36 => &[WORKLOAD_API_V1ALPHA2],
            minor if minor >= 37 => &[WORKLOAD_API_V1ALPHA3, WORKLOAD_API_V1BETA1],
            _ => &[],
        }
    }

    /// The releases the engine reproduces that serve `api_version` of the Workload API.
    pub fn serving_workload_api(api_version: &str) -> impl Iterator<Item = KubeVersion> + '_ {
        (OLDEST_MINOR..=NEWEST_MINOR)
            .map(|minor| KubeVersion { minor })
            .filter(move |v| v.workload_api_versions().contains(&api_version))
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion::DEFAULT
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_as_kubectl_and_servers_print_them() {
        let cases = [
            ("1.34", Ok(34)),
            ("v1.32", Ok(32)),
            ("v1.37.0-beta.0", Ok(37)),
            ("1.35+", Ok(35)),
            ("1.33.4-gke.1200", Ok(33)),
            (
                "1.31",
                Err("Kubernetes 1.31 is not supported: the engine reproduces 1.32 to 1.37"),
            ),
            (
                "2.1",
                Err("Kubernetes 2.1 is not supported: the engine reproduces 1.32 to 1.37"),
            ),
            (
                "latest",
                Err("invalid Kubernetes version \"latest\": expected MAJOR.MINOR, such as 1.34"),
            ),
        ];
        for (text, want) in cases {
            let got = KubeVersion::parse(text)
                .map(|v| v.minor)
                .map_err(|e| e.to_string());
            assert_eq!(got, want.map_err(str::to_string), "{text}");
        }
    }

    /// Each switch, by the releases it is on in.
    #[test]
    fn every_switch_flips_at_its_release() {
        let on = |switch: fn(KubeVersion) -> bool| -> Vec<u32> {
            (OLDEST_MINOR..=NEWEST_MINOR)
                .filter(|&minor| switch(KubeVersion { minor }))
                .collect()
        };
        assert_eq!(on(KubeVersion::dynamic_resources_enabled), [34, 35, 36, 37]);
        assert_eq!(on(KubeVersion::taint_reason_names_the_taint), [32, 33]);
        assert_eq!(
            on(KubeVersion::balanced_allocation_scores_the_change),
            [36, 37]
        );
        assert_eq!(
            on(KubeVersion::volume_attributes_class_enabled),
            [34, 35, 36, 37]
        );
        assert_eq!(on(KubeVersion::dra_skips_bad_pools), [35, 36, 37]);
        assert_eq!(on(KubeVersion::dra_partitionable_devices), [36, 37]);
        assert_eq!(on(KubeVersion::dra_device_taints), [36, 37]);
        assert_eq!(on(KubeVersion::dra_timeout_is_an_error), [36, 37]);
        assert_eq!(on(KubeVersion::dra_capitalises_pod), [36, 37]);
        assert_eq!(on(KubeVersion::dra_cel_error_names_device), [37]);
    }

    /// Each Workload API version by the releases that serve it (kubernetes/api release
    /// branches: 1.35 `scheduling/v1alpha1`, 1.36 `v1alpha2`, 1.37 `v1alpha3` and `v1beta1`).
    #[test]
    fn each_workload_api_version_is_served_by_its_releases() {
        let cases = [
            (WORKLOAD_API_V1ALPHA1, vec![35]),
            (WORKLOAD_API_V1ALPHA2, vec![36]),
            (WORKLOAD_API_V1ALPHA3, vec![37]),
            (WORKLOAD_API_V1BETA1, vec![37]),
            ("scheduling.k8s.io/v1", vec![]),
        ];
        for (api_version, releases) in cases {
            let served: Vec<u32> = KubeVersion::serving_workload_api(api_version)
                .map(|v| v.minor)
                .collect();
            assert_eq!(served, releases, "{api_version}");
        }
        assert!(KubeVersion { minor: 34 }.workload_api_versions().is_empty());
    }
}
