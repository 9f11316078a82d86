#!/usr/bin/env bash
# bench/run.sh: wall time, CPU time and peak RSS of every kubectl-consolidation command on
# synthetic clusters, optionally side by side with an older binary.
#
# Builds the release binary and `examples/synth` (and `examples/apiserver` with LIVE=1),
# generates one JSON snapshot per cluster and measures each command with /usr/bin/time under
# `timeout`, RUNS times (alternating with BASE_BIN's runs when it is given; medians reported):
#
#   load      score nodepool/<none>      read and decode the file, index the cluster, stop
#   load-yaml the same on the cluster's YAML twin (`snapshot -o yaml` of it, made once)
#   plan      plan -o json
#   explain   explain <a busy node> -o json
#   score     score nodepool/<a pool> -o json
#   budgets   budgets -o json            (replays the whole round before it prints)
#   pdb-audit pdb-audit -A -o json
#   snapshot  snapshot -o json           (and `snapshot --redact -o json`)
#   forecast  forecast -o json           (when the binary has the command)
#   live      load through the API server examples/apiserver serves the same file from
#             (LIVE=1): `--kubeconfig K score nodepool/<none>`, to set against `load`
#
# Clusters: NODES (30 pods per node, 20 NodePools, one PDB per 50 pods) for each argument,
# plus, unless EXTRA=0, at EXTRA_NODES nodes: `volumes` (every workload of at most 5 replicas a
# StatefulSet with a PVC per pod) and `multinode` (no empty or drifted node: MultiNode
# consolidation acts after its binary search), and at WALK_NODES nodes `walk` (every application
# pod pinned to its node by a required hostname affinity, no empty or drifted node: MultiNode and
# SingleNode walk every candidate and each one fails its simulation; `explain` there is the
# long-walk case).
#
# Usage:  bench/run.sh [NODES ...]               default: 1000 5000 10000
# Env:    RUNS=3            runs per command and binary (clusters of 10,000 nodes and more: 1)
#         BASE_BIN=PATH     an older binary, measured alternately with this one
#         LIVE=1            also measure live mode (not for clusters above LIVE_MAX_NODES=5000)
#         EXTRA=1 EXTRA_NODES=2000 WALK_NODES=5000
#         COMMANDS="load plan ..."   a subset
#         TIMEOUT=300       seconds per measured command ("did not finish" past it)
#         RESULTS=bench/RESULTS.md   where the table goes ("-": stdout only)
#         WORK=/tmp/kubectl-consolidation-bench   where the snapshots go (kept for reuse)
#         BENCH_REVISION    label for the code measured (default: git describe)
#         NO_BUILD=1        measure the release binaries already built
# A command that timed out on one cluster is not tried on the larger ones (per binary).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
TIMEOUT="${TIMEOUT:-300}"
RESULTS="${RESULTS:-bench/RESULTS.md}"
WORK="${WORK:-/tmp/kubectl-consolidation-bench}"
RUNS="${RUNS:-3}"
LIVE="${LIVE:-0}"
LIVE_MAX_NODES="${LIVE_MAX_NODES:-5000}"
EXTRA="${EXTRA:-1}"
EXTRA_NODES="${EXTRA_NODES:-2000}"
WALK_NODES="${WALK_NODES:-5000}"
BASE_BIN="${BASE_BIN:-}"
COMMANDS="${COMMANDS:-load load-yaml plan explain score budgets pdb-audit snapshot snapshot-redact forecast live}"
if [ "$#" -gt 0 ]; then sizes=("$@"); else sizes=(1000 5000 10000); fi
mkdir -p "$WORK"

target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
if [ "${NO_BUILD:-0}" != 1 ]; then
  echo "building (release)…" >&2
  examples=(--example synth)
  [ "$LIVE" = 1 ] && examples+=(--example apiserver)
  cargo build --release --quiet --bin kubectl-consolidation "${examples[@]}"
fi
bin="$target/release/kubectl-consolidation"
synth="$target/release/examples/synth"
apiserver="$target/release/examples/apiserver"

# measure LOG CMD...: runs CMD under timeout; prints "wall_s cpu_s peak_mib exit_code".
measure() {
  local log="$1"; shift
  local stats; stats="$(mktemp)"
  local rc=0
  /usr/bin/time -f '%e %U %S %M' -o "$stats" timeout "$TIMEOUT" "$@" >/dev/null 2>"$log" || rc=$?
  # GNU time writes "Command exited with non-zero status N" first when the command fails.
  read -r secs user sys kib < <(tail -n 1 "$stats")
  rm -f "$stats"
  echo "$secs $(python3 -c "print(f'{$user + $sys:.2f}')") $((kib / 1024)) $rc"
}

# median of the arguments (numbers).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# Clusters: "label nodes synth-args…".
clusters=()
for n in "${sizes[@]}"; do clusters+=("plain $n"); done
if [ "$EXTRA" = 1 ]; then
  clusters+=("volumes $EXTRA_NODES --stateful-pct 100")
  clusters+=("multinode $EXTRA_NODES --empty-pct 0 --drifted-pct 0")
  clusters+=("walk $WALK_NODES --empty-pct 0 --drifted-pct 0 --pinned-pct 100")
fi

revision="${BENCH_REVISION:-$(git -C "$root" describe --always --dirty 2>/dev/null || echo 'not a git checkout')}"
cpu_model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
memory="$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null || true)"
binaries=(new)
[ -n "$BASE_BIN" ] && binaries=(base new)
declare -A timed_out=()
rows=()

for cluster in "${clusters[@]}"; do
  read -r label nodes synth_args <<<"$cluster"
  pods=$((nodes * 30))
  file="$WORK/synth-${label}-${nodes}.json"
  echo "== ${label}: ${nodes} nodes × ${pods} pods: generating $file" >&2
  # shellcheck disable=SC2086
  "$synth" --nodes "$nodes" --pods "$pods" --pools 20 --pdbs $((pods / 50)) --seed 1 $synth_args -o "$file" 2>"$WORK/synth.log"
  cat "$WORK/synth.log" >&2
  node="$(sed -n 's/^explain: //p' "$WORK/synth.log")"
  pool="$(head -c 2000000 "$file" | grep -o '"kind":"NodePool","metadata":{"name":"[^"]*"' | head -n 1 | sed 's/.*"name":"//; s/"$//')"
  runs="$RUNS"; [ "$nodes" -ge 10000 ] && runs=1
  server_pid=""
  if [ "$LIVE" = 1 ] && [ "$nodes" -le "$LIVE_MAX_NODES" ] && [[ " $COMMANDS " == *" live "* ]]; then
    mkfifo "$WORK/apiserver.in" 2>/dev/null || true
    "$apiserver" "$file" "$WORK/kube" <"$WORK/apiserver.in" >"$WORK/apiserver.out" 2>&1 &
    server_pid=$!
    exec 9>"$WORK/apiserver.in"
    until grep -q '^ready' "$WORK/apiserver.out" 2>/dev/null; do
      kill -0 "$server_pid" 2>/dev/null || { echo "apiserver failed: $(cat "$WORK/apiserver.out")" >&2; break; }
      sleep 1
    done
  fi
  for command in $COMMANDS; do
    case "$command" in
      load) args=(--snapshot "$file" score nodepool/bench-no-such-pool) ;;
      load-yaml) yaml="${file%.json}.yaml"
                 [ -s "$yaml" ] || "$bin" --snapshot "$file" snapshot -o yaml >"$yaml"
                 args=(--snapshot "$yaml" score nodepool/bench-no-such-pool) ;;
      plan) args=(--snapshot "$file" plan -o json) ;;
      explain) args=(--snapshot "$file" explain "$node" -o json) ;;
      score) args=(--snapshot "$file" score "nodepool/$pool" -o json) ;;
      budgets) args=(--snapshot "$file" budgets -o json) ;;
      pdb-audit) args=(--snapshot "$file" pdb-audit -A -o json) ;;
      snapshot) args=(--snapshot "$file" snapshot -o json) ;;
      snapshot-redact) args=(--snapshot "$file" snapshot --redact -o json) ;;
      forecast) args=(--snapshot "$file" forecast -o json) ;;
      live) [ -n "$server_pid" ] || continue
            args=(--kubeconfig "$WORK/kube/kubeconfig" --request-timeout 0 score nodepool/bench-no-such-pool) ;;
    esac
    for which in "${binaries[@]}"; do
      b="$bin"; [ "$which" = base ] && b="$BASE_BIN"
      if [ "$command" = forecast ] && ! "$b" forecast --help >/dev/null 2>&1; then continue; fi
      if [ -n "${timed_out[$which/$command]:-}" ]; then
        rows+=("| ${label} | ${nodes}×${pods} | \`${command}\` | ${which} | — | — | — | — | $(date -u +%H:%M) | not run: did not finish in ${TIMEOUT} s at ${timed_out[$which/$command]} |")
        continue
      fi
    done
    declare -A walls=() cpus=() peaks=() status=()
    for ((run = 1; run <= runs; run++)); do
      for which in "${binaries[@]}"; do
        b="$bin"; [ "$which" = base ] && b="$BASE_BIN"
        [ -n "${timed_out[$which/$command]:-}" ] && continue
        if [ "$command" = forecast ] && ! "$b" forecast --help >/dev/null 2>&1; then continue; fi
        read -r secs cpu peak rc < <(measure "$WORK/$command.log" "$b" "${args[@]}")
        case "$rc" in
          0) st="ok" ;;
          124) st="did not finish in ${TIMEOUT} s"; timed_out[$which/$command]="${label} ${nodes}" ;;
          *) if [[ "$command" = load || "$command" = load-yaml || "$command" = live ]] && grep -qE 'not in the snapshot|not_found|not found' "$WORK/$command.log"; then st="ok"
             else st="failed (exit $rc): $(head -c 160 "$WORK/$command.log" | tr '\n|' '  ')"; fi ;;
        esac
        walls[$which]+="$secs "; cpus[$which]+="$cpu "; peaks[$which]+="$peak "; status[$which]="$st"
        echo "   $command [$which] run $run: ${secs} s wall, ${cpu} s CPU, ${peak} MiB, $st" >&2
        [ "$rc" = 124 ] && break
      done
    done
    for which in "${binaries[@]}"; do
      [ -n "${walls[$which]:-}" ] || continue
      # shellcheck disable=SC2086 # the runs' figures, one word each
      {
        wall="$(median ${walls[$which]})"
        cpu="$(median ${cpus[$which]})"
        peak="$(median ${peaks[$which]})"
      }
      per="$(python3 -c "print(f'{$wall / ($nodes / 1000):.2f}')")"
      rows+=("| ${label} | ${nodes}×${pods} | \`${command}\` | ${which} | ${wall} | ${cpu} | ${peak} | ${per} | $(date -u +%H:%M) | ${status[$which]} |")
    done
    unset walls cpus peaks status
  done
  if [ -n "$server_pid" ]; then
    exec 9>&-
    wait "$server_pid" 2>/dev/null || true
    rm -f "$WORK/apiserver.in"
  fi
done

report() {
  echo "# Benchmark results"
  echo
  echo "Written by \`bench/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') (each row says when it was taken)."
  echo
  echo "- machine: $(nproc) CPUs, ${cpu_model:-unknown CPU}, ${memory:-unknown} RAM"
  echo "- code: \`new\` is ${revision}$([ -n "$BASE_BIN" ] && echo "; \`base\` is $(basename "$BASE_BIN")"); $(rustc --version 2>/dev/null || echo 'rustc ?')"
  echo "- snapshots: \`examples/synth\` (seed 1, 30 pods per node, 20 NodePools, one PDB per 50 pods), one JSON \`v1 List\` each"
  echo "- each figure is the median of ${RUNS} runs (1 at 10,000 nodes and more) under \`timeout ${TIMEOUT}\`, old and new"
  echo "  binaries alternating; wall and CPU (user + system) time and peak RSS from \`/usr/bin/time\`"
  echo
  echo "\`load\` is \`score nodepool/<none>\`: read and decode the file, index the cluster, stop at \"not found\"."
  echo "\`load-yaml\` is the same on the cluster's YAML twin (\`snapshot -o yaml\` of its JSON)."
  echo "\`live\` is the same through the loopback API server \`examples/apiserver\` serves the file from"
  echo "(its own CPU is not counted). \`s / 1k nodes\` is wall time per 1,000 nodes: flat when a command"
  echo "scales linearly, growing with the size when it does not."
  echo
  echo "| cluster | nodes×pods | command | code | wall s | CPU s | peak MiB | s / 1k nodes | taken (UTC) | status |"
  echo "|---|---|---|---|---:|---:|---:|---:|---|---|"
  printf '%s\n' "${rows[@]}"
}

if [ "$RESULTS" = "-" ]; then
  report
else
  report > "$RESULTS.new"
  cat "$RESULTS.new"
  mv "$RESULTS.new" "$RESULTS"
fi
