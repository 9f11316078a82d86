#compdef kubectl-consolidation
# zsh completion for kubectl-consolidation; printed by `kubectl-consolidation completion zsh`.
# Save it as `_kubectl-consolidation` in a directory on $fpath (or source it after compinit).
# It asks the binary (`kubectl-consolidation __complete WORDS…`, cobra's protocol, the one
# kubectl uses for plugins), so the shell and `kubectl consolidation` offer the same candidates.

_kubectl_consolidation() {
    local out directive line value description
    local -a lines candidates
    out="$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)" || return 1
    lines=("${(@f)out}")
    [[ "${lines[-1]}" == :* ]] || return 1
    directive="${lines[-1]#:}"
    lines=("${(@)lines[1,-2]}")

    if (( directive & 8 )); then
        # FilterFileExt: the candidates are extensions.
        _files -g "*.(${(j:|:)lines})"
        return
    fi
    if (( ${#lines} == 0 )); then
        (( directive & 4 )) && return 1
        _files
        return
    fi
    for line in "${lines[@]}"; do
        value="${line%%$'\t'*}"
        description=""
        [[ "$line" == *$'\t'* ]] && description="${line#*$'\t'}"
        candidates+=("${value//:/\\:}${description:+:$description}")
    done
    if (( directive & 2 )); then
        _describe -t values 'value' candidates -S ''
    else
        _describe -t values 'value' candidates
    fi
}

if [[ "$funcstack[1]" == "_kubectl-consolidation" ]]; then
    _kubectl_consolidation "$@"
else
    compdef _kubectl_consolidation kubectl-consolidation
fi
