#!/usr/bin/env bash
# bench/run.sh: wall time and peak RSS of kubectl-consolidation on synthetic snapshots.
#
# Builds the release binary and `examples/synth`, generates one JSON snapshot per scale
# (NODESxPODS, with 20 NodePools and one PDB per 50 pods), and measures each command with
# /usr/bin/time (or python3's resource module when it is missing), under `timeout`:
#
#   load     score nodepool/<none>   load the file, index the cluster, stop ("not found")
#   budgets  budgets -o json         the closest thing to "load + trivial" (it replays the round)
#   plan     plan -o json
#   explain  explain node/<a busy node> -o json
#   forecast forecast -o json             rounds until nothing acts (issue: at most 10× plan)
#
# Usage:  bench/run.sh [NODESxPODS ...]          default: 500x15000 2000x60000 5000x150000
# Env:    TIMEOUT=300        seconds per measured command ("did not finish" past it)
#         RESULTS=bench/RESULTS.md   where the figures go ("-": stdout only)
#         WORK=/tmp/kubectl-consolidation-bench   where the snapshots go (kept for reuse)
#         BENCH_REVISION     label for the code measured (default: git describe)
# A command that timed out at one scale is not tried at the larger ones.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
TIMEOUT="${TIMEOUT:-300}"
RESULTS="${RESULTS:-bench/RESULTS.md}"
WORK="${WORK:-/tmp/kubectl-consolidation-bench}"
if [ "$#" -gt 0 ]; then scales=("$@"); else scales=(500x15000 2000x60000 5000x150000); fi
mkdir -p "$WORK"

echo "building (release)…" >&2
cargo build --release --quiet --bin kubectl-consolidation --example synth
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
bin="$target/release/kubectl-consolidation"
synth="$target/release/examples/synth"

# measure LOG CMD...: runs CMD under timeout; prints "seconds peak_mib exit_code".
measure() {
  local log="$1"; shift
  local stats; stats="$(mktemp)"
  local rc=0
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%e %M' -o "$stats" timeout "$TIMEOUT" "$@" >/dev/null 2>"$log" || rc=$?
    # GNU time writes "Command exited with non-zero status N" first when the command fails.
    read -r secs kib < <(tail -n 1 "$stats")
  else
    python3 - "$stats" "$TIMEOUT" "$@" 2>"$log" <<'PY' || rc=$?
import resource, subprocess, sys, time
out, limit, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
start = time.monotonic()
rc = subprocess.call(["timeout", limit, *cmd], stdout=subprocess.DEVNULL)
secs = time.monotonic() - start
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(out, "w").write(f"{secs:.2f} {kib}\n")
sys.exit(rc)
PY
    read -r secs kib < <(tail -n 1 "$stats")
  fi
  rm -f "$stats"
  echo "$secs $((kib / 1024)) $rc"
}

revision="${BENCH_REVISION:-$(git -C "$root" describe --always --dirty 2>/dev/null || echo 'not a git checkout')}"
cpu_model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
memory="$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null || true)"
declare -A timed_out=()
rows=()

for scale in "${scales[@]}"; do
  nodes="${scale%x*}"; pods="${scale#*x}"
  file="$WORK/synth-${nodes}x${pods}.json"
  echo "== ${nodes} nodes × ${pods} pods: generating $file" >&2
  "$synth" --nodes "$nodes" --pods "$pods" --pools 20 --pdbs $((pods / 50)) --seed 1 -o "$file" 2>"$WORK/synth.log"
  cat "$WORK/synth.log" >&2
  node="$(sed -n 's/^explain: //p' "$WORK/synth.log")"
  mib="$(( $(stat -c %s "$file") / 1048576 ))"
  for command in load budgets plan explain forecast; do
    case "$command" in
      load) args=(score nodepool/bench-no-such-pool) ;;
      budgets) args=(budgets -o json) ;;
      plan) args=(plan -o json) ;;
      explain) args=(explain "$node" -o json) ;;
      forecast) args=(forecast -o json) ;;
    esac
    if [ -n "${timed_out[$command]:-}" ]; then
      rows+=("| ${nodes}×${pods} | ${mib} | \`${command}\` | — | — | not run: did not finish in ${TIMEOUT} s at ${timed_out[$command]} |")
      echo "   $command: skipped (timed out at ${timed_out[$command]})" >&2
      continue
    fi
    read -r secs peak rc < <(measure "$WORK/$command.log" "$bin" --snapshot "$file" "${args[@]}")
    case "$rc" in
      0) status="ok" ;;
      124) status="did not finish in ${TIMEOUT} s"; timed_out[$command]="${nodes}×${pods}"; secs="≥ ${TIMEOUT}" ;;
      *) if [ "$command" = load ] && grep -qE 'not in the snapshot|not_found' "$WORK/$command.log"; then status="ok (stops at \"not found\")"
         else status="failed (exit $rc): $(head -c 200 "$WORK/$command.log" | tr '\n' ' ')"; fi ;;
    esac
    echo "   $command: $secs s, peak ${peak} MiB, $status" >&2
    rows+=("| ${nodes}×${pods} | ${mib} | \`${command}\` | ${secs} | ${peak} | ${status} |")
  done
done

report() {
  echo "# Benchmark results"
  echo
  echo "Written by \`bench/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "- machine: $(nproc) CPUs, ${cpu_model:-unknown CPU}, ${memory:-unknown} RAM"
  echo "- code: ${revision}; $(rustc --version 2>/dev/null || echo 'rustc ?')"
  echo "- snapshots: \`examples/synth\` (seed 1, 20 NodePools, one PDB per 50 pods), one JSON \`v1 List\` each"
  echo "- each command ran once under \`timeout ${TIMEOUT}\`; wall time and peak RSS from \`/usr/bin/time\`"
  echo
  echo "\`load\` is \`score nodepool/<none>\`: read and decode the file, pair Nodes and NodeClaims, index"
  echo "pods, then stop at \"not found\" — the cost of loading. \`budgets\` replays the whole round before it"
  echo "prints the budgets, so it costs what \`plan\` costs. \`explain\` explains the busy node \`synth\` names."
  echo
  echo "| nodes×pods | file MiB | command | wall s | peak RSS MiB | status |"
  echo "|---|---:|---|---:|---:|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Goals (issue \"Speed\"): \`plan\` within 1.5× \`load\`, \`explain\` under 1 s once loaded"
  echo "(\`explain\` − \`load\`), peak RSS under 1 GiB; \`forecast\` to steady state within 10× \`plan\`."
}

if [ "$RESULTS" = "-" ]; then
  report
else
  report > "$RESULTS"
  cat "$RESULTS"
fi
