# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_consolidation_global_optspecs
    string join \n snapshot= demo prices= now= set= kubeconfig= context= cluster= user= n/namespace= A/all-namespaces l/selector= request-timeout= o/output= no-headers sort-by= color= h/help V/version
end

function __fish_kubectl_consolidation_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_consolidation_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_consolidation_using_subcommand
    set -l cmd (__fish_kubectl_consolidation_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "explain" -d 'The whole pipeline for one node, step by step, and its verdict'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "plan" -d 'The round: which method acts, its commands, and a verdict per node'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "score" -d 'Balanced score of every candidate of a NodePool, the pool baseline and the threshold'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "pdb-audit" -d 'PodDisruptionBudgets judged against replicas, placement and NodePool settings'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "budgets" -d 'Allowed disruptions per NodePool and reason now, and the schedule windows'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "snapshot" -d 'Write the state that was read, to replay offline or attach to a bug report'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand plan" -s h -l help -d 'Print help'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand score" -s h -l help -d 'Print help'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l fail-on -d 'Exit 3 when a finding at or above this severity exists' -r -f -a "info\t''
warning\t''
critical\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand pdb-audit" -s h -l help -d 'Print help'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand budgets" -s h -l help -d 'Print help'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l redact -d 'Replace names, namespaces and label values by stable hashes (well-known keys kept)'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l snapshot -d 'Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l prices -d 'Add prices: an InstanceTypes document or Karpenter\'s /metrics text' -r -F
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l now -d 'Fix the clock (RFC 3339). Default: the snapshot\'s capturedAt, else now' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l set -d 'What-if override applied before the replay: `consolidationPolicy=Balanced`, `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file(s), colon-separated' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -s n -l namespace -d 'Namespace scope (default: the context\'s namespace)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -s l -l selector -d 'Label selector, kubectl syntax (`app=web,tier!=db`)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l request-timeout -d 'Per-request timeout (`30s`, `1m`; `0` = no timeout)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -s o -l output -d 'Output format: text, wide, json, yaml, markdown (`snapshot`: also a file path)' -r
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l sort-by -d 'Sort table rows: name, verdict, price, cost, pool' -r -f -a "name\t''
verdict\t''
price\t''
cost\t''
pool\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l color -d 'Colour: auto (a terminal, unless NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l demo -d 'Replay the built-in snapshot of the seed incident'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -l no-headers -d 'Don\'t print table headers'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand completion" -s h -l help -d 'Print help'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "explain" -d 'The whole pipeline for one node, step by step, and its verdict'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "plan" -d 'The round: which method acts, its commands, and a verdict per node'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "score" -d 'Balanced score of every candidate of a NodePool, the pool baseline and the threshold'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "pdb-audit" -d 'PodDisruptionBudgets judged against replicas, placement and NodePool settings'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "budgets" -d 'Allowed disruptions per NodePool and reason now, and the schedule windows'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "snapshot" -d 'Write the state that was read, to replay offline or attach to a bug report'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-consolidation -n "__fish_kubectl_consolidation_using_subcommand help; and not __fish_seen_subcommand_from explain plan score pdb-audit budgets snapshot completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
