#!/bin/bash
# SPDX-License-Identifier: MIT
#
# sbx's network proxy (sbx(1), NETWORK; issue 14): throughput of one stream through the
# proxy against the same transfer direct, the latency a CONNECT adds, the time a refused
# lookup takes, and the memory of sbx (whose thread is the proxy) with 200 tunnels open.
# Everything on this machine's loopback: a server on the host's 127.0.0.1, reached from the
# sandbox through the proxy with an entry {name: 127.0.0.1, allow-private: true}.
#
#   bench/net.sh [--quick] [--size MB]
#
# Beside them, the floor: bench/relay_floor.c, a minimal relay on the host's loopback (splice
# with a thread a direction, read/write likewise, and one epoll thread splicing as sbx does),
# built here with cc: what any relay on this machine carries at best.
#
# $SBX or ./build/sbx; needs python3, curl and cc. Prints, never asserts.
set -euo pipefail
cd "$(dirname "$0")/.."
SBX=${SBX:-$PWD/build/sbx}
SIZE_MB=1024
RUNS=3
N_LAT=300
while [ $# -gt 0 ]; do
	case $1 in
	--quick) SIZE_MB=256; RUNS=1; N_LAT=50 ;;
	--size) SIZE_MB=$2; shift ;;
	-h | --help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "net.sh: unknown option '$1'" >&2; exit 1 ;;
	esac
	shift
done
command -v python3 >/dev/null && command -v curl >/dev/null ||
	{ echo "net.sh needs python3 and curl" >&2; exit 1; }
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

# 1. throughput: curl to /dev/null, direct, through the floor relays (relay_floor.c: the
# best a plain relay does here) and through sbx's CONNECT tunnel and plain HTTP forwarding
best() { sort -g | tail -n 1; }
fetch() { # URL: best speed of RUNS downloads, bytes a second
	for _ in $(seq "$RUNS"); do
		curl -s -m 300 --noproxy '*' -o /dev/null -w '%{speed_download}\n' "$1"
	done | best
}
direct=$(fetch "http://127.0.0.1:$PORT/")
cc -O2 -static -pthread -o "$dir/relay_floor" bench/relay_floor.c 2>/dev/null ||
	cc -O2 -pthread -o "$dir/relay_floor" bench/relay_floor.c
floors=()
for mode in "splice" "rw" "epoll -p 262144 -b 262144"; do
	# shellcheck disable=SC2086 # the mode's options are words
	"$dir/relay_floor" $mode "$PORT" >"$dir/rport" &
	rl=$!
	for _ in $(seq 100); do [ -s "$dir/rport" ] && break; sleep 0.05; done
	floors+=("${mode%% *} $(fetch "http://127.0.0.1:$(cat "$dir/rport")/")")
	kill "$rl"
	wait "$rl" 2>/dev/null || true
	rl=
	rm -f "$dir/rport"
done
printf '%s\n' "${floors[@]}" | awk -v d="$direct" '{
	printf "floor relay (relay_floor %s): %.2f GB/s (%.2f x direct)\n", $1, $2 / 1e9, $2 / d
	if ($2 > b) b = $2 } END {
	printf "floor relay, best: %.2f GB/s (%.2f x direct)\n", b / 1e9, b / d }'
proxied=$(for _ in $(seq "$RUNS"); do
	"${RUN[@]}" -- curl -s --noproxy '' -x http://127.0.0.1:3128 -p -o /dev/null \
		-w '%{speed_download}\n' "http://127.0.0.1:$PORT/"
done | best)
plain=$(for _ in $(seq "$RUNS"); do
	"${RUN[@]}" -- curl -s --noproxy '' -x http://127.0.0.1:3128 -o /dev/null \
		-w '%{speed_download}\n' "http://127.0.0.1:$PORT/"
done | best)
awk -v d="$direct" -v p="$proxied" -v h="$plain" 'BEGIN {
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
touch "$dir/done"
wait $sbxpid
echo "sbx's RSS: ${idle} KiB idle (proxy and resolver running), ${busy} KiB with 200 tunnels open (+$((busy - idle)) KiB, $(((busy - idle) * 1024 / 200)) bytes a tunnel; $fds descriptors)"
