#!/usr/bin/env bash
# A private PostgreSQL cluster for the PostgreSQL test suites, in a folder of its own.
#
#   scripts/postgres-test-cluster.sh start [DIR] [PORT]   initdb + start; prints POSTGRES_TEST_URL=…
#   scripts/postgres-test-cluster.sh replica PRIMARY_PORT DIR PORT
#                                                         a streaming replica of the cluster on PRIMARY_PORT
#                                                         (pg_basebackup); prints POSTGRES_TEST_READ_URL=…
#   scripts/postgres-test-cluster.sh restart DIR          pg_ctl restart -m fast (sessions cut, as a failover would)
#   scripts/postgres-test-cluster.sh stop DIR             stops it and removes DIR
#
# PostgreSQL refuses to run as root: run as root, the cluster belongs to the `postgres` user
# (created by Debian's postgresql package). It listens on 127.0.0.1:PORT (default 54329) and
# on a Unix socket inside DIR only, and trusts local connections: it is for tests, never for data.
# For tests across network namespaces, POSTGRES_TEST_LISTEN adds addresses to listen on
# (comma-separated) and POSTGRES_TEST_TRUST a network (CIDR) whose connections it trusts too.
set -euo pipefail

server_bin() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "postgres-test-cluster: no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql)" >&2
    exit 1
  fi
  echo "$bin"
}

# Runs a server command as the cluster's owner: the postgres user when we are root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    dir=${2:-$(mktemp -d "${TMPDIR:-/tmp}/chronicle-pg-XXXXXX")}
    port=${3:-54329}
    bin=$(server_bin)
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    listen=127.0.0.1${POSTGRES_TEST_LISTEN:+,$POSTGRES_TEST_LISTEN}
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
    if [ -n "${POSTGRES_TEST_TRUST:-}" ]; then
      echo "host all all $POSTGRES_TEST_TRUST trust" | as_owner tee -a "$dir/data/pg_hba.conf" >/dev/null
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=$listen -c max_connections=300" start >/dev/null
    echo "POSTGRES_TEST_DIR=$dir"
    echo "POSTGRES_TEST_URL=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  replica)
    primary_port=${2:?usage: postgres-test-cluster.sh replica PRIMARY_PORT DIR PORT}
    dir=${3:?usage: postgres-test-cluster.sh replica PRIMARY_PORT DIR PORT}
    port=${4:?usage: postgres-test-cluster.sh replica PRIMARY_PORT DIR PORT}
    bin=$(server_bin)
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    # initdb's trust rules allow replication connections from 127.0.0.1; -R writes standby.signal and primary_conninfo;
    # -c fast: the backup starts at once, not after a checkpoint spread over minutes.
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$dir/data" -R -X stream -c fast >"$dir/basebackup.log" 2>&1
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c hot_standby=on" start >/dev/null
    echo "POSTGRES_TEST_READ_DIR=$dir"
    echo "POSTGRES_TEST_READ_URL=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  restart)
    dir=${2:?usage: postgres-test-cluster.sh restart DIR}
    bin=$(server_bin)
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null
    ;;
  stop)
    dir=${2:?usage: postgres-test-cluster.sh stop DIR}
    bin=$(server_bin)
    if [ -f "$dir/data/postmaster.pid" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start [DIR] [PORT] | replica PRIMARY_PORT DIR PORT | restart DIR | stop DIR" >&2
    exit 2
    ;;
esac
