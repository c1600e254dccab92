# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_dataflow_global_optspecs
    string join \n n/namespace= A/all-namespaces context= kubeconfig= state= max-state-size= state-cache request-timeout= no-color kubernetes-version= v/v= h/help V/version
end

function __fish_kubectl_dataflow_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_dataflow_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_dataflow_using_subcommand
    set -l cmd (__fish_kubectl_dataflow_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "lint" -d 'Validate DataFlow / PodGroup / Job / Pod manifests, with exact file:line:column'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "plan" -d 'Preview where every operation of a DataFlow and every pod of a gang lands'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "explain-placement" -d 'Explain why a pod or operation lands on a node, and why not on the others'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "snapshot" -d 'Record the cluster state placement depends on, for offline plans and bug reports'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "patch" -d 'Write the computed affinity into manifests or live objects, after a diff'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "launch" -d 'Create an operation with its computed affinity and follow it'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "version" -d 'Print the version, the git commit and the Kubernetes semantics simulated'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s f -l filename -d 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s l -l selector -d 'Selector (label query) to filter on, as kubectl\'s: key=value, key!=value, \'key in (a,b)\', \'key notin (a,b)\', key, !key; comma separated, all must hold' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l field-selector -d 'Selector (field query) to filter on: metadata.name, metadata.namespace, spec.nodeName or status.phase with =, == or !=; comma separated, all must hold' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s o -l output -d 'Output format' -r -f -a "text\t'file:line:col with the source line and a caret'
json\t'The JSON contract (diagnostics and summary)'
sarif\t'SARIF 2.1.0 for code scanning'
github\t'GitHub Actions workflow commands'
markdown\t'A pull-request comment: verdict and a row per finding'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l disable -d 'Rule codes or prefixes to turn off (DF113, DF3), comma separated or repeated' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l enable -d 'Rule codes or prefixes to turn on (including opt-in rules); wins over --disable' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l explain -d 'Print the documentation of one rule and exit' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s R -l recursive -d 'Process the directories given with -f recursively'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l strict -d 'Fail (exit 1) on warnings too'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand lint" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s f -l filename -d 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s l -l selector -d 'Selector (label query) to filter on, as kubectl\'s: key=value, key!=value, \'key in (a,b)\', \'key notin (a,b)\', key, !key; comma separated, all must hold' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l field-selector -d 'Selector (field query) to filter on: metadata.name, metadata.namespace, spec.nodeName or status.phase with =, == or !=; comma separated, all must hold' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s o -l output -d 'Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (one row per operation, gang and batch pod)' -r -f -a "table\t'Tables for people'
wide\t'Tables with extra columns'
json\t'The JSON contract (stable field names)'
yaml\t'The same contract as YAML'
name\t'KIND/NAME of each planned object (plan) or the selected node (explain-placement)'
markdown\t'A pull-request comment: verdict, table, collapsible details, Mermaid diagrams'
html\t'One self-contained HTML page: the Markdown document, and for a plan the cluster'
jsonpath=\t'kubectl\'s JSONPath template over the JSON contract'
custom-columns=\t'HEADER:PATH,...: one row per object of the JSON contract'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l what-if -d 'Change the cluster state before planning, and show what moves: add=N:like=NODE, cordon=NODES, drain=NODES (cordon and evict their pods), remove=NODES, label=NODES:key=value, unlabel=NODES:key, taint=NODES:key[=value]:Effect, untaint=NODES:key[:Effect]; NODES is a node name or selector(LABEL-SELECTOR); repeatable, applied in order' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l how-many-nodes -d 'Search the smallest number of new nodes shaped like NODE that makes every planned operation, gang and pod fit' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l max-nodes -d 'The most new nodes --how-many-nodes tries' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l against -d 'Plan the same inputs against this second recorded state too and show only what moved (exit 1 when something did); repeatable like --state' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l assume-cached -d 'Plan as if a Fluid dataset were already cached on these nodes (gives them the cache label `fluid.io/s-<namespace>-<dataset>=true`); the namespace defaults to -n or `default`; repeatable' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l scheduler-config -d 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile\'s schedulerName also routes pods (to coscheduling when it enables Coscheduling)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l replicas -d 'Plan N copies (NAME-0 .. NAME-(N-1)) of each pod or template that joins a gang' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l scheduler-name -d 'Send pods with schedulerName NAME to SYSTEM (kube-scheduler, coscheduling, kube-batch, volcano, godel); repeatable, on top of each project\'s default names' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l solver -d 'How the batch of plain pods and workload replicas in the inputs is placed' -r -f -a "greedy\t'One pod at a time, each seeing the ones before it (kube-scheduler)'
flow\t'Min-cost flow over the whole batch (Firmament); pods it cannot express fall back to greedy'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s R -l recursive -d 'Process the directories given with -f recursively'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l lenient -d 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l no-headers -d 'Leave out the column headers of tables (as kubectl\'s --no-headers)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l show-all -d 'Show every pod of each gang (its row, domains, pending reason), the node groups turned down and the topology, not one line per gang (as -o wide)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l compare -d 'Also place gangs with the plain default scheduler (domains crossed per level), and the batch of plain pods with both solvers (pods placed, nodes used, preferred weight, spread); with --pending, also count the running pods that sit where the engine would not put them now (drift; exit 1 when some do)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l pending -d 'Also plan the Pending pods of the cluster state (of -n, or every namespace with -A), before the inputs, in the order kube-scheduler\'s queue pops them: priority, then creationTimestamp (a dump records no queue timestamp; creation time stands in); gangs as units'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand plan" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s f -l filename -d 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s l -l selector -d 'Selector (label query) to filter on, as kubectl\'s: key=value, key!=value, \'key in (a,b)\', \'key notin (a,b)\', key, !key; comma separated, all must hold' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l field-selector -d 'Selector (field query) to filter on: metadata.name, metadata.namespace, spec.nodeName or status.phase with =, == or !=; comma separated, all must hold' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l node -d 'Explain this node in full: every filter\'s verdict and every score with its inputs' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l top -d 'How many feasible nodes the table shows [default: 10]' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l scheduler-config -d 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile\'s schedulerName also routes pods (to coscheduling when it enables Coscheduling)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s o -l output -d 'Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (one row per node)' -r -f -a "table\t'Tables for people'
wide\t'Tables with extra columns'
json\t'The JSON contract (stable field names)'
yaml\t'The same contract as YAML'
name\t'KIND/NAME of each planned object (plan) or the selected node (explain-placement)'
markdown\t'A pull-request comment: verdict, table, collapsible details, Mermaid diagrams'
html\t'One self-contained HTML page: the Markdown document, and for a plan the cluster'
jsonpath=\t'kubectl\'s JSONPath template over the JSON contract'
custom-columns=\t'HEADER:PATH,...: one row per object of the JSON contract'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l solver -d 'With flow, a pod of the -f batch is shown with its min-cost-flow placement next to the greedy decision' -r -f -a "greedy\t'One pod at a time, each seeing the ones before it (kube-scheduler)'
flow\t'Min-cost flow over the whole batch (Firmament); pods it cannot express fall back to greedy'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l assume-cached -d 'Explain as if a Fluid dataset were already cached on these nodes (as `plan --assume-cached`); repeatable' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s R -l recursive -d 'Process the directories given with -f recursively'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l lenient -d 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l no-headers -d 'Leave out the column headers of tables (as kubectl\'s --no-headers)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l compare -d 'For a pod running in the cluster state: its node against the node the engine would choose now, with both nodes\' scores (exit 1 when they differ)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand explain-placement" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -s o -l output -d 'Output format' -r -f -a "yaml\t''
json\t''"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l output-file -d 'Write to this file (atomically) instead of stdout, with its binary cache FILE.dfcache beside it (see --state-cache)' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l redact-key -d 'Redact with this key, 32 hex digits: the same key gives the same hashes, so two redacted snapshots compare (--redact alone draws a random key per run)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l redact -d 'Replace names, label values and keys with keyed hashes, for sharing (what is kept: README, "Redaction guarantees")'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -s h -l help -d 'Print help'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand snapshot" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s f -l filename -d 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l dry-run -d 'Only show the change (client) or have the API server validate it (server)' -r -f -a "none\t'Change the objects'
client\t'Only show the diff'
server\t'Let the API server validate the change without persisting it'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l ungate -d 'Remove this scheduling gate from the pod once it is patched' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l scheduler-config -d 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile\'s schedulerName also routes pods (to coscheduling when it enables Coscheduling)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s R -l recursive -d 'Process the directories given with -f recursively'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l lenient -d 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l write -d 'Rewrite the -f files in place (without it, -f only shows the diff)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s y -l yes -d 'Apply without asking for confirmation (required without a terminal)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand patch" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s f -l filename -d 'Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma separated (a.yaml,b.yaml)' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l dry-run -d 'Only show the object (client) or have the API server validate it (server)' -r -f -a "none\t'Change the objects'
client\t'Only show the diff'
server\t'Let the API server validate the change without persisting it'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l timeout -d 'How long --wait waits (e.g. 90s, 10m, 1h)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l scheduler-config -d 'KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin weights and scoring strategy; each profile\'s schedulerName also routes pods (to coscheduling when it enables Coscheduling)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s R -l recursive -d 'Process the directories given with -f recursively'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l lenient -d 'Plan input with unknown fields or values of the wrong shape anyway (as warnings); by default it is refused, since the misspelled constraint would be silently dropped'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s y -l yes -d 'Create without asking for confirmation (required without a terminal)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l wait -d 'Wait until the operation is Complete or Failed and report the node it ran on'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand launch" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand completion" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -s o -l output -d 'Output format (table prints plain text)' -r -f -a "table\t'Tables for people'
wide\t'Tables with extra columns'
json\t'The JSON contract (stable field names)'
yaml\t'The same contract as YAML'
name\t'KIND/NAME of each planned object (plan) or the selected node (explain-placement)'
markdown\t'A pull-request comment: verdict, table, collapsible details, Mermaid diagrams'
html\t'One self-contained HTML page: the Markdown document, and for a plan the cluster'
jsonpath=\t'kubectl\'s JSONPath template over the JSON contract'
custom-columns=\t'HEADER:PATH,...: one row per object of the JSON contract'"
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l state -d 'Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable; without it the live cluster of the kubeconfig is read' -r -F
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l max-state-size -d 'Refuse a --state file larger than this many bytes (bounds memory on hostile input)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l request-timeout -d 'How long to wait for a single request to the API server (e.g. 30s, 1m)' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l kubernetes-version -d 'The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the live cluster\'s, else 1.34' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -s v -l v -d 'Log verbosity level, as kubectl\'s -v' -r
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -s A -l all-namespaces -d 'Look across all namespaces'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l state-cache -d 'Keep each --state file\'s decoded objects in FILE.dfcache beside it: read from there while FILE is unchanged, written when missing or stale'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -l no-color -d 'Disable colored output (also honoured: the NO_COLOR environment variable)'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand version" -s V -l version -d 'Print version'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "lint" -d 'Validate DataFlow / PodGroup / Job / Pod manifests, with exact file:line:column'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "plan" -d 'Preview where every operation of a DataFlow and every pod of a gang lands'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "explain-placement" -d 'Explain why a pod or operation lands on a node, and why not on the others'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "snapshot" -d 'Record the cluster state placement depends on, for offline plans and bug reports'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "patch" -d 'Write the computed affinity into manifests or live objects, after a diff'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "launch" -d 'Create an operation with its computed affinity and follow it'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "version" -d 'Print the version, the git commit and the Kubernetes semantics simulated'
complete -c kubectl-dataflow -n "__fish_kubectl_dataflow_using_subcommand help; and not __fish_seen_subcommand_from lint plan explain-placement snapshot patch launch completion version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
