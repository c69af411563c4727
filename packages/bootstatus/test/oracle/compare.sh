#!/bin/bash
# Compares every fixture's expected outputs with what the real `cloud-init status` of a source checkout prints
# for the same state tree (cloud-init-status.py beside this script). Needs root (chroot) and
# CLOUD_INIT_SRC=<cloud-init checkout>. Prints one line per comparison and "N passed, N failed" at the end.
# Cases listed in a fixture's case.json "upstreamDiffers" are compared for nothing but are reported as skipped
# (cloud-init raises a traceback there; bootstatus reports an error instead).
set -u
here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../fixtures"
oracle="$here/cloud-init-status.py"
: "${CLOUD_INIT_SRC:?set CLOUD_INIT_SRC to a cloud-init checkout}"
pass=0 fail=0 skip=0
for dir in "$fixtures"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/case.json" ] || continue
  differs=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("upstreamDiffers", ""))' "$dir/case.json")
  if [ -n "$differs" ]; then
    echo "skip $name: $differs"; skip=$((skip + 1)); continue
  fi
  mapfile -t envs < <(/usr/bin/python3 -c 'import json,sys; [print(f"{k}={v}") for k, v in json.load(open(sys.argv[1]))["env"].items()]' "$dir/case.json")
  expected_code=$(cat "$dir/expected/exit-code")
  for row in "tabular.txt:" "tabular-long.txt:--long" "cloud-init-json.json:--format json"; do
    file=${row%%:*} flags=${row#*:}
    # shellcheck disable=SC2086
    actual=$(env -i PATH=/usr/bin:/bin CLOUD_INIT_SRC="$CLOUD_INIT_SRC" FAKE_SYSTEMCTL_DIR="$dir/systemctl" "${envs[@]}" \
      /usr/bin/python3 "$oracle" "$dir/root" $flags 2>/dev/null; echo "rc=$?")
    want="$(cat "$dir/expected/$file")
rc=$expected_code"
    if [ "$actual" == "$want" ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL $name $file"
      diff <(echo "$want") <(echo "$actual") | sed 's/^/    /'
    fi
  done
done
echo "skipped: $skip"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
