#!/usr/bin/env bash
# Server CPU a request, app_server.ts modes side by side on one runtime (issue 41): one server per mode on the same
# keys, wrk -t1 -c50, four alternated rounds of 3 s, each printing req/s and the server's CPU (user + system, all
# threads, from /proc) per request. The best (lowest) CPU of each mode is the figure; req/s is shown for the noise.
#   bash bench/app/compare_cpu.sh deno svc svc-direct hono bare
#   bash bench/app/compare_cpu.sh deno bare bare-relay        (on Deno: the relay alone, bare handler both sides)
#   bash bench/app/compare_cpu.sh node svc svc-hono-node hono bare
cd "$(dirname "$0")/../.." || exit 1
export PATH=$PWD/node_modules/.bin:$PATH
RT=$1; shift
D=$(mktemp -d); node bench/app/setup_keys.ts file:$D/k.db $D/k.json
FULL=$(node -p "JSON.parse(require('fs').readFileSync('$D/k.json', 'utf8')).full")
B='{"intent":"notes.create","payload":{"title":"Buy milk","body":"two litres"}}'
declare -A PORT PIDS
for m in "$@"; do
  case $RT in deno) c="deno run -A";; *) c=$RT;; esac
  $c bench/app/app_server.ts $m file:$D/k.db > $D/$m.out 2>&1 & PIDS[$m]=$!
done
for i in $(seq 60); do n=0; for m in "$@"; do grep -q listening $D/$m.out && n=$((n+1)); done; [ $n -eq $# ] && break; sleep 1; done
for m in "$@"; do PORT[$m]=$(awk '/listening/{print $2}' $D/$m.out); BODY="$B" AUTH="Bearer $FULL" ACCEPT="" wrk -t1 -c50 -d1s -s bench/wrk/post.lua http://127.0.0.1:${PORT[$m]}/svc/agent/run >/dev/null; done
for r in 1 2 3 4; do for m in "$@"; do
  SP=$(pgrep -P ${PIDS[$m]} | head -1); SP=${SP:-${PIDS[$m]}}
  c0=$(awk '{print $14+$15}' /proc/$SP/stat)
  out=$(BODY="$B" AUTH="Bearer $FULL" ACCEPT="" wrk -t1 -c50 -d3s -s bench/wrk/post.lua http://127.0.0.1:${PORT[$m]}/svc/agent/run)
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}'); c1=$(awk '{print $14+$15}' /proc/$SP/stat)
  echo "r$r $m rps=$rps cpu_us=$(node -p "(($c1 - $c0) * 1e4 / ($rps * 3)).toFixed(1)")"
done; done
for m in "$@"; do kill ${PIDS[$m]}; done; rm -rf $D
