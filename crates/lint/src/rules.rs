//! The rule catalogue. Codes are stable: CI configurations, suppressions and SARIF baselines
//! refer to them, so a code is never reused for a different check.
//!
//! Families: DF0xx input problems, DF1xx Fluid DataFlow, DF2xx gangs (DF201-207 Godel
//! PodGroups, DF208-214 every gang kind), DF3xx Volcano Job, DF4xx any pod spec or template,
//! DF5xx network topology (Volcano HyperNodes, Kueue Topology Aware Scheduling), DF6xx Dynamic
//! Resource Allocation.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    /// A kebab-case name (SARIF `name`).
    pub name: &'static str,
    pub severity: Severity,
    /// Off unless named with `--enable`.
    pub default_enabled: bool,
    /// Whether the rule needs a cluster state (`--state`) to run.
    pub needs_state: bool,
    pub title: &'static str,
    /// What the rule checks and why it matters.
    pub explanation: &'static str,
    /// How to fix what it finds.
    pub help: &'static str,
}

const fn rule(
    code: &'static str,
    name: &'static str,
    severity: Severity,
    title: &'static str,
    explanation: &'static str,
    help: &'static str,
) -> Rule {
    Rule {
        code,
        name,
        severity,
        default_enabled: true,
        needs_state: false,
        title,
        explanation,
        help,
    }
}

const fn with_state(rule: Rule) -> Rule {
    Rule {
        needs_state: true,
        ..rule
    }
}

const fn opt_in(rule: Rule) -> Rule {
    Rule {
        default_enabled: false,
        ..rule
    }
}

use Severity::{Error, Warning};

pub const RULES: &[Rule] = &[
    rule(
        "DF001",
        "syntax",
        Error,
        "file is not valid YAML or JSON",
        "The file could not be parsed: a YAML/JSON syntax error, binary content, invalid UTF-8, nesting deeper than 1024 levels (255 for flow collections) or an alias expansion past 100,000 nodes or 16 MiB (a YAML bomb). Nothing in the file is checked further, and kubectl would refuse it too.",
        "Fix the syntax at the reported position; for generated files, check the generator's output encoding.",
    ),
    rule(
        "DF002",
        "decode",
        Error,
        "document does not decode into a Kubernetes object",
        "The document parsed but does not fit the object's schema: apiVersion or kind missing, an apiVersion this tool (and the matching controller) does not serve, or a field of the wrong type (a string where a number is expected, a list where a map is expected).",
        "Correct the field at the reported path; for a wrong apiVersion, use the version the message names.",
    ),
    rule(
        "DF003",
        "empty-file",
        Warning,
        "file contains no objects",
        "The file is empty or holds only comments and document separators. It is usually a mistake in a kustomization or a generator that produced nothing.",
        "Remove the file or add the manifest it was meant to hold.",
    ),
    rule(
        "DF004",
        "unreadable",
        Error,
        "file cannot be read",
        "The file exists but could not be read as a manifest: permission denied, or larger than 64 MiB (not a hand-written manifest; parsing it with positions would take unbounded time and memory).",
        "Check the file's permissions, or split huge generated inputs.",
    ),
    rule(
        "DF005",
        "schema",
        Error,
        "unknown field or wrong value shape in a Kubernetes object",
        "Every object is checked against its schema, as `kubectl apply --validate=strict` does: core, apps, batch, scheduling and policy kinds against the Kubernetes v1.34 API, and the custom resources this tool models (Fluid operations, Godel, Volcano, coscheduling and kube-batch PodGroups, Volcano Jobs) against theirs, including the pod templates inside them. A misspelled field (`nodeSelecter`, `requiredDuringSchedulingIgnoreDuringExecution`) is dropped by the API server or by this tool's decoder, so the pod would be planned and run without the constraint you meant. `plan` and `explain-placement` refuse such input unless given `--lenient`.",
        "Use the suggested field name, or move the field to where the schema has it; `kubectl explain KIND.FIELD` shows the schema.",
    ),
    rule(
        "DF006",
        "unchecked-kind",
        Warning,
        "objects of a kind this tool does not check",
        "The object's apiVersion/kind has no schema here, so nothing in it is checked and nothing in it is planned. When the same kind exists under a near apiVersion (an older API group such as Godel's before it moved to scheduling.godel.kubewharf.io), the message says which one was probably meant.",
        "Nothing to do for kinds unrelated to placement; for a near-miss apiVersion, use the suggested one.",
    ),
    rule(
        "DF007",
        "duplicate-object",
        Error,
        "the same object defined twice in the inputs",
        "Two documents define the same apiVersion group, kind, namespace and name of a kind this tool plans (Pods, workloads, gangs, Fluid operations). kubectl apply would apply both, the later one winning, so the result depends on the order of the files; this tool would plan only one of them.",
        "Remove one of the two definitions, or give them different names.",
    ),
    rule(
        "DF101",
        "fluid-unknown-field",
        Error,
        "unknown field in a Fluid data operation",
        "The field is not part of the shipped data.fluid.io/v1alpha1 API. The API server prunes unknown fields of custom resources silently, so the setting has no effect. The most common case is the design document's spelling `require: [string]` / `prefer:` for what shipped as `requires: [{name}]` / `prefers: [{name, weight}]`, and `operationRef` for `runAfter`: the operation then inherits no affinity at all.",
        "Rename the field to the suggested spelling, or remove it.",
    ),
    rule(
        "DF102",
        "fluid-invalid-policy",
        Error,
        "invalid affinityStrategy policy",
        "`spec.runAfter.affinityStrategy.policy` must be \"\" (inherit nothing), \"Require\" or \"Prefer\"; values are case-sensitive. Any other value makes Fluid fail to build the operation's affinity.",
        "Use \"Require\", \"Prefer\" or leave the policy out.",
    ),
    rule(
        "DF103",
        "fluid-ignored-strategy",
        Warning,
        "requires/prefers ignored by the chosen policy",
        "Fluid reads `requires` only with policy Require and `prefers` only with policy Prefer; with an empty policy it reads neither. The list is silently ignored, which usually means the policy is not the one intended.",
        "Set the policy that matches the list, or remove the list.",
    ),
    rule(
        "DF104",
        "fluid-prefer-weight",
        Error,
        "prefer weight outside 1..100",
        "Each `prefers[]` entry becomes a preferred node affinity term with its weight. Kubernetes accepts only weights from 1 to 100 (a missing weight is 0), so the operation's pod is rejected by the API server.",
        "Give every prefers entry a weight between 1 and 100.",
    ),
    rule(
        "DF105",
        "fluid-run-after-missing",
        Error,
        "runAfter names an operation that does not exist",
        "The operation referenced by `spec.runAfter` (or `affinityStrategy.dependOn`) is neither among the linted manifests nor in the --state. Fluid keeps the operation waiting for it forever.",
        "Fix the kind, name or namespace of the reference, or lint the whole DataFlow together.",
    ),
    rule(
        "DF106",
        "fluid-run-after-kind",
        Error,
        "runAfter names an unsupported kind",
        "`spec.runAfter.kind` must be one of DataLoad, DataMigrate, DataProcess or DataBackup (the CRD's enum, case-sensitive).",
        "Use one of the four data operation kinds.",
    ),
    rule(
        "DF107",
        "fluid-run-after-cycle",
        Error,
        "runAfter forms a cycle",
        "An operation that runs after itself, directly or through other operations, waits forever: none of the operations of the cycle ever starts.",
        "Break the cycle: the first operation of a DataFlow has no runAfter.",
    ),
    rule(
        "DF108",
        "fluid-depend-on-not-upstream",
        Error,
        "dependOn is not upstream of the operation",
        "`affinityStrategy.dependOn` chooses which earlier operation the affinity is inherited from. It must be on the operation's runAfter chain: otherwise nothing guarantees it has completed and recorded its node when this operation starts.",
        "Point dependOn at an operation on the runAfter chain, or remove it to inherit from the runAfter operation.",
    ),
    rule(
        "DF109",
        "fluid-source-records-nothing",
        Warning,
        "affinity inherited from an operation that records no node",
        "Only DataLoad and DataMigrate with parallelism 1 record where they ran (`status.nodeAffinity`). DataProcess, DataBackup and parallel DataMigrate record nothing, so a Require or Prefer policy inheriting from them adds no affinity at all.",
        "Inherit from an earlier DataLoad or single-pod DataMigrate with dependOn, or drop the policy.",
    ),
    rule(
        "DF110",
        "fluid-key-not-recorded",
        Warning,
        "inherited label key is never recorded",
        "An operation records only `kubernetes.io/hostname`, `topology.kubernetes.io/zone`, `topology.kubernetes.io/region` and the keys listed in its `affinity.dataflow.fluid.io/labels` annotation. A requires/prefers key outside that set is skipped silently, so the intended locality is not inherited.",
        "Add the key to the source operation's `affinity.dataflow.fluid.io/labels` annotation (comma separated), or use one of the recorded keys.",
    ),
    rule(
        "DF111",
        "fluid-old-annotation",
        Warning,
        "misspelled annotation affinity.dataflow.fluid.io/labels",
        "Fluid reads the labels an operation records only from `affinity.dataflow.fluid.io/labels` (on the operation, or in `spec.podMetadata.annotations`). The design document named it `data-operation.fluid.io/affinity.labels`, Fluid's English docs spell it `fluid.io/affinity.labels`, and any near-miss is ignored just the same, so the listed keys are not recorded.",
        "Rename the annotation to affinity.dataflow.fluid.io/labels.",
    ),
    rule(
        "DF112",
        "fluid-dataset-namespace",
        Error,
        "dataset in another namespace than the operation",
        "Fluid data operations act on a Dataset in their own namespace; a dataset reference naming another namespace makes the operation fail.",
        "Create the operation in the dataset's namespace, or drop the dataset namespace.",
    ),
    opt_in(rule(
        "DF113",
        "fluid-no-affinity-strategy",
        Warning,
        "runAfter without an affinity strategy",
        "Opt-in (--enable DF113). The operation runs after another one but inherits no locality, so data the previous step cached on a node may be read over the network.",
        "Set `affinityStrategy.policy: Prefer` (or Require) to run near the previous step.",
    )),
    rule(
        "DF201",
        "godel-sort-rule",
        Error,
        "invalid PodGroup sortRules value",
        "Godel sorts node groups by `sortRules`: `resource` must be CPU, Memory or GPU, `dimension` Capacity or Available (empty means Capacity), and `order` Ascending or Descending. Other values are rejected or ignored by the scheduler.",
        "Use the listed values; they are case-sensitive.",
    ),
    rule(
        "DF202",
        "godel-min-member",
        Error,
        "PodGroup minMember below 1",
        "`spec.minMember` is the number of pods that must be placed together. Below 1 the gang has no meaning and Godel rejects the group.",
        "Set minMember to the number of pods that must start together (at least 1).",
    ),
    rule(
        "DF203",
        "godel-pod-group-missing",
        Error,
        "pod joins a PodGroup that does not exist",
        "Pods join a Godel PodGroup through the label `godel.bytedance.com/pod-group-name`. When no PodGroup of that name exists in the pod's namespace (among the linted manifests or in the --state), the pods stay pending.",
        "Create the PodGroup in the same namespace or fix the label value.",
    ),
    with_state(rule(
        "DF204",
        "godel-required-key-unknown",
        Error,
        "required topologyKey that no node carries",
        "Godel divides nodes into groups by the required topology keys and places the whole unit inside one group. When no node of the cluster has the label, there is no group and the unit can never be scheduled.",
        "Use a node label key the cluster has (see `kubectl get nodes --show-labels`).",
    )),
    with_state(rule(
        "DF205",
        "godel-preferred-key-unknown",
        Warning,
        "preferred topologyKey that no node carries",
        "Preferred topology keys divide a node group into circles filled one after another. A key no node carries makes the level meaningless: all nodes fall outside it.",
        "Use a node label key the cluster has, or remove the level.",
    )),
    with_state(rule(
        "DF206",
        "godel-preferred-not-nested",
        Warning,
        "preferred topology level not nested in the previous level",
        "Preferred keys are read from the largest scope to the smallest (for example spine, then tor). Each domain of a level should lie inside one domain of the previous level; when nodes sharing a value of this key span several values of the previous one, the circles overlap and the fill order is not what the list suggests.",
        "Order the preferred keys from the largest scope to the smallest, or fix the node labels.",
    )),
    with_state(rule(
        "DF207",
        "godel-unit-too-large",
        Error,
        "unit larger than any required domain can hold",
        "The unit (minMember pods times the request of one member) must fit the summed allocatable resources of one required domain. When even the largest domain is too small, Godel cuts every group off and the unit never schedules.",
        "Lower minMember or the pods' requests, or relax the required topology key.",
    )),
    rule(
        "DF208",
        "gang-group-missing",
        Error,
        "pod joins a gang group that does not exist",
        "A pod joins a kube-batch, Volcano or coscheduling PodGroup (label or annotation), a Workload pod group (`spec.workloadRef`) or a runtime PodGroup (`spec.schedulingGroup`) that is neither among the manifests nor in the --state. Its scheduler holds the pod (coscheduling denies it at Permit, the Workload gang plugin keeps it out of the queue) until the group exists.",
        "Create the group in the pod's namespace, or fix the reference.",
    ),
    rule(
        "DF209",
        "gang-minimum",
        Error,
        "gang minimum below 1 (or a negative Volcano minMember or minAvailable)",
        "`minMember` (kube-batch, Volcano, coscheduling) and `minCount` (Workload API gangs) are the pods that must be placed together; zero or negative values are rejected (the Workload API validates minCount >= 1, coscheduling's PodGroup CRD minMember >= 1) or make the gang meaningless. Volcano's PodGroup CRD accepts `minMember: 0` (no gang: Volcano places the pods one at a time) and rejects a negative one; its job webhook rejects a negative `minAvailable`.",
        "Set the minimum to the number of pods that must start together (at least 1).",
    ),
    rule(
        "DF210",
        "gang-negative-min-resources",
        Error,
        "negative quantity in a PodGroup's minResources",
        "`spec.minResources` is what the group needs before any pod is tried (coscheduling's PreFilter, Volcano's enqueue); a negative quantity is an input error that schedulers do not reject but silently misread.",
        "Use non-negative quantities.",
    ),
    rule(
        "DF211",
        "gang-minimum-above-pods",
        Warning,
        "gang minimum above the pods that join it",
        "Fewer pods join the group (among the manifests, template replicas counted, and the --state) than its minimum: the scheduler waits for pods that never come (kube-batch: not enough valid tasks; coscheduling: cannot find enough sibling pods).",
        "Lower the minimum, or add the missing pods or replicas.",
    ),
    rule(
        "DF212",
        "gang-pod-in-two-groups",
        Warning,
        "pod joins more than one gang group",
        "The pod carries the joining labels or references of several gang kinds (or of Godel and another kind). Each scheduler reads only its own, so which gang it belongs to depends on where it is sent; the plan takes the first found.",
        "Keep one joining label, annotation or reference.",
    ),
    rule(
        "DF213",
        "gang-min-resources-above-requests",
        Warning,
        "PodGroup minResources above what its pods request",
        "`spec.minResources` is checked (coscheduling's PreFilter) or reserved (Volcano's enqueue) before the pods run; when it exceeds the summed requests of every pod that joins the group (manifests, replicas, --state), the group waits for, or holds, resources its pods never use.",
        "Lower minResources to the requests of the minimum set of pods.",
    ),
    rule(
        "DF214",
        "gang-scheduler-mismatch",
        Warning,
        "gang pods go to a scheduler that does not honour the gang kind",
        "The pod joins a gang, but its `schedulerName` (default names: default-scheduler, volcano, kube-batch, godel-scheduler, scheduler-plugins-scheduler) goes to a scheduler that ignores that kind of group, so it places the pods one by one, without all-or-nothing.",
        "Set schedulerName to the gang's scheduler, or map the name with plan --scheduler-name NAME=SYSTEM.",
    ),
    rule(
        "DF301",
        "volcano-unknown-task",
        Warning,
        "task-topology annotation names an unknown task",
        "The `volcano.sh/task-topology-*` annotations refer to tasks by `spec.tasks[].name`. When one names no task, Volcano's task-topology plugin logs it and skips all three annotations of the job (it still schedules the job), so the intended (anti-)affinity is lost.",
        "Use the exact task names of spec.tasks.",
    ),
    rule(
        "DF302",
        "volcano-duplicate-task",
        Warning,
        "task named twice in one task-topology group",
        "A task listed twice in the same group (or twice in the task order) is a copy-paste slip: the second mention adds nothing and often hides a task that was meant instead.",
        "List each task once per group.",
    ),
    rule(
        "DF303",
        "volcano-empty-task",
        Warning,
        "empty task name in a task-topology annotation",
        "Groups are separated by `;` and task names by `,`. A doubled or trailing separator yields an empty name that matches no task.",
        "Remove the extra separator.",
    ),
    rule(
        "DF304",
        "volcano-affinity-conflict",
        Error,
        "task pair in both affinity and anti-affinity",
        "A pair of tasks (or a task with itself) listed in both `volcano.sh/task-topology-affinity` and `volcano.sh/task-topology-anti-affinity` asks to be together and apart at once; the buckets cancel out.",
        "Keep the pair in only one of the two annotations.",
    ),
    rule(
        "DF305",
        "volcano-min-available",
        Error,
        "minAvailable above the sum of replicas",
        "Volcano's job admission webhook (admit_job.go) rejects a Job whose `spec.minAvailable` (when 0, the sum of its tasks' minimums) is above the sum of its tasks' replicas: the job is never created.",
        "Lower minAvailable to at most the sum of the tasks' replicas.",
    ),
    rule(
        "DF306",
        "volcano-duplicate-task-name",
        Error,
        "Volcano Job with two tasks of the same name",
        "Volcano's job admission webhook (admit_job.go) rejects a Job whose `spec.tasks` repeat a name: the job is never created.",
        "Give every task a unique name.",
    ),
    rule(
        "DF307",
        "volcano-task-min-available",
        Error,
        "task minAvailable above its replicas",
        "Volcano's job admission webhook (admit_job.go) rejects a Job with a task whose `minAvailable` is above its `replicas`: the job is never created.",
        "Lower the task's minAvailable to at most its replicas.",
    ),
    rule(
        "DF308",
        "volcano-no-tasks",
        Error,
        "Volcano Job without tasks",
        "Volcano's job admission webhook (admit_job.go) rejects a Job whose `spec.tasks` is empty: the job is never created.",
        "Give the job at least one task.",
    ),
    rule(
        "DF309",
        "volcano-policies",
        Error,
        "invalid Volcano Job lifecycle policies",
        "Volcano's job admission webhook (util.go, validatePolicies) rejects a Job (or task) policy with both an event and an exitCode or neither, an event or action it does not know, an event or exitCode named by two policies, exitCode 0, or the `*` event beside other events: the job is never created.",
        "Give each policy either known events or a non-zero exitCode, each event and exitCode in one policy only.",
    ),
    rule(
        "DF310",
        "volcano-network-topology-tier",
        Error,
        "networkTopology with both highestTierAllowed and highestTierName",
        "Volcano's job admission webhook (admit_job.go) rejects a Job whose `spec.networkTopology` sets both `highestTierAllowed` and `highestTierName`: the job is never created.",
        "Keep only one of highestTierAllowed and highestTierName.",
    ),
    rule(
        "DF311",
        "volcano-name",
        Error,
        "Volcano Job or pod name is not a qualified name",
        "Volcano's job admission webhook (admit_job.go) rejects a Job whose name, or a pod name `<job>-<task>-<index>` it would create, is not a qualified name (at most 63 alphanumerics, `-`, `_` or `.`, starting and ending alphanumeric): the job is never created.",
        "Shorten the job or task name.",
    ),
    rule(
        "DF312",
        "volcano-total-partitions",
        Error,
        "partitionPolicy totalPartitions below 1",
        "Volcano's job admission webhook (admit_job.go, validatePartitionPolicy) rejects a Job with a task whose `partitionPolicy.totalPartitions` is not greater than 0: the job is never created.",
        "Set totalPartitions to the number of partitions, at least 1.",
    ),
    rule(
        "DF313",
        "volcano-partition-size",
        Error,
        "partitionPolicy partitionSize below 1",
        "Volcano's job admission webhook (admit_job.go, validatePartitionPolicy) rejects a Job with a task whose `partitionPolicy.partitionSize` is not greater than 0: the job is never created.",
        "Set partitionSize to the pods of one partition, at least 1.",
    ),
    rule(
        "DF314",
        "volcano-partition-replicas",
        Error,
        "task replicas other than totalPartitions x partitionSize",
        "Volcano's job admission webhook (admit_job.go, validatePartitionPolicy) rejects a Job with a partitioned task whose `replicas` is not `totalPartitions x partitionSize`: the job is never created.",
        "Make replicas equal to totalPartitions x partitionSize.",
    ),
    rule(
        "DF315",
        "volcano-partition-min-available",
        Error,
        "task minAvailable other than minPartitions x partitionSize",
        "Volcano's job admission webhook (admit_job.go, validatePartitionPolicy) rejects a Job with a partitioned task that sets `minPartitions` and a `minAvailable` other than `minPartitions x partitionSize`: the job is never created. (Without minAvailable, the mutating webhook sets exactly that.)",
        "Drop the task's minAvailable, or make it minPartitions x partitionSize.",
    ),
    rule(
        "DF401",
        "selector-values-count",
        Error,
        "selector operator with the wrong number of values",
        "`In` and `NotIn` need at least one value, `Exists` and `DoesNotExist` none, `Gt` and `Lt` exactly one; matchFields take exactly one value. The API server rejects such a pod.",
        "Give the operator the number of values it needs.",
    ),
    rule(
        "DF402",
        "selector-not-integer",
        Error,
        "Gt/Lt value is not an integer",
        "`Gt` and `Lt` compare the node label as an integer with the single value, which must itself parse as an integer; otherwise the API server rejects the pod.",
        "Use an integer value such as \"4\".",
    ),
    rule(
        "DF403",
        "selector-unknown-operator",
        Error,
        "unknown selector operator",
        "Node selector requirements accept In, NotIn, Exists, DoesNotExist, Gt and Lt; label selectors (pod affinity) accept In, NotIn, Exists and DoesNotExist; matchFields accept In and NotIn. Operators are case-sensitive.",
        "Use one of the listed operators.",
    ),
    rule(
        "DF404",
        "selector-empty-term",
        Error,
        "node selector term that matches nothing",
        "An empty node selector term (no matchExpressions and no matchFields) matches no node, and a required node affinity without terms is rejected. It is almost always a YAML indentation mistake that moved the expressions elsewhere.",
        "Put matchExpressions inside the term, or remove the term.",
    ),
    rule(
        "DF405",
        "affinity-weight",
        Error,
        "preferred affinity weight outside 1..100",
        "Weights of preferred node affinity and preferred pod (anti-)affinity terms must be between 1 and 100; the API server rejects the pod otherwise.",
        "Use a weight between 1 and 100.",
    ),
    rule(
        "DF406",
        "selector-match-fields",
        Error,
        "matchFields on a field other than metadata.name",
        "Node selector `matchFields` supports only the key `metadata.name`; any other field is rejected by the API server.",
        "Use matchExpressions on a node label instead, or key metadata.name.",
    ),
    rule(
        "DF407",
        "node-selector-contradiction",
        Error,
        "nodeSelector contradicts required node affinity",
        "A pod must match both its nodeSelector and one of its required node affinity terms. When every term requires a different value for a label the nodeSelector fixes, no node can ever match.",
        "Make the nodeSelector and the required node affinity agree, or keep only one of them.",
    ),
    rule(
        "DF408",
        "pod-affinity-topology-key",
        Error,
        "pod affinity term without topologyKey",
        "Every pod affinity and anti-affinity term needs a topologyKey (the domain in which pods are counted); the API server rejects a term without one.",
        "Set topologyKey, usually kubernetes.io/hostname or topology.kubernetes.io/zone.",
    ),
    with_state(rule(
        "DF409",
        "unsatisfiable-node-affinity",
        Error,
        "required node rules no node satisfies",
        "With a cluster state, the pod's nodeSelector and required node affinity are evaluated by the scheduling engine against every node. When no node matches, the pod stays pending whatever else happens in the cluster.",
        "Relax the rules or label the nodes the pod is meant for.",
    )),
    rule(
        "DF501",
        "volcano-tier-missing",
        Error,
        "hard networkTopology with no HyperNode at or below highestTierAllowed",
        "A Volcano Job or PodGroup with `spec.networkTopology` in hard mode must fit inside one HyperNode of a tier up to `highestTierAllowed` (or the tier `highestTierName` names). Volcano adds a virtual HyperNode over every node one tier above the highest (tier 1 without HyperNodes); when the highest tier allowed is below every HyperNode's tier and that virtual one's, Volcano finds no domain for the gang and it stays pending. Skipped when the volcano-scheduler configuration leaves out the network-topology-aware plugin (Volcano then ignores networkTopology), and without --state when the inputs hold no HyperNode.",
        "Set highestTierAllowed to a tier the HyperNodes have (see `kubectl get hypernodes`), or create the HyperNodes.",
    ),
    rule(
        "DF502",
        "volcano-tier-unknown",
        Warning,
        "highestTierAllowed names a tier no HyperNode has",
        "No HyperNode of the --state or the inputs has the tier `spec.networkTopology.highestTierAllowed` names. Volcano compares tiers as numbers, so the gang is kept within the highest existing tier below it, or, above the virtual HyperNode Volcano adds over every node, may span the whole cluster: the constraint is not the one written, often because the tiers were renumbered.",
        "Use one of the tiers the HyperNodes have.",
    ),
    rule(
        "DF503",
        "kueue-level-unknown",
        Error,
        "Kueue pod-set annotation names a level not in the flavor's Topology",
        "`kueue.x-k8s.io/podset-required-topology`, `podset-preferred-topology` and `podset-slice-required-topology` name a node label that must be one of the `spec.levels` of the Topology of the ResourceFlavor the Job is admitted on (LocalQueue -> ClusterQueue -> ResourceFlavor `topologyName` -> Topology, read from the inputs and the --state). Otherwise Kueue's scheduler reports \"no requested topology level\" and never admits the Job. A slice level above the pod set's own level is refused the same way.",
        "Use a level of the Topology (`kubectl get topology NAME -o yaml`), or send the Job to a queue whose flavor has that level.",
    ),
    rule(
        "DF504",
        "kueue-podset-annotations",
        Error,
        "Kueue pod-set topology annotations its webhook rejects",
        "Kueue's job webhook (jobframework `ValidateTASPodSetRequest`) rejects a Job whose pod template carries more than one of podset-required-topology, podset-preferred-topology and podset-unconstrained-topology; a level that is not a valid label name; an unconstrained value that is not a boolean; a podset-slice-size that is not an integer of at least 1 or exceeds the pod set's count (parallelism); a podset-slice-required-topology without podset-slice-size, or a slice size without it.",
        "Keep one of required/preferred/unconstrained, and set podset-slice-required-topology and podset-slice-size together (1 <= size <= parallelism).",
    ),
    with_state(rule(
        "DF505",
        "topology-domain-too-small",
        Error,
        "required topology level whose largest domain cannot hold the gang",
        "A Volcano gang in hard mode must fit inside one HyperNode up to `highestTierAllowed`; a Kueue pod set with podset-required-topology must fit inside one domain of that level. With a cluster state, each domain of that level is measured the way the plan does it (Volcano: its bound pods plus the pending pods the free resources and pod slots of its nodes take; Kueue: its TAS snapshot of the flavor's nodes). When even the largest holds fewer pods than the gang needs, the gang stays pending (Kueue does not admit the Job).",
        "Lower the gang's size or requests, raise highestTierAllowed or require a wider level, or free capacity in one domain.",
    )),
    with_state(rule(
        "DF506",
        "topology-preferred-domain-too-small",
        Warning,
        "preferred topology level whose largest domain cannot hold the gang",
        "The soft (Volcano `mode: soft`) or preferred (Kueue podset-preferred-topology) counterpart of DF505: no domain of the level holds the gang, so it is placed over several domains of that level, with the traffic between them the constraint meant to avoid.",
        "Prefer a wider level, shrink the gang, or free capacity in one domain.",
    )),
    with_state(rule(
        "DF507",
        "topology-label-unknown",
        Warning,
        "topology level label that no node carries",
        "A Kueue Topology level (`spec.levels[].nodeLabel`), a label a Kueue pod-set annotation names, or a label key a HyperNode's `labelMatch` selects on is carried by no node of the --state. Kueue's TAS snapshot keeps only nodes that carry every level of the Topology, so such a flavor holds no node; a HyperNode label selector on it matches nothing.",
        "Label the nodes (`kubectl label node ...`) or use the label key they carry.",
    )),
    with_state(rule(
        "DF508",
        "workload-topology-label-unknown",
        Error,
        "workload PodGroup topology key that no node carries",
        "A Kubernetes v1.36+ PodGroup (`scheduling.k8s.io/v1alpha2`, v1alpha3 or v1beta1) or Workload pod group template whose `schedulingConstraints.topology[0].key` (KEP-5732) names a node label no node of the --state carries. kube-scheduler's TopologyPlacement makes one candidate placement per value of that label among the nodes that carry it, so there is none: the group stays pending.",
        "Use a label key the nodes carry (`kubectl get nodes --show-labels`) or label the nodes.",
    )),
    with_state(rule(
        "DF509",
        "workload-topology-domain-too-small",
        Error,
        "workload PodGroup whose largest topology domain cannot hold its minimum",
        "A Kubernetes v1.36 PodGroup with `schedulingConstraints.topology` must place `gang.minCount` pods inside one domain of the label (KEP-5732). With a cluster state, each domain is measured the way the plan does it: the group's bound pods plus the pending pods the free resources and pod slots of its nodes take. When even the largest holds fewer, no placement is feasible and the group stays pending.",
        "Lower minCount or the pods' requests, constrain a wider label (a block instead of a rack), or free capacity in one domain.",
    )),
    with_state(rule(
        "DF510",
        "kueue-queue-missing",
        Error,
        "Kueue Job whose LocalQueue, ClusterQueue, flavor or flavor Topology does not exist",
        "A Job labelled `kueue.x-k8s.io/queue-name` (or a StatefulSet, Deployment, Pod, JobSet, Kubeflow job or Ray object Kueue integrates) is admitted only through the LocalQueue of that name in its namespace, the LocalQueue's ClusterQueue and that ClusterQueue's ResourceFlavors (and their Topologies). When one of them is in neither the state nor the inputs, Kueue keeps the Job suspended: its workload is inadmissible (`LocalQueue q doesn't exist`, `ClusterQueue cq doesn't exist`) or its ClusterQueue is inactive. Checked only when the state or the inputs hold some LocalQueue or ClusterQueue: a state recorded without Kueue's objects says nothing about them.",
        "Create the missing queue, flavor or Topology, or fix the queue-name label.",
    )),
    with_state(rule(
        "DF511",
        "kueue-resource-not-covered",
        Error,
        "Kueue Job requesting a resource no resource group of its ClusterQueue covers",
        "Kueue's flavor assigner gives each resource the pods request (a non-zero request, or a limit standing in for a missing request) a flavor from the ClusterQueue's resource group that covers it. A resource no group covers has no flavor: the pod set cannot be assigned (`resource nvidia.com/gpu unavailable in ClusterQueue`) and the Job stays suspended, whatever quota the ClusterQueue has.",
        "Add the resource to a resource group's coveredResources (with a quota in each of its flavors), or send the Job to a queue that covers it.",
    )),
    with_state(rule(
        "DF512",
        "kueue-flavor-matches-no-node",
        Warning,
        "Kueue Job whose ClusterQueue has a ResourceFlavor whose nodeLabels no node carries",
        "When Kueue admits a Job on a ResourceFlavor, it adds the flavor's `nodeLabels` to the pods' nodeSelector. If no node of the state carries all of them, a Job admitted on that flavor holds its quota while its pods stay pending. Kueue picks a flavor by quota, not by nodes, so any flavor of the queue can be the one.",
        "Fix the flavor's nodeLabels, label the nodes, or remove the flavor from the ClusterQueue.",
    )),
    with_state(rule(
        "DF513",
        "exclusive-topology-label-missing",
        Error,
        "JobSet or LeaderWorkerSet exclusive-topology annotation naming a label no node carries",
        "`alpha.jobset.sigs.k8s.io/exclusive-topology` (JobSet) and `leaderworkerset.sigs.k8s.io/exclusive-topology` / `subgroup-exclusive-topology` (LeaderWorkerSet) give each job or group a domain of that node label to itself: the operator injects required pod affinity and anti-affinity with the label as topology key. A node without the label satisfies neither, so when no node of the state carries it every pod stays pending.",
        "Name a node label the nodes carry (kubectl get nodes -L LABEL), or label the nodes.",
    )),
    with_state(rule(
        "DF601",
        "resource-claim-missing",
        Error,
        "pod names a ResourceClaim or ResourceClaimTemplate that does not exist",
        "A pod's `spec.resourceClaims` names a ResourceClaim, or a ResourceClaimTemplate from which the resourceclaim controller makes the pod's claim. With a cluster state, one that is neither in the inputs nor in the state keeps the pod waiting before the scheduler looks at it (DynamicResources' PreEnqueue: `could not find ResourceClaim`, `ResourceClaim not created yet`).",
        "Create the claim or template in the pod's namespace, or fix the name.",
    )),
    with_state(rule(
        "DF602",
        "device-class-missing",
        Error,
        "device request names a DeviceClass that does not exist",
        "Every request of a ResourceClaim or ResourceClaimTemplate (and every `firstAvailable` alternative) names a DeviceClass. With a cluster state, one that is neither in the inputs nor in the state makes the scheduler reject every pod of the claim (`request r0: device class gpu does not exist`).",
        "Use a DeviceClass the cluster has (`kubectl get deviceclasses`), or install the driver that creates it.",
    )),
    rule(
        "DF603",
        "device-selector-invalid",
        Error,
        "CEL device selector that does not compile or is too expensive",
        "A DeviceClass's or a request's `selectors[].cel.expression` is compiled in the DRA CEL environment (`device.driver`, `device.attributes`, `device.capacity`, quantity and semver). One that does not compile, does not evaluate to a bool, or whose estimated cost exceeds the API server's limit of 1,000,000 is refused by the API server; the position is the expression's.",
        "Fix the expression at the position shown; guard optional attributes with has() or `.?`.",
    ),
    with_state(rule(
        "DF604",
        "device-request-unsatisfiable",
        Error,
        "device request no ResourceSlice of the state can meet",
        "With a cluster state, each request of a ResourceClaim or ResourceClaimTemplate is tried alone, with every device free, on every node by the engine's structured allocator (the class's and the request's selectors, the count, `All`, the slices' nodes). When no node can meet it, pods of the claim never schedule (`cannot allocate all claims`); when the attempt fails outright (a selector that errors on some device), the scheduler's error is shown.",
        "Ask for fewer devices, relax the selectors, or check that the driver publishes ResourceSlices for the nodes (`kubectl get resourceslices`).",
    )),
];

/// The rule with `code`.
pub fn find(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}

/// The rules that need a cluster state (`--state`) to run.
pub fn needing_state() -> impl Iterator<Item = &'static Rule> {
    RULES.iter().filter(|rule| rule.needs_state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for pair in RULES.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} / {}",
                pair[0].code,
                pair[1].code
            );
        }
        for rule in RULES {
            assert!(
                rule.code.len() == 5 && rule.code.starts_with("DF"),
                "{}",
                rule.code
            );
            assert!(
                !rule.title.is_empty() && !rule.explanation.is_empty() && !rule.help.is_empty()
            );
        }
    }
}
