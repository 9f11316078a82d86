#!/usr/bin/env bash
# Runs the fuzz targets one after another, each for SECONDS (default 600), seeded from the
# project's scenarios and bad inputs. Needs a nightly toolchain and cargo-fuzz (see README.md).
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(load_yaml load_json quantity selectors budgets replay render forecast)
failed=0
for target in "${targets[@]}"; do
  corpus="corpus/$target"
  mkdir -p "$corpus"
  seeds=()
  case "$target" in
    load_yaml | load_json | replay | render | forecast) seeds=(../tests/scenarios/*/ ../tests/bad-input/) ;;
    *) seeds=("seeds/$target") ;;
  esac
  echo "== $target: ${seconds}s"
  # -rss_limit_mb: a load that needs more than 2 GiB is a finding; -timeout: so is a hang.
  log="target/run-$target.log"
  mkdir -p target
  status=0
  cargo +nightly fuzz run "$target" "$corpus" "${seeds[@]}" -- \
    -max_total_time="$seconds" -max_len=131072 -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|Done [0-9]+ runs)|panicked|Test unit written" "$log" || true
  if [ "$status" -ne 0 ]; then
    echo "$target FAILED (exit $status); see fuzz/$log and fuzz/artifacts/$target/" >&2
    failed=1
  fi
done
exit "$failed"
