#!/usr/bin/env bash
# Server CPU a request, app_server.ts modes side by side on one runtime (issue 41): one server per mode on the same
# keys, wrk -t1 -c50, four alternated rounds of 3 s, each printing req/s and the server's CPU (user + system, all
# threads, from /proc) per request, and the main thread's alone (`main_us`, /proc/PID/task/PID: the event loop's; the
# rest is the runtime's helper threads and the database's worker) (ROUNDS=n for more rounds). The best (lowest) CPU of
# each mode is the figure; req/s is shown for the noise.
# A mode may end in `:403` (loaded with the read-only key: every request a FORBIDDEN_SCOPE refusal), `:401` (an
# unknown key) or `:mcp` (the full key, every request the same run as an MCP `tools/call` on /svc/mcp: the body
# MCP_CALL_BODY of bench/app/notes_app.ts, Accept `application/json, text/event-stream`); without a suffix it is
# loaded with the full key (every request a run on /svc/agent/run).
#   bash bench/app/compare_cpu.sh deno svc svc-direct hono bare
#   bash bench/app/compare_cpu.sh deno bare bare-relay        (on Deno: the relay alone, bare handler both sides)
#   bash bench/app/compare_cpu.sh node svc svc-hono-node hono bare
#   bash bench/app/compare_cpu.sh bun svc svc:403               # a refusal against a run
#   bash bench/app/compare_cpu.sh bun svc svc:mcp               # an MCP tools/call against a run
cd "$(dirname "$0")/../.." || exit 1
export PATH=$PWD/node_modules/.bin:$PATH
RT=$1; shift
D=$(mktemp -d); node bench/app/setup_keys.ts file:$D/k.db $D/k.json
key() { node -e 'const k = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(k[process.argv[2]])' $D/k.json "$1"; }
declare -A KEY=([run]=$(key full) [mcp]=$(key full) [403]=$(key readOnly) [401]=$(key unknown))
B='{"intent":"notes.create","payload":{"title":"Buy milk","body":"two litres"}}'
MCP='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notes.create","arguments":{"title":"Buy milk","body":"two litres"}}}'
declare -A PORT PIDS BEST
for m in "$@"; do
  case $RT in deno) c="deno run -A";; *) c=$RT;; esac
  $c bench/app/app_server.ts "${m%%:*}" file:$D/k.db > "$D/$m.out" 2>&1 & PIDS[$m]=$!
done
for i in $(seq 60); do n=0; for m in "$@"; do grep -q listening "$D/$m.out" && n=$((n+1)); done; [ $n -eq $# ] && break; sleep 1; done
load() { # mode seconds: wrk's output
  local k=run; [[ $1 == *:* ]] && k=${1##*:}
  if [ "$k" = mcp ]; then
    BODY="$MCP" AUTH="Bearer ${KEY[$k]}" ACCEPT="application/json, text/event-stream" \
      wrk -t1 -c50 -d"$2"s -s bench/wrk/post.lua "http://127.0.0.1:${PORT[$1]}/svc/mcp"
  else
    BODY="$B" AUTH="Bearer ${KEY[$k]}" ACCEPT="" wrk -t1 -c50 -d"$2"s -s bench/wrk/post.lua "http://127.0.0.1:${PORT[$1]}/svc/agent/run"
  fi
}
for m in "$@"; do PORT[$m]=$(awk '/listening/{print $2}' "$D/$m.out"); load "$m" 1 >/dev/null; done
for r in $(seq "${ROUNDS:-4}"); do for m in "$@"; do
  SP=$(pgrep -P ${PIDS[$m]} | head -1); SP=${SP:-${PIDS[$m]}}
  c0=$(awk '{print $14+$15}' /proc/$SP/stat); m0=$(awk '{print $14+$15}' /proc/$SP/task/$SP/stat)
  out=$(load "$m" 3)
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}'); c1=$(awk '{print $14+$15}' /proc/$SP/stat)
  m1=$(awk '{print $14+$15}' /proc/$SP/task/$SP/stat)
  us=$(node -e 'const [c0, c1, rps] = process.argv.slice(1).map(Number); console.log((((c1 - c0) * 1e4) / (rps * 3)).toFixed(1))' "$c0" "$c1" "$rps")
  main=$(node -e 'const [c0, c1, rps] = process.argv.slice(1).map(Number); console.log((((c1 - c0) * 1e4) / (rps * 3)).toFixed(1))' "$m0" "$m1" "$rps")
  echo "r$r $m rps=$rps cpu_us=$us main_us=$main"; BEST[$m]=$(node -e 'console.log(Math.min(...process.argv.slice(1).filter(Boolean).map(Number)))' "$us" "${BEST[$m]}")
done; done
echo "best (µs of server CPU a request): $(for m in "$@"; do printf '%s %s  ' "$m" "${BEST[$m]}"; done)"
for m in "$@"; do kill ${PIDS[$m]}; done; rm -rf "$D"
