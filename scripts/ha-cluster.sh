#!/usr/bin/env bash
# A highly available PostgreSQL cluster for tests, in a folder of its own: three PostgreSQL nodes
# managed by Patroni (synchronous_mode on), a three-member etcd, and HAProxy in front.
#
#   scripts/ha-cluster.sh start DIR    starts it; prints, one per line:
#                                        POSTGRES_URL=…       (HAProxy's write port: the primary)
#                                        POSTGRES_READ_URL=…  (HAProxy's read port: the replicas)
#                                        NODES=name|patroni-rest-url|data-dir|patroni-pid,…
#                                        PATRONICTL_CONFIG=…  (for patronictl -c)
#                                        HA_GATEWAY=…         (this machine's address as the nodes see it)
#                                        HA_NETWORK=…         (the nodes' network, CIDR)
#   scripts/ha-cluster.sh stop DIR     stops everything it started and removes DIR
#   scripts/ha-cluster.sh status DIR   prints `patronictl list`
#   scripts/ha-cluster.sh cut DIR NODE     cuts a node off the network (its veth down), as a partition would
#   scripts/ha-cluster.sh restore DIR NODE joins it again
#
# Each node is a test host of its own: a network namespace joined by a veth pair to a bridge on this
# machine, with a private address, running one etcd member, Patroni and the PostgreSQL it manages.
# HAProxy runs on this machine and listens on 127.0.0.1 and on the bridge's address, so every printed
# URL is reachable from here, and from other test hosts on the bridge.
#
# Needs root (namespaces, links, and the switch to unprivileged users): PostgreSQL and Patroni run as
# `postgres`, etcd as `etcd` and HAProxy as `haproxy` when those users exist (Debian's packages make
# them), else as `postgres`. Every daemon listens on a private port. The cluster trusts every local
# connection and every connection from its own network: it is for tests, never for data.
#
# A start that fails exits non-zero and stops what it started. Starting a DIR whose cluster runs prints
# its lines again; starting a DIR left by a cluster that died first cleans it up. Stopping a DIR that
# is gone does nothing. HA_START_TIMEOUT (seconds, default 180) bounds the wait for a leader, its
# synchronous standby and HAProxy.
set -euo pipefail

PG_PORT=15432       # PostgreSQL, inside each node's namespace
REST_PORT=18008     # Patroni's REST API
ETCD_CLIENT=12379   # etcd's clients (Patroni)
ETCD_PEER=12380     # etcd's members
SCOPE=chronicle-ha
NODE_NAMES=(n1 n2 n3)
SYS_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

say() { echo "ha-cluster: $*" >&2; }
die() {
  say "$*"
  exit 1
}

pg_bin() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$bin" ] && [ -x "$bin/postgres" ] || die "no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)"
  echo "$bin"
}

user_or_postgres() { if getent passwd "$1" >/dev/null; then echo "$1"; else echo postgres; fi; }

# Runs a daemon in the background, on a test host (namespace, or "" for this machine), as a user,
# in a session of its own, with a clean environment; every step execs, so $! is the daemon's pid.
spawn() {
  local namespace=$1 user=$2 log=$3 home
  shift 3
  home=$(getent passwd "$user" | cut -d: -f6)
  local ns=()
  if [ -n "$namespace" ]; then ns=(ip netns exec "$namespace"); fi
  setsid "${ns[@]}" setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups \
    env -i PATH="$SYS_PATH" HOME="$home" LANG=C.UTF-8 LC_ALL=C.UTF-8 "$@" </dev/null >>"$log" 2>&1 &
  SPAWNED=$!
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# A /24 of 10.0.0.0/8 that no address or route of this machine is in.
free_subnet() {
  local used i second third candidate
  used=$(ip -4 route show table all; ip -4 -o addr show)
  for i in $(seq 0 199); do
    second=$((150 + ($$ + i) % 50))
    third=$((($$ + i * 7) % 250))
    candidate="10.$second.$third"
    if ! grep -qF "$candidate." <<<"$used"; then
      echo "$candidate"
      return
    fi
  done
  die "no free 10.x.y.0/24 for the cluster's network"
}

http_code() { curl -s -o /dev/null -m 2 -w '%{http_code}' "$1" 2>/dev/null || true; }

# ---------------------------------------------------------------------------------------------- stop

# The processes on a node, but for zombies (gone, waiting for their parent to reap them).
live_pids() {
  local pid
  for pid in $(ip netns pids "$1" 2>/dev/null); do
    if [ -r "/proc/$pid/stat" ] && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ]; then echo "$pid"; fi
  done
}

# SIGTERM to the pids, SIGKILL to those still running after the last argument's tenths of a second.
terminate() {
  local ticks=${*: -1} pids=("${@:1:$#-1}") pid left waited=0
  for pid in "${pids[@]}"; do if alive "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi; done
  while [ "$waited" -lt "$ticks" ]; do
    left=0
    for pid in "${pids[@]}"; do if alive "$pid"; then left=1; fi; done
    [ "$left" -eq 0 ] && return 0
    sleep 0.1
    waited=$((waited + 1))
  done
  for pid in "${pids[@]}"; do if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi; done
}

stop_cluster() {
  local dir=$1 state=$1/state
  if [ ! -f "$state" ]; then
    # Nothing of a cluster here (never started, or stopped already); a folder left empty goes.
    if [ -d "$dir" ]; then rmdir "$dir" 2>/dev/null || say "$dir has no cluster's state: left as it is"; fi
    return 0
  fi
  local kind value patronis=() others=() namespaces=() links=() bridges=() datadirs=()
  while read -r kind value; do
    case "$kind" in
      patroni) patronis+=("$value") ;;
      etcd | haproxy) others+=("$value") ;;
      ns) namespaces+=("$value") ;;
      link) links+=("$value") ;;
      bridge) bridges+=("$value") ;;
      datadir) datadirs+=("$value") ;;
    esac
  done <"$state"
  # Patroni first, while etcd still has its quorum: it stops its PostgreSQL and gives up the leader
  # key. Then etcd and HAProxy. SIGKILL after 30 s and 10 s.
  terminate "${patronis[@]}" 300
  terminate "${others[@]}" 100
  # A postmaster whose Patroni was killed keeps running: stop it through its pid file.
  local data postmaster
  for data in "${datadirs[@]}"; do
    if [ -f "$data/postmaster.pid" ]; then
      postmaster=$(head -n 1 "$data/postmaster.pid" 2>/dev/null || true)
      if alive "$postmaster"; then kill -QUIT "$postmaster" 2>/dev/null || true; fi
    fi
  done
  # Whatever else still runs on a node (a postmaster's children, a daemon restarted in place).
  local namespace
  for namespace in "${namespaces[@]}"; do
    for pid in $(live_pids "$namespace"); do kill -KILL "$pid" 2>/dev/null || true; done
  done
  for namespace in "${namespaces[@]}"; do
    for _ in $(seq 1 50); do
      [ -z "$(live_pids "$namespace")" ] && break
      sleep 0.1
    done
  done
  local link
  for link in "${links[@]}"; do ip link delete "$link" 2>/dev/null || true; done
  for namespace in "${namespaces[@]}"; do ip netns delete "$namespace" 2>/dev/null || true; done
  for link in "${bridges[@]}"; do ip link delete "$link" 2>/dev/null || true; done
  rm -rf "$dir"
}

# --------------------------------------------------------------------------------------------- start

print_env() { cat "$1/env"; }

running() {
  local dir=$1
  [ -f "$dir/env" ] && [ -f "$dir/state" ] || return 1
  local kind value
  while read -r kind value; do
    case "$kind" in patroni | etcd | haproxy) alive "$value" || return 1 ;; esac
  done <"$dir/state"
}

write_etcd_and_patroni() {
  local dir=$1 subnet=$2 bin=$3 i name address initial="" hosts=""
  for i in 0 1 2; do
    initial+="${initial:+,}${NODE_NAMES[$i]}=http://$subnet.$((i + 2)):$ETCD_PEER"
    hosts+="${hosts:+, }$subnet.$((i + 2)):$ETCD_CLIENT"
  done
  ETCD_INITIAL=$initial
  local replication_password superuser_password
  replication_password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  superuser_password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  for i in 0 1 2; do
    name=${NODE_NAMES[$i]}
    address=$subnet.$((i + 2))
    cat >"$dir/$name/patroni.yml" <<EOF
scope: $SCOPE
namespace: /chronicle/
name: $name

restapi:
  listen: $address:$REST_PORT
  connect_address: $address:$REST_PORT

etcd3:
  hosts: [$hosts]

bootstrap:
  dcs:
    # A dead leader's lock expires after ttl; loop_wait + 2 * retry_timeout <= ttl.
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: false
    synchronous_node_count: 1
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 200
        shared_buffers: 64MB
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 128MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - data-checksums

postgresql:
  listen: $address:$PG_PORT
  connect_address: $address:$PG_PORT
  data_dir: $dir/$name/data
  bin_dir: $bin
  pgpass: $dir/$name/pgpass
  authentication:
    superuser:
      username: postgres
      password: $superuser_password
    replication:
      username: replicator
      password: $replication_password
    rewind:
      username: postgres
      password: $superuser_password
  parameters:
    unix_socket_directories: $dir/$name
  pg_hba:
    - local all all trust
    - local replication all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
    - host all all $subnet.0/24 trust
    - host replication all $subnet.0/24 trust

watchdog:
  mode: "off"
EOF
    chown postgres "$dir/$name/patroni.yml"
    chmod 600 "$dir/$name/patroni.yml"
  done
  cat >"$dir/patronictl.yml" <<EOF
scope: $SCOPE
namespace: /chronicle/
etcd3:
  hosts: [$hosts]
EOF
}

write_haproxy() {
  local dir=$1 subnet=$2 write_port=$3 read_port=$4 gateway=$2.1 i
  {
    cat <<EOF
global
    maxconn 2000

defaults
    mode tcp
    timeout connect 3s
    timeout client 30m
    timeout server 30m
    timeout check 2s
    # Every second; down after 2 failed checks, up after 1; a node marked down has its sessions cut.
    default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions

listen write
    bind 127.0.0.1:$write_port
    bind $gateway:$write_port
    option httpchk
    http-check send meth GET uri /primary
    http-check expect status 200
EOF
    for i in 0 1 2; do echo "    server ${NODE_NAMES[$i]} $subnet.$((i + 2)):$PG_PORT check port $REST_PORT"; done
    cat <<EOF

listen read
    bind 127.0.0.1:$read_port
    bind $gateway:$read_port
    balance roundrobin
    option httpchk
    http-check send meth GET uri /replica
    http-check expect status 200
EOF
    for i in 0 1 2; do echo "    server ${NODE_NAMES[$i]} $subnet.$((i + 2)):$PG_PORT check port $REST_PORT"; done
  } >"$dir/haproxy.cfg"
}

wait_until_ready() {
  local dir=$1 subnet=$2 write_port=$3 read_port=$4 timeout=$5 deadline primaries replicas syncs i url
  deadline=$((SECONDS + timeout))
  while :; do
    for pid in "${DAEMONS[@]}"; do alive "$pid" || die "a daemon (pid $pid) exited while the cluster started; see the logs in $dir"; done
    primaries=0 replicas=0 syncs=0
    for i in 0 1 2; do
      url=http://$subnet.$((i + 2)):$REST_PORT
      [ "$(http_code "$url/primary")" = 200 ] && primaries=$((primaries + 1))
      [ "$(http_code "$url/replica")" = 200 ] && replicas=$((replicas + 1))
      [ "$(http_code "$url/sync")" = 200 ] && syncs=$((syncs + 1))
    done
    if [ "$primaries" -eq 1 ] && [ "$replicas" -eq 2 ] && [ "$syncs" -eq 1 ] &&
      [ "$(psql -XAtq -d "postgres://postgres@127.0.0.1:$write_port/postgres?connect_timeout=2" -c 'select pg_is_in_recovery()' 2>/dev/null)" = f ] &&
      [ "$(psql -XAtq -d "postgres://postgres@127.0.0.1:$read_port/postgres?connect_timeout=2" -c 'select pg_is_in_recovery()' 2>/dev/null)" = t ]; then
      return 0
    fi
    [ "$SECONDS" -lt "$deadline" ] || die "no leader with a synchronous standby behind HAProxy within ${timeout}s ($primaries primary, $replicas replicas, $syncs sync); see the logs in $dir"
    sleep 0.5
  done
}

start_cluster() {
  local dir=$1
  [ "$(id -u)" -eq 0 ] || die "run as root: the nodes are network namespaces, and the daemons switch to unprivileged users"
  for command in patroni etcd haproxy ip setpriv curl psql; do
    command -v "$command" >/dev/null || die "$command is missing (apt-get install patroni etcd-server haproxy iproute2 curl postgresql-client)"
  done
  if running "$dir"; then
    say "already running in $dir"
    print_env "$dir"
    return 0
  fi
  if [ -f "$dir/state" ]; then
    say "cleaning up what a previous cluster in $dir left"
    stop_cluster "$dir"
  fi
  [ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "$dir exists and is not a cluster's folder"

  local bin etcd_user haproxy_user timeout=${HA_START_TIMEOUT:-180}
  bin=$(pg_bin)
  etcd_user=$(user_or_postgres etcd)
  haproxy_user=$(user_or_postgres haproxy)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  chmod 755 "$dir"
  : >"$dir/state"
  STARTING_DIR=$dir
  # Interrupted or terminated (a caller's time limit), it stops what it started too.
  trap 'exit 143' INT TERM
  trap 'status=$?; if [ "$status" -ne 0 ] && [ -n "${STARTING_DIR:-}" ]; then say "start failed: stopping what it started"; tail -n 20 "$STARTING_DIR"/*/patroni.log "$STARTING_DIR"/*/etcd.log "$STARTING_DIR"/haproxy.log >&2 2>/dev/null || true; stop_cluster "$STARTING_DIR"; fi' EXIT

  local tag=chha$$ subnet bridge gateway
  subnet=$(free_subnet)
  bridge=${tag}b
  gateway=$subnet.1
  echo "bridge $bridge" >>"$dir/state"
  ip link add "$bridge" type bridge
  ip addr add "$gateway/24" dev "$bridge"
  ip link set "$bridge" up

  local i name namespace outside inside address
  for i in 0 1 2; do
    name=${NODE_NAMES[$i]}
    namespace=$tag-$name
    outside=${tag}h$((i + 2))
    inside=${tag}n$((i + 2))
    address=$subnet.$((i + 2))
    echo "ns $namespace" >>"$dir/state"
    ip netns add "$namespace"
    echo "link $outside" >>"$dir/state"
    echo "nodelink $name $outside" >>"$dir/state"
    ip link add "$outside" type veth peer name "$inside"
    ip link set "$inside" netns "$namespace"
    ip link set "$outside" master "$bridge"
    ip link set "$outside" up
    ip -n "$namespace" addr add "$address/24" dev "$inside"
    ip -n "$namespace" link set "$inside" up
    ip -n "$namespace" link set lo up
    mkdir -p "$dir/$name/etcd"
    chown postgres "$dir/$name"
    chmod 700 "$dir/$name/etcd"
    chown "$etcd_user" "$dir/$name/etcd"
    echo "datadir $dir/$name/data" >>"$dir/state"
  done

  write_etcd_and_patroni "$dir" "$subnet" "$bin"
  DAEMONS=()
  local pids=()
  # etcd: heartbeat and election timeouts 2.5 times etcd's defaults, for two busy cores; the election
  # timeout under Patroni's retry_timeout, so that a new etcd leader is elected before Patroni gives
  # up on etcd. Pre-vote: a member cut off and joined again does not depose the leader with the
  # terms it raised alone (without it, etcd had no leader for 14 s after a partition healed).
  for i in 0 1 2; do
    name=${NODE_NAMES[$i]}
    address=$subnet.$((i + 2))
    touch "$dir/$name/etcd.log"
    spawn "$tag-$name" "$etcd_user" "$dir/$name/etcd.log" etcd \
      --name "$name" --data-dir "$dir/$name/etcd/data" \
      --listen-client-urls "http://$address:$ETCD_CLIENT,http://127.0.0.1:$ETCD_CLIENT" \
      --advertise-client-urls "http://$address:$ETCD_CLIENT" \
      --listen-peer-urls "http://$address:$ETCD_PEER" \
      --initial-advertise-peer-urls "http://$address:$ETCD_PEER" \
      --initial-cluster "$ETCD_INITIAL" --initial-cluster-state new --initial-cluster-token "$tag" \
      --heartbeat-interval 250 --election-timeout 2500 --pre-vote=true --enable-v2=false
    echo "etcd $SPAWNED" >>"$dir/state"
    DAEMONS+=("$SPAWNED")
  done
  for i in 0 1 2; do
    name=${NODE_NAMES[$i]}
    touch "$dir/$name/patroni.log"
    chown postgres "$dir/$name/patroni.log"
    spawn "$tag-$name" postgres "$dir/$name/patroni.log" patroni "$dir/$name/patroni.yml"
    echo "patroni $SPAWNED" >>"$dir/state"
    DAEMONS+=("$SPAWNED")
    pids+=("$SPAWNED")
  done

  local write_port read_port
  write_port=${HA_WRITE_PORT:-$(free_port)}
  read_port=${HA_READ_PORT:-$(free_port)}
  write_haproxy "$dir" "$subnet" "$write_port" "$read_port"
  touch "$dir/haproxy.log"
  spawn "" "$haproxy_user" "$dir/haproxy.log" haproxy -db -f "$dir/haproxy.cfg"
  echo "haproxy $SPAWNED" >>"$dir/state"
  DAEMONS+=("$SPAWNED")

  wait_until_ready "$dir" "$subnet" "$write_port" "$read_port" "$timeout"

  local nodes=""
  for i in 0 1 2; do
    name=${NODE_NAMES[$i]}
    nodes+="${nodes:+,}$name|http://$subnet.$((i + 2)):$REST_PORT|$dir/$name/data|${pids[$i]}"
  done
  {
    echo "POSTGRES_URL=postgres://postgres@127.0.0.1:$write_port/postgres"
    echo "POSTGRES_READ_URL=postgres://postgres@127.0.0.1:$read_port/postgres"
    echo "NODES=$nodes"
    echo "PATRONICTL_CONFIG=$dir/patronictl.yml"
    echo "HA_GATEWAY=$gateway"
    echo "HA_NETWORK=$subnet.0/24"
  } >"$dir/env"
  STARTING_DIR=""
  print_env "$dir"
}

case "${1:-}" in
  start) start_cluster "${2:?usage: ha-cluster.sh start DIR}" ;;
  stop)
    [ "$(id -u)" -eq 0 ] || die "run as root"
    stop_cluster "${2:?usage: ha-cluster.sh stop DIR}"
    ;;
  cut | restore)
    [ "$(id -u)" -eq 0 ] || die "run as root"
    link=$(awk -v node="${3:?usage: ha-cluster.sh $1 DIR NODE}" '$1 == "nodelink" && $2 == node { print $3 }' "${2:?usage: ha-cluster.sh $1 DIR NODE}/state" 2>/dev/null || true)
    [ -n "$link" ] || die "no node $3 in $2"
    if [ "$1" = cut ]; then ip link set "$link" down; else ip link set "$link" up; fi
    ;;
  status) patronictl -c "${2:?usage: ha-cluster.sh status DIR}/patronictl.yml" list ;;
  *)
    echo "usage: $0 start DIR | stop DIR | status DIR | cut DIR NODE | restore DIR NODE" >&2
    exit 2
    ;;
esac
