use super::*;
use crate::profile::{IMAGE_LOCALITY, NODE_AFFINITY, TAINT_TOLERATION};

fn write(text: &str) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    file
}

fn read(text: &str) -> Result<SchedulerConfig, String> {
    let file = write(text);
    SchedulerConfig::from_file(file.path().to_str().unwrap()).map_err(|e| {
        // Drop the temporary file's name: the rest is what the user reads.
        let text = e.to_string();
        text[text.find(':').unwrap()..].to_string()
    })
}

/// The first profile of a configuration that must load (an empty file has none: the
/// default).
fn profile(text: &str) -> Profile {
    let mut profiles = read(text).unwrap().profiles;
    if profiles.is_empty() {
        return Profile::default();
    }
    profiles.remove(0).profile
}

/// The warnings without the file name.
fn warnings(config: &SchedulerConfig) -> Vec<String> {
    config
        .warnings
        .iter()
        .map(|w| w[w.find(": ").unwrap() + 2..].to_string())
        .collect()
}

#[test]
fn reads_weights_and_strategy_from_a_scheduler_configuration() {
    let profile = profile(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      disabled:\n      - name: ImageLocality\n      enabled:\n      - name: NodeAffinity\n        weight: 10\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: 3\n        - name: nvidia.com/gpu\n          weight: 5\n",
    );
    assert_eq!(profile.weight(NODE_AFFINITY), Some(10));
    assert_eq!(profile.weight(IMAGE_LOCALITY), None);
    assert_eq!(profile.weight(TAINT_TOLERATION), Some(3));
    assert_eq!(profile.strategy, ScoringStrategyType::MostAllocated);
    assert_eq!(
        profile.fit_resources,
        vec![("cpu".to_string(), 3), ("nvidia.com/gpu".to_string(), 5)]
    );
}

/// KEP-5732's placement scorers: 1 each by default; `plugins.placementScore` reweighs or
/// disables them.
#[test]
fn reads_the_placement_score_weights() {
    let cases: &[(&str, [(&str, i64); 2])] = &[
        (
            "",
            [
                (NODE_RESOURCES_FIT, 1),
                (crate::profile::POD_GROUP_PODS_COUNT, 1),
            ],
        ),
        (
            "plugins:\n  placementScore:\n    enabled:\n    - name: NodeResourcesFit\n      weight: 2\n    - name: PodGroupPodsCount\n      weight: 5\n",
            [
                (NODE_RESOURCES_FIT, 2),
                (crate::profile::POD_GROUP_PODS_COUNT, 5),
            ],
        ),
        (
            "plugins:\n  placementScore:\n    disabled:\n    - name: PodGroupPodsCount\n",
            [
                (NODE_RESOURCES_FIT, 1),
                (crate::profile::POD_GROUP_PODS_COUNT, 0),
            ],
        ),
    ];
    for (text, expected) in cases {
        let profile = profile(text);
        let got = expected.map(|(name, _)| (name, profile.placement_weight(name)));
        assert_eq!(got, *expected, "{text}");
    }
}

/// What kube-scheduler itself refuses stays an error at its position.
#[test]
fn what_kube_scheduler_refuses_is_a_positioned_error() {
    let cases: &[(&str, &str)] = &[
        (
            "plugins:\n  placementScore:\n    enabled:\n    - name: NodeAffinity\n",
            ":4:13: plugins.placementScore.enabled[0].name: \"NodeAffinity\" is not a placement score plugin (NodeResourcesFit, PodGroupPodsCount)",
        ),
        (
            "plugins:\n  placementScore:\n    enabled:\n    - name: PodGroupPodsCount\n      weight: 0\n",
            ":5:15: plugins.placementScore.enabled[0].weight: weight must be in 1..100, got 0",
        ),
        (
            "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeAfinity\n",
            ":5:15: profiles[0].plugins.filter.enabled[0].name: unknown plugin \"NodeAfinity\"; did you mean NodeAffinity?",
        ),
        (
            "plugins:\n  score:\n    enabled:\n    - name: NodePorts\n",
            ":4:13: plugins.score.enabled[0].name: NodePorts has no score extension point",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFitt\n  args: {}\n",
            ":2:9: pluginConfig[0].name: unknown plugin \"NodeResourcesFitt\"; did you mean NodeResourcesFit?",
        ),
        (
            "plugins:\n  score:\n    enabled:\n    - name: NodeAffinity\n      weight: 500\n",
            ":5:15: plugins.score.enabled[0].weight: weight must be in 1..100, got 500",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      type: Random\n",
            ":5:13: pluginConfig[0].args.scoringStrategy.type: unknown variant `Random`, expected one of `LeastAllocated`, `MostAllocated`, `RequestedToCapacityRatio`",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      resources: [{name: cpu, weight: 101}]\n",
            ":5:39: pluginConfig[0].args.scoringStrategy.resources[0].weight: resource weight of cpu not in valid range (0, 100]",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      type: RequestedToCapacityRatio\n",
            ":5:7: pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      type: RequestedToCapacityRatio\n      requestedToCapacityRatio:\n        shape: [{utilization: 50, score: 0}, {utilization: 50, score: 10}]\n",
            ":7:60: pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 50: values must be sorted in increasing order",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      type: RequestedToCapacityRatio\n      requestedToCapacityRatio:\n        shape: [{utilization: 0, score: 11}]\n",
            ":7:41: pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      type: MostAllocated\n      requestedToCapacityRatio: {shape: [{utilization: 0, score: 1}]}\n",
            ":6:33: pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesFit\n  args:\n    scoringStrategi: {}\n",
            ":4:22: pluginConfig[0].args.scoringStrategi: unknown field `scoringStrategi`, expected one of `ignoredResources`, `ignoredResourceGroups`, `scoringStrategy`",
        ),
        (
            "pluginConfig:\n- name: InterPodAffinity\n  args: {hardPodAffinityWeight: 101}\n",
            ":3:33: pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesBalancedAllocation\n  args: {resources: [{name: cpu}, {name: cpu}]}\n",
            ":3:42: pluginConfig[0].args.resources[1].name: Duplicate value: \"cpu\"",
        ),
        (
            "pluginConfig:\n- name: NodeResourcesBalancedAllocation\n  args: {resources: [{name: cpu, weight: 2}]}\n",
            ":3:42: pluginConfig[0].args.resources[0].weight: Invalid value: 2: must be 1",
        ),
        (
            "profiles:\n- schedulerName: a\n- schedulerName: a\n",
            ":3:18: profiles[1].schedulerName: Duplicate value: \"a\"",
        ),
        (
            "apiVersion: kubescheduler.config.k8s.io/v2\nkind: KubeSchedulerConfiguration\n",
            ":1:13: apiVersion: \"kubescheduler.config.k8s.io/v2\" is not a version of KubeSchedulerConfiguration (kube-scheduler 1.32 to 1.37 serve kubescheduler.config.k8s.io/v1)",
        ),
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n",
            ":1:1: no KubeSchedulerConfiguration here, nor a ConfigMap holding one (found Deployment)",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(read(text).unwrap_err(), *want, "{text}");
    }
}

/// PodTopologySpreadArgs as upstream validates them (`ValidatePodTopologySpreadArgs`).
#[test]
fn spread_defaults_are_validated_as_upstream() {
    let args = |body: &str| format!("pluginConfig:\n- name: PodTopologySpread\n  args:\n{body}");
    let cases: &[(&str, &str)] = &[
        (
            "    defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]\n",
            ":4:5: pluginConfig[0].args.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty",
        ),
        (
            "    defaultingType: Lists\n",
            ":4:21: pluginConfig[0].args.defaultingType: Unsupported value: \"Lists\": supported values: \"System\", \"List\"",
        ),
        (
            "    defaultingType: List\n    defaultConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]\n",
            ":5:36: pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)",
        ),
        (
            "    defaultingType: List\n    defaultConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]\n",
            ":5:26: pluginConfig[0].args.defaultConstraints[0].topologyKey: Required value: can not be empty",
        ),
        (
            "    defaultingType: List\n    defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Never}]\n",
            ":5:77: pluginConfig[0].args.defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
        ),
        (
            "    defaultingType: List\n    defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {}}]\n",
            ":5:107: pluginConfig[0].args.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod",
        ),
        (
            "    defaultingType: List\n    defaultConstraints:\n    - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n    - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
            ":7:7: pluginConfig[0].args.defaultConstraints[1]: Duplicate value: \"{zone, DoNotSchedule}\"",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(read(&args(body)).unwrap_err(), *want, "{body}");
    }
    // List: the constraints as given, DoNotSchedule ones included; an empty List turns
    // default spreading off.
    let listed = profile(&args(
        "    defaultingType: List\n    defaultConstraints:\n    - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Honor}\n    - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, minDomains: 3}\n",
    ));
    assert_eq!(
        listed.spread_defaulting,
        SpreadDefaulting::List(vec![
            DefaultSpread {
                max_skew: 2,
                topology_key: "zone".into(),
                hard: true,
                min_domains: 1,
                honor_node_affinity: true,
                honor_taints: true,
            },
            DefaultSpread {
                max_skew: 1,
                topology_key: "kubernetes.io/hostname".into(),
                hard: false,
                min_domains: 3,
                honor_node_affinity: true,
                honor_taints: false,
            },
        ])
    );
    assert_eq!(
        profile(&args("    defaultingType: List\n")).spread_defaulting,
        SpreadDefaulting::List(Vec::new())
    );
    assert_eq!(
        profile(&args("    defaultingType: System\n")).spread_defaulting,
        SpreadDefaulting::System
    );
}

/// Disabling a default plugin turns it off at the points it is disabled, by name or `*`, in
/// multiPoint or at the point itself, unless the profile enables it there again.
#[test]
fn disabled_default_plugins_are_switched_off() {
    use Point::{Filter, PostFilter, PreEnqueue};
    let all_filters: Vec<(Point, &str)> = Point::Filter
        .defaults()
        .into_iter()
        .map(|n| (Filter, n))
        .collect();
    let cases: Vec<(&str, Vec<(Point, &str)>)> = vec![
        (
            "plugins:\n  filter:\n    disabled: [{name: NodePorts}]\n",
            vec![(Filter, "NodePorts")],
        ),
        (
            "plugins:\n  preFilter:\n    disabled: [{name: PodTopologySpread}]\n",
            vec![(Filter, "PodTopologySpread")],
        ),
        (
            "plugins:\n  multiPoint:\n    disabled: [{name: NodeResourcesFit}]\n",
            vec![(Filter, "NodeResourcesFit")],
        ),
        (
            "plugins:\n  filter:\n    disabled: [{name: \"*\"}]\n",
            all_filters.clone(),
        ),
        (
            "plugins:\n  filter:\n    disabled: [{name: \"*\"}]\n    enabled: [{name: NodeAffinity}]\n",
            all_filters
                .iter()
                .copied()
                .filter(|(_, n)| *n != "NodeAffinity")
                .collect(),
        ),
        (
            "plugins:\n  postFilter:\n    disabled: [{name: \"*\"}]\n",
            vec![
                (PostFilter, "DefaultPreemption"),
                (PostFilter, "DynamicResources"),
            ],
        ),
        (
            "plugins:\n  multiPoint:\n    disabled: [{name: SchedulingGates}]\n",
            vec![(PreEnqueue, "SchedulingGates")],
        ),
        // The score point alone leaves the filter on.
        (
            "plugins:\n  score:\n    disabled: [{name: NodeAffinity}]\n",
            vec![],
        ),
    ];
    for (text, want) in cases {
        let got: Vec<(Point, &str)> = profile(text).disabled.into_iter().collect();
        let mut want = want;
        want.sort();
        assert_eq!(got, want, "{text}");
    }
    let multi = profile("plugins:\n  multiPoint:\n    disabled: [{name: NodeResourcesFit}]\n");
    assert_eq!(multi.weight(NODE_RESOURCES_FIT), None);
}

/// The shapes of kubernetes-sigs/scheduler-plugins' own `manifests/*/scheduler-config.yaml`
/// (their API versions, a ConfigMap, multiPoint, queue sorts, args of their plugins) load,
/// each profile under its name, with one warning naming what is not modelled.
#[test]
fn scheduler_plugins_configurations_load_with_warnings() {
    struct Case {
        name: &'static str,
        text: &'static str,
        profiles: &'static [(&'static str, bool)],
        warnings: &'static [&'static str],
    }
    let cases = [
        Case {
            name: "coscheduling: multiPoint and queue sort, args",
            text: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      enabled: [{name: Coscheduling}]\n    queueSort:\n      enabled: [{name: Coscheduling}]\n      disabled: [{name: \"*\"}]\n  pluginConfig:\n  - name: Coscheduling\n    args: {permitWaitingTimeSeconds: 30}\n",
            profiles: &[("default-scheduler", true)],
            warnings: &[],
        },
        Case {
            name: "network-aware: weight on an out-of-tree scorer, NodeResourcesFit off",
            text: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: net-aware\n  plugins:\n    multiPoint:\n      enabled: [{name: NetworkOverhead, weight: 4}]\n      disabled: [{name: NodeResourcesFit}]\n    queueSort:\n      enabled: [{name: TopologicalSort}]\n      disabled: [{name: \"*\"}]\n  pluginConfig:\n  - name: NetworkOverhead\n    args: {namespaces: [default], weightsName: UserDefined}\n",
            profiles: &[("net-aware", false)],
            warnings: &[
                "not modelled, left out of this preview: NetworkOverhead (scheduler-plugins: filter and score by network cost), TopologicalSort (scheduler-plugins: queue order; pending pods keep priority, then creation order)",
                "profile net-aware: NodeResourcesFit's filter is off: planned pods may exceed a node's allocatable, where the kubelet would reject them",
            ],
        },
        Case {
            name: "a v1beta3 file with a plugin name older releases had",
            text: "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: load-aware\n  plugins:\n    score:\n      disabled: [{name: NodeResourcesBalancedAllocation}, {name: NodeResourcesLeastAllocated}]\n      enabled: [{name: TargetLoadPacking}]\n  pluginConfig:\n  - name: TargetLoadPacking\n    args: {targetUtilization: 50}\n",
            profiles: &[("load-aware", false)],
            warnings: &[
                "not modelled, left out of this preview: TargetLoadPacking (scheduler-plugins: score by measured load)",
                "kubescheduler.config.k8s.io/v1beta3 is not served by kube-scheduler 1.32 to 1.37 (only kubescheduler.config.k8s.io/v1 is); read with v1's defaults",
            ],
        },
        Case {
            name: "in a ConfigMap, v1beta1, filter and score of one plugin",
            text: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: topo-config, namespace: kube-system}\ndata:\n  scheduler-config.yaml: |\n    apiVersion: kubescheduler.config.k8s.io/v1beta1\n    kind: KubeSchedulerConfiguration\n    profiles:\n    - schedulerName: numa-aware\n      plugins:\n        filter:\n          enabled: [{name: NodeResourceTopologyMatch}]\n        score:\n          enabled: [{name: NodeResourceTopologyMatch}]\n",
            profiles: &[("numa-aware", false)],
            warnings: &[
                "not modelled, left out of this preview: NodeResourceTopologyMatch (scheduler-plugins: NUMA filter and score)",
                "kubescheduler.config.k8s.io/v1beta1 is not served by kube-scheduler 1.32 to 1.37 (only kubescheduler.config.k8s.io/v1 is); read with v1's defaults",
            ],
        },
        Case {
            name: "quota: every PostFilter replaced",
            text: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: CapacityScheduling}]\n    postFilter:\n      enabled: [{name: CapacityScheduling}]\n      disabled: [{name: \"*\"}]\n",
            profiles: &[("default-scheduler", false)],
            warnings: &[
                "not modelled, left out of this preview: CapacityScheduling (scheduler-plugins: ElasticQuota admission and preemption)",
            ],
        },
        Case {
            name: "several documents: kube-scheduler reads the first",
            text: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: by-label\n  plugins:\n    score:\n      enabled: [{name: NodeMetadata, weight: 5}]\n---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: by-cost\n",
            profiles: &[("by-label", false)],
            warnings: &[
                "not modelled, left out of this preview: NodeMetadata (scheduler-plugins: score by node labels or annotations)",
                "1 more KubeSchedulerConfiguration ignored: kube-scheduler reads one configuration",
            ],
        },
        Case {
            name: "two profiles, a custom plugin, in-tree plugins outside the engine",
            text: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 30\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      enabled: [{name: EBSLimits}]\n- schedulerName: gang\n  percentageOfNodesToScore: 50\n  plugins:\n    multiPoint:\n      enabled: [{name: Coscheduling}, {name: MyCompanyScore}]\n  pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: {}}\nextenders:\n- urlPrefix: http://127.0.0.1:8888\n",
            profiles: &[("default-scheduler", false), ("gang", true)],
            warnings: &[
                "not modelled, left out of this preview: EBSLimits (in-tree, multiPoint), MyCompanyScore (not a plugin of kube-scheduler or scheduler-plugins)",
                "1 scheduler extender(s) not modelled: their filters and scores are left out",
                "profile gang: NodeAffinity arguments not modelled: this preview runs NodeAffinity with its defaults",
            ],
        },
    ];
    for case in cases {
        let config = read(case.text).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let profiles: Vec<(&str, bool)> = config
            .profiles
            .iter()
            .map(|p| (p.scheduler_name.as_str(), p.coschedules()))
            .collect();
        assert_eq!(profiles, case.profiles, "{}", case.name);
        assert_eq!(warnings(&config), case.warnings, "{}", case.name);
    }
}

/// `percentageOfNodesToScore`: a profile's own, else the configuration's.
#[test]
fn percentage_of_nodes_to_score_per_profile() {
    let config = read(
        "percentageOfNodesToScore: 30\nprofiles:\n- schedulerName: a\n- schedulerName: b\n  percentageOfNodesToScore: 50\n",
    )
    .unwrap();
    let got: Vec<Option<u8>> = config
        .profiles
        .iter()
        .map(|p| p.profile.percentage_of_nodes_to_score)
        .collect();
    assert_eq!(got, [Some(30), Some(50)]);
}

/// An error inside a ConfigMap's block scalar points at its line in the file.
#[test]
fn errors_inside_a_config_map_point_into_the_file() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  config.yaml: |\n    apiVersion: kubescheduler.config.k8s.io/v1\n    kind: KubeSchedulerConfiguration\n    profiles:\n    - plugins:\n        score:\n          enabled: [{name: NodeAffinity, weight: 0}]\n";
    assert_eq!(
        read(text).unwrap_err(),
        ":11:50: data[config.yaml]: profiles[0].plugins.score.enabled[0].weight: weight must be in 1..100, got 0"
    );
}

/// Pods choose their profile by `schedulerName`; other names get the default profile.
#[test]
fn profiles_are_chosen_by_scheduler_name() {
    let config = read(
        "profiles:\n- schedulerName: packer\n  pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: MostAllocated}}\n",
    )
    .unwrap();
    let profiles = config.profiles(KubeVersion::DEFAULT);
    assert_eq!(
        profiles.for_scheduler("packer").strategy,
        ScoringStrategyType::MostAllocated
    );
    for other in ["", "default-scheduler", "volcano"] {
        assert_eq!(
            profiles.for_scheduler(other),
            &Profile::default(),
            "{other}"
        );
    }
}
