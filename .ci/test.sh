#!/usr/bin/env bash
# The README's test command (`npm run test:all`): installs and starts what the tests need, then
# type-check, lint, format check and the whole test suite. Needs root (apt) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-services.sh
npm run check
# A real PostgreSQL for the Store suite (test/store), stopped on exit; the suite fails without it in CI.
pg_env=$(bash .ci/start-postgres.sh)
eval "$pg_env"
trap 'bash .ci/start-postgres.sh --stop "$GPUOPS_TEST_POSTGRES_DIR"' EXIT
mkdir -p .tmp
status=0
npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json || status=$?
# The plain closing line CI reads: "N passed, N failed".
node -e 'const r = require("./.tmp/vitest.json"); console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`)' || true
exit "$status"
