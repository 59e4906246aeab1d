#!/bin/bash
# SPDX-License-Identifier: MIT
#
# sbx's network proxy (sbx(1), NETWORK; issue 14): throughput of one stream through the
# proxy against the same transfer direct, the latency a CONNECT adds, the time a refused
# lookup takes, and the memory of sbx (whose thread is the proxy) with 200 tunnels open.
# Everything on this machine's loopback: a server on the host's 127.0.0.1, reached from the
# sandbox through the proxy with an entry {name: 127.0.0.1, allow-private: true}.
#
#   bench/net.sh [--quick] [--size MB] [--runs N]
#
# Beside them, the floor: bench/relay_floor.c, a minimal relay on the host's loopback (splice
# with a thread a direction, read/write likewise, and one epoll thread splicing as sbx does,
# with its pipe and socket buffer sizes), built here with cc: what a relay carries here.
#
# $SBX or ./build/sbx; needs python3, curl and cc. Prints, never asserts.
set -euo pipefail
cd "$(dirname "$0")/.."
SBX=${SBX:-$PWD/build/sbx}
SIZE_MB=1024
RUNS=5
N_LAT=300
while [ $# -gt 0 ]; do
	case $1 in
	--quick) SIZE_MB=256; RUNS=1; N_LAT=50 ;;
	--size) SIZE_MB=$2; shift ;;
	--runs) RUNS=$2; shift ;;
	-h | --help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "net.sh: unknown option '$1'" >&2; exit 1 ;;
	esac
	shift
done
command -v python3 >/dev/null && command -v curl >/dev/null && command -v cc >/dev/null ||
	{ echo "net.sh needs python3, curl and cc" >&2; exit 1; }
PY=/usr/bin/python3
dir=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench-net.XXXXXX")
chmod 755 "$dir"
rl=
trap 'kill $srv $rl 2>/dev/null || true; rm -rf "$dir"' EXIT

# The server: on one port, "GET" gets SIZE_MB of zeros after an HTTP head; any other first
# byte is held open and answered with one byte per byte (the latency and memory rows).
cat >"$dir/server.py" <<'EOF'
import socket, sys, threading
size = int(sys.argv[1]) << 20
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0)); ls.listen(1024)
print(ls.getsockname()[1], flush=True)
chunk = bytes(4 << 20)
def serve(c):
    try:
        first = c.recv(1)
        if first == b"G":
            while not c.recv(65536).endswith(b"\r\n\r\n"):
                pass
            c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
            left = size
            while left:
                n = c.send(memoryview(chunk)[:min(left, len(chunk))])
                left -= n
        else:
            while first:
                c.sendall(first)
                first = c.recv(1)
    except OSError:
        pass
    c.close()
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
$PY "$dir/server.py" "$SIZE_MB" >"$dir/port" &
srv=$!
for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.05; done
PORT=$(cat "$dir/port")
cat >"$dir/net.yaml" <<EOF
version: 1
name: net
network:
  allow:
    - {name: 127.0.0.1, allow-private: true}
EOF
RUN=("$SBX" run -p "$dir/net.yaml" -v "$dir")

echo "net.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(uname -r); ${SIZE_MB} MB a transfer, $RUNS runs"

# 1. throughput: curl to /dev/null, RUNS rounds, each round every way in turn (the load and
# the scheduler's placement of server, relay and client on the CPUs drift; interleaving keeps
# the ways comparable): direct from the host; direct from a sandbox (--net host: the
# sandbox's own cost, its filter on each of curl's calls); through the floor relays
# (relay_floor.c: the best a plain relay does here); through sbx's CONNECT tunnel and its
# plain HTTP forwarding. Best and median of each.
cc -O2 -static -pthread -o "$dir/relay_floor" bench/relay_floor.c 2>/dev/null ||
	cc -O2 -pthread -o "$dir/relay_floor" bench/relay_floor.c
floor_modes=("splice" "rw" "epoll -p 262144 -b 262144")
floor_pids=()
for i in "${!floor_modes[@]}"; do
	# shellcheck disable=SC2086 # the mode's options are words
	"$dir/relay_floor" ${floor_modes[$i]} "$PORT" >"$dir/rport$i" &
	floor_pids+=($!)
	rl="${floor_pids[*]}"
	for _ in $(seq 100); do [ -s "$dir/rport$i" ] && break; sleep 0.05; done
done
get() { # curl options...: the speed, bytes a second
	curl -s -m 300 -o /dev/null -w '%{speed_download}\n' "$@" || echo 0
}
URL="http://127.0.0.1:$PORT/"
for _ in $(seq "$RUNS"); do
	get --noproxy '*' "$URL" >>"$dir/t.direct"
	"${RUN[@]}" --net host -- curl -s -m 300 --noproxy '*' -o /dev/null \
		-w '%{speed_download}\n' "$URL" >>"$dir/t.sandboxed"
	for i in "${!floor_modes[@]}"; do
		get --noproxy '*' "http://127.0.0.1:$(cat "$dir/rport$i")/" >>"$dir/t.floor$i"
	done
	"${RUN[@]}" -- curl -s -m 300 --noproxy '' -x http://127.0.0.1:3128 -p -o /dev/null \
		-w '%{speed_download}\n' "$URL" >>"$dir/t.connect"
	"${RUN[@]}" -- curl -s -m 300 --noproxy '' -x http://127.0.0.1:3128 -o /dev/null \
		-w '%{speed_download}\n' "$URL" >>"$dir/t.plain"
done
kill "${floor_pids[@]}" 2>/dev/null || true
wait "${floor_pids[@]}" 2>/dev/null || true
rl=
stat() { # FILE: "best median" in bytes a second
	sort -g "$1" | awk '{ a[NR] = $1 } END { print a[NR], a[int((NR + 1) / 2)] }'
}
read -r d_best d_med < <(stat "$dir/t.direct")
show() { # LABEL FILE
	read -r b m < <(stat "$2")
	awk -v l="$1" -v b="$b" -v m="$m" -v db="$d_best" -v dm="$d_med" 'BEGIN {
		printf "  %-34s best %.2f GB/s (%.2f x direct), median %.2f GB/s (%.2f x)\n", l, b / 1e9, b / db, m / 1e9, m / dm }'
}
echo "throughput of one stream, ${SIZE_MB} MB, best and median of $RUNS interleaved rounds:"
show "direct, from the host" "$dir/t.direct"
show "direct, from a sandbox (--net host)" "$dir/t.sandboxed"
for i in "${!floor_modes[@]}"; do
	show "floor relay: ${floor_modes[$i]%% *}" "$dir/t.floor$i"
done
show "sbx: CONNECT tunnel" "$dir/t.connect"
show "sbx: plain HTTP forwarded" "$dir/t.plain"
read -r p_best _ < <(stat "$dir/t.connect")
read -r h_best _ < <(stat "$dir/t.plain")
awk -v d="$d_best" -v p="$p_best" -v h="$h_best" 'BEGIN {
	printf "throughput, one stream: direct %.2f GB/s, CONNECT tunnel %.2f GB/s (%.2f x), plain HTTP forwarded %.2f GB/s (%.2f x)  [targets: >= 0.8 x, >= 1 GB/s]\n", d / 1e9, p / 1e9, p / d, h / 1e9, h / d }'

# 2. CONNECT latency: a connection and a one-byte round trip, direct and through the proxy
cat >"$dir/lat.py" <<'EOF'
import socket, sys, time
port, n, via = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def once():
    if via == "direct":
        s = socket.create_connection(("127.0.0.1", port))
    else:
        s = socket.create_connection(("127.0.0.1", 3128))
        s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (port, port))
        buf = b""
        while not buf.endswith(b"\r\n\r\n"):
            buf += s.recv(1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(b"x"); s.recv(1); s.close()
for _ in range(10):
    once()
t = time.perf_counter()
for _ in range(n):
    once()
print("%.1f" % ((time.perf_counter() - t) / n * 1e6))
EOF
lat_direct=$("${RUN[@]}" --net host -- $PY "$dir/lat.py" "$PORT" "$N_LAT" direct)
lat_proxy=$("${RUN[@]}" -- $PY "$dir/lat.py" "$PORT" "$N_LAT" proxy)
awk -v d="$lat_direct" -v p="$lat_proxy" 'BEGIN {
	printf "connect + 1-byte round trip: direct %.1f us, through CONNECT %.1f us: +%.1f us  [target: < 1000 us added]\n", d, p, p - d }'

# 3. a refused lookup: getaddrinfo of a name the list does not hold, and under --net none
cat >"$dir/gai.py" <<'EOF'
import socket, sys, time
n = int(sys.argv[1])
t = time.perf_counter()
for i in range(n):
    try:
        socket.getaddrinfo("denied%d.example" % (i % 5), 443)
    except socket.gaierror:
        pass
print("%.1f" % ((time.perf_counter() - t) / n * 1e6))
EOF
gai_allow=$("${RUN[@]}" -- $PY "$dir/gai.py" "$N_LAT" 2>/dev/null)
gai_none=$("$SBX" run -v "$dir" -- $PY "$dir/gai.py" "$N_LAT" 2>/dev/null)
echo "refused lookup (getaddrinfo, A and AAAA): ${gai_allow} us under an allowlist, ${gai_none} us under --net none  [target: < 1000 us]"

# 4. sbx's memory (the proxy is one of its threads) idle and with 200 tunnels open
cat >"$dir/hold.py" <<'EOF'
import os, socket, sys, time
port, n, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
open(d + "/idle", "w").close()
while not os.path.exists(d + "/go"):
    time.sleep(0.01)
socks = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % port)
    buf = b""
    while not buf.endswith(b"\r\n\r\n"):
        buf += s.recv(1)
    s.sendall(b"x"); s.recv(1)
    socks.append(s)
open(d + "/ready", "w").close()
while not os.path.exists(d + "/done"):
    time.sleep(0.01)
EOF
"${RUN[@]}" -- $PY "$dir/hold.py" "$PORT" 200 "$dir" &
sbxpid=$!
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$sbxpid/status"; }
for _ in $(seq 1000); do [ -e "$dir/idle" ] && break; sleep 0.01; done
idle=$(rss)
touch "$dir/go"
for _ in $(seq 3000); do [ -e "$dir/ready" ] && break; sleep 0.01; done
busy=$(rss)
fds=$(ls "/proc/$sbxpid/fd" | wc -l)
# the tunnels' pipes (both ends held by sbx): kernel memory RSS does not show, counted
# against the caller's fs.pipe-user-pages-soft (sbx(1), NETWORK: a budget of 16 MiB)
pipes=$($PY - "$sbxpid" <<'PIPES'
import fcntl, os, sys
d = "/proc/%s/fd" % sys.argv[1]
ends, size = {}, {}
for n in os.listdir(d):
    try:
        st = os.stat(os.path.join(d, n))
    except OSError:
        continue
    if (st.st_mode & 0o170000) == 0o010000:
        ends[st.st_ino] = ends.get(st.st_ino, 0) + 1
        if st.st_ino not in size:
            fd = os.open(os.path.join(d, n), os.O_RDONLY | os.O_NONBLOCK)
            size[st.st_ino] = fcntl.fcntl(fd, 1032)  # F_GETPIPE_SZ
            os.close(fd)
both = [size[i] for i in ends if ends[i] == 2]
print("%d pipes, %.1f MiB, %d of 256 KiB" % (len(both), sum(both) / 2**20, both.count(262144)))
PIPES
)
touch "$dir/done"
wait $sbxpid
echo "sbx's RSS: ${idle} KiB idle (proxy and resolver running), ${busy} KiB with 200 tunnels open (+$((busy - idle)) KiB, $(((busy - idle) * 1024 / 200)) bytes a tunnel; $fds descriptors); the tunnels' pipes: $pipes"
