#!/usr/bin/env bash
# Regenerates data/karpenter-versions/core-releases.txt: every release tag v1.x.y of
# kubernetes-sigs/karpenter (the core), one per line, in version order. The replay reads it
# to tell a version that was never released (e.g. v1.13.2: the 1.13 line has only v1.13.0)
# from one that was.
#
# Usage: scripts/karpenter-core-releases.sh GIT_DIR [OUT|-]
#   GIT_DIR  a local git dir (bare or not) of kubernetes-sigs/karpenter, with tags
#   OUT      output file (default: data/karpenter-versions/core-releases.txt beside this
#            script's repo); "-" writes to stdout
# No network: reads only the local git dir.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 GIT_DIR [OUT|-]" >&2
  exit 2
fi
git_dir=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${2:-"$here/../data/karpenter-versions/core-releases.txt"}
if [[ $out == - ]]; then
  out=/dev/stdout
fi
if [[ -d "$git_dir/.git" ]]; then
  git_dir="$git_dir/.git"
fi
if ! git --git-dir="$git_dir" rev-parse --git-dir >/dev/null 2>&1; then
  echo "$0: $git_dir is not a git dir" >&2
  exit 1
fi

{
  echo "# Karpenter core (kubernetes-sigs/karpenter) release tags v1.x.y, in version order."
  echo "# Source: git tag of the upstream repository; regenerate with scripts/karpenter-core-releases.sh."
  git --git-dir="$git_dir" tag --list 'v1.*' | grep -E '^v1\.[0-9]+\.[0-9]+$' | sort -V
} > "$out"
