import { statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { LOCK_FILE_LIMIT, PROJECT_FILE_LIMIT, readBoundedTextSync, tooLargeText } from "../bounded-read.js";
import { type Platform, platformOs } from "../platform.js";
import { replaceFile, updateFile } from "../replace-file.js";
import { INSTALL_MARKER } from "./install-problem.js";
import type { StoreLayout } from "./layout.js";
import { LOCK_LINK_NAME, SHIM_FRAGMENT_NAME, TOML_LINK_NAME } from "./layout.js";
import { SHIM_ANSWERS_NAME } from "./verified-project.js";

/**
 * The shim's first, small `awk` program (BEGIN only, reads no input): when `toolmgr.toml` and `toolmgr.lock` equal
 * the copies `sync` or `exec` recorded in `projects/<dir>/` when they last found them current, it prints the answers
 * recorded with them (verified-project.ts), in `SHIM_AWK`'s output format; otherwise one `-`, and the shim runs
 * `SHIM_AWK`. Split from it because awk parses its whole program on every call: the usual call, a current project,
 * then parses 15 lines instead of 150 (bench/toolmgr/README.md, "sync, shims, exec").
 */
const SHIM_FAST_AWK = String.raw`
function same(a, b, count,    x, y, ra, rb) {
  for (;;) {
    ra = (getline x < a); rb = (getline y < b)
    if (ra != rb || (ra > 0 && x != y)) return 0
    if (ra <= 0) return ra == 0
    # The lock's executables for this platform, which the answers must all be: a copy cut short answers fewer.
    if (count && x ~ /^[ \t]*bin[ \t]*=/) nb = split(x, parts, ",")
    else if (count && x ~ /^[ \t]*platform[ \t]*=/ && index(x, "\"" plat "\"")) want += nb
  }
}
BEGIN {
  if (same(toml, vtoml, 0) && same(lock, vlock, 1) && (getline line < vans) > 0 && line == plat) {
    while ((getline line < vans) > 0 && split(line, f, "\t") == 4) {
      n++; out = out (f[1] == cmd ? "C" : "T") "\t" f[2] "\t" f[3] "\t" f[4] "\n"
    }
    if (n == want && line == "end") { printf "%s", out; exit }
  }
  print "-"
}
`;

/**
 * The `awk` program of the POSIX shim: one pass over `toolmgr.toml` (first file) and `toolmgr.lock` (second) that
 * decides what `toolmgr exec` decides, without Node, when `SHIM_FAST_AWK` found no record of the two files. Output,
 * one record per line, tab-separated:
 * - `?`: the project file changed since it was recorded and uses a form this pass does not read (project-local
 *   `[tools.<name>]` sources, whose fingerprints need the TOML parser and sha256; inline tables, dotted keys,
 *   escapes), or the lock is not whole (cut short, a key `lock` always writes missing): the shim hands over to
 *   `toolmgr exec`, which decides exactly, in its words (and records the project again);
 * - `!`: an entry that would build a path outside the store (a lock arrives through pull requests, so it
 *   is checked as `parseLockfile` checks it: name, version, 12 hex digits, a relative bin path without `..`);
 * - `S`, tool, reason: the lock is stale, in `staleReasons`' words (project-state.ts);
 * - `T` (or `C` for the executable that provides the shim's command), tool, `<version>-<digest12>`, bin path: every
 *   executable of every pinned tool for this platform, so the shim checks every install as `exec` does.
 */
const SHIM_AWK = String.raw`
function unq(s) { sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); return s }
# constraintAllows (constraint.ts): a prefix holds stable versions under it, whole components; a pre-release or a
# <channel>-<commit> only itself; a bare channel any <channel>-<7..64 hex> (never the moving tag itself).
# A stable version has two components (patch 0, as Bitcoin Core tags) or three: "29", "29.0", "29.0.0" allow "29.0".
function allows(c, v,    rest, nc, pc, pv, i) {
  if (c ~ /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?(\.(0|[1-9][0-9]*))?$/) {
    if (v !~ /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$/) return 0
    nc = split(c, pc, "."); if (split(v, pv, ".") == 2) pv[3] = 0
    for (i = 1; i <= nc; i++) if (pc[i] + 0 != pv[i] + 0) return 0
    return 1
  }
  if (c ~ /^[0-9]/ || (match(c, /-[0-9a-f]+$/) && RLENGTH >= 8 && RLENGTH <= 65)) return v == c
  if (index(v, c "-") != 1) return 0
  rest = substr(v, length(c) + 2)
  return rest ~ /^[0-9a-f]+$/ && length(rest) >= 7 && length(rest) <= 64
}
# Every key lock writes in an entry (name, constraint, version, bin) and in an artifact table (platform, url or
# api_url, sha256): anything less is a lock cut short, or not lock's, for parseLockfile to name.
function whole(has, keys,    i) { for (i = 1; i <= length(keys); i++) if (index(has, substr(keys, i, 1)) == 0) unknown = 1 }
function endart() { if (inart) whole(ahas, "pus"); inart = 0; ahas = "" }
function endtool() {
  if (intool) whole(thas, "ncvb")
  if (name == "") return
  nl++; lname[nl] = name; L[name] = 1; lcons[name] = cons; lsrc[name] = src; lver[name] = ver
  ldig[name] = dig; lbins[name] = bins
}
FILENAME == ARGV[1] {
  if (unknown) next
  line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t\r]+$/, "", line)
  if (inarray) { if (line ~ /\]/) inarray = 0; next }
  if (line == "" || line ~ /^#/) next
  if (line ~ /^\[/) {
    h = line; sub(/[ \t]*#.*$/, "", h); gsub(/[ \t]/, "", h)
    if (h == "[tools]") { section = "tools"; next }
    { unknown = 1; next }
  }
  if (section == "") {
    if (line ~ /^platforms[ \t]*=[ \t]*\[/) { if (line !~ /\]/) inarray = 1; next }
    { unknown = 1; next }
  }
  key = line; sub(/[ \t]*=.*$/, "", key)
  if (key ~ /^"[a-z0-9._-]+"$/) key = substr(key, 2, length(key) - 2)
  else if (key !~ /^[A-Za-z0-9_-]+$/) { unknown = 1; next }
  value = line; sub(/^[^=]*=[ \t]*/, "", value); sub(/[ \t]*#[^"']*$/, "", value)
  if (value ~ /^"[^"\\]*"$/ || value ~ /^'[^']*'$/) value = substr(value, 2, length(value) - 2)
  else { unknown = 1; next }
  nt++; tname[nt] = key; T[key] = 1; tcons[key] = value
  next
}
# Every byte of the lock is counted: a lock cut short (a write interrupted, a disk full) must not be read as the
# shorter lock it starts with (END hands it over to exec, whose TOML parser names what is wrong).
{ lbytes += length($0) + 1 }
/^version[ \t]*=[ \t]*1[ \t]*$/ && !intool { header = 1; next }
/^[ \t]*\[\[[ \t]*tools[ \t]*\]\]/ { endart(); endtool(); name = ""; cons = ""; ver = ""; src = 0; bins = ""; dig = ""; inplat = 0; intool = 1; thas = ""; next }
/^[ \t]*\[\[[ \t]*tools\.artifacts[ \t]*\]\]/ { endart(); inart = 1; inplat = 0; next }
/^[ \t]*\[/ { inplat = 0; next }
/^[ \t]*name[ \t]*=/ { name = unq($0); thas = thas "n"; next }
/^[ \t]*constraint[ \t]*=/ { cons = unq($0); thas = thas "c"; next }
/^[ \t]*version[ \t]*=/ { ver = unq($0); thas = thas "v"; next }
/^[ \t]*source[ \t]*=/ { src = 1; next }
/^[ \t]*(url|api_url)[ \t]*=/ { ahas = ahas "u"; next }
/^[ \t]*bin[ \t]*=/ {
  thas = thas "b"
  s = $0; sub(/^[^\[]*\[/, "", s); sub(/\][ \t]*$/, "", s)
  n = split(s, parts, ","); bins = ""
  for (i = 1; i <= n; i++) bins = bins (i > 1 ? "\n" : "") unq(parts[i])
  next
}
/^[ \t]*platform[ \t]*=/ { inplat = (unq($0) == plat); ahas = ahas "p"; next }
/^[ \t]*sha256[ \t]*=/ { if (inplat) dig = substr(unq($0), 1, 12); ahas = ahas "s"; next }
END {
  endtool()
  endart()
  # A lock not whole (no final newline, no format line, an entry or artifact missing a key lock always writes) is
  # parseLockfile's to refuse in its words: handed over as a form this pass does not read.
  if (unknown || inarray || lbytes != lsize || !header) { print "?"; exit }
  # A hostile entry is refused first, as parseLockfile refuses it before anything else looks at the lock.
  for (i = 1; i <= nl; i++) {
    t = lname[i]; v = lver[t]; d = ldig[t]
    if (t !~ /^[a-z0-9][a-z0-9._-]*$/ || v !~ /^[A-Za-z0-9][A-Za-z0-9._+-]*$/ || v ~ /\.\./ || (d != "" && (length(d) != 12 || d ~ /[^0-9a-f]/))) { print "!"; exit }
    n = split(lbins[t], list, "\n")
    for (j = 1; j <= n; j++) {
      b = list[j]
      if (b == "" || b ~ /^\// || ("/" b "/") ~ /\/\.?\.?\// || b ~ /\\/ || b ~ /\t/) { print "!"; exit }
    }
  }
  for (i = 1; i <= nl; i++) if (ldig[lname[i]] == "") { t = lname[i]; print "S\t" t "\tthe lock has no artifact for " plat "; add \"" plat "\" to platforms in toolmgr.toml and run \140" lk "\140"; stale = 1 }
  for (i = 1; i <= nt; i++) {
    t = tname[i]
    if (!(t in L)) why = "not in toolmgr.lock; run \140" lk "\140"
    else if (lcons[t] != tcons[t]) why = "locked for \"" lcons[t] "\" but toolmgr.toml asks for \"" tcons[t] "\"; run \140" lk "\140"
    else if (!allows(tcons[t], lver[t])) why = "pinned to \"" lver[t] "\", which \"" tcons[t] "\" does not allow; run \140" lk "\140"
    else if (lsrc[t]) why = "its source definition changed since it was locked; run \140" lk "\140"
    else continue
    print "S\t" t "\t" why; stale = 1
  }
  for (i = 1; i <= nl; i++) if (!(lname[i] in T)) { print "S\t" lname[i] "\tno longer in toolmgr.toml; run \140" lk "\140"; stale = 1 }
  if (stale) exit
  for (i = 1; i <= nl; i++) {
    t = lname[i]
    n = split(lbins[t], list, "\n")
    for (j = 1; j <= n; j++) {
      c = list[j]; sub(/^.*\//, "", c); sub(/\.exe$/, "", c)
      print (c == cmd ? "C" : "T") "\t" t "\t" lver[t] "-" ldig[t] "\t" list[j]
    }
  }
}
`;

/** The start of every POSIX shim's second line: how a shim (also a copy of one) is told from a real program. */
export const SHIM_MARKER = "# toolmgr shim for ";

/** Hops a shim may step aside through before it calls the chain a loop (`TOOLMGR_SHIM_DEPTH`). */
export const MAX_SHIM_DEPTH = 8;

/**
 * The POSIX `sh` shim for one command: exactly what `toolmgr exec <command>` does, without starting Node (research
 * §4.1: a Node shim costs ~80 ms). It walks up from `$PWD` to the nearest `toolmgr.toml` with parameter expansion
 * (no forks), reads it and the `toolmgr.lock` beside it with one `awk` pass (`SHIM_AWK`), refuses a stale lock or a
 * missing or damaged install with `exec`'s messages and exit 1, and `exec`s the pinned executable with all
 * arguments. Outside a project, or for a command the project does not pin, it steps aside to the next command of
 * that name on `PATH` after the shims directory (putting the shims on `PATH` never takes a tool away);
 * only when there is none it exits 127. A project file the `awk` pass cannot read exactly (project-local sources)
 * is handed to `toolmgr exec` through `launcher`. It never installs. Its first lines are the hot path (shim-record.ts:
 * the project's files unchanged since `sync`/`exec` recorded them, every install whole): sh runs the tool before it
 * has parsed anything else, and goes on to the full check above whenever the hot path cannot answer.
 */
export function shimScript(
  command: string,
  options: { platform: Platform; launcher?: readonly string[] | undefined },
): string {
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const launcherArgv = options.launcher ?? ["toolmgr"];
  const launcher = launcherArgv.map(q).join(" ");
  const launcherProgram = q(launcherArgv[0] ?? "toolmgr");
  // Every variable of the shim is _tm_-prefixed: assigning to a name the caller exported (cmd, dir, target, ...)
  // would change what the tool finds in its environment.
  return `#!/bin/sh
${SHIM_MARKER}"${command}", written by \`toolmgr sync\`: runs what \`toolmgr exec ${command}\` would run.
_tm_cmd=${q(command)} _tm_platform=${q(options.platform)} _tm_home=\${TOOLMGR_HOME:-\${XDG_DATA_HOME:-\${HOME:-}/.local/share}/toolmgr} _tm_dir=$PWD _tm_fast= _tm_target= _tm_ok=1
while ! [ -e "$_tm_dir/toolmgr.toml" ]; do case $_tm_dir in */*) _tm_dir=\${_tm_dir%/*} ;; *) break ;; esac; done
pin() { [ -f "$_tm_home/tools/$2/$3/${INSTALL_MARKER}" ] && [ -x "$_tm_home/tools/$2/$3/$4" ] || _tm_ok=; [ "$1" = "$_tm_cmd" ] && _tm_target=$_tm_home/tools/$2/$3/$4; }
_tm_rec=$_tm_home/projects$_tm_dir
if [ "$_tm_dir/toolmgr.toml" -ot "$_tm_rec/${SHIM_FRAGMENT_NAME}" ] && [ "$_tm_dir/toolmgr.lock" -ot "$_tm_rec/${SHIM_FRAGMENT_NAME}" ] &&
  [ "$_tm_dir/toolmgr.toml" -ef "$_tm_rec/${TOML_LINK_NAME}" ] && [ "$_tm_dir/toolmgr.lock" -ef "$_tm_rec/${LOCK_LINK_NAME}" ]; then
  command . "$_tm_rec/${SHIM_FRAGMENT_NAME}"
  [ "$_tm_fast$_tm_ok" = 11 ] && [ -n "$_tm_target" ] && exec "$_tm_target" "$@"
fi
# The hot path above is all sh parses (it reads no further) when the project's files are the very ones (same
# inodes, linked beside the record) that \`sync\`/\`exec\` last found current and strictly older than the record's
# answers, whose time was set from before they were read (shim-record.ts): shell built-ins only, and nothing parsed
# that it does not run (bench/toolmgr/README.md "Hot paths"). The answers call \`pin\` for every pinned executable,
# each install checked as exec checks it, and set fast. Anything else (no record, a changed file, a damaged install,
# a command the project does not pin) comes here and decides from the start, in exec's words.
# The store is the environment's, decided at every call as \`toolmgr exec\` decides it (layout.ts toolmgrHome; the
# expansion above), never the one that wrote this shim: a shim runs nothing from a store TOOLMGR_HOME says not to
# use, and a store built at one path can be used at another.
_tm_shims=$_tm_home/shims
case $0 in */*) _tm_self=\${0%/*} ;; *) _tm_self=$_tm_shims ;; esac
# The user toolset (\`toolmgr lock --global\`) answers for a command the nearest project does not pin.
_tm_user=\${XDG_CONFIG_HOME:-\${HOME:-}/.config}/toolmgr
# exec's refusal of a file that is not a regular one (bounded-read.ts), in its words.
notfile() {
  if [ -d "$1" ]; then _tm_t="a directory"; elif [ -p "$1" ]; then _tm_t="a FIFO (named pipe)"; elif [ -S "$1" ]; then _tm_t="a socket"
  elif [ -c "$1" ]; then _tm_t="a character device"; elif [ -b "$1" ]; then _tm_t="a block device"; else _tm_t="not a regular file"; fi
  echo "toolmgr: Cannot read $1: it is $_tm_t, not a regular file" >&2
  exit 1
}
_tm_dir=$PWD
_tm_toml=
while :; do
  if [ -e "$_tm_dir/toolmgr.toml" ]; then
    [ -f "$_tm_dir/toolmgr.toml" ] || notfile "$_tm_dir/toolmgr.toml"
    _tm_toml=$_tm_dir/toolmgr.toml; break
  fi
  case $_tm_dir in */*) _tm_dir=\${_tm_dir%/*} ;; *) break ;; esac
  [ -n "$_tm_dir" ] || { [ -f /toolmgr.toml ] && _tm_toml=/toolmgr.toml; break; }
done
_tm_tab='\t' # a literal tab: $(printf) would cost a fork on every call
_tm_nl='
'
# One pinned executable, as exec checks it (toolchain.ts), in exec's words: $1 its command when it is the one this
# shim runs (else empty), $2 the tool, $3 <version>-<digest12>, $4 the executable's path in the install.
pin() {
  _tm_install=$_tm_home/tools/$2/$3
  # Two stats when all is well (a marker and an executable mean the directory is there); the diagnosis otherwise.
  if [ -f "$_tm_install/${INSTALL_MARKER}" ] && [ -x "$_tm_install/$4" ]; then
    [ "$1" = "$_tm_cmd" ] && _tm_target=$_tm_install/$4
    return 0
  fi
  if [ ! -d "$_tm_install" ]; then _tm_problem="not installed"
  elif [ ! -f "$_tm_install/${INSTALL_MARKER}" ]; then _tm_problem="damaged: its completion marker is missing"
  elif [ ! -x "$_tm_install/$4" ]; then _tm_problem="damaged: the executable \\"$4\\" is missing"
  else
    [ "$1" = "$_tm_cmd" ] && _tm_target=$_tm_install/$4
    return 0
  fi
  echo "toolmgr: \\"$2\\" \${3%-*} is $_tm_problem; run \\\`toolmgr sync$_tm_g\\\`" >&2
  exit 1
}
_tm_g=
_tm_target=
for _tm_scope in project user; do
  if [ $_tm_scope = user ]; then
    [ -f "$_tm_user/toolmgr.toml" ] && [ "$_tm_user/toolmgr.toml" != "$_tm_toml" ] || break
    _tm_toml=$_tm_user/toolmgr.toml _tm_dir=$_tm_user _tm_g=' --global'
  fi
  [ -n "$_tm_toml" ] || continue
  _tm_lock=\${_tm_toml%.toml}.lock
  if [ ! -f "$_tm_lock" ]; then
    # exec parses the project file before it reads the lock (project-state.ts), and only exec parses TOML: it names
    # which comes first (a project file cut short, then the lock), in its words, when it is there.
    command -v ${launcherProgram} >/dev/null 2>&1 && TOOLMGR_HOME=$_tm_home exec ${launcher} exec "$_tm_cmd" "$@"
    [ -e "$_tm_lock" ] && notfile "$_tm_lock"
    echo "toolmgr: Cannot find $_tm_lock: run \\\`toolmgr lock$_tm_g\\\` first" >&2; exit 1
  fi
  _tm_rec=$_tm_home/projects$_tm_dir
  _tm_fast=
  # The hot path again (above), for a command the project does not pin and for the user toolset.
  if [ "$_tm_toml" -ot "$_tm_rec/${SHIM_FRAGMENT_NAME}" ] && [ "$_tm_lock" -ot "$_tm_rec/${SHIM_FRAGMENT_NAME}" ] &&
    [ "$_tm_toml" -ef "$_tm_rec/${TOML_LINK_NAME}" ] && [ "$_tm_lock" -ef "$_tm_rec/${LOCK_LINK_NAME}" ]; then
    command . "$_tm_rec/${SHIM_FRAGMENT_NAME}"
  fi
  if [ -z "$_tm_fast" ]; then
    # Anything changed since: today's full check, which needs awk and wc; a missing one is named, not taken for
    # "not pinned".
    for _tm_p in awk wc; do
      command -v $_tm_p >/dev/null 2>&1 || {
        echo "toolmgr: Cannot check $_tm_lock: the shim needs \\"$_tm_p\\", which is not on PATH ($PATH); install it, or run \\\`toolmgr exec $_tm_cmd\\\`" >&2
        exit 1
      }
    done
    # The sizes first (wc answers from the file's size, reading nothing): awk would spend seconds on one long line.
    _tm_sizes=$(LC_ALL=C wc -c < "$_tm_toml" && LC_ALL=C wc -c < "$_tm_lock") || {
      echo "toolmgr: Cannot read $_tm_toml and $_tm_lock (wc failed)" >&2; exit 1
    }
    _tm_tsize=$((\${_tm_sizes%%"$_tm_nl"*})) _tm_lsize=$((\${_tm_sizes#*"$_tm_nl"}))
    if [ "$_tm_tsize" -gt ${PROJECT_FILE_LIMIT} ]; then
      echo "toolmgr: ${tooLargeText("$_tm_toml", "$_tm_tsize", "project")}" >&2; exit 1
    fi
    if [ "$_tm_lsize" -gt ${LOCK_FILE_LIMIT} ]; then
      echo "toolmgr: ${tooLargeText("$_tm_lock", "$_tm_lsize", "lock")}" >&2; exit 1
    fi
    # The record's copies only when they are regular files: awk stops on a directory (mawk: "read error") and waits
    # on a FIFO, where exec (verified-project.ts) takes a damaged record for no record and writes it again.
    _tm_found=-
    if [ -f "$_tm_rec/toolmgr.toml" ] && [ -f "$_tm_rec/toolmgr.lock" ] && [ -f "$_tm_rec/${SHIM_ANSWERS_NAME}" ]; then
      _tm_found=$(LC_ALL=C awk -v cmd="$_tm_cmd" -v plat="$_tm_platform" -v toml="$_tm_toml" -v lock="$_tm_lock" -v vtoml="$_tm_rec/toolmgr.toml" -v vlock="$_tm_rec/toolmgr.lock" -v vans="$_tm_rec/${SHIM_ANSWERS_NAME}" ${q(SHIM_FAST_AWK)}) || {
        echo "toolmgr: Cannot check $_tm_lock: awk failed" >&2; exit 1
      }
    fi
    if [ "$_tm_found" = - ]; then
      _tm_found=$(LC_ALL=C awk -v cmd="$_tm_cmd" -v plat="$_tm_platform" -v lk="toolmgr lock$_tm_g" -v lsize="$_tm_lsize" ${q(SHIM_AWK)} "$_tm_toml" "$_tm_lock") || {
        echo "toolmgr: Cannot check $_tm_lock: awk failed" >&2; exit 1
      }
    fi
    case $_tm_found in
    '?')
      command -v ${launcherProgram} >/dev/null 2>&1 || {
        echo "toolmgr: Cannot check $_tm_lock: $_tm_toml defines project-local sources, which only \\\`toolmgr exec\\\` checks, and the toolmgr that wrote this shim is gone:" ${launcherProgram} "is not there; install toolmgr again and run \\\`toolmgr sync$_tm_g\\\`" >&2
        exit 127
      }
      TOOLMGR_HOME=$_tm_home exec ${launcher} exec "$_tm_cmd" "$@" ;;
    '!')
      echo "toolmgr: $_tm_lock has an invalid entry (a name, version, digest or executable path that would leave the store); it was not written by toolmgr lock, so re-run \\\`toolmgr lock$_tm_g\\\`" >&2
      exit 1 ;;
    S*)
      _tm_msg="toolmgr: $_tm_lock is out of date:"
      _tm_rest=$_tm_found
      while [ -n "$_tm_rest" ]; do
        _tm_line=\${_tm_rest%%"$_tm_nl"*}
        case $_tm_rest in *"$_tm_nl"*) _tm_rest=\${_tm_rest#*"$_tm_nl"} ;; *) _tm_rest= ;; esac
        _tm_line=\${_tm_line#S"$_tm_tab"}
        _tm_msg="$_tm_msg$_tm_nl  \${_tm_line%%"$_tm_tab"*}: \${_tm_line#*"$_tm_tab"}"
      done
      echo "$_tm_msg" >&2
      exit 1 ;;
    esac
    _tm_rest=$_tm_found
    while [ -n "$_tm_rest" ]; do
      _tm_line=\${_tm_rest%%"$_tm_nl"*}
      case $_tm_rest in *"$_tm_nl"*) _tm_rest=\${_tm_rest#*"$_tm_nl"} ;; *) _tm_rest= ;; esac
      _tm_kind=\${_tm_line%%"$_tm_tab"*}; _tm_line=\${_tm_line#*"$_tm_tab"}
      _tm_name=\${_tm_line%%"$_tm_tab"*}; _tm_line=\${_tm_line#*"$_tm_tab"}
      _tm_ver=\${_tm_line%%"$_tm_tab"*}; _tm_bin=\${_tm_line#*"$_tm_tab"}
      _tm_c=; [ "$_tm_kind" = C ] && _tm_c=$_tm_cmd
      pin "$_tm_c" "$_tm_name" "$_tm_ver" "$_tm_bin"
    done
  fi
  if [ -n "$_tm_target" ]; then exec "$_tm_target" "$@"; fi
done
# Not pinned here: step aside to the next command of this name on PATH after the shims directory. A hop is counted in
# TOOLMGR_SHIM_DEPTH: a program found there that runs it through the shims again would otherwise loop forever.
_tm_depth=\${TOOLMGR_SHIM_DEPTH:-0}
case $_tm_depth in ''|*[!0-9]*) _tm_depth=0 ;; esac
if [ "$_tm_depth" -ge ${MAX_SHIM_DEPTH} ]; then
  echo "toolmgr: $_tm_cmd: shims are calling each other in a loop (${MAX_SHIM_DEPTH} hops); check PATH for a program that runs $_tm_cmd through the shims again, or a second shims directory" >&2
  exit 1
fi
TOOLMGR_SHIM_DEPTH=$((_tm_depth + 1))
export TOOLMGR_SHIM_DEPTH
set -f
IFS=:
for _tm_d in $PATH; do
  case $_tm_d in "$_tm_shims"|"$_tm_shims/"|"$_tm_self"|"$_tm_self/") continue ;; esac
  [ -n "$_tm_d" ] || _tm_d=.
  if [ -f "$_tm_d/$_tm_cmd" ] && [ -x "$_tm_d/$_tm_cmd" ]; then
    # Any toolmgr shim (a copy elsewhere on PATH, another store's) is never the fallback: it would only loop.
    _tm_l2=
    { read -r _tm_l1 && read -r _tm_l2; } < "$_tm_d/$_tm_cmd" 2>/dev/null
    case $_tm_l2 in "${SHIM_MARKER}"*) continue ;; esac
    unset IFS; exec "$_tm_d/$_tm_cmd" "$@"
  fi
done
echo "toolmgr: $_tm_cmd is not pinned in any toolmgr.lock above $PWD, and no other $_tm_cmd is on PATH" >&2
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
 * In the shims directory: which template (toolmgr build, platform, launcher) the shims were last written with, so a
 * `sync` with nothing to do tells its shims are current from `stat`s and this one small read (`currentShims`).
 */
const SHIMS_STAMP = ".toolmgr-shims";

/** The stamp: a placeholder command's shim, all a shim's text depends on but the command; compared whole, no hash. */
function shimsStamp(options: { platform: Platform; launcher?: readonly string[] | undefined }): string {
  return shimScript("-", options);
}

/**
 * Whether the POSIX shims of `commands` are there as `writeShims` would write them now: the stamp holds their
 * template, and each is an executable regular file not modified since the stamp was written (`writeShims` writes
 * the stamp after any shim it writes).
 */
export async function currentShims(
  commands: readonly string[],
  options: { layout: StoreLayout; platform: Platform; launcher?: readonly string[] | undefined },
): Promise<boolean> {
  const path = join(options.layout.shimsDir, SHIMS_STAMP);
  let stamp: string;
  let stampTime: number;
  try {
    stampTime = statSync(path).mtimeMs;
    stamp = readBoundedTextSync(path, { kind: "state", refuse: (m) => new Error(m) });
  } catch {
    return false;
  }
  if (stamp !== shimsStamp(options)) return false;
  return commands.every((command) => {
    try {
      const info = statSync(join(options.layout.shimsDir, command), { throwIfNoEntry: false });
      return info?.isFile() === true && (info.mode & 0o777) === 0o755 && info.mtimeMs <= stampTime;
    } catch {
      return false;
    }
  });
}

/**
 * Writes (atomically, one file per command) the shims for `commands`: POSIX `sh` files, or `<command>.cmd` on
 * Windows. Returns the paths written.
 */
export async function writeShims(
  commands: readonly string[],
  options: { layout: StoreLayout; platform: Platform; launcher?: readonly string[] | undefined },
): Promise<string[]> {
  await mkdir(options.layout.shimsDir, { recursive: true });
  const windows = platformOs(options.platform) === "windows";
  const written: string[] = [];
  let changed = false;
  for (const command of [...new Set(commands)].sort()) {
    const path = join(options.layout.shimsDir, windows ? `${command}.cmd` : command);
    // An unchanged shim is not rewritten: a second `sync` writes nothing.
    if (
      await updateFile(path, windows ? cmdShimScript(command) : shimScript(command, options), { mode: 0o755 })
    )
      changed = true;
    written.push(path);
  }
  // After the shims, and again whenever one was written: a shim newer than the stamp is not current (currentShims).
  const stamp = join(options.layout.shimsDir, SHIMS_STAMP);
  if (!windows && changed) await replaceFile(stamp, shimsStamp(options));
  else if (!windows) await updateFile(stamp, shimsStamp(options));
  return written;
}
