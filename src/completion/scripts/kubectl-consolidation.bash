# bash completion for kubectl-consolidation; printed by `kubectl-consolidation completion bash`.
# Source it from ~/.bashrc. It asks the binary (`kubectl-consolidation __complete WORDS…`,
# cobra's protocol, the one kubectl uses for plugins), so the shell and `kubectl consolidation`
# offer the same candidates.

_kubectl_consolidation() {
    local line="${COMP_LINE:0:COMP_POINT}"
    local -a words
    read -r -a words <<<"$line"
    # A trailing blank means a new, empty word is under the cursor.
    [[ "$line" =~ [[:space:]]$ ]] && words+=("")
    (( ${#words[@]} < 2 )) && words+=("")
    local current="${words[${#words[@]}-1]}"
    # bash splits `--flag=value` at `=`; candidates must replace only bash's own last word.
    local bash_current="${COMP_WORDS[COMP_CWORD]}"
    local strip=""
    [[ "$current" == *"$bash_current" ]] && strip="${current%"$bash_current"}"

    local out
    out="$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null)" || return 0
    # No mapfile: macOS still ships bash 3.2.
    local -a lines=()
    local entry
    while IFS= read -r entry; do lines+=("$entry"); done <<<"$out"
    local last="${lines[${#lines[@]}-1]}"
    [[ "$last" == :* ]] || return 0
    local directive="${last#:}"
    unset 'lines[${#lines[@]}-1]'

    COMPREPLY=()
    if (( directive & 8 )); then
        # FilterFileExt: the candidates are extensions; offer directories and matching files.
        local ext
        while IFS= read -r entry; do COMPREPLY+=("$entry"); done < <(compgen -d -- "$bash_current")
        for ext in "${lines[@]}"; do
            while IFS= read -r entry; do COMPREPLY+=("$entry"); done < <(compgen -f -X "!*.$ext" -- "$bash_current")
        done
        compopt -o filenames 2>/dev/null
        return 0
    fi
    if (( ${#lines[@]} == 0 )); then
        if (( directive & 4 )); then
            return 0
        fi
        while IFS= read -r entry; do COMPREPLY+=("$entry"); done < <(compgen -f -- "$bash_current")
        compopt -o filenames 2>/dev/null
        return 0
    fi
    local candidate
    for candidate in "${lines[@]}"; do
        candidate="${candidate%%$'\t'*}"
        COMPREPLY+=("${candidate#"$strip"}")
    done
    if (( directive & 2 )); then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}

complete -F _kubectl_consolidation kubectl-consolidation
