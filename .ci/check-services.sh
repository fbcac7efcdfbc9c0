#!/usr/bin/env bash
# Checks that .ci/install-services.sh leaves a machine's services as it found them (issue 28 item
# 2: it had disabled the machine's own postgresql.service). Runs the real script twice, with the
# real apt-get and dpkg, on a machine where PostgreSQL's service is enabled and Prometheus must be
# installed, and checks that:
#   - postgresql.service is still enabled, its /etc/systemd and /etc/rc?.d links unchanged;
#   - prometheus.service, which the package enables on install, is left as it was before (absent:
#     not enabled), and the script says it installed prometheus;
#   - /usr/sbin/policy-rc.d is as it was (a container's own kept, ours removed).
# Nothing of this reaches the machine: it all happens in a private mount namespace on overlays of
# /etc, /usr and /var, where postgresql.service is enabled and the prometheus package purged first;
# the overlays go when the namespace ends. Needs root, unshare and overlayfs, and reaches Debian's
# package mirror (apt-get update, one prometheus download). Prints `check-services: ok` or fails.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then echo "check-services: needs root and unshare under CI=true" >&2; exit 1; fi
  echo "check-services: skipped (needs root and unshare)" >&2
  exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuops-check-services.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck disable=SC2016
unshare --mount --propagation private bash -euo pipefail -c '
  work=$1
  for d in etc usr var; do
    mkdir -p "$work/$d-up" "$work/$d-work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$work/$d-up,workdir=$work/$d-work" "/$d"
  done
  fail() { echo "check-services: FAILED: $*" >&2; exit 1; }
  links() { find /etc/systemd/system /etc/rc?.d -name "*$1*" -printf "%p -> %l\n" 2>/dev/null | sort; }
  policy() { if [ -e /usr/sbin/policy-rc.d ]; then sha256sum </usr/sbin/policy-rc.d; else echo absent; fi; }

  # The machine as the issue found it: its own PostgreSQL enabled; Prometheus not installed yet.
  systemctl enable postgresql.service >/dev/null 2>&1
  [ "$(systemctl is-enabled postgresql.service)" = enabled ] || fail "could not enable postgresql.service in the overlay"
  dpkg --purge prometheus >/dev/null 2>&1 || true
  ! command -v prometheus >/dev/null 2>&1 || fail "prometheus is still installed in the overlay"
  pg_links=$(links postgresql)
  policy_before=$(policy)

  for run in 1 2; do
    out=$(bash .ci/install-services.sh 2>&1) || { echo "$out" >&2; fail "install-services.sh run $run exited non-zero"; }
    echo "$out" | sed "s/^/  run $run: /" >&2
    [ "$(systemctl is-enabled postgresql.service)" = enabled ] ||
      fail "run $run: postgresql.service is $(systemctl is-enabled postgresql.service 2>&1), was enabled"
    [ "$(links postgresql)" = "$pg_links" ] || fail "run $run: the postgresql links changed: $(links postgresql)"
    [ "$(systemctl is-enabled prometheus.service 2>/dev/null || true)" != enabled ] ||
      fail "run $run: prometheus.service was left enabled by the install"
    [ "$(policy)" = "$policy_before" ] || fail "run $run: /usr/sbin/policy-rc.d changed"
    if [ "$run" = 1 ]; then
      echo "$out" | grep -q "^install-services: installed: prometheus" || fail "run 1 did not say it installed prometheus"
    fi
  done
  command -v prometheus >/dev/null || fail "prometheus was not installed"
  echo "$out" | grep -q "nothing to install" || fail "the second run installed something again"
' check-services "$work"
echo "check-services: ok (postgresql.service stayed enabled over two runs; prometheus installed, its service not enabled)"
