#!/bin/sh
# Side-by-side start-up benchmark of `bootstatus --long` against `node -e 0` and Debian's
# `cloud-init status --long` (22.4), all reading the same realistic state (bench/bootstatus/README.md).
# Needs: hyperfine, cloud-init (apt-get install cloud-init), a built package (npm run build -w packages/bootstatus).
# The single-file part needs the release's executable: SEA=release/bootstatus-linux-x64 (npm run release, or
# `node scripts/release.mjs --tools bootstatus --out DIR`); it builds an empty single executable the same way to
# compare with.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../../packages/bootstatus/bin/bootstatus.js"
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT

# A finished boot of a NoCloud VM: status.json and result.json under /run/cloud-init, the generator's
# `enabled` marker, a kernel command line and the distribution's cloud.cfg (no run_dir override).
mkdir -p "$state/run/cloud-init" "$state/proc" "$state/etc/cloud/cloud.cfg.d"
cp "$here/status.json" "$state/run/cloud-init/status.json"
printf '{"v1": {"datasource": "DataSourceNoCloud [seed=/dev/vdb][dsmode=net]", "errors": []}}\n' \
  > "$state/run/cloud-init/result.json"
: > "$state/run/cloud-init/enabled"
printf 'BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-cloud-amd64 root=PARTUUID=1f2e ro console=tty0 console=ttyS0,115200\n' \
  > "$state/proc/cmdline"
if [ -f /etc/cloud/cloud.cfg ]; then cp /etc/cloud/cloud.cfg "$state/etc/cloud/cloud.cfg"; fi
# cloud-init 22.4 reads run_dir from its config; CLOUD_CFG adds this file to it (cloudinit/helpers.py).
printf 'system_info:\n  paths:\n    run_dir: %s/run/cloud-init\n' "$state" > "$state/cloud-init-bench.cfg"

echo "== same state, both tools on this host (not systemd: sysvinit branch, no systemctl)"
CLOUD_CFG="$state/cloud-init-bench.cfg" hyperfine -N -i --warmup 5 --runs "${RUNS:-40}" \
  'node -e 0' \
  "node $bin --long --root $state" \
  "cloud-init status --long" \
  ${HYPERFINE_EXPORT:+--export-markdown "$HYPERFINE_EXPORT"}

# The same state as seen on a systemd host: status.py then asks `systemctl show-environment` whether
# cloud-init=disabled is set, one process spawn that cloud-init pays too on such a host.
mkdir -p "$state/run/systemd/system"
echo "== same state marked as a systemd host (one systemctl spawn)"
hyperfine -N -i --warmup 5 --runs "${RUNS:-40}" 'node -e 0' "node $bin --long --root $state"

# CPU time (user + system) of the same commands, interleaved: steadier than wall time on a loaded machine.
echo "== CPU time, 60 interleaved runs each"
rm -rf "$state/run/systemd"
python3 "$here/cpu-time.py" 60 "node -e 0" "node $bin --long --root $state"

# The single executable against its own empty start: the same Node binary with an empty main script injected
# the way scripts/release.mjs injects bootstatus (sea-config with useCodeCache, postject, the same fuse).
if [ -n "${SEA:-}" ]; then
  root=$(cd "$here/../.." && pwd)
  mkdir -p "$state/empty-sea"
  : > "$state/empty-sea/main.cjs"
  printf '{"main":"%s/empty-sea/main.cjs","output":"%s/empty-sea/sea.blob","disableExperimentalSEAWarning":true,"useCodeCache":true}\n' \
    "$state" "$state" > "$state/empty-sea/sea-config.json"
  node --experimental-sea-config "$state/empty-sea/sea-config.json" > /dev/null
  cp "$(command -v node)" "$state/empty-sea/empty"
  node "$root/node_modules/postject/dist/cli.js" "$state/empty-sea/empty" NODE_SEA_BLOB "$state/empty-sea/sea.blob" \
    --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 > /dev/null 2>&1
  rm -rf "$state/run/systemd"
  echo "== the single executable against an empty single executable (same state, sysvinit branch)"
  hyperfine -N -i --warmup 5 --runs "${RUNS:-40}" "$state/empty-sea/empty" "$SEA --long --root $state"
  python3 "$here/cpu-time.py" 60 "$state/empty-sea/empty" "$SEA --long --root $state"
fi
