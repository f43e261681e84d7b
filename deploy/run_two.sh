#!/usr/bin/env bash
# posenc-lab processes on loopback ports behind nginx (deploy/nginx.conf), everything
# (pid files, logs, the generated nginx config) under $RUN_DIR. Two by default, one per
# BACKEND_PORTS entry. See docs/deploy.md.
#
#   deploy/run_two.sh start     # app on 127.0.0.1:8501 and :8502, nginx on 127.0.0.1:8080
#   deploy/run_two.sh summary   # websocket sessions and CPU seconds per app process
#   deploy/run_two.sh stop
#   deploy/run_two.sh config    # only write and check $RUN_DIR/nginx.conf
#   BACKEND_PORTS="8501 8502 8503 8504" deploy/run_two.sh start   # four processes
#
# Settings (environment): RUN_DIR (/tmp/posenc-deploy), PROXY_PORT (8080),
# BACKEND_PORTS ("8501 8502": one app process per port, one or more), STICKY (cookie |
# addr | ip_hash | none: how nginx picks a backend, docs/deploy.md), PYTHON
# (.venv/bin/python), NGINX (nginx), STREAMLIT_ARGS (extra flags for every app process,
# e.g. "--server.fileWatcherType none"), WARM (1: before nginx lets anyone in, open every
# lesson view once on each process, docs/deploy.md; 0: skip), APP (app.py: the script each
# process runs; benchmarks/browser_feel.py --deploy runs its floor page behind the same nginx).
set -euo pipefail
cd "$(dirname "$0")/.."

RUN_DIR=${RUN_DIR:-/tmp/posenc-deploy}
PROXY_PORT=${PROXY_PORT:-8080}
read -r -a PORTS <<<"${BACKEND_PORTS:-8501 8502}"
STICKY=${STICKY:-cookie}
PYTHON=${PYTHON:-.venv/bin/python}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
read -r -a EXTRA <<<"${STREAMLIT_ARGS:-}"
APP=${APP:-app.py}

wait_for() {  # url seconds
  local deadline=$((SECONDS + $2))
  until "$PYTHON" -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2)" "$1" 2>/dev/null; do
    if ((SECONDS > deadline)); then echo "no answer from $1 within $2 s" >&2; return 1; fi
    sleep 0.5
  done
}

check_ports() {
  [ ${#PORTS[@]} -ge 1 ] || { echo "BACKEND_PORTS must name at least one port" >&2; exit 2; }
  for port in "${PORTS[@]}"; do
    [[ $port =~ ^[0-9]+$ ]] || { echo "BACKEND_PORTS: $port is not a port number" >&2; exit 2; }
  done
}

config() {  # $RUN_DIR/nginx.conf: deploy/nginx.conf with these ports, proxy port and STICKY
  check_ports
  [ -x "$NGINX" ] || { echo "nginx not found: apt-get install -y nginx" >&2; exit 2; }
  mkdir -p "$RUN_DIR/logs" "$RUN_DIR/tmp"
  case "$STICKY" in
    cookie) sticky='hash $posenc_route consistent;' ;;
    addr) sticky='hash $remote_addr consistent;' ;;
    ip_hash) sticky='ip_hash;' ;;
    none) sticky='# round robin: NOT sticky (a test of what breaks without it)' ;;
    *) echo "STICKY must be cookie, addr, ip_hash or none" >&2; exit 2 ;;
  esac
  # the template's first backend line stands for every port; its other backend lines go
  awk -v ports="${PORTS[*]}" '
    /^ *server 127\.0\.0\.1:[0-9]+ / {
      if (!done) { n = split(ports, p, " "); for (i = 1; i <= n; i++) { line = $0; sub(/127\.0\.0\.1:[0-9]+/, "127.0.0.1:" p[i], line); print line } }
      done = 1; next
    }
    { print }' deploy/nginx.conf |
    sed -e "s/listen 127\.0\.0\.1:8080;/listen 127.0.0.1:$PROXY_PORT;/" \
      -e "s/^\( *\)hash \$posenc_route consistent;  # STICKY/\1$sticky  # STICKY/" >"$RUN_DIR/nginx.conf"
  "$NGINX" -t -q -p "$RUN_DIR/" -c "$RUN_DIR/nginx.conf"
}

start() {
  check_ports
  [ -x "$NGINX" ] || { echo "nginx not found: apt-get install -y nginx" >&2; exit 2; }
  if [ -e "$RUN_DIR/nginx.pid" ]; then echo "already running? $0 stop first ($RUN_DIR)" >&2; exit 1; fi
  mkdir -p "$RUN_DIR/logs" "$RUN_DIR/tmp"
  for port in "${PORTS[@]}"; do
    nohup "$PYTHON" -m streamlit run "$APP" --server.port "$port" --server.address 127.0.0.1 \
      --server.headless true --browser.gatherUsageStats false ${EXTRA[@]+"${EXTRA[@]}"} \
      >"$RUN_DIR/logs/app-$port.log" 2>&1 &
    echo $! >"$RUN_DIR/app-$port.pid"
  done
  for port in "${PORTS[@]}"; do wait_for "http://127.0.0.1:$port/_stcore/health" 60; done
  [ "${WARM:-1}" = 0 ] || warm

  config
  "$NGINX" -p "$RUN_DIR/" -c "$RUN_DIR/nginx.conf"
  wait_for "http://127.0.0.1:$PROXY_PORT/_stcore/health" 20
  echo "posenc-lab: http://127.0.0.1:$PROXY_PORT (nginx, sticky=$STICKY) -> ${PORTS[*]/#/127.0.0.1:}"
  echo "app pids: $(cat "$RUN_DIR"/app-*.pid | tr '\n' ' ')(logs and nginx.conf in $RUN_DIR)"
}

warm() {  # every lesson view once on each fresh process (docs/deploy.md, "One process")
  local pids=() port
  for port in "${PORTS[@]}"; do
    "$PYTHON" benchmarks/classroom_load.py --warm --url "http://127.0.0.1:$port" --window 5 --timeout 120 \
      >"$RUN_DIR/logs/warm-$port.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!PORTS[@]}"; do
    if wait "${pids[$i]}"; then
      grep '^warmed' "$RUN_DIR/logs/warm-${PORTS[$i]}.log" || true
    else  # the app still starts; the log says what failed
      echo "warning: warming 127.0.0.1:${PORTS[$i]} failed, see $RUN_DIR/logs/warm-${PORTS[$i]}.log" >&2
    fi
  done
}

stop() {
  if [ -e "$RUN_DIR/nginx.pid" ]; then
    "$NGINX" -q -p "$RUN_DIR/" -c "$RUN_DIR/nginx.conf" -s quit || kill "$(cat "$RUN_DIR/nginx.pid")" || true
    for _ in $(seq 50); do [ -e "$RUN_DIR/nginx.pid" ] || break; sleep 0.1; done
  fi
  for file in "$RUN_DIR"/app-*.pid; do
    [ -e "$file" ] || continue
    kill "$(cat "$file")" 2>/dev/null || true
    rm -f "$file"
  done
  echo "stopped (logs kept in $RUN_DIR/logs)"
}

summary() {
  echo "websocket sessions per backend (access log, /_stcore/stream, logged when they close):"
  grep '"GET /_stcore/stream' "$RUN_DIR/logs/access.log" | sed -n 's/.*upstream=\([^ ]*\).*/\1/p' | sort | uniq -c || true
  echo "CPU seconds per app process (user + system):"
  local tick
  tick=$(getconf CLK_TCK)
  for file in "$RUN_DIR"/app-*.pid; do
    [ -e "$file" ] || continue
    pid=$(cat "$file")
    port=$(basename "$file" .pid)
    if [ -r "/proc/$pid/stat" ]; then
      awk -v t="$tick" -v name="${port#app-}" -v pid="$pid" \
        '{ sub(/.*\) /, ""); printf "  127.0.0.1:%s (pid %s): %.1f s\n", name, pid, ($12 + $13) / t }' "/proc/$pid/stat"
    fi
  done
}

case "${1:-}" in
  start) start ;;
  config) config && echo "$RUN_DIR/nginx.conf" ;;
  stop) stop ;;
  summary) summary ;;
  pids) cat "$RUN_DIR"/app-*.pid ;;
  *) echo "usage: $0 start|stop|summary|pids|config" >&2; exit 2 ;;
esac
