//! Lint end to end through the library and the binary: one failing and one passing fixture
//! per rule with exact positions, suppression, options, renderers and bad input.

use std::path::Path;

use df_lint::{LintOptions, LintReport, RULES};
use df_manifest::ManifestSet;
use df_state::{ClusterState, recorded};

use crate::support::cli::bin;

const DIR: &str = "testdata/lint";

fn state() -> ClusterState {
    recorded::load_files(&[format!("{DIR}/state.yaml")]).expect("state fixture loads")
}

fn run(files: &[String], options: &LintOptions) -> (ManifestSet, LintReport) {
    let set = df_manifest::load(files, false).expect("fixtures exist");
    let state = state();
    let report = df_lint::lint(&set, Some(&state), options).expect("valid options");
    (set, report)
}

fn lint_fixture(name: &str, options: &LintOptions) -> Vec<(usize, usize, String, String)> {
    let (_, report) = run(&[format!("{DIR}/{name}")], options);
    report
        .diagnostics
        .iter()
        .map(|d| (d.pos.line, d.pos.column, d.code.to_string(), d.path.clone()))
        .collect()
}

fn opt_in(code: &str) -> LintOptions {
    LintOptions {
        enable: vec![code.to_string()],
        ..LintOptions::default()
    }
}

type Expected = &'static [(usize, usize, &'static str, &'static str)];

/// Every failing fixture, with every diagnostic it produces (line, column, code, path).
/// Most put the offending object in the second or a later document of the file.
const FAILING: &[(&str, Expected)] = &[
    ("df001-fail.yaml", &[(13, 1, "DF001", "")]),
    (
        "df002-fail.yaml",
        &[(
            22,
            17,
            "DF002",
            "spec.runAfter.affinityStrategy.prefers[0].weight",
        )],
    ),
    ("df003-fail.yaml", &[(1, 1, "DF003", "")]),
    (
        "df005-fail.yaml",
        &[
            (9, 3, "DF005", "spec.nodeSelecter"),
            (
                13,
                7,
                "DF005",
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoreDuringExecution",
            ),
            (36, 9, "DF005", "spec.template.spec.tolerations[0].operater"),
            (37, 16, "DF005", "spec.template.spec.hostPID"),
            (
                58,
                13,
                "DF005",
                "spec.tasks[0].template.spec.containers[0].resources.request",
            ),
            (
                78,
                11,
                "DF101",
                "spec.processor.job.podSpec.containers[0].comand",
            ),
        ],
    ),
    (
        "df006-fail.yaml",
        &[
            (10, 1, "DF006", "apiVersion"),
            (18, 1, "DF006", "apiVersion"),
        ],
    ),
    ("df007-fail.yaml", &[(15, 9, "DF007", "metadata.name")]),
    (
        "df101-fail.yaml",
        &[(21, 7, "DF101", "spec.runAfter.affinityStrategy.require")],
    ),
    (
        "df102-fail.yaml",
        &[(20, 15, "DF102", "spec.runAfter.affinityStrategy.policy")],
    ),
    (
        "df103-fail.yaml",
        &[(21, 7, "DF103", "spec.runAfter.affinityStrategy.prefers")],
    ),
    (
        "df104-fail.yaml",
        &[
            (
                23,
                17,
                "DF104",
                "spec.runAfter.affinityStrategy.prefers[0].weight",
            ),
            (
                24,
                9,
                "DF104",
                "spec.runAfter.affinityStrategy.prefers[1].weight",
            ),
        ],
    ),
    (
        "df105-fail.yaml",
        &[(18, 11, "DF105", "spec.runAfter.name")],
    ),
    (
        "df106-fail.yaml",
        &[(17, 11, "DF106", "spec.runAfter.kind")],
    ),
    (
        "df107-fail.yaml",
        &[
            (9, 11, "DF107", "spec.runAfter.name"),
            (19, 11, "DF107", "spec.runAfter.name"),
            (29, 11, "DF107", "spec.runAfter.name"),
        ],
    ),
    (
        "df108-fail.yaml",
        &[(
            41,
            15,
            "DF108",
            "spec.runAfter.affinityStrategy.dependOn.name",
        )],
    ),
    (
        "df109-fail.yaml",
        &[(35, 11, "DF109", "spec.runAfter.kind")],
    ),
    (
        "df110-fail.yaml",
        &[(
            22,
            15,
            "DF110",
            "spec.runAfter.affinityStrategy.requires[0].name",
        )],
    ),
    (
        "df111-fail.yaml",
        &[
            (
                7,
                5,
                "DF111",
                "metadata.annotations[data-operation.fluid.io/affinity.labels]",
            ),
            (
                19,
                5,
                "DF111",
                "metadata.annotations[fluid.io/affinity.labels]",
            ),
            (
                32,
                7,
                "DF111",
                "spec.podMetadata.annotations[affinity.dataflow.fluid.io/label]",
            ),
        ],
    ),
    (
        "df112-fail.yaml",
        &[(19, 18, "DF112", "spec.from.dataset.namespace")],
    ),
    ("df113-fail.yaml", &[(16, 3, "DF113", "spec.runAfter")]),
    (
        "df201-fail.yaml",
        &[
            (
                19,
                19,
                "DF201",
                "spec.affinity.podGroupAffinity.sortRules[0].resource",
            ),
            (
                20,
                20,
                "DF201",
                "spec.affinity.podGroupAffinity.sortRules[0].dimension",
            ),
            (
                22,
                9,
                "DF201",
                "spec.affinity.podGroupAffinity.sortRules[1].order",
            ),
        ],
    ),
    ("df202-fail.yaml", &[(15, 14, "DF202", "spec.minMember")]),
    (
        "df203-fail.yaml",
        &[(
            15,
            41,
            "DF203",
            "metadata.labels[godel.bytedance.com/pod-group-name]",
        )],
    ),
    (
        "df204-fail.yaml",
        &[(
            11,
            22,
            "DF204",
            "spec.affinity.podGroupAffinity.required[0].topologyKey",
        )],
    ),
    (
        "df205-fail.yaml",
        &[(
            12,
            22,
            "DF205",
            "spec.affinity.podGroupAffinity.preferred[1].topologyKey",
        )],
    ),
    (
        "df206-fail.yaml",
        &[(
            12,
            22,
            "DF206",
            "spec.affinity.podGroupAffinity.preferred[1].topologyKey",
        )],
    ),
    ("df207-fail.yaml", &[(7, 14, "DF207", "spec.minMember")]),
    (
        "df208-fail.yaml",
        &[(
            15,
            35,
            "DF208",
            "metadata.annotations[scheduling.k8s.io/group-name]",
        )],
    ),
    (
        "df209-fail.yaml",
        &[
            (15, 14, "DF209", "spec.minMember"),
            (27, 19, "DF209", "spec.podGroups[0].policy.gang.minCount"),
            (35, 14, "DF209", "spec.minMember"),
        ],
    ),
    (
        "df210-fail.yaml",
        &[(10, 13, "DF210", "spec.minResources[memory]")],
    ),
    ("df211-fail.yaml", &[(7, 14, "DF211", "spec.minMember")]),
    (
        "df212-fail.yaml",
        &[(
            16,
            36,
            "DF212",
            "metadata.labels[scheduling.x-k8s.io/pod-group]",
        )],
    ),
    (
        "df213-fail.yaml",
        &[(10, 13, "DF213", "spec.minResources[memory]")],
    ),
    (
        "df214-fail.yaml",
        &[(17, 18, "DF214", "spec.schedulerName")],
    ),
    (
        "df301-fail.yaml",
        &[(
            34,
            44,
            "DF301",
            "metadata.annotations[volcano.sh/task-topology-affinity]",
        )],
    ),
    (
        "df302-fail.yaml",
        &[(
            7,
            52,
            "DF302",
            "metadata.annotations[volcano.sh/task-topology-task-order]",
        )],
    ),
    (
        "df303-fail.yaml",
        &[(
            7,
            44,
            "DF303",
            "metadata.annotations[volcano.sh/task-topology-affinity]",
        )],
    ),
    (
        "df304-fail.yaml",
        &[(
            8,
            53,
            "DF304",
            "metadata.annotations[volcano.sh/task-topology-anti-affinity]",
        )],
    ),
    ("df305-fail.yaml", &[(9, 17, "DF305", "spec.minAvailable")]),
    (
        "df306-fail.yaml",
        &[(17, 11, "DF306", "spec.tasks[1].name")],
    ),
    (
        "df307-fail.yaml",
        &[(12, 19, "DF307", "spec.tasks[0].minAvailable")],
    ),
    ("df308-fail.yaml", &[(8, 10, "DF308", "spec.tasks")]),
    ("df309-fail.yaml", &[(19, 5, "DF309", "spec.policies[1]")]),
    (
        "df310-fail.yaml",
        &[
            (9, 5, "DF310", "spec.networkTopology"),
            // No HyperNode is given, so tier 2 is unknown too.
            (10, 25, "DF502", "spec.networkTopology.highestTierAllowed"),
        ],
    ),
    ("df311-fail.yaml", &[(9, 11, "DF311", "spec.tasks[0].name")]),
    (
        "df312-fail.yaml",
        &[(
            12,
            24,
            "DF312",
            "spec.tasks[0].partitionPolicy.totalPartitions",
        )],
    ),
    (
        "df313-fail.yaml",
        &[(
            13,
            22,
            "DF313",
            "spec.tasks[0].partitionPolicy.partitionSize",
        )],
    ),
    (
        "df314-fail.yaml",
        &[(10, 15, "DF314", "spec.tasks[0].replicas")],
    ),
    (
        "df315-fail.yaml",
        &[(11, 19, "DF315", "spec.tasks[0].minAvailable")],
    ),
    (
        "df401-fail.yaml",
        &[
            (
                24,
                23,
                "DF401",
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator",
            ),
            (
                27,
                21,
                "DF401",
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values",
            ),
        ],
    ),
    (
        "df402-fail.yaml",
        &[(
            25,
            22,
            "DF402",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]",
        )],
    ),
    (
        "df403-fail.yaml",
        &[(
            24,
            23,
            "DF403",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator",
        )],
    ),
    (
        "df404-fail.yaml",
        &[(
            22,
            11,
            "DF404",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]",
        )],
    ),
    (
        "df405-fail.yaml",
        &[
            (
                21,
                17,
                "DF405",
                "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
            ),
            (
                29,
                17,
                "DF405",
                "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
            ),
        ],
    ),
    (
        "df406-fail.yaml",
        &[(
            23,
            18,
            "DF406",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key",
        )],
    ),
    (
        "df407-fail.yaml",
        &[(
            19,
            5,
            "DF407",
            "spec.nodeSelector[topology.kubernetes.io/zone]",
        )],
    ),
    (
        "df408-fail.yaml",
        &[(
            21,
            9,
            "DF408",
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
        )],
    ),
    (
        "df409-fail.yaml",
        &[(
            21,
            9,
            "DF409",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
        )],
    ),
    (
        "df501-fail.yaml",
        &[(12, 25, "DF501", "spec.networkTopology.highestTierAllowed")],
    ),
    (
        "df502-fail.yaml",
        &[(12, 25, "DF502", "spec.networkTopology.highestTierAllowed")],
    ),
    (
        "df503-fail.yaml",
        &[
            (16, 50, "DF503", KUEUE_REQUIRED),
            (40, 56, "DF503", KUEUE_SLICE_LEVEL),
        ],
    ),
    (
        "df504-fail.yaml",
        &[
            (17, 51, "DF504", KUEUE_PREFERRED),
            (40, 56, "DF504", KUEUE_SLICE_LEVEL),
            (64, 43, "DF504", KUEUE_SLICE_SIZE),
        ],
    ),
    (
        "df505-fail.yaml",
        &[
            (13, 25, "DF505", "spec.networkTopology.highestTierAllowed"),
            (86, 50, "DF505", KUEUE_REQUIRED),
        ],
    ),
    (
        "df506-fail.yaml",
        &[
            (12, 25, "DF506", "spec.networkTopology.highestTierAllowed"),
            (85, 51, "DF506", KUEUE_PREFERRED),
        ],
    ),
    (
        "df507-fail.yaml",
        &[
            (8, 16, "DF507", "spec.levels[1].nodeLabel"),
            (
                19,
                23,
                "DF507",
                "spec.members[0].selector.labelMatch.matchLabels[example.com/rack]",
            ),
            (
                24,
                17,
                "DF507",
                "spec.members[1].selector.labelMatch.matchExpressions[0].key",
            ),
            (40, 50, "DF507", KUEUE_REQUIRED),
        ],
    ),
    (
        "df508-fail.yaml",
        &[
            (
                15,
                14,
                "DF508",
                "spec.podGroupTemplates[0].schedulingConstraints.topology[0].key",
            ),
            (
                27,
                12,
                "DF508",
                "spec.schedulingConstraints.topology[0].key",
            ),
            (
                40,
                20,
                "DF508",
                "spec.schedulingConstraints.topologyConstraints[0].topologyKey",
            ),
        ],
    ),
    (
        "df509-fail.yaml",
        &[(
            13,
            12,
            "DF509",
            "spec.schedulingConstraints.topology[0].key",
        )],
    ),
    (
        "df510-fail.yaml",
        &[
            (
                29,
                32,
                "DF510",
                "metadata.labels[kueue.x-k8s.io/queue-name]",
            ),
            (
                49,
                39,
                "DF510",
                "metadata.labels[kueue.x-k8s.io/queue-name]",
            ),
        ],
    ),
    (
        "df511-fail.yaml",
        &[
            (
                42,
                36,
                "DF511",
                "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]",
            ),
            (
                60,
                62,
                "DF511",
                "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.requests[nvidia.com/gpu]",
            ),
        ],
    ),
    (
        "df512-fail.yaml",
        &[(
            31,
            32,
            "DF512",
            "metadata.labels[kueue.x-k8s.io/queue-name]",
        )],
    ),
    (
        "df513-fail.yaml",
        &[(
            8,
            50,
            "DF513",
            "metadata.annotations[alpha.jobset.sigs.k8s.io/exclusive-topology]",
        )],
    ),
    (
        "df601-fail.yaml",
        &[(
            14,
            32,
            "DF601",
            "spec.resourceClaims[0].resourceClaimTemplateName",
        )],
    ),
    (
        "df602-fail.yaml",
        &[(
            12,
            26,
            "DF602",
            "spec.devices.requests[0].exactly.deviceClassName",
        )],
    ),
    // The first position is the undeclared name's, inside the expression.
    (
        "df603-fail.yaml",
        &[
            (10, 57, "DF603", "spec.selectors[0].cel.expression"),
            (12, 20, "DF603", "spec.selectors[1].cel.expression"),
        ],
    ),
    (
        "df604-fail.yaml",
        &[(11, 9, "DF604", "spec.spec.devices.requests[0]")],
    ),
];

const KUEUE_REQUIRED: &str =
    "spec.template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]";
const KUEUE_PREFERRED: &str =
    "spec.template.metadata.annotations[kueue.x-k8s.io/podset-preferred-topology]";
const KUEUE_SLICE_LEVEL: &str =
    "spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology]";
const KUEUE_SLICE_SIZE: &str =
    "spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]";

#[test]
fn failing_fixtures_report_exact_positions() {
    for (name, expected) in FAILING {
        let code = name[..5].to_ascii_uppercase();
        let got = lint_fixture(name, &opt_in(&code));
        let expected: Vec<(usize, usize, String, String)> = expected
            .iter()
            .map(|(l, c, code, path)| (*l, *c, code.to_string(), path.to_string()))
            .collect();
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn every_rule_has_a_failing_and_a_passing_fixture() {
    // DF004 (unreadable: over 64 MiB) is generated in `bad_input_becomes_diagnostics`.
    for rule in RULES.iter().filter(|r| r.code != "DF004") {
        let code = rule.code.to_ascii_lowercase();
        let failing = format!("{code}-fail.yaml");
        assert!(
            FAILING
                .iter()
                .any(|(name, diags)| *name == failing && diags.iter().any(|d| d.2 == rule.code)),
            "{} has no failing fixture",
            rule.code
        );
        let passing = format!("{code}-pass.yaml");
        assert!(Path::new(DIR).join(&passing).exists(), "{passing}");
        assert_eq!(
            lint_fixture(&passing, &opt_in(rule.code)),
            vec![],
            "{passing}"
        );
    }
}

/// DF510 says which link of Kueue's queue chain is missing, as the admission path reads it;
/// DF511 which resource the ClusterQueue does not cover, in the flavor assigner's words; DF512
/// which flavor no node matches.
#[test]
fn a_missing_kueue_queue_or_resource_is_named() {
    let (_, report) = run(&[format!("{DIR}/df510-fail.yaml")], &opt_in("DF510"));
    let messages: Vec<&str> = report.diagnostics.iter().map(|d| &*d.message).collect();
    assert_eq!(
        messages,
        [
            "LocalQueue team-a/users-queue not found: Kueue keeps it suspended",
            "LocalQueue team-a/users-queue not found: Kueue keeps it suspended"
        ]
    );
    let (_, report) = run(&[format!("{DIR}/df511-fail.yaml")], &opt_in("DF511"));
    let messages: Vec<&str> = report.diagnostics.iter().map(|d| &*d.message).collect();
    assert_eq!(
        messages,
        [
            "ClusterQueue \"cluster-queue\" covers no nvidia.com/gpu (it covers cpu): Kueue assigns the pod set no flavor (resource nvidia.com/gpu unavailable in ClusterQueue) and keeps the Job suspended",
            "ClusterQueue \"cluster-queue\" covers no nvidia.com/gpu (it covers cpu): Kueue assigns the pod set no flavor (resource nvidia.com/gpu unavailable in ClusterQueue) and keeps the PyTorchJob suspended"
        ]
    );
    // testdata/lint/state.yaml has 4 nodes, none labelled pool=spot.
    let (_, report) = run(&[format!("{DIR}/df512-fail.yaml")], &opt_in("DF512"));
    let messages: Vec<&str> = report.diagnostics.iter().map(|d| &*d.message).collect();
    assert_eq!(
        messages,
        [
            "ResourceFlavor \"default-flavor\" of ClusterQueue \"cluster-queue\" puts its pods on nodes labelled pool=spot; none of the state's 4 nodes is: a Job admitted on it holds its quota while its pods stay pending"
        ]
    );
}

/// Each group kind's least minimum is its own CRD's: coscheduling's says `Minimum=1`,
/// Volcano's `Minimum=0` (a Volcano group of 0 is no gang: its pods are placed one by one).
#[test]
fn gang_minimums_follow_each_crd() {
    let (_, report) = run(&[format!("{DIR}/df209-fail.yaml")], &opt_in("DF209"));
    let messages: Vec<&str> = report.diagnostics.iter().map(|d| &*d.message).collect();
    assert_eq!(
        messages,
        [
            "minMember is 0; a gang needs at least 1",
            "minCount is -1; a gang needs at least 1",
            "minMember is -1; Volcano's PodGroup CRD requires at least 0",
        ]
    );
}

/// The topology rules' messages, in the scheduler's own terms, for each failing fixture.
#[test]
fn topology_rules_say_what_the_scheduler_does() {
    let cases: &[(&str, &[(usize, &str)])] = &[
        (
            "df501-fail.yaml",
            &[(
                12,
                "highestTierAllowed is 1 but the HyperNodes have tier 2: in hard mode no \
                 HyperNode can hold the gang and it stays pending",
            )],
        ),
        (
            "df502-fail.yaml",
            &[(
                12,
                "highestTierAllowed is 4 but the HyperNodes have tiers 1, 2: Volcano's virtual \
                 <cluster-top-hypernode> (tier3, every node) is within it: the gang may span \
                 the whole cluster",
            )],
        ),
        (
            "df503-fail.yaml",
            &[
                (
                    16,
                    "kueue.x-k8s.io/podset-required-topology \"example.com/rack\" is not a level \
                     of the Job's topology (Topology zones of ResourceFlavor tas has \
                     topology.kubernetes.io/zone, example.com/tor, kubernetes.io/hostname): Kueue \
                     never admits the Job",
                ),
                (
                    40,
                    "kueue.x-k8s.io/podset-slice-required-topology \"topology.kubernetes.io/zone\" \
                     is above the pod set's level \"example.com/tor\" in Topology zones: slices \
                     must lie inside the pod set's domain, and Kueue never admits the Job",
                ),
            ],
        ),
        (
            "df505-fail.yaml",
            &[
                (
                    13,
                    "the largest tier2 HyperNode (s1) holds 4 of the 6 pods (free resources and \
                     pod slots of its 2 nodes): in hard mode the gang stays pending",
                ),
                (
                    86,
                    "the largest example.com/tor domain (t3) holds 4 of the 5 pods \
                     (ResourceFlavor tas, Topology zones): Kueue does not admit the Job",
                ),
            ],
        ),
        (
            "df506-fail.yaml",
            &[
                (
                    12,
                    "the largest tier1 HyperNode (t3) holds 4 of the 5 pods (free resources and \
                     pod slots of its 2 nodes): in soft mode Volcano keeps it in a HyperNode of a \
                     higher tier, or the whole cluster",
                ),
                (
                    85,
                    "the largest example.com/tor domain (t3) holds 4 of the 5 pods \
                     (ResourceFlavor tas, Topology zones): Kueue goes up to a wider level",
                ),
            ],
        ),
        (
            "df507-fail.yaml",
            &[
                (
                    8,
                    "no node of the 4 in the state carries the label \"example.com/rack\": the TAS \
                     snapshot of a flavor with this Topology keeps no node",
                ),
                (
                    19,
                    "no node of the 4 in the state carries the label \"example.com/rack\": the \
                     member selects no node by it",
                ),
                (
                    24,
                    "no node of the 4 in the state carries the label \"example.com/row\": the \
                     member selects no node by it",
                ),
                (
                    40,
                    "no node of the 4 in the state carries the label \"example.com/rack\" that \
                     kueue.x-k8s.io/podset-required-topology names: Kueue finds no domain of that \
                     level",
                ),
            ],
        ),
        (
            "df508-fail.yaml",
            &[
                (
                    15,
                    "no node of the 4 in the state carries the label \"example.com/rack\": \
                     kube-scheduler's TopologyPlacement finds no placement and the group stays \
                     pending",
                ),
                (
                    27,
                    "no node of the 4 in the state carries the label \"example.com/rack\": \
                     kube-scheduler's TopologyPlacement finds no placement and the group stays \
                     pending",
                ),
                (
                    40,
                    "no node of the 4 in the state carries the label \"example.com/row\": \
                     kube-scheduler's TopologyPlacement finds no placement and the group stays \
                     pending",
                ),
            ],
        ),
        (
            "df509-fail.yaml",
            &[(
                13,
                "the largest example.com/spine domain (s1) holds 4 of the 6 pods (free resources \
                 and pod slots of its 2 nodes): kube-scheduler finds no placement for the group \
                 and it stays pending",
            )],
        ),
    ];
    for (name, expected) in cases {
        let (_, report) = run(&[format!("{DIR}/{name}")], &LintOptions::default());
        let got: Vec<(usize, &str)> = report
            .diagnostics
            .iter()
            .map(|d| (d.pos.line, d.message.as_str()))
            .collect();
        assert_eq!(&got, expected, "{name}");
    }
}

/// Without a state, the tier and level rules still read the HyperNodes and Kueue objects of
/// the inputs; the capacity and node-label rules are skipped.
#[test]
fn topology_rules_without_a_state_use_the_inputs() {
    let cases: &[(&str, &[&str])] = &[
        ("df501-fail.yaml", &["DF501"]),
        ("df502-fail.yaml", &["DF502"]),
        ("df503-fail.yaml", &["DF503", "DF503"]),
        ("df505-fail.yaml", &[]),
        ("df506-fail.yaml", &[]),
        ("df507-fail.yaml", &[]),
        ("df508-fail.yaml", &[]),
        ("df509-fail.yaml", &[]),
    ];
    for (name, expected) in cases {
        let set = df_manifest::load(&[format!("{DIR}/{name}")], false).unwrap();
        let report = df_lint::lint(&set, None, &LintOptions::default()).unwrap();
        let got: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(&got, expected, "{name}");
    }
}

#[test]
fn without_a_state_the_state_rules_stay_silent() {
    let files = [
        format!("{DIR}/df204-fail.yaml"),
        format!("{DIR}/df409-fail.yaml"),
    ];
    let set = df_manifest::load(&files, false).unwrap();
    let report = df_lint::lint(&set, None, &LintOptions::default()).unwrap();
    assert_eq!(report.diagnostics, vec![]);
}

fn lint_text(text: &str, options: &LintOptions) -> Vec<(usize, usize, &'static str)> {
    let mut set = ManifestSet::default();
    df_manifest::add_source(&mut set, "t.yaml".into(), None, text.to_string());
    df_lint::lint(&set, None, options)
        .unwrap()
        .diagnostics
        .iter()
        .map(|d| (d.pos.line, d.pos.column, d.code))
        .collect()
}

const TWO_PROBLEMS: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 0%W%\n        preference:\n          matchExpressions:\n          - {key: a, operator: in, values: [x]}%O%\n";

type SuppressionCase = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(usize, usize, &'static str)],
);

#[test]
fn inline_suppression_on_the_line_or_the_object() {
    let both: &[(usize, usize, &str)] = &[(9, 17, "DF405"), (12, 32, "DF403")];
    let cases: &[SuppressionCase] = &[
        ("", "", "", both),
        (
            "",
            " # kubectl-dataflow: ignore DF405",
            "",
            &[(12, 32, "DF403")],
        ),
        (
            "",
            " # kubectl-dataflow: ignore DF403",
            " # kubectl-dataflow: ignore DF405",
            both,
        ),
        (
            "",
            "",
            " # kubectl-dataflow: ignore DF403,DF405",
            &[(9, 17, "DF405")],
        ),
        ("# kubectl-dataflow: ignore DF405 DF403\n", "", "", &[]),
        ("# other comment\n# kubectl-dataflow: ignore\n", "", "", &[]),
        ("# kubectl-dataflow: ignore DF101\n", "", "", both),
    ];
    for (above, on_weight, on_operator, expected) in cases {
        let body = TWO_PROBLEMS
            .replace("%W%", on_weight)
            .replace("%O%", on_operator);
        let text = format!("{above}{body}");
        let shift = above.lines().count();
        let expected: Vec<_> = expected
            .iter()
            .map(|(l, c, code)| (l + shift, *c, *code))
            .collect();
        assert_eq!(
            lint_text(&text, &LintOptions::default()),
            expected,
            "{above:?} {on_weight:?} {on_operator:?}"
        );
    }
}

#[test]
fn disable_and_enable_codes_and_prefixes() {
    let text = TWO_PROBLEMS.replace("%W%", "").replace("%O%", "");
    let options = |disable: &[&str], enable: &[&str]| LintOptions {
        disable: disable.iter().map(|s| s.to_string()).collect(),
        enable: enable.iter().map(|s| s.to_string()).collect(),
    };
    let cases: &[(&[&str], &[&str], &[&str])] = &[
        (&[], &[], &["DF405", "DF403"]),
        (&["DF405"], &[], &["DF403"]),
        (&["DF4"], &[], &[]),
        (&["DF4xx"], &["df403"], &["DF403"]),
    ];
    for (disable, enable, expected) in cases {
        let got: Vec<&str> = lint_text(&text, &options(disable, enable))
            .iter()
            .map(|d| d.2)
            .collect();
        assert_eq!(&got, expected, "{disable:?} {enable:?}");
    }
    assert_eq!(
        options(&["DF999"], &[]).enabled_codes().unwrap_err(),
        df_lint::UnknownCode("DF999".into())
    );
}

#[test]
fn text_output_has_source_line_caret_and_hint() {
    let (set, report) = run(&[format!("{DIR}/df102-fail.yaml")], &LintOptions::default());
    assert_eq!(
        df_report::lint::text(&report, &set.sources, false),
        "testdata/lint/df102-fail.yaml:20:15: error[DF102]: invalid policy \"require\": must be \"\", \"Require\" or \"Prefer\"\n   |\n20 |       policy: require\n   |               ^^^^^^^\n   = hint: policies are case-sensitive: write \"Require\"\n\n1 error, 0 warnings in 1 file\n"
    );
}

/// A megabyte-long line (a generated flow mapping) is quoted around the offending column only:
/// 40 columns before it, 100 in all, `…` where text is cut; the position stays exact.
#[test]
fn long_lines_are_quoted_around_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.yaml").display().to_string();
    let filler = "x".repeat(1_000_000);
    std::fs::write(
        &file,
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, annotations: {{a: \"{filler}\"}}, labelz: {{a: b}}}}\nspec:\n  containers: [{{name: c, image: x}}]\n"
        ),
    )
    .unwrap();
    let (set, report) = run(std::slice::from_ref(&file), &LintOptions::default());
    let text = df_report::lint::text(&report, &set.sources, false);
    assert_eq!(
        text.replace(&file, "long.yaml"),
        format!(
            "long.yaml:3:1000043: error[DF005]: unknown field \"labelz\"; did you mean \"labels\"?\n  |\n3 | …{}\"}}, labelz: {{a: b}}}}\n  | {}^^^^^^\n\n1 error, 0 warnings in 1 file\n",
            "x".repeat(36),
            " ".repeat(41)
        )
    );
}

#[test]
fn json_output_is_the_contract() {
    let files = [
        format!("{DIR}/df202-fail.yaml"),
        format!("{DIR}/df202-pass.yaml"),
    ];
    let (_, report) = run(&files, &LintOptions::default());
    let value: serde_json::Value = serde_json::from_str(&df_report::lint::json(&report)).unwrap();
    assert_eq!(
        value,
        serde_json::json!({
            "diagnostics": [{
                "file": "testdata/lint/df202-fail.yaml", "line": 15, "column": 14,
                "severity": "error", "code": "DF202",
                "message": "minMember is 0; it must be at least 1",
                "path": "spec.minMember", "hint": null
            }],
            "summary": {"errors": 1, "warnings": 0, "files": 2}
        })
    );
}

#[test]
fn github_output_escapes_workflow_commands() {
    let (_, report) = run(&[format!("{DIR}/df110-fail.yaml")], &LintOptions::default());
    assert_eq!(
        df_report::lint::github(&report),
        "::warning file=testdata/lint/df110-fail.yaml,line=22,col=15,title=DF110::label key \"example.com/rack\" is never recorded by DataLoad/load: it is skipped and nothing is inherited for it%0Ahint: add it to the annotation affinity.dataflow.fluid.io/labels of DataLoad/load\n"
    );
}

/// The properties SARIF 2.1.0 requires (and GitHub code scanning reads), checked one by one.
#[test]
fn sarif_has_the_required_structure() {
    let files: Vec<String> = FAILING
        .iter()
        .map(|(name, _)| format!("{DIR}/{name}"))
        .collect();
    let (_, report) = run(&files, &opt_in("DF113"));
    assert!(report.diagnostics.len() > 40);
    let sarif: serde_json::Value = serde_json::from_str(&df_report::lint::sarif(&report)).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert!(sarif["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = sarif["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "kubectl-dataflow");
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), RULES.len());
    for rule in rules {
        for key in ["id", "name"] {
            assert!(rule[key].is_string(), "{rule}");
        }
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(
                rule[key]["text"].as_str().is_some_and(|t| !t.is_empty()),
                "{rule}"
            );
        }
    }
    let results = runs[0]["results"].as_array().unwrap();
    assert_eq!(results.len(), report.diagnostics.len());
    for (result, d) in results.iter().zip(&report.diagnostics) {
        assert_eq!(result["ruleId"], d.code);
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], d.code);
        assert!(matches!(
            result["level"].as_str(),
            Some("error" | "warning")
        ));
        assert!(
            result["message"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], d.file.as_ref());
        assert_eq!(location["region"]["startLine"], d.pos.line);
        assert_eq!(location["region"]["startColumn"], d.pos.column);
    }
}

#[test]
fn realistic_manifests_have_no_false_errors() {
    let files = df_manifest::expand_inputs(&[format!("{DIR}/realistic")], true)
        .unwrap()
        .files;
    assert!(files.len() >= 4, "{files:?}");
    let (_, report) = run(&files, &LintOptions::default());
    assert_eq!(report.diagnostics, vec![]);
}

#[test]
fn exit_codes() {
    let cases: &[(&[&str], i32)] = &[
        (&["lint", "-f", "testdata/lint/df202-pass.yaml"], 0),
        (&["lint", "-f", "testdata/lint/df202-fail.yaml"], 1),
        (&["lint", "-f", "testdata/lint/df003-fail.yaml"], 0),
        (
            &["lint", "-f", "testdata/lint/df003-fail.yaml", "--strict"],
            1,
        ),
        (
            &["lint", "-f", "testdata/lint/df001-fail.yaml", "-o", "json"],
            1,
        ),
        (&["lint", "-f", "testdata/lint/missing.yaml"], 2),
        (
            &[
                "lint",
                "-f",
                "testdata/lint/df202-pass.yaml",
                "--disable",
                "DF999",
            ],
            2,
        ),
        (&["lint", "--explain", "DF101"], 0),
        (&["lint", "--explain", "DF999"], 2),
        (&["lint"], 2),
    ];
    for (args, code) in cases {
        let output = bin(*args).output();
        assert_eq!(
            output.status.code(),
            Some(*code),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn bad_input_becomes_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 0..9 {
        let prev = if i == 0 {
            "a".to_string()
        } else {
            format!("l{}", i - 1)
        };
        let refs = vec![format!("*{prev}"); 10].join(", ");
        bomb.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("binary.yaml", b"apiVersion: v1\n\x00\x01\x02".to_vec()),
        ("bomb.yaml", bomb.into_bytes()),
        ("deep.yaml", "[".repeat(100_000).into_bytes()),
        ("empty.yaml", Vec::new()),
        ("huge.yaml", vec![b'#'; df_manifest::MAX_MANIFEST_BYTES + 1]),
        ("latin1.yaml", b"kind: Pod\nname: caf\xe9\n".to_vec()),
        (
            "wrongapi.yaml",
            b"apiVersion: data.fluid.io/v1beta1\nkind: DataLoad\n".to_vec(),
        ),
    ];
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let output = bin(["lint", "-o", "json", "-f"]).arg(dir.path()).output();
    assert_eq!(output.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let got: Vec<(String, String, u64, u64)> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = Path::new(d["file"].as_str().unwrap());
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let code = d["code"].as_str().unwrap().to_string();
            (
                name,
                code,
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, String, u64, u64)> = [
        ("binary.yaml", "DF001", 2, 1),
        ("bomb.yaml", "DF001", 5, 45),
        ("deep.yaml", "DF001", 1, 256),
        ("empty.yaml", "DF003", 1, 1),
        ("huge.yaml", "DF004", 1, 1),
        ("latin1.yaml", "DF001", 2, 10),
        ("wrongapi.yaml", "DF002", 1, 13),
    ]
    .iter()
    .map(|(f, c, l, col)| (f.to_string(), c.to_string(), *l, *col))
    .collect();
    assert_eq!(got, expected);
    assert_eq!(value["summary"]["files"], 7);
}

/// DF007 is for kinds a plan addresses: two definitions of one ClusterRole change no answer,
/// and a kind the tool does not model keeps the scope its manifest gives it (no `default`
/// namespace for a cluster-scoped ClusterRole).
#[test]
fn duplicates_of_kinds_no_plan_addresses_are_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rbac.yaml");
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n";
    std::fs::write(&file, format!("{role}---\n{role}")).unwrap();
    let (set, report) = run(&[file.display().to_string()], &LintOptions::default());
    let found: Vec<(usize, &str, &str)> = report
        .diagnostics
        .iter()
        .map(|d| (d.pos.line, d.code, &*d.message))
        .collect();
    assert_eq!(
        found,
        [(
            1,
            "DF006",
            "2 objects of rbac.authorization.k8s.io/v1 ClusterRole not checked (no schema for this kind)"
        )]
    );
    let names: Vec<String> = set.manifests.iter().map(|m| m.display_name()).collect();
    assert_eq!(names, ["ClusterRole/reader", "ClusterRole/reader"]);
}
