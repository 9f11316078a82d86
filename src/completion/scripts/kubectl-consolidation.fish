# fish completion for kubectl-consolidation; printed by `kubectl-consolidation completion fish`.
# Save it as ~/.config/fish/completions/kubectl-consolidation.fish. It asks the binary
# (`kubectl-consolidation __complete WORDS…`, cobra's protocol, the one kubectl uses for
# plugins), so the shell and `kubectl consolidation` offer the same candidates. fish adds no
# space after a candidate ending in `/`, `=` or `.`, which is where NoSpace is asked for.

function __kubectl_consolidation_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (command $tokens[1] __complete $tokens[2..-1] $current 2>/dev/null)
    or return
    set -q out[1]; or return
    string match -q -- ':*' $out[-1]; or return
    set -l directive (string sub -s 2 -- $out[-1])
    set -e out[-1]
    if test (math "bitand($directive, 8)") -ne 0
        # FilterFileExt: the candidates are extensions; offer directories and matching files.
        for path in (__fish_complete_path $current)
            set -l name (string split -f1 \t -- $path)
            if string match -q -- '*/' $name
                echo $path
                continue
            end
            for extension in $out
                string match -q -- "*.$extension" $name; and echo $path
            end
        end
        return
    end
    if not set -q out[1]
        test (math "bitand($directive, 4)") -ne 0; and return
        __fish_complete_path $current
        return
    end
    printf '%s\n' $out
end

complete -c kubectl-consolidation -f -a '(__kubectl_consolidation_complete)'
