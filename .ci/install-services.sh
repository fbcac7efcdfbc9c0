#!/usr/bin/env bash
# Installs the Debian packages the integration tests start themselves: PostgreSQL, Prometheus
# (and its promtool), and Chromium for the browser tests of the pages people look at.
# The tests start their own servers, so the packages' system services are neither started nor
# enabled: during apt-get a policy-rc.d that exits 101 ("action forbidden", invoke-rc.d's
# contract) keeps the maintainer scripts from starting them, and systemd units the packages
# enabled are disabled again. Idempotent; fails loudly when a package cannot be installed.
set -euo pipefail
need=()
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  policy=/usr/sbin/policy-rc.d
  own_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# gpuops .ci/install-services.sh: no service starts during this install\nexit 101\n' |
      $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    own_policy=1
  fi
  cleanup() { if [ "$own_policy" = 1 ]; then $sudo rm -f "$policy"; fi; }
  trap cleanup EXIT
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
  if command -v systemctl >/dev/null 2>&1; then
    for unit in prometheus prometheus-node-exporter postgresql; do
      # `disable` also works where systemd is not running (a container, a chroot): it removes the
      # links that would start the unit at the next boot. `stop` only where systemd runs.
      $sudo systemctl disable "$unit" >/dev/null 2>&1 || true
      if [ -d /run/systemd/system ]; then $sudo systemctl stop "$unit" >/dev/null 2>&1 || true; fi
    done
  fi
fi
command -v prometheus >/dev/null
command -v promtool >/dev/null
ls /usr/lib/postgresql/*/bin/postgres >/dev/null
command -v chromium >/dev/null
# kubectl for test/sim/kubectl.test.ts, from npm (Debian's kubernetes-client is too old).
bash "$(dirname "$0")/install-kubectl.sh"
