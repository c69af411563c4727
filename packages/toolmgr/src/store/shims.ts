import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Platform, platformOs } from "../platform.js";
import type { StoreLayout } from "../store-layout.js";
import { INSTALL_MARKER } from "./install.js";

/**
 * The POSIX `sh` shim for one command. It never starts Node (research §4.1: a Node shim costs ~80 ms): it walks up
 * from `$PWD` to the nearest `toolmgr.lock` with parameter expansion (no forks), finds with one `awk` pass the tool
 * providing the command, its version and this platform's digest, checks the install's completion marker and
 * executable, and `exec`s it with all arguments. Outside a project, or for a command the project does not pin, it
 * steps aside to the next command of that name on `PATH` after the shims directory (issue 10: putting the shims on
 * `PATH` never takes a tool away); only when there is none it exits 127. It never installs.
 */
export function shimScript(command: string, options: { layout: StoreLayout; platform: Platform }): string {
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  return `#!/bin/sh
# toolmgr shim for "${command}", written by \`toolmgr sync\`. Runs the version pinned in the nearest toolmgr.lock.
cmd=${q(command)}
home=${q(options.layout.home)}
shims=${q(options.layout.shimsDir)}
platform=${q(options.platform)}
dir=$PWD
lock=
while :; do
  if [ -f "$dir/toolmgr.lock" ]; then lock=$dir/toolmgr.lock; break; fi
  case $dir in */*) dir=\${dir%/*} ;; *) break ;; esac
  [ -n "$dir" ] || { [ -f /toolmgr.lock ] && lock=/toolmgr.lock; break; }
done
if [ -n "$lock" ]; then
  # Keys may carry spaces around "=" (any TOML writer). A lock arrives through pull requests, so what builds a path is
  # checked as parseLockfile checks it (name, version, 12 hex digits, a relative bin path without ".."): an entry
  # that fails prints "!" and the shim refuses it rather than exec a path the lock steers outside the store.
  found=$(awk -v cmd="$cmd" -v plat="$platform" '
    function unq(s) { sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); return s }
    /^[ \\t]*\\[\\[[ \\t]*tools[ \\t]*\\]\\]/ { name = ""; ver = ""; bin = ""; inplat = 0; next }
    /^[ \\t]*name[ \\t]*=/ { name = unq($0); next }
    /^[ \\t]*version[ \\t]*=/ { ver = unq($0); next }
    /^[ \\t]*bin[ \\t]*=/ {
      s = $0; sub(/^[^\\[]*\\[/, "", s); sub(/\\][ \\t]*$/, "", s)
      n = split(s, parts, ",")
      for (i = 1; i <= n; i++) { p = unq(parts[i]); b = p; sub(/^.*\\//, "", b); sub(/\\.exe$/, "", b); if (b == cmd) bin = p }
      next
    }
    /^[ \\t]*platform[ \\t]*=/ { inplat = (unq($0) == plat); next }
    /^[ \\t]*sha256[ \\t]*=/ {
      if (!inplat || bin == "") next
      d = substr(unq($0), 1, 12)
      if (name !~ /^[a-z0-9][a-z0-9._-]*$/ || ver !~ /^[A-Za-z0-9][A-Za-z0-9._+-]*$/ || ver ~ /\\.\\./ ||
          length(d) != 12 || d ~ /[^0-9a-f]/ || bin ~ /^\\// || ("/" bin "/") ~ /\\/\\.?\\.?\\// || bin ~ /\\\\/) { print "!"; exit }
      print name "\\t" ver "-" d "\\t" bin; exit
    }
  ' "$lock")
  if [ "$found" = "!" ]; then
    echo "toolmgr: $lock has an invalid entry for $cmd; it was not written by toolmgr lock, so re-run \\\`toolmgr lock\\\`" >&2
    exit 1
  fi
  if [ -n "$found" ]; then
    tab='\t' # a literal tab: $(printf) would cost a fork on every call
    name=\${found%%"$tab"*}; rest=\${found#*"$tab"}; ver=\${rest%%"$tab"*}; bin=\${rest#*"$tab"}
    install="$home/tools/$name/$ver"
    if [ -f "$install/${INSTALL_MARKER}" ] && [ -x "$install/$bin" ]; then
      exec "$install/$bin" "$@"
    fi
    # Issue 10: a shim does what \`toolmgr exec\` does, which exits 1 for a missing or damaged install.
    echo "toolmgr: $cmd is pinned to $name \${ver%-*} in $lock but that install is missing or damaged; run \\\`toolmgr sync\\\`" >&2
    exit 1
  fi
fi
# Not pinned here: step aside to the next "$cmd" on PATH after the shims directory.
set -f
IFS=:
for d in $PATH; do
  [ "$d" = "$shims" ] || [ "$d" = "$shims/" ] && continue
  [ -n "$d" ] || d=.
  if [ -f "$d/$cmd" ] && [ -x "$d/$cmd" ]; then unset IFS; exec "$d/$cmd" "$@"; fi
done
echo "toolmgr: $cmd is not pinned in any toolmgr.lock above $PWD, and no other $cmd is on PATH" >&2
exit 127
`;
}

/**
 * The Windows shim for one command: a `.cmd` file that hands over to `toolmgr exec`, which makes the same checks
 * and steps aside the same way. Unlike the POSIX shim it starts Node (cmd.exe has no practical way to read the
 * lock); `toolmgr` must be on `PATH`, as an npm global install puts it.
 */
export function cmdShimScript(command: string): string {
  return `@echo off\r\nrem toolmgr shim for "${command}", written by toolmgr sync.\r\ntoolmgr exec "${command}" %*\r\nexit /b %ERRORLEVEL%\r\n`;
}

/**
 * Writes (atomically, one file per command) the shims for `commands`: POSIX `sh` files, or `<command>.cmd` on
 * Windows. Returns the paths written.
 */
export async function writeShims(
  commands: readonly string[],
  options: { layout: StoreLayout; platform: Platform },
): Promise<string[]> {
  await mkdir(options.layout.shimsDir, { recursive: true });
  const windows = platformOs(options.platform) === "windows";
  const written: string[] = [];
  for (const command of [...new Set(commands)].sort()) {
    const path = join(options.layout.shimsDir, windows ? `${command}.cmd` : command);
    const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temp, windows ? cmdShimScript(command) : shimScript(command, options));
    await chmod(temp, 0o755);
    await rename(temp, path);
    written.push(path);
  }
  return written;
}
