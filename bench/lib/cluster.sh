# shellcheck shell=bash
# bench/lib/cluster.sh — a throw-away PostgreSQL cluster for bench/run.sh and bench/tpch/check.sh
# (sourced after scripts/common.sh).
#
#   cluster_start DIR [extra postgresql.conf lines...]
#       initdb in DIR/data (as $RUN_USER when root), a free port, the Unix socket in DIR,
#       shared_preload_libraries = themis; sets CL_DIR, CL_PORT, CL_CONN (psql connection options)
#   cluster_stop          stops it (immediate); the caller removes DIR
#   cluster_conf_default  postgresql.conf lines the benchmark uses by default (memory from RAM)

CL_DIR=""
CL_PORT=""
CL_CONN=()

cl_port_free() {  # nothing listens on TCP port $1
	if command -v ss >/dev/null 2>&1; then
		if ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; then return 1; fi
	else
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 1; fi
	fi
	return 0
}

cluster_conf_default() {
	local mem_kb sb
	mem_kb="$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 4194304)"
	sb=$(( mem_kb / 4 / 1024 ))           # MB: a quarter of RAM, 128 MB .. 16 GB
	[ "$sb" -lt 128 ] && sb=128
	[ "$sb" -gt 16384 ] && sb=16384
	cat <<CONF
shared_buffers = ${sb}MB
work_mem = 256MB
maintenance_work_mem = 1GB
effective_cache_size = $(( mem_kb / 2 / 1024 ))MB
max_wal_size = 16GB
checkpoint_timeout = 30min
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
jit = off
autovacuum = off
lc_messages = 'C'
CONF
}

cluster_start() {
	local dir="$1" p _
	shift
	CL_DIR="$dir"
	mkdir -p "$dir"
	chmod 755 "$dir"
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 40000))
		if cl_port_free "$p"; then CL_PORT=$p; break; fi
	done
	[ -n "$CL_PORT" ] || die "no free port found"
	is_root && chown "$RUN_USER" "$dir"
	as_pguser "$dir" "$PGBIN/initdb" -D "$dir/data" --no-locale -E UTF8 -U postgres -A trust --no-sync \
		>"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log"; die "initdb failed"; }
	{
		echo "# bench/lib/cluster.sh"
		echo "port = $CL_PORT"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$dir'"
		echo "shared_preload_libraries = 'themis'"
		for l in "$@"; do echo "$l"; done
	} >>"$dir/data/postgresql.conf"
	as_pguser "$dir" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start >/dev/null \
		|| { tail -n 30 "$dir/server.log"; die "server start failed"; }
	CL_CONN=(-h "$dir" -p "$CL_PORT" -U postgres -d postgres)
}

cluster_stop() {
	if [ -n "$CL_DIR" ] && [ -f "$CL_DIR/data/postmaster.pid" ]; then
		as_pguser "$CL_DIR" "$PGBIN/pg_ctl" -D "$CL_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
}

# themis.device for a run on the cluster: auto where the daemon reports a usable GPU, else cpu, the CPU
# executor (auto would leave every query to PostgreSQL's plan there).  A daemon just started may take a
# few seconds to answer: up to 30 s, unless it answered without a GPU or none is built (CUDA=no).
# $1: the PostgreSQL bin directory; then psql and its connection options.  Prints auto or cpu.
cluster_themis_device() {
	local pgbin="$1" st i
	shift
	for i in $(seq 1 30); do
		st="$("$@" -At -c "SELECT usable::text || ' ' || (cuda_build IS NOT NULL)::text FROM themis.gpu_status()" 2>/dev/null)"
		[ "${st%% *}" = true ] && { echo auto; return 0; }
		[ "${st#* }" = true ] && break
		[ -x "$pgbin/themis-gpud" ] || break
		sleep 1
	done
	echo cpu
}
