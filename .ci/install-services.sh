#!/usr/bin/env bash
# Installs the Debian packages the integration tests start themselves: PostgreSQL, Prometheus
# (and its promtool), and Chromium for the browser tests of the pages people look at; then kubectl
# (.ci/install-kubectl.sh). Says what it installed, on stderr.
#
# It never enables, disables, starts or stops a service that was there before it ran: the tests
# start their own servers (.ci/start-postgres.sh, test/support/prometheus.ts), and a machine's own
# PostgreSQL stays as it was (an earlier version disabled every postgresql.service it found).
# - During apt-get, a policy-rc.d that exits 101 ("action forbidden", invoke-rc.d's contract, which
#   deb-systemd-invoke honours too) keeps the packages' maintainer scripts from starting anything.
#   An existing /usr/sbin/policy-rc.d (a container's own) is left in place, not replaced; ours is
#   removed on exit.
# - A unit that did not exist before and that a package installed now enabled (Debian enables a
#   service on install) is returned to the state it had: none, so nothing starts at the next boot.
#   A unit that existed before is not touched, whatever its state.
# Idempotent: with everything present it installs and changes nothing. Fails loudly when a
# package cannot be installed. .ci/check-services.sh checks all this on an overlay of /etc.
set -euo pipefail
say() { echo "install-services: $*" >&2; }

need=()
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
command -v chromium >/dev/null 2>&1 || need+=(chromium)

# The units the packages above ship. `systemctl is-enabled` reads unit files and links only, so it
# answers where systemd is not running (a container, a chroot); nothing for a unit that is absent.
UNITS=(postgresql.service prometheus.service prometheus-node-exporter.service)
unit_state() {
  if command -v systemctl >/dev/null 2>&1; then systemctl is-enabled "$1" 2>/dev/null || true; fi
}

if [ ${#need[@]} -eq 0 ]; then
  say "nothing to install: prometheus, promtool, postgres and chromium are present"
else
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  declare -A before=()
  for unit in "${UNITS[@]}"; do before[$unit]=$(unit_state "$unit"); done
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
  say "installing Debian packages: ${need[*]} (their services are not started)"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
  say "installed: ${need[*]}"
  for unit in "${UNITS[@]}"; do
    after=$(unit_state "$unit")
    if [ -z "${before[$unit]}" ] && [ "$after" = enabled ]; then
      # Ours: the package just installed it enabled. `disable` removes the links it made (and the
      # SysV ones through systemd-sysv-install); it needs no running systemd.
      $sudo systemctl disable "$unit" >/dev/null 2>&1 || true
      say "$unit came with the package enabled; left disabled as it was (absent) before, not started"
    fi
  done
  cleanup
  trap - EXIT
fi
command -v prometheus >/dev/null
command -v promtool >/dev/null
ls /usr/lib/postgresql/*/bin/postgres >/dev/null
command -v chromium >/dev/null
# kubectl for test/sim/kubectl.test.ts, from npm (Debian's kubernetes-client is too old).
bash "$(dirname "$0")/install-kubectl.sh"
