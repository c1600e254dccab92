//! Which Kubernetes release a command answers for, and whether it serves the inputs: every
//! command builds its planning request on one release.
//!
//! `--kubernetes-version` when given, else the cluster's own (a live read's `/version`, or the
//! one a snapshot recorded), else the release that serves the Workload API version the inputs
//! use (an object of `scheduling.k8s.io/v1alpha2` was written for 1.36), else
//! [`KubeVersion::DEFAULT`]. A Workload API object of a version the chosen release does not
//! serve is refused with both named: its gang would be planned by rules that release does not
//! have.

use df_engine::versions::{KubeVersion, VersionError};
use df_manifest::ManifestSet;
use df_model::Object;
use df_model::gang::POD_GROUP_API_VERSIONS;
use df_state::ClusterState;

/// The release chosen, and what to tell the user about the choice (one line each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub version: KubeVersion,
    pub notes: Vec<String>,
}

/// A Workload API object the chosen release does not serve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {api_version} is not served by Kubernetes {version} ({served}){hint}")]
pub struct NotServed {
    /// `file:line:column: Kind/namespace/name`, or `cluster state: Kind/namespace/name`.
    pub at: String,
    pub api_version: String,
    pub version: KubeVersion,
    served: String,
    hint: String,
}

/// One Workload API object of the inputs or the state: where, and its `apiVersion`.
struct Use {
    at: String,
    api_version: String,
}

/// The Workload API objects of the manifests (first, with their positions) and of the state.
fn workload_api_uses(manifests: &ManifestSet, state: &ClusterState) -> Vec<Use> {
    let mut uses = Vec::new();
    for m in &manifests.manifests {
        let api_version = match &m.object {
            Object::SchedulingWorkload(w) => &w.api_version,
            Object::PodGroup(g) if POD_GROUP_API_VERSIONS.contains(&g.api_version.as_str()) => {
                &g.api_version
            }
            _ => continue,
        };
        uses.push(Use {
            at: format!(
                "{}:{}: {}",
                m.file,
                m.pos_of("apiVersion"),
                m.display_name()
            ),
            api_version: api_version.clone(),
        });
    }
    let named = |kind: &str, namespace: &str, name: &str| {
        format!("cluster state: {kind}/{namespace}/{name}")
    };
    for w in &state.scheduling_workloads {
        let at = named("Workload", &w.metadata.namespace, &w.metadata.name);
        let api_version = w.api_version.clone();
        uses.push(Use { at, api_version });
    }
    for g in &state.pod_groups {
        if POD_GROUP_API_VERSIONS.contains(&g.api_version.as_str()) {
            let at = named("PodGroup", &g.metadata.namespace, &g.metadata.name);
            let api_version = g.api_version.clone();
            uses.push(Use { at, api_version });
        }
    }
    uses
}

/// The release for `flag` (`--kubernetes-version`) and the cluster's `server` version, with
/// the inputs checked against it.
pub fn choose(
    flag: Option<KubeVersion>,
    server: Option<&str>,
    manifests: &ManifestSet,
    state: &ClusterState,
) -> Result<Release, NotServed> {
    let uses = workload_api_uses(manifests, state);
    let mut notes = Vec::new();
    let version = match (flag, server) {
        (Some(version), _) => version,
        (None, Some(server)) => KubeVersion::parse(server).unwrap_or_else(|e: VersionError| {
            notes.push(format!("warning: {e}; simulating {}", KubeVersion::DEFAULT));
            KubeVersion::DEFAULT
        }),
        (None, None) => {
            let inferred = uses.iter().find_map(|u| {
                let release = KubeVersion::serving_workload_api(&u.api_version).last()?;
                Some((release, &u.api_version))
            });
            match inferred {
                Some((release, api_version)) => {
                    notes.push(format!(
                        "note: simulating Kubernetes {release}, the release that serves {api_version}"
                    ));
                    release
                }
                None => KubeVersion::DEFAULT,
            }
        }
    };
    let served = version.workload_api_versions();
    if let Some(unserved) = uses
        .iter()
        .find(|u| !served.contains(&u.api_version.as_str()))
    {
        let releases: Vec<String> = KubeVersion::serving_workload_api(&unserved.api_version)
            .map(|v| v.to_string())
            .collect();
        return Err(NotServed {
            at: unserved.at.clone(),
            api_version: unserved.api_version.clone(),
            version,
            served: if served.is_empty() {
                "it serves no Workload API".to_string()
            } else {
                format!("it serves {}", served.join(" and "))
            },
            hint: match releases.first() {
                Some(release) => format!("; Kubernetes {release} serves it"),
                None => String::new(),
            },
        });
    }
    Ok(Release { version, notes })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use df_manifest::parse_text;

    fn manifests(text: &str) -> ManifestSet {
        let (manifests, problems) = parse_text(&Arc::from("w.yaml"), text);
        assert!(problems.is_empty(), "{problems:?}");
        ManifestSet {
            manifests,
            ..ManifestSet::default()
        }
    }

    const V1ALPHA2_GROUP: &str = "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n";
    const V1BETA1_GROUP: &str = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n";
    const V1ALPHA1_WORKLOAD: &str = "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\nspec: {podGroups: [{name: a, policy: {gang: {minCount: 2}}}]}\n";
    const COSCHEDULING_GROUP: &str = "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 2}\n";

    #[test]
    fn the_release_is_the_flag_the_cluster_the_inputs_or_the_default() {
        type Want = Result<(u32, &'static [&'static str]), &'static str>;
        let cases: [(Option<u32>, Option<&str>, &str, Want); 9] = [
            // Nothing says which release: the default, 1.34.
            (None, None, COSCHEDULING_GROUP, Ok((34, &[]))),
            (
                None,
                None,
                V1ALPHA2_GROUP,
                Ok((
                    36,
                    &[
                        "note: simulating Kubernetes 1.36, the release that serves scheduling.k8s.io/v1alpha2",
                    ],
                )),
            ),
            (
                None,
                None,
                V1BETA1_GROUP,
                Ok((
                    37,
                    &[
                        "note: simulating Kubernetes 1.37, the release that serves scheduling.k8s.io/v1beta1",
                    ],
                )),
            ),
            (Some(36), None, V1ALPHA2_GROUP, Ok((36, &[]))),
            (None, Some("v1.37.1"), V1BETA1_GROUP, Ok((37, &[]))),
            (
                None,
                Some("v1.40.0"),
                COSCHEDULING_GROUP,
                Ok((
                    34,
                    &[
                        "warning: Kubernetes 1.40 is not supported: the engine reproduces 1.32 to 1.37; simulating 1.34",
                    ],
                )),
            ),
            (
                Some(37),
                None,
                V1ALPHA2_GROUP,
                Err(
                    "w.yaml:1:13: PodGroup/ml/g: scheduling.k8s.io/v1alpha2 is not served by Kubernetes 1.37 (it serves scheduling.k8s.io/v1alpha3 and scheduling.k8s.io/v1beta1); Kubernetes 1.36 serves it",
                ),
            ),
            (
                None,
                Some("v1.34.2"),
                V1ALPHA1_WORKLOAD,
                Err(
                    "w.yaml:1:13: Workload/default/w: scheduling.k8s.io/v1alpha1 is not served by Kubernetes 1.34 (it serves no Workload API); Kubernetes 1.35 serves it",
                ),
            ),
            (
                Some(36),
                None,
                V1ALPHA1_WORKLOAD,
                Err(
                    "w.yaml:1:13: Workload/default/w: scheduling.k8s.io/v1alpha1 is not served by Kubernetes 1.36 (it serves scheduling.k8s.io/v1alpha2); Kubernetes 1.35 serves it",
                ),
            ),
        ];
        for (flag, server, text, want) in cases {
            let got = choose(
                flag.map(|minor| KubeVersion { minor }),
                server,
                &manifests(text),
                &ClusterState::default(),
            );
            let got = got
                .map(|r| (r.version.minor, r.notes))
                .map_err(|e| e.to_string());
            let want = want
                .map(|(minor, notes)| (minor, notes.iter().map(|n| n.to_string()).collect()))
                .map_err(str::to_string);
            assert_eq!(got, want, "{flag:?} {server:?} {text}");
        }
    }
}
