#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server from the Debian package for the Store test-suite.
#
#   eval "$(bash .ci/start-postgres.sh)"           # start; exports the two variables below
#   bash .ci/start-postgres.sh --stop "$DIR"        # stop it and delete its data
#
# On success it prints, on stdout, shell lines to eval:
#   export GPUOPS_TEST_POSTGRES_URL=postgres://gpuops:PASSWORD@127.0.0.1:PORT/gpuops_test
#   export GPUOPS_TEST_POSTGRES_DIR=/tmp/gpuops-pg.XXXXXX
# The server listens on 127.0.0.1 only, on a free port, with a random password (scram-sha-256),
# its data in a temporary folder. PostgreSQL refuses to run as root, so as root every server
# command runs as the `postgres` user through `runuser`. Fails (exit 1) when it cannot start.
set -euo pipefail

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/postgres" ]; then
  echo "start-postgres: no PostgreSQL server under /usr/lib/postgresql/*/bin (run .ci/install-services.sh)" >&2
  exit 1
fi

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-}" = "--stop" ]; then
  dir=${2:?usage: start-postgres.sh --stop DIR}
  case "$dir" in /tmp/gpuops-pg.*) ;; *) echo "start-postgres: refusing to stop/delete $dir" >&2; exit 1 ;; esac
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  exit 0
fi

dir=$(mktemp -d /tmp/gpuops-pg.XXXXXX)
cleanup_on_failure() { rm -rf "$dir"; }
trap cleanup_on_failure ERR
if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
chmod 700 "$dir"

password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$password" >"$dir/pwfile"
if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/pwfile"; fi

as_pg "$bindir/initdb" -D "$dir/data" -U gpuops --pwfile="$dir/pwfile" \
  --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
  cat "$dir/initdb.log" >&2
  rm -rf "$dir"
  exit 1
}
rm -f "$dir/pwfile"

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"
}

# A free port can be taken between the probe and the start: try a few.
started=""
for _ in 1 2 3 4 5; do
  port=$(free_port)
  if as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off" \
    start >/dev/null 2>&1; then
    started=1
    break
  fi
done
if [ -z "$started" ]; then
  echo "start-postgres: the server did not start; its log:" >&2
  cat "$dir/server.log" >&2 || true
  rm -rf "$dir"
  exit 1
fi

as_pg "$bindir/createdb" -h "$dir" -p "$port" -U gpuops gpuops_test
trap - ERR

echo "export GPUOPS_TEST_POSTGRES_URL=postgres://gpuops:${password}@127.0.0.1:${port}/gpuops_test"
echo "export GPUOPS_TEST_POSTGRES_DIR=${dir}"
