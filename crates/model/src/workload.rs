//! The workload controllers' kinds (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job,
//! CronJob): a pod template and how many pods the controller creates now, and a StatefulSet's
//! claim templates (the PersistentVolumeClaims it creates for each of its pods).

use serde::{Deserialize, Deserializer};

use crate::core::{
    ClaimSource, Controller, ControllerKind, LabelSelector, ObjectMeta, Pod, PodStatus,
    PodTemplateSpec, Volume,
};
use crate::kinds::{DecodeError, Kind, KindObject, Reader, TypeMeta};
use crate::kueue;
use crate::storage::PersistentVolumeClaim;

/// The label the Job controller puts on its pods (and its legacy twin).
pub const JOB_NAME_LABELS: [&str; 2] = ["batch.kubernetes.io/job-name", "job-name"];
/// The labels the StatefulSet controller gives each pod: its name and its ordinal.
pub const STATEFULSET_POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// A core workload with a pod template.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub kind: String,
    pub metadata: ObjectMeta,
    /// The pods its controller creates now: `spec.replicas` (default 1), or for a Job or
    /// CronJob the Job controller's active count ([`JobCounts::active`]). A DaemonSet's count
    /// depends on the nodes, so `plan::workload` computes it.
    pub replicas: i32,
    /// `spec.selector`: the pods the controller counts as its own (a ReplicaSet's and a
    /// StatefulSet's spread their pods, as kube-scheduler's default constraints select by it).
    pub selector: Option<LabelSelector>,
    pub template: PodTemplateSpec,
    /// A StatefulSet's `spec.volumeClaimTemplates`: the claims it creates for each pod (empty
    /// for every other kind).
    pub volume_claim_templates: Vec<PersistentVolumeClaim>,
}

/// A Job's (or a CronJob's job template's) counts, as the Job controller reads them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobCounts {
    pub parallelism: Option<i32>,
    pub completions: Option<i32>,
    pub succeeded: i32,
    pub suspend: bool,
}

/// The label the Deployment controller gives its ReplicaSet's selector and pods.
pub const POD_TEMPLATE_HASH_LABEL: &str = "pod-template-hash";

impl Workload {
    /// Replica `index`, named `<name>-<index>` (as a StatefulSet names its pods; the names a
    /// Deployment's ReplicaSet or a Job generate are random, these are stable), with the labels
    /// its controller adds and, for a StatefulSet, its claims' volumes.
    pub fn replica(&self, index: usize) -> Pod {
        let name = format!("{}-{index}", self.metadata.name);
        let mut pod = self.pod_named(name.clone());
        pod.metadata.controller = self.controller_of_pods();
        if self.kind == "Deployment" {
            pod.metadata
                .labels
                .insert(POD_TEMPLATE_HASH_LABEL.into(), self.template_hash().into());
        }
        let labels = &mut pod.metadata.labels;
        match self.kind.as_str() {
            "StatefulSet" => {
                labels.insert(STATEFULSET_POD_NAME_LABEL.into(), name.into());
                labels.insert(POD_INDEX_LABEL.into(), index.to_string().into());
                self.add_claim_volumes(&mut pod, index);
            }
            "Job" => {
                for key in JOB_NAME_LABELS {
                    labels.insert(key.into(), self.metadata.name.as_str().into());
                }
            }
            _ => {}
        }
        pod
    }

    /// A pod of the template, named `name`, in the workload's namespace.
    pub fn pod_named(&self, name: String) -> Pod {
        Pod {
            metadata: ObjectMeta {
                name,
                namespace: self.metadata.namespace.clone(),
                labels: self.template.metadata.labels.clone(),
                annotations: self.template.metadata.annotations.clone(),
                ..ObjectMeta::default()
            },
            spec: self.template.spec.clone(),
            status: PodStatus::default(),
        }
    }

    /// The controller of the pods when default spreading selects by it: a Deployment's pods
    /// belong to the ReplicaSet it creates (`<name>-<pod-template-hash>`), a ReplicaSet's and
    /// a StatefulSet's to the workload itself.
    pub fn controller_of_pods(&self) -> Option<Controller> {
        let (kind, name) = match self.kind.as_str() {
            "Deployment" => (
                ControllerKind::ReplicaSet,
                format!("{}-{}", self.metadata.name, self.template_hash()),
            ),
            "ReplicaSet" => (ControllerKind::ReplicaSet, self.metadata.name.clone()),
            "StatefulSet" => (ControllerKind::StatefulSet, self.metadata.name.clone()),
            _ => return None,
        };
        Some(Controller {
            kind,
            name: name.into(),
        })
    }

    /// A stand-in for the Deployment controller's pod-template-hash (a hash of the template
    /// it cannot be recomputed from here): stable per Deployment, written as upstream writes
    /// hashes (`rand.SafeEncodeString` of the decimal FNV-1a sum). The planned pods are one
    /// new ReplicaSet's; the state's pods of the Deployment's earlier ReplicaSets are not its.
    pub fn template_hash(&self) -> String {
        const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let key = format!("{}/{}", self.metadata.namespace, self.metadata.name);
        let mut sum: u32 = 0x811c_9dc5;
        for byte in key.bytes() {
            sum ^= u32::from(byte);
            sum = sum.wrapping_mul(0x0100_0193);
        }
        sum.to_string()
            .bytes()
            .map(|digit| char::from(ALPHANUMS[usize::from(digit) % ALPHANUMS.len()]))
            .collect()
    }

    /// A Job Kueue manages: a Job with the queue label.
    pub fn is_kueue_job(&self) -> bool {
        self.kind == "Job" && self.metadata.labels.contains_key(kueue::QUEUE_NAME_LABEL)
    }

    /// The claim a StatefulSet makes from `template` for its pod `ordinal` (upstream
    /// `getPersistentVolumeClaimName`): `<template>-<set>-<ordinal>`.
    pub fn claim_name(&self, template: &PersistentVolumeClaim, ordinal: usize) -> String {
        format!(
            "{}-{}-{ordinal}",
            template.metadata.common.name, self.metadata.name
        )
    }

    /// The claims a StatefulSet makes for its pod `ordinal`, in template order (upstream
    /// `getPersistentVolumeClaims`): each template's copy, named by [`Workload::claim_name`],
    /// in the set's namespace, its labels the template's with the selector's `matchLabels`
    /// over them. No class is filled in here: the API server's admission does that.
    pub fn claims_for(&self, ordinal: usize) -> Vec<PersistentVolumeClaim> {
        self.volume_claim_templates
            .iter()
            .map(|template| {
                let mut claim = template.clone();
                let meta = &mut claim.metadata.common;
                meta.name = self.claim_name(template, ordinal);
                meta.namespace = self.metadata.namespace.clone();
                for (key, value) in self.selector.iter().flat_map(|s| s.match_labels.iter()) {
                    meta.labels.insert(key.clone(), value.clone());
                }
                claim
            })
            .collect()
    }

    /// Give `pod`, the StatefulSet's pod `ordinal`, a volume per claim template (upstream
    /// `updateStorage`): named after the template, using the claim [`Workload::claims_for`]
    /// names, and replacing any volume of the pod with that name; the pod's other volumes
    /// follow. Upstream puts the claim volumes first in the order of a Go map (random); they
    /// are in template order here.
    pub fn add_claim_volumes(&self, pod: &mut Pod, ordinal: usize) {
        if self.volume_claim_templates.is_empty() {
            return;
        }
        let templates = &self.volume_claim_templates;
        let is_template = |name: &str| templates.iter().any(|t| t.metadata.common.name == name);
        let mut volumes: Vec<Volume> = templates
            .iter()
            .map(|template| Volume {
                name: template.metadata.common.name.clone(),
                persistent_volume_claim: Some(ClaimSource {
                    claim_name: self.claim_name(template, ordinal),
                    read_only: false,
                }),
                ..Volume::default()
            })
            .collect();
        let others = std::mem::take(&mut pod.spec.volumes);
        volumes.extend(others.into_iter().filter(|v| !is_template(&v.name)));
        pod.spec.volumes = volumes;
    }
}

impl JobCounts {
    /// The Job controller's `wantActive`: parallelism (default 1), capped by the remaining
    /// completions when completions are set; none while suspended.
    pub fn active(&self) -> i32 {
        if self.suspend {
            return 0;
        }
        let parallelism = self.parallelism.unwrap_or(1).max(0);
        match self.completions {
            Some(completions) => (completions - self.succeeded).clamp(0, parallelism),
            None if self.succeeded > 0 => 0,
            None => parallelism,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WorkloadBody {
    metadata: ObjectMeta,
    spec: WorkloadSpec,
    status: WorkloadStatus,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WorkloadSpec {
    replicas: Option<i32>,
    selector: Option<LabelSelector>,
    parallelism: Option<i32>,
    completions: Option<i32>,
    suspend: Option<bool>,
    template: PodTemplateSpec,
    job_template: Option<JobTemplate>,
    #[serde(deserialize_with = "crate::core::exact_list")]
    volume_claim_templates: Vec<PersistentVolumeClaim>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WorkloadStatus {
    succeeded: i32,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct JobTemplate {
    spec: Box<WorkloadSpec>,
}

/// The workload controllers' kinds: planned from manifests (their pods are what they create);
/// a live read lists only ReplicaSets and StatefulSets (the pods are listed themselves).
const WORKLOAD_KINDS: &[Kind] = &[
    Kind::new(
        "Deployment",
        &["apps/v1"],
        "deployments",
        "the planner (its pods)",
    )
    .short(&["deploy"])
    .addressable()
    .live(&[]),
    // Listed live for their selectors: PodTopologySpread's default constraints select a pod's
    // peers by its ReplicaSet's or StatefulSet's.
    Kind::new(
        "StatefulSet",
        &["apps/v1"],
        "statefulsets",
        "the planner (its pods), PodTopologySpread's default constraints",
    )
    .short(&["sts"])
    .addressable(),
    Kind::new(
        "ReplicaSet",
        &["apps/v1"],
        "replicasets",
        "the planner (its pods), PodTopologySpread's default constraints",
    )
    .short(&["rs"])
    .addressable(),
    Kind::new(
        "DaemonSet",
        &["apps/v1"],
        "daemonsets",
        "the planner (its pods)",
    )
    .short(&["ds"])
    .addressable()
    .live(&[]),
    Kind::new("Job", &["batch/v1"], "jobs", "the planner (its pods)")
        .addressable()
        .live(&[]),
    Kind::new(
        "CronJob",
        &["batch/v1"],
        "cronjobs",
        "the planner (its pods)",
    )
    .short(&["cj"])
    .addressable()
    .live(&[]),
];

impl KindObject for Workload {
    const KINDS: &'static [Kind] = WORKLOAD_KINDS;

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        let kind = type_meta.kind.as_str();
        let body: WorkloadBody = read.get()?;
        let suspended = body.spec.suspend.unwrap_or(false);
        let (replicas, template) = match (kind, body.spec.job_template) {
            ("CronJob", Some(job)) => {
                let counts = JobCounts {
                    parallelism: job.spec.parallelism,
                    completions: job.spec.completions,
                    succeeded: 0,
                    suspend: suspended || job.spec.suspend.unwrap_or(false),
                };
                (counts.active(), job.spec.template)
            }
            ("Job", _) => {
                // A Job handed to Kueue is created suspended and unsuspended when
                // admitted: its pods are the ones admission starts.
                let queued = body.metadata.labels.contains_key(kueue::QUEUE_NAME_LABEL);
                let counts = JobCounts {
                    parallelism: body.spec.parallelism,
                    completions: body.spec.completions,
                    succeeded: body.status.succeeded,
                    suspend: suspended && !queued,
                };
                (counts.active(), body.spec.template)
            }
            _ => (body.spec.replicas.unwrap_or(1), body.spec.template),
        };
        Ok(Workload {
            kind: kind.to_string(),
            metadata: body.metadata,
            replicas,
            selector: body.spec.selector,
            template,
            // Only the StatefulSet controller reads them.
            volume_claim_templates: if kind == "StatefulSet" {
                body.spec.volume_claim_templates
            } else {
                Vec::new()
            },
        })
    }

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }

    fn kind_info(&self) -> &'static Kind {
        WORKLOAD_KINDS
            .iter()
            .find(|k| k.kind == self.kind)
            .unwrap_or(&WORKLOAD_KINDS[0])
    }
}

/// A workload as snapshots and the binary cache write it: what [`Workload::decode`] reads
/// back to the same workload (its count as `spec.replicas`, or as a Job's `parallelism`,
/// which the Job controller's active count equals without completions).
impl serde::Serialize for Workload {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Spec<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            replicas: Option<i32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            parallelism: Option<i32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            selector: Option<&'a LabelSelector>,
            template: &'a PodTemplateSpec,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            volume_claim_templates: &'a [PersistentVolumeClaim],
        }
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct CronSpec<'a> {
            job_template: JobTemplateBody<'a>,
        }
        #[derive(serde::Serialize)]
        struct JobTemplateBody<'a> {
            spec: Spec<'a>,
        }
        #[derive(serde::Serialize)]
        struct Body<'a, T> {
            metadata: &'a ObjectMeta,
            spec: T,
        }
        let job = matches!(self.kind.as_str(), "Job" | "CronJob");
        let spec = Spec {
            replicas: (!job).then_some(self.replicas),
            parallelism: job.then_some(self.replicas),
            selector: self.selector.as_ref(),
            template: &self.template,
            volume_claim_templates: &self.volume_claim_templates,
        };
        let metadata = &self.metadata;
        if self.kind == "CronJob" {
            let spec = CronSpec {
                job_template: JobTemplateBody { spec },
            };
            Body { metadata, spec }.serialize(s)
        } else {
            Body { metadata, spec }.serialize(s)
        }
    }
}

impl From<Box<Workload>> for Workload {
    fn from(workload: Box<Workload>) -> Workload {
        *workload
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Object;

    fn decode(text: &str) -> Workload {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let type_meta = TypeMeta::deserialize(&value).unwrap();
        match Object::decode(type_meta, &value).unwrap() {
            Object::Workload(w) => *w,
            other => panic!("{other:?}"),
        }
    }

    /// StatefulSet `db/db` (3 replicas, selector `app: db`) with claim templates `data` (10Gi
    /// of class `fast`, labelled `tier: storage` and `app: other`) and `logs` (no class).
    const SET: &str = r#"{"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "db"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {
                "containers": [{"name": "c"}],
                "volumes": [
                    {"name": "data", "persistentVolumeClaim": {"claimName": "stale"}},
                    {"name": "shared", "persistentVolumeClaim": {"claimName": "shared"}}]}},
            "volumeClaimTemplates": [
                {"metadata": {"name": "data", "labels": {"tier": "storage", "app": "other"}},
                 "spec": {"storageClassName": "fast", "accessModes": ["ReadWriteOnce"],
                          "resources": {"requests": {"storage": "10Gi"}}}},
                {"metadata": {"name": "logs"},
                 "spec": {"resources": {"requests": {"storage": "1Gi"}}}}]}}"#;

    fn volumes(pod: &Pod) -> Vec<(&str, Option<&str>)> {
        pod.spec
            .volumes
            .iter()
            .map(|v| (v.name.as_str(), v.claim_name()))
            .collect()
    }

    /// Upstream stateful_set_utils.go: `<template>-<set>-<ordinal>` per template, and the
    /// pod's volume of a template's name replaced by the claim's (the other volumes kept,
    /// after the claim volumes).
    #[test]
    fn a_stateful_set_names_a_claim_per_template_and_ordinal() {
        let set = decode(SET);
        assert_eq!(set.volume_claim_templates.len(), 2);
        // (ordinal, the pod's volumes: the two templates' claims, then `shared`)
        let cases = [
            (
                0,
                [
                    ("data", Some("data-db-0")),
                    ("logs", Some("logs-db-0")),
                    ("shared", Some("shared")),
                ],
            ),
            (
                1,
                [
                    ("data", Some("data-db-1")),
                    ("logs", Some("logs-db-1")),
                    ("shared", Some("shared")),
                ],
            ),
            (
                2,
                [
                    ("data", Some("data-db-2")),
                    ("logs", Some("logs-db-2")),
                    ("shared", Some("shared")),
                ],
            ),
        ];
        for (ordinal, expected) in cases {
            let mut pod = Pod {
                spec: set.template.spec.clone(),
                ..Pod::default()
            };
            set.add_claim_volumes(&mut pod, ordinal);
            assert_eq!(volumes(&pod), expected, "ordinal {ordinal}");
            let names: Vec<String> = set
                .claims_for(ordinal)
                .iter()
                .map(|c| format!("{}/{}", c.metadata.common.namespace, c.metadata.common.name))
                .collect();
            assert_eq!(
                names,
                [
                    format!("db/data-db-{ordinal}"),
                    format!("db/logs-db-{ordinal}")
                ]
            );
        }
    }

    /// The claim copies its template's spec; the selector's `matchLabels` go over the
    /// template's labels; a template without a class stays without one (admission's job).
    #[test]
    fn a_claim_copies_its_template_with_the_selector_labels() {
        let set = decode(SET);
        let claims = set.claims_for(1);
        let labels: Vec<(&str, &str)> = claims[0]
            .metadata
            .common
            .labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(labels, [("app", "db"), ("tier", "storage")]);
        assert_eq!(claims[0].class(), "fast");
        assert_eq!(claims[0].spec.access_modes, ["ReadWriteOnce"]);
        // 10Gi = 10 * 2^30 = 10,737,418,240 bytes.
        assert_eq!(claims[0].request().0, 10_737_418_240);
        assert_eq!(claims[1].spec.storage_class_name, None);
        assert!(!claims[1].has_class());
        // A template without labels gets the selector's.
        assert_eq!(claims[1].metadata.common.labels.len(), 1);
    }

    #[test]
    fn only_a_stateful_set_keeps_claim_templates_and_snapshots_write_them() {
        let set = decode(SET);
        let mut value = serde_json::to_value(&set).unwrap();
        value["apiVersion"] = "apps/v1".into();
        value["kind"] = "StatefulSet".into();
        assert_eq!(decode(&value.to_string()), set);
        // Without templates, nothing is written for them.
        let plain = decode(&SET.replace("volumeClaimTemplates", "ignoredTemplates"));
        assert!(plain.volume_claim_templates.is_empty());
        let deployment = decode(&SET.replace("StatefulSet", "Deployment"));
        assert!(deployment.volume_claim_templates.is_empty());
        let mut pod = Pod {
            spec: deployment.template.spec.clone(),
            ..Pod::default()
        };
        deployment.add_claim_volumes(&mut pod, 0);
        assert_eq!(
            volumes(&pod),
            [("data", Some("stale")), ("shared", Some("shared"))]
        );
        assert!(
            serde_json::to_value(&plain).unwrap()["spec"]
                .get("volumeClaimTemplates")
                .is_none()
        );
    }
}
