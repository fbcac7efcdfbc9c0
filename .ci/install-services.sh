#!/usr/bin/env bash
# Installs the Debian packages the integration tests start themselves: PostgreSQL, Prometheus
# (and its promtool), and Chromium for the browser tests of the pages people look at.
# Idempotent; fails loudly when a package cannot be installed.
set -euo pipefail
need=()
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
command -v prometheus >/dev/null
ls /usr/lib/postgresql/*/bin/postgres >/dev/null
command -v chromium >/dev/null
