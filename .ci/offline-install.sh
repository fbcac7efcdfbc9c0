#!/usr/bin/env bash
# Checks the README's first command on a machine that reaches only the npm registry (issue 28
# item 1): in a clean copy of this checkout, with an empty home directory, `npm ci && npm run demo`
# must exit 0 with every other host refused — no prebuilt binary from GitHub, no Node headers for
# node-gyp — and no compiler. Every proxy setting npm, node-gyp and prebuild-install read points
# at a port that refuses (127.0.0.1:9), except for the registry's host; the compilers are /bin/false.
# The npm cache is the machine's own (registry tarballs only, `--prefer-offline`), so the check
# costs an install and a demo, not a download. Prints `offline-install: ok` or fails.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuops-offline-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
registry=$(npm config get registry)
registry_host=$(node -e 'console.log(new URL(process.argv[1]).hostname)' "$registry")
cache=$(npm config get cache)
# The committed HEAD of this checkout, as a newcomer's clone has it (CI's checkout is one).
git clone --quiet --no-hardlinks "$src" "$work/gpuops"
mkdir "$work/home"
refused=http://127.0.0.1:9
cd "$work/gpuops"
run() {
  env -i PATH="$PATH" HOME="$work/home" TMPDIR="${TMPDIR:-/tmp}" CI="${CI:-}" \
    npm_config_cache="$cache" npm_config_registry="$registry" npm_config_prefer_offline=true \
    npm_config_proxy="$refused" npm_config_https_proxy="$refused" npm_config_noproxy="$registry_host" \
    HTTP_PROXY="$refused" HTTPS_PROXY="$refused" http_proxy="$refused" https_proxy="$refused" \
    NO_PROXY="$registry_host" no_proxy="$registry_host" \
    npm_config_disturl="$refused" npm_config_nodedir= npm_config_build_from_source= \
    npm_config_python=/bin/false CC=/bin/false CXX=/bin/false \
    "$@"
}
start=$(date +%s)
run npm ci --no-audit --no-fund >"$work/npm-ci.log" 2>&1 || {
  tail -40 "$work/npm-ci.log" >&2
  echo "offline-install: FAILED: npm ci with only the npm registry reachable" >&2
  exit 1
}
run npm run demo >"$work/demo.log" 2>&1 || {
  tail -40 "$work/demo.log" >&2
  echo "offline-install: FAILED: npm run demo after the offline install" >&2
  exit 1
}
if [ -e "$work/home/.node-gyp" ] || [ -e "$work/home/.cache/node-gyp" ]; then
  echo "offline-install: FAILED: node-gyp ran (it left Node headers in the home directory)" >&2
  exit 1
fi
echo "offline-install: ok (npm ci && npm run demo in a clean copy, only the npm registry reachable, no compiler: $(($(date +%s) - start)) s)"
