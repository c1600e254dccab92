
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-dataflow' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-dataflow'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-dataflow' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Validate DataFlow / PodGroup / Job / Pod manifests, with exact file:line:column')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Preview where every operation of a DataFlow and every pod of a gang lands')
            [CompletionResult]::new('explain-placement', 'explain-placement', [CompletionResultType]::ParameterValue, 'Explain why a pod or operation lands on a node, and why not on the others')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Record the cluster state placement depends on, for offline plans and bug reports')
            [CompletionResult]::new('patch', 'patch', [CompletionResultType]::ParameterValue, 'Write the computed affinity into manifests or live objects, after a diff')
            [CompletionResult]::new('launch', 'launch', [CompletionResultType]::ParameterValue, 'Create an operation with its computed affinity and follow it')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version, the git commit and the Kubernetes semantics simulated')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-dataflow;lint' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Selector (label query) to filter on, as kubectl''s: key=value, key!=value, ''key in (a,b)'', ''key notin (a,b)'', key, !key; comma separated, all must hold')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Selector (label query) to filter on, as kubectl''s: key=value, key!=value, ''key in (a,b)'', ''key notin (a,b)'', key, !key; comma separated, all must hold')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Selector (field query) to filter on: metadata.name, metadata.namespace, spec.nodeName or status.phase with =, == or !=; comma separated, all must hold')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--disable', '--disable', [CompletionResultType]::ParameterName, 'Rule codes or prefixes to turn off (DF113, DF3), comma separated or repeated')
            [CompletionResult]::new('--enable', '--enable', [CompletionResultType]::ParameterName, 'Rule codes or prefixes to turn on (including opt-in rules); wins over --disable')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Print the documentation of one rule and exit')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) on warnings too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;plan' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Selector (label query) to filter on, as kubectl''s: key=value, key!=value, ''key in (a,b)'', ''key notin (a,b)'', key, !key; comma separated, all must hold')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Selector (label query) to filter on, as kubectl''s: key=value, key!=value, ''key in (a,b)'', ''key notin (a,b)'', key, !key; comma separated, all must hold')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Selector (field query) to filter on: metadata.name, metadata.namespace, spec.nodeName or status.phase with =, == or !=; comma separated, all must hold')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (one row per operation, gang and batch pod)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (one row per operation, gang and batch pod)')
            [CompletionResult]::new('--what-if', '--what-if', [CompletionResultType]::ParameterName, 'Change the cluster state before planning, and show what moves: add=N:like=NODE, cordon=NODES, drain=NODES (cordon and evict their pods), remove=NODES, label=NODES:key=value, unlabel=NODES:key, taint=NODES:key[=value]:Effect, untaint=NODES:key[:Effect]; NODES is a node name or selector(LABEL-SELECTOR); repeatable, applied in order')
            [CompletionResult]::new('--how-many-nodes', '--how-many-nodes', [CompletionResultType]::ParameterName, 'Search the smallest number of new nodes shaped like NODE that makes every planned operation, gang and pod fit')
            [CompletionResult]::new('--max-nodes', '--max-nodes', [CompletionResultType]::ParameterName, 'The most new nodes --how-many-nodes tries')
            [CompletionResult]::new('--against', '--against', [CompletionResultType]::ParameterName, 'Plan the same inputs against this second recorded state too and show only what moved (exit 1 when something did); repeatable like --state')
            [CompletionResult]::new('--assume-cached', '--assume-cached', [CompletionResultType]::ParameterName, 'Plan as if a Fluid dataset were already cached on these nodes (gives them the cache label `fluid.io/s-<namespace>-<dataset>=true`); the namespace defaults to -n or `default`; repeatable')
            [CompletionResult]::new('--scheduler-config', '--scheduler-config', [CompletionResultType]::ParameterName, 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile''s schedulerName also routes pods (to coscheduling when it enables Coscheduling)')
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, 'Plan N copies (NAME-0 .. NAME-(N-1)) of each pod or template that joins a gang')
            [CompletionResult]::new('--scheduler-name', '--scheduler-name', [CompletionResultType]::ParameterName, 'Send pods with schedulerName NAME to SYSTEM (kube-scheduler, coscheduling, kube-batch, volcano, godel); repeatable, on top of each project''s default names')
            [CompletionResult]::new('--solver', '--solver', [CompletionResultType]::ParameterName, 'How the batch of plain pods and workload replicas in the inputs is placed')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--lenient', '--lenient', [CompletionResultType]::ParameterName, 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the column headers of tables (as kubectl''s --no-headers)')
            [CompletionResult]::new('--show-all', '--show-all', [CompletionResultType]::ParameterName, 'Show every pod of each gang (its row, domains, pending reason), the node groups turned down and the topology, not one line per gang (as -o wide)')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Also place gangs with the plain default scheduler (domains crossed per level), and the batch of plain pods with both solvers (pods placed, nodes used, preferred weight, spread); with --pending, also count the running pods that sit where the engine would not put them now (drift; exit 1 when some do)')
            [CompletionResult]::new('--pending', '--pending', [CompletionResultType]::ParameterName, 'Also plan the Pending pods of the cluster state (of -n, or every namespace with -A), before the inputs, in the order kube-scheduler''s queue pops them: priority, then creationTimestamp (a dump records no queue timestamp; creation time stands in); gangs as units')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;explain-placement' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Selector (label query) to filter on, as kubectl''s: key=value, key!=value, ''key in (a,b)'', ''key notin (a,b)'', key, !key; comma separated, all must hold')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Selector (label query) to filter on, as kubectl''s: key=value, key!=value, ''key in (a,b)'', ''key notin (a,b)'', key, !key; comma separated, all must hold')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Selector (field query) to filter on: metadata.name, metadata.namespace, spec.nodeName or status.phase with =, == or !=; comma separated, all must hold')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Explain this node in full: every filter''s verdict and every score with its inputs')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many feasible nodes the table shows [default: 10]')
            [CompletionResult]::new('--scheduler-config', '--scheduler-config', [CompletionResultType]::ParameterName, 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile''s schedulerName also routes pods (to coscheduling when it enables Coscheduling)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (one row per node)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (one row per node)')
            [CompletionResult]::new('--solver', '--solver', [CompletionResultType]::ParameterName, 'With flow, a pod of the -f batch is shown with its min-cost-flow placement next to the greedy decision')
            [CompletionResult]::new('--assume-cached', '--assume-cached', [CompletionResultType]::ParameterName, 'Explain as if a Fluid dataset were already cached on these nodes (as `plan --assume-cached`); repeatable')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--lenient', '--lenient', [CompletionResultType]::ParameterName, 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the column headers of tables (as kubectl''s --no-headers)')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'For a pod running in the cluster state: its node against the node the engine would choose now, with both nodes'' scores (exit 1 when they differ)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;snapshot' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output-file', '--output-file', [CompletionResultType]::ParameterName, 'Write to this file (atomically) instead of stdout, with its binary cache FILE.dfcache beside it (see --state-cache)')
            [CompletionResult]::new('--redact-key', '--redact-key', [CompletionResultType]::ParameterName, 'Redact with this key, 32 hex digits: the same key gives the same hashes, so two redacted snapshots compare (--redact alone draws a random key per run)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Replace names, label values and keys with keyed hashes, for sharing (what is kept: README, "Redaction guarantees")')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;patch' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only show the change (client) or have the API server validate it (server)')
            [CompletionResult]::new('--ungate', '--ungate', [CompletionResultType]::ParameterName, 'Remove this scheduling gate from the pod once it is patched')
            [CompletionResult]::new('--scheduler-config', '--scheduler-config', [CompletionResultType]::ParameterName, 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile''s schedulerName also routes pods (to coscheduling when it enables Coscheduling)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--lenient', '--lenient', [CompletionResultType]::ParameterName, 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Rewrite the -f files in place (without it, -f only shows the diff)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Apply without asking for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Apply without asking for confirmation (required without a terminal)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;launch' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only show the object (client) or have the API server validate it (server)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long --wait waits (e.g. 90s, 10m, 1h)')
            [CompletionResult]::new('--scheduler-config', '--scheduler-config', [CompletionResultType]::ParameterName, 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile''s schedulerName also routes pods (to coscheduling when it enables Coscheduling)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Process the directories given with -f recursively')
            [CompletionResult]::new('--lenient', '--lenient', [CompletionResultType]::ParameterName, 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Create without asking for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Create without asking for confirmation (required without a terminal)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the operation is Complete or Failed and report the node it ran on')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;completion' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;version' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (table prints plain text)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (table prints plain text)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope for this request')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read')
            [CompletionResult]::new('--max-state-size', '--max-state-size', [CompletionResultType]::ParameterName, 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single request to the API server (e.g. 30s, 1m)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster''s, else 1.34')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity level, as kubectl''s -v')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Look across all namespaces')
            [CompletionResult]::new('--state-cache', '--state-cache', [CompletionResultType]::ParameterName, 'Keep each --state file''s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colored output (also honoured: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-dataflow;help' {
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Validate DataFlow / PodGroup / Job / Pod manifests, with exact file:line:column')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Preview where every operation of a DataFlow and every pod of a gang lands')
            [CompletionResult]::new('explain-placement', 'explain-placement', [CompletionResultType]::ParameterValue, 'Explain why a pod or operation lands on a node, and why not on the others')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Record the cluster state placement depends on, for offline plans and bug reports')
            [CompletionResult]::new('patch', 'patch', [CompletionResultType]::ParameterValue, 'Write the computed affinity into manifests or live objects, after a diff')
            [CompletionResult]::new('launch', 'launch', [CompletionResultType]::ParameterValue, 'Create an operation with its computed affinity and follow it')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version, the git commit and the Kubernetes semantics simulated')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-dataflow;help;lint' {
            break
        }
        'kubectl-dataflow;help;plan' {
            break
        }
        'kubectl-dataflow;help;explain-placement' {
            break
        }
        'kubectl-dataflow;help;snapshot' {
            break
        }
        'kubectl-dataflow;help;patch' {
            break
        }
        'kubectl-dataflow;help;launch' {
            break
        }
        'kubectl-dataflow;help;completion' {
            break
        }
        'kubectl-dataflow;help;version' {
            break
        }
        'kubectl-dataflow;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
