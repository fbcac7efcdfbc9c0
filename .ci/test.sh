#!/usr/bin/env bash
# The README's test command (`npm run test:all`): installs and starts what the tests need, then
# type-check, lint, format check and the whole test suite (the unit project and the real-cluster
# project), then the unit tables, the CLI and the demo under Node.js 22 and 24 (.ci/node-lines.sh).
# Needs root (apt) and Go 1.26 on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-services.sh
# The real control plane for test/real-cluster (kube-apiserver, controllers, etcd, KWOK, Flux),
# built from source from the Go module proxy into ~/.cache/gpuops/k8s/ (a no-op check when built;
# tens of minutes cold on 2 cores, see docs/real-cluster.md).
bash scripts/k8s/build.sh >/dev/null
npm run check
# A real PostgreSQL for the Store suite (test/store), stopped on exit; the suite fails without it in CI.
pg_env=$(bash .ci/start-postgres.sh)
eval "$pg_env"
# On exit: stop PostgreSQL (its temp folder goes with it) and remove the report folder, so the
# machine is left as it was found.
report=$(mktemp -d "${TMPDIR:-/tmp}/gpuops-test-report.XXXXXX")
trap 'bash .ci/start-postgres.sh --stop "$GPUOPS_TEST_POSTGRES_DIR"; rm -rf "$report"' EXIT
status=0
npx vitest run --reporter=default --reporter=json --outputFile="$report/vitest.json" || status=$?
# Node.js 22 and 24, the maintained LTS lines, besides the one that ran the suite: the unit tables,
# the CLI and the demo under each (.ci/node-lines.sh: pinned binaries from the npm registry, cached
# in ~/.cache/gpuops/node).
bash .ci/node-lines.sh || status=$?
# The plain closing line CI reads: "N passed, N failed".
REPORT="$report/vitest.json" node -e 'const r = require(process.env.REPORT); console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`)' || true
exit "$status"
