//! The Kubernetes minor whose kube-scheduler the engine reproduces, and the differences between
//! the supported minors that change a placement or a message: each is one method here, asked
//! where it matters, with a test for both sides.

use std::fmt;

/// The oldest and newest minors of Kubernetes 1.x the engine reproduces.
pub const OLDEST_MINOR: u32 = 32;
pub const NEWEST_MINOR: u32 = 37;

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

    #[test]
    fn dynamic_resources_join_the_default_profile_in_1_34() {
        let on: Vec<u32> = (OLDEST_MINOR..=NEWEST_MINOR)
            .filter(|&minor| KubeVersion { minor }.dynamic_resources_enabled())
            .collect();
        assert_eq!(on, [34, 35, 36, 37]);
    }
}
