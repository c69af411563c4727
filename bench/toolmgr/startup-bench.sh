#!/bin/sh
# Start-up of `toolmgr version` and `toolmgr list`, side by side with `node -e 0` in one hyperfine run, so the
# ratio (target: at most 1.3x, issue 3 "Performance") is measured on the same machine at the same moment.
# Needs a build (npm run build -w packages/toolmgr) and hyperfine. Nothing touches the network.
# Usage: bench/toolmgr/startup-bench.sh [--export-markdown FILE]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pkg="$here/../../packages/toolmgr"
bin="$pkg/bin/toolmgr.js"
[ -f "$pkg/dist/toolmgr.cjs" ] || { echo "no bundle: run npm run build -w packages/toolmgr first" >&2; exit 1; }
cd "$(mktemp -d)"
# -N: no intermediate shell, so only node's own start-up is measured.
exec hyperfine -N --warmup 10 --runs "${RUNS:-60}" "$@" \
  -n "node -e 0" "node -e 0" \
  -n "toolmgr version" "node $bin version" \
  -n "toolmgr list" "node $bin list" \
  -n "toolmgr list ethereum" "node $bin list ethereum" \
  -n "toolmgr version (unbundled dist/src/cli.js)" "node $pkg/dist/src/cli.js version"
