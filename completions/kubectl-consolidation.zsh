#compdef kubectl-consolidation

autoload -U is-at-least

_kubectl-consolidation() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_kubectl-consolidation_commands" \
"*::: :->kubectl-consolidation" \
&& ret=0
    case $state in
    (kubectl-consolidation)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-consolidation-command-$line[1]:"
        case $line[1] in
            (explain)
_arguments "${_arguments_options[@]}" : \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':target:_default' \
&& ret=0
;;
(plan)
_arguments "${_arguments_options[@]}" : \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(score)
_arguments "${_arguments_options[@]}" : \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help]' \
'--help[Print help]' \
':target -- nodepool/NAME:_default' \
&& ret=0
;;
(pdb-audit)
_arguments "${_arguments_options[@]}" : \
'--fail-on=[Exit 3 when a finding at or above this severity exists]:FAIL_ON:(info warning critical)' \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(budgets)
_arguments "${_arguments_options[@]}" : \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help]' \
'--help[Print help]' \
'::target -- nodepool/NAME (default\: every NodePool):_default' \
&& ret=0
;;
(snapshot)
_arguments "${_arguments_options[@]}" : \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--redact[Replace names, namespaces and label values by stable hashes (well-known keys kept)]' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(completion)
_arguments "${_arguments_options[@]}" : \
'(--demo)--snapshot=[Replay a snapshot file (YAML or JSON; \`-\` for stdin) instead of the cluster]:PATH:_files' \
'--prices=[Add prices\: an InstanceTypes document or Karpenter'\''s /metrics text]:PATH:_files' \
'--now=[Fix the clock (RFC 3339). Default\: the snapshot'\''s capturedAt, else now]:RFC3339:_default' \
'*--set=[What-if override applied before the replay\: \`consolidationPolicy=Balanced\`, \`nodepool/P.consolidateAfter=5m\`, \`budgets=20%\`, \`pod-deletion-cost=ns/pod=N\`]:KEY=VALUE:_default' \
'--kubeconfig=[Path to the kubeconfig file(s), colon-separated]:PATH:_default' \
'--context=[The kubeconfig context to use]:CONTEXT:_default' \
'--cluster=[The kubeconfig cluster to use]:CLUSTER:_default' \
'--user=[The kubeconfig user to use]:USER:_default' \
'-n+[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'--namespace=[Namespace scope (default\: the context'\''s namespace)]:NAMESPACE:_default' \
'-l+[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--selector=[Label selector, kubectl syntax (\`app=web,tier!=db\`)]:SELECTOR:_default' \
'--request-timeout=[Per-request timeout (\`30s\`, \`1m\`; \`0\` = no timeout)]:DURATION:_default' \
'-o+[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--output=[Output format\: text, wide, json, yaml, markdown (\`snapshot\`\: also a file path)]:OUTPUT:_default' \
'--sort-by=[Sort table rows\: name, verdict, price, cost, pool]:SORT_BY:(name verdict price cost pool)' \
'--color=[Colour\: auto (a terminal, unless NO_COLOR), always, never]:COLOR:(auto always never)' \
'--demo[Replay the built-in snapshot of the seed incident]' \
'-A[Every namespace]' \
'--all-namespaces[Every namespace]' \
'--no-headers[Don'\''t print table headers]' \
'-h[Print help]' \
'--help[Print help]' \
':shell:(bash elvish fish powershell zsh)' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_kubectl-consolidation__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-consolidation-help-command-$line[1]:"
        case $line[1] in
            (explain)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(plan)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(score)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(pdb-audit)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(budgets)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(snapshot)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(completion)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_kubectl-consolidation_commands] )) ||
_kubectl-consolidation_commands() {
    local commands; commands=(
'explain:The whole pipeline for one node, step by step, and its verdict' \
'plan:The round\: which method acts, its commands, and a verdict per node' \
'score:Balanced score of every candidate of a NodePool, the pool baseline and the threshold' \
'pdb-audit:PodDisruptionBudgets judged against replicas, placement and NodePool settings' \
'budgets:Allowed disruptions per NodePool and reason now, and the schedule windows' \
'snapshot:Write the state that was read, to replay offline or attach to a bug report' \
'completion:Print a shell completion script (bash, zsh, fish, powershell, elvish)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kubectl-consolidation commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__budgets_commands] )) ||
_kubectl-consolidation__subcmd__budgets_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation budgets commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__completion_commands] )) ||
_kubectl-consolidation__subcmd__completion_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation completion commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__explain_commands] )) ||
_kubectl-consolidation__subcmd__explain_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation explain commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help_commands] )) ||
_kubectl-consolidation__subcmd__help_commands() {
    local commands; commands=(
'explain:The whole pipeline for one node, step by step, and its verdict' \
'plan:The round\: which method acts, its commands, and a verdict per node' \
'score:Balanced score of every candidate of a NodePool, the pool baseline and the threshold' \
'pdb-audit:PodDisruptionBudgets judged against replicas, placement and NodePool settings' \
'budgets:Allowed disruptions per NodePool and reason now, and the schedule windows' \
'snapshot:Write the state that was read, to replay offline or attach to a bug report' \
'completion:Print a shell completion script (bash, zsh, fish, powershell, elvish)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kubectl-consolidation help commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__budgets_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__budgets_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help budgets commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__completion_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__completion_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help completion commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__explain_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__explain_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help explain commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__help_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help help commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__pdb-audit_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__pdb-audit_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help pdb-audit commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__plan_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__plan_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help plan commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__score_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__score_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help score commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__help__subcmd__snapshot_commands] )) ||
_kubectl-consolidation__subcmd__help__subcmd__snapshot_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation help snapshot commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__pdb-audit_commands] )) ||
_kubectl-consolidation__subcmd__pdb-audit_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation pdb-audit commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__plan_commands] )) ||
_kubectl-consolidation__subcmd__plan_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation plan commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__score_commands] )) ||
_kubectl-consolidation__subcmd__score_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation score commands' commands "$@"
}
(( $+functions[_kubectl-consolidation__subcmd__snapshot_commands] )) ||
_kubectl-consolidation__subcmd__snapshot_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-consolidation snapshot commands' commands "$@"
}

if [ "$funcstack[1]" = "_kubectl-consolidation" ]; then
    _kubectl-consolidation "$@"
else
    compdef _kubectl-consolidation kubectl-consolidation
fi
