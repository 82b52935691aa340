#!/usr/bin/env bash
# scripts/pool.sh: a local browser pool (browserless, from npm) for `fovea batch`
# and `--cdp`, running Debian's Chromium on 127.0.0.1.
#
#   scripts/pool.sh install                  npm install into .pool/ (once; git-ignored)
#   scripts/pool.sh start [options]          start in the background, print the endpoint
#   scripts/pool.sh stop  [--dir DIR]        stop the pool started with that --dir
#
# start options (defaults in brackets):
#   --dir DIR          state folder: pid, log, endpoint [.pool/run]
#   --port N           [a free port]
#   --token T          [a random one]
#   --concurrent N     browsers at once [2]          (browserless CONCURRENT)
#   --queued N         connections that may wait [8] (QUEUED; beyond: HTTP 429)
#   --timeout-s S      per-session time limit [60]   (TIMEOUT, in ms for browserless)
#
# The endpoint printed on stdout is ws://127.0.0.1:PORT/chromium?token=T; it is
# also written to DIR/endpoint. Exit status: 0 started, 1 failed (the log's tail
# on stderr), 3 the npm install could not run (no node/npm, or no registry):
# tests report that as a skip.
#
# browserless has no browser-path option: it asks playwright-core for
# PLAYWRIGHT_BROWSERS_PATH/chromium-<rev>/chrome-linux64/chrome, so a folder
# with that layout links to /usr/bin/chromium (<rev> read from the installed
# playwright-core's browsers.json). ROUTES points at a folder holding only the
# chromium and management routes (the others want browsers that are not
# installed). Its postinstall browser downloads are switched off: the network
# here is npm and Debian only.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pool="${FOVEA_POOL_HOME:-$root/.pool}"
version="2.42.0"
pkg="$pool/node_modules/@browserless.io/browserless"

die() { echo "pool.sh: $*" >&2; exit 1; }

install_pool() {
  if [ -f "$pkg/build/index.js" ]; then return 0; fi
  command -v npm >/dev/null && command -v node >/dev/null || {
    echo "pool.sh: node and npm are needed to install browserless" >&2; exit 3; }
  mkdir -p "$pool"
  [ -f "$pool/package.json" ] || echo '{"name":"fovea-pool","private":true}' > "$pool/package.json"
  echo "pool.sh: installing @browserless.io/browserless@$version into $pool (npm, once)" >&2
  # No browser downloads: Debian's Chromium is used.
  if ! (cd "$pool" && PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 \
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error \
        "@browserless.io/browserless@$version" >"$pool/npm.log" 2>&1); then
    tail -5 "$pool/npm.log" >&2
    echo "pool.sh: npm install failed (log: $pool/npm.log)" >&2
    exit 3
  fi
}

# Browsers and routes layouts browserless looks for.
prepare() {
  local rev
  rev="$(node -e 'const b=require(process.argv[1]).browsers.find(x=>x.name==="chromium");
                 process.stdout.write(b.revision)' "$pool/node_modules/playwright-core/browsers.json")"
  [ -n "$rev" ] || die "cannot read the chromium revision of playwright-core"
  local chrome="${FOVEA_CHROMIUM:-/usr/bin/chromium}"
  [ -x "$chrome" ] || die "no Chromium at $chrome"
  mkdir -p "$pool/browsers/chromium-$rev/chrome-linux64" "$pool/routes"
  ln -sfn "$chrome" "$pool/browsers/chromium-$rev/chrome-linux64/chrome"
  ln -sfn "$pkg/build/routes/chromium" "$pool/routes/chromium"
  ln -sfn "$pkg/build/routes/management" "$pool/routes/management"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{
             process.stdout.write(String(s.address().port));s.close()})'
}

start_pool() {
  local dir="$pool/run" port="" token="" concurrent=2 queued=8 timeout_s=60
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir) dir="$2"; shift 2 ;;
      --port) port="$2"; shift 2 ;;
      --token) token="$2"; shift 2 ;;
      --concurrent) concurrent="$2"; shift 2 ;;
      --queued) queued="$2"; shift 2 ;;
      --timeout-s) timeout_s="$2"; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  install_pool
  prepare
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  mkdir -p "$dir/data" "$dir/downloads"
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    die "a pool already runs from $dir (pid $(cat "$dir/pid")); stop it first"
  fi
  [ -n "$port" ] || port="$(free_port)"
  [ -n "$token" ] || token="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  # Started from the folder holding node_modules (browserless reads ./package.json).
  (cd "$pool" && exec env PLAYWRIGHT_BROWSERS_PATH="$pool/browsers" ROUTES="$pool/routes" \
      HOST=127.0.0.1 PORT="$port" TOKEN="$token" CONCURRENT="$concurrent" QUEUED="$queued" \
      TIMEOUT="$((timeout_s * 1000))" DATA_DIR="$dir/data" DOWNLOAD_DIR="$dir/downloads" \
      METRICS_JSON_PATH="$dir/metrics.json" DEBUG="browserless*,-**:trace,-**:verbose" \
      setsid node "$pkg/build/index.js" >"$dir/log" 2>&1 </dev/null) &
  echo $! > "$dir/pid"
  # Ready when /json/version answers with the token.
  local i
  for i in $(seq 1 150); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/json/version?token=$token" 2>/dev/null; then
      echo "ws://127.0.0.1:$port/chromium?token=$token" > "$dir/endpoint"
      cat "$dir/endpoint"
      return 0
    fi
    kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
    sleep 0.2
  done
  tail -20 "$dir/log" >&2
  stop_pool --dir "$dir"
  die "browserless did not start (log: $dir/log)"
}

stop_pool() {
  local dir="$pool/run"
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir) dir="$2"; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ -f "$dir/pid" ] || return 0
  local pid
  pid="$(cat "$dir/pid")"
  # setsid made node a process-group leader: its browsers go with the group.
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid" "$dir/endpoint"
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  install) install_pool; prepare ;;
  start) start_pool "$@" ;;
  stop) stop_pool "$@" ;;
  *) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
