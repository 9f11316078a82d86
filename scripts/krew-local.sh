#!/usr/bin/env bash
# Builds the host's krew archive and renders a manifest for it, with its real sha256:
#
#   scripts/krew-local.sh                 # → dist/kubectl-consolidation-OS-ARCH.tar.gz (.zip on Windows)
#                                         #   and dist/consolidation.yaml
#   kubectl krew install --manifest=dist/consolidation.yaml \
#     --archive=dist/kubectl-consolidation-OS-ARCH.tar.gz
#
# The archive holds what a release archive holds (the binary and LICENSE, at its root), the
# manifest is krew-manifest.yaml rendered for the version in Cargo.toml, with the host's platform only.
# Environment: KREW_LOCAL_BIN=PATH packs that binary instead of building a release one
# (the tests use the debug build); DIST=DIR writes somewhere else than dist/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="${DIST:-$root/dist}"

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) echo "krew-local: unsupported OS $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "krew-local: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac
exe=""
[[ "$os" == windows ]] && exe=".exe"

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
[[ -n "$version" ]] || { echo "krew-local: no version in Cargo.toml" >&2; exit 1; }

bin="${KREW_LOCAL_BIN:-}"
if [[ -z "$bin" ]]; then
  cargo build --release --locked --manifest-path "$root/Cargo.toml"
  bin="$root/target/release/kubectl-consolidation$exe"
fi

name="kubectl-consolidation-$os-$arch"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp "$bin" "$stage/kubectl-consolidation$exe"
cp "$root/LICENSE" "$stage/LICENSE"
mkdir -p "$dist"
if [[ "$os" == windows ]]; then
  archive="$dist/$name.zip"
  rm -f "$archive"
  (cd "$stage" && zip -q "$archive" "kubectl-consolidation$exe" LICENSE)
else
  archive="$dist/$name.tar.gz"
  tar -C "$stage" -czf "$archive" "kubectl-consolidation$exe" LICENSE
fi

python3 "$root/scripts/render-krew-manifest.py" --template "$root/krew-manifest.yaml" --tag "v$version" "$archive" \
  >"$dist/consolidation.yaml"
echo "$archive"
echo "$dist/consolidation.yaml"
