#!/usr/bin/env bash
# bench/forecast-ratio.sh: what a forecast to steady state costs, in `plan`s of the same cluster
# (issue 19's target: at most 10 at 2,000 nodes and 60,000 pods; issue 34's: at most 10 on
# bigcluster at 500 and 1,000 nodes, and not growing from 1,000 to 5,000).
#
# The two commands run in turn, plan then forecast, RUNS times after one warm-up of each, so
# that each pair sees the machine at the same speed; each pair's ratio is printed, then the
# median ratio of wall and of CPU (user + system) time. On a shared machine whose speed drifts
# by a third from one minute to the next, timing the commands in separate series (as
# `bench/run.sh` does, one command after the other) can move the ratio by as much.
#
# Usage:  bench/forecast-ratio.sh
#         GENERATOR=bigcluster NODES=500 bench/forecast-ratio.sh
# Env:    GENERATOR=synth  which cluster: `synth` is `examples/synth` (30 pods per node, 20
#                        NodePools, one PDB per 50 pods, seed 1: the same snapshot `bench/run.sh`
#                        generates); `bigcluster` is the second generator, BIGCLUSTER (several
#                        pools and zones, PDBs, spreads and anti-affinity on a share of
#                        workloads, DaemonSets, drifted NodeClaims; its defaults, seed 1)
#         NODES=2000     cluster size
#         BIGCLUSTER=../shared/bench/bigcluster.py   that generator, beside the repository
#         RUNS=5         pairs measured
#         WORK=/tmp/kubectl-consolidation-bench   where the snapshot goes (kept for reuse)
#         NO_BUILD=1     measure the release binary already built
#         BIN=path       measure this binary instead of the release build (with NO_BUILD=1)
#         OLD=path       a second binary (say, the last release build of main) measured in the
#                        same pairs, old plan and forecast right after new's, so that the two
#                        builds' ratios see the machine at the same speed
set -euo pipefail

GENERATOR="${GENERATOR:-synth}"
NODES="${NODES:-2000}"
RUNS="${RUNS:-5}"
WORK="${WORK:-/tmp/kubectl-consolidation-bench}"
NO_BUILD="${NO_BUILD:-0}"
OLD="${OLD:-}"

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
BIGCLUSTER="${BIGCLUSTER:-$root/../shared/bench/bigcluster.py}"
case "$GENERATOR" in
  synth | bigcluster) ;;
  *) echo "GENERATOR must be synth or bigcluster, not '$GENERATOR'" >&2; exit 2 ;;
esac
if [ "$GENERATOR" = bigcluster ] && [ ! -f "$BIGCLUSTER" ]; then
  echo "no generator at $BIGCLUSTER: set BIGCLUSTER to bigcluster.py" >&2
  exit 2
fi
mkdir -p "$WORK"
if [ "$NO_BUILD" != 1 ]; then
  echo "building (release)…" >&2
  cargo build --release --quiet --bin kubectl-consolidation --example synth
fi
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
bin="${BIN:-$target/release/kubectl-consolidation}"
synth="$target/release/examples/synth"

pods=$((NODES * 30))
if [ "$GENERATOR" = synth ]; then
  file="$WORK/synth-plain-${NODES}.json"
  if [ ! -s "$file" ]; then
    echo "generating $file" >&2
    "$synth" --nodes "$NODES" --pods "$pods" --pools 20 --pdbs $((pods / 50)) --seed 1 -o "$file" 2>/dev/null
  fi
else
  file="$WORK/bigcluster-${NODES}.json"
  if [ ! -s "$file" ]; then
    echo "generating $file" >&2
    python3 "$BIGCLUSTER" --nodes "$NODES" --seed 1 >"$file.tmp" 2>"$file.counts"
    mv "$file.tmp" "$file"
  fi
  # The generator counts its own pods (DaemonSets' and whole Deployments'): "nodes=N pods=P …".
  pods="$(sed -n 's/.*pods=\([0-9]*\).*/\1/p' "$file.counts" 2>/dev/null || true)"
  pods="${pods:-?}"
fi

# timed CMD...: prints "wall_s cpu_s" of one run (output discarded; a failure stops the script).
timed() {
  local stats
  stats="$(mktemp)"
  /usr/bin/time -f '%e %U %S' -o "$stats" "$@" >/dev/null
  read -r wall user sys <"$stats"
  rm -f "$stats"
  echo "$wall $(python3 -c "print(f'{$user + $sys:.2f}')")"
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

plan=("$bin" --snapshot "$file" plan -o json)
forecast=("$bin" --snapshot "$file" forecast -o json)
timed "${plan[@]}" >/dev/null
timed "${forecast[@]}" >/dev/null
if [ -n "$OLD" ]; then
  old_plan=("$OLD" --snapshot "$file" plan -o json)
  old_forecast=("$OLD" --snapshot "$file" forecast -o json)
  timed "${old_plan[@]}" >/dev/null
  timed "${old_forecast[@]}" >/dev/null
fi

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
if [ -n "$OLD" ]; then
  echo "| pair | plan CPU s new / old | forecast CPU s new / old | forecast ÷ plan CPU new / old | taken (UTC) |"
  echo "|---:|---|---|---|---|"
else
  echo "| pair | plan wall s | plan CPU s | forecast wall s | forecast CPU s | wall ratio | CPU ratio | taken (UTC) |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---|"
fi
wall_ratios=()
cpu_ratios=()
old_ratios=()
for ((run = 1; run <= RUNS; run++)); do
  read -r plan_wall plan_cpu < <(timed "${plan[@]}")
  [ -z "$OLD" ] || read -r _ old_plan_cpu < <(timed "${old_plan[@]}")
  read -r forecast_wall forecast_cpu < <(timed "${forecast[@]}")
  [ -z "$OLD" ] || read -r _ old_forecast_cpu < <(timed "${old_forecast[@]}")
  wall_ratio="$(ratio "$forecast_wall" "$plan_wall")"
  cpu_ratio="$(ratio "$forecast_cpu" "$plan_cpu")"
  wall_ratios+=("$wall_ratio")
  cpu_ratios+=("$cpu_ratio")
  if [ -n "$OLD" ]; then
    old_ratio="$(ratio "$old_forecast_cpu" "$old_plan_cpu")"
    old_ratios+=("$old_ratio")
    echo "| $run | $plan_cpu / $old_plan_cpu | $forecast_cpu / $old_forecast_cpu | $cpu_ratio× / $old_ratio× | $(date -u +%H:%M) |"
  else
    echo "| $run | $plan_wall | $plan_cpu | $forecast_wall | $forecast_cpu | $wall_ratio | $cpu_ratio | $(date -u +%H:%M) |"
  fi
done
echo
shape="${NODES} nodes × ${pods} pods"
[ "$GENERATOR" = synth ] || shape="${GENERATOR} ${shape}"
echo "${shape}, $(git describe --always --dirty 2>/dev/null || echo '?'):" \
  "forecast / plan, median of ${RUNS} pairs: wall $(median "${wall_ratios[@]}")×, CPU $(median "${cpu_ratios[@]}")×"
[ -z "$OLD" ] || echo "the same pairs with $OLD: CPU $(median "${old_ratios[@]}")×"
