import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigFiles } from "./cloud-config.js";
import { cloudConfigFromCmdline, resolveRunDir } from "./cloud-config.js";

/** An inspected system made of the given files (directories are implied by the paths). */
function system(files: Record<string, string>): ConfigFiles {
  const isDirectory = (p: string): boolean => Object.keys(files).some((f) => f.startsWith(`${p}/`));
  return {
    read: (p) => files[p],
    isDirectory,
    list: (p) =>
      Object.keys(files)
        .filter((f) => f.startsWith(`${p}/`))
        .map((f) => f.slice(p.length + 1).split("/")[0] ?? ""),
  };
}

const runDir = (dir: string): string => `system_info:\n  paths:\n    run_dir: ${dir}\n`;

test("resolveRunDir() is the default without any config", () => {
  assert.equal(resolveRunDir({ files: system({}), cmdline: "", cloudCfg: undefined }), "/run/cloud-init");
});

test("resolveRunDir(): cloud.cfg.d outranks cloud.cfg and the last file name wins", () => {
  const files = system({
    "/etc/cloud/cloud.cfg": runDir("/main"),
    "/etc/cloud/cloud.cfg.d/10-a.cfg": runDir("/a"),
    "/etc/cloud/cloud.cfg.d/90-b.cfg": runDir("/b"),
    "/etc/cloud/cloud.cfg.d/99-c.cfg.bak": runDir("/ignored"),
  });
  assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/b");
});

test("resolveRunDir(): conf.d names sort by code point as Python's sorted() does", () => {
  const files = system({
    "/etc/cloud/cloud.cfg.d/\u{1f600}.cfg": runDir("/emoji"),
    "/etc/cloud/cloud.cfg.d/\uff01.cfg": runDir("/fullwidth"),
  });
  // U+1F600 sorts last by code point (first by UTF-16 unit, 0xD83D < 0xFF01), so its file wins.
  assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/emoji");
});

test("resolveRunDir(): nested mappings merge key by key across files", () => {
  const files = system({
    "/etc/cloud/cloud.cfg": runDir("/main"),
    "/etc/cloud/cloud.cfg.d/90.cfg": "system_info:\n  paths:\n    cloud_dir: /elsewhere\n",
  });
  assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/main");
});

test("resolveRunDir(): a falsy conf_d turns conf.d off, a string one replaces it", () => {
  const off = system({
    "/etc/cloud/cloud.cfg": "conf_d: null\n",
    "/etc/cloud/cloud.cfg.d/5.cfg": runDir("/x"),
  });
  assert.equal(resolveRunDir({ files: off, cmdline: "", cloudCfg: undefined }), "/run/cloud-init");
  const other = system({ "/etc/cloud/cloud.cfg": "conf_d: ' /etc/o.d '\n", "/etc/o.d/5.cfg": runDir("/o") });
  assert.equal(resolveRunDir({ files: other, cmdline: "", cloudCfg: undefined }), "/o");
});

test("resolveRunDir(): priority CLOUD_CFG > user data > vendor data > kernel cc > runtime > cloud.cfg.d", () => {
  const all: Record<string, string> = {
    "/etc/cloud/cloud.cfg.d/5.cfg": runDir("/confd"),
    "/run/cloud-init/cloud.cfg": runDir("/runtime"),
    "/var/lib/cloud/instance/vendor-cloud-config.txt": runDir("/vendor"),
    "/var/lib/cloud/instance/vendor2-cloud-config.txt": runDir("/vendor2"),
    "/var/lib/cloud/instance/cloud-config.txt": runDir("/user"),
    "/etc/my.cfg": runDir("/env"),
  };
  const cc = "ro cc: system_info: {paths: {run_dir: /cc}} end_cc";
  // Each answer's own runtime config does not exist, so the second pass keeps it.
  assert.equal(resolveRunDir({ files: system(all), cmdline: cc, cloudCfg: "/etc/my.cfg" }), "/env");
  assert.equal(resolveRunDir({ files: system(all), cmdline: cc, cloudCfg: undefined }), "/user");
  delete all["/var/lib/cloud/instance/cloud-config.txt"];
  assert.equal(resolveRunDir({ files: system(all), cmdline: cc, cloudCfg: undefined }), "/vendor2");
  delete all["/var/lib/cloud/instance/vendor2-cloud-config.txt"];
  assert.equal(resolveRunDir({ files: system(all), cmdline: cc, cloudCfg: undefined }), "/vendor");
  delete all["/var/lib/cloud/instance/vendor-cloud-config.txt"];
  assert.equal(resolveRunDir({ files: system(all), cmdline: cc, cloudCfg: undefined }), "/cc");
});

test("resolveRunDir(): the second pass reads the runtime config of the moved run_dir, not the default one", () => {
  const files = system({
    "/etc/cloud/cloud.cfg.d/5.cfg": runDir("/confd"),
    "/run/cloud-init/cloud.cfg": runDir("/runtime"),
  });
  // Pass one says /runtime; pass two reads /runtime/cloud.cfg (absent), so cloud.cfg.d decides (as upstream).
  assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/confd");
  const chained = system({ "/etc/cloud/cloud.cfg.d/5.cfg": runDir("/a"), "/a/cloud.cfg": runDir("/b") });
  assert.equal(resolveRunDir({ files: chained, cmdline: "", cloudCfg: undefined }), "/b");
});

test("resolveRunDir(): the second pass looks for instance files under the moved cloud_dir", () => {
  const files = system({
    "/etc/cloud/cloud.cfg.d/5.cfg": "system_info:\n  paths:\n    run_dir: /a\n    cloud_dir: /cd\n",
    "/cd/instance/cloud-config.txt": runDir("/from-user-data"),
  });
  assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/from-user-data");
});

test("resolveRunDir() skips files that are not YAML mappings, as cloud-init's load_yaml does", () => {
  const files = system({
    "/etc/cloud/cloud.cfg.d/1.cfg": runDir("/good"),
    "/etc/cloud/cloud.cfg.d/8.cfg": "- a list\n",
    "/etc/cloud/cloud.cfg.d/9.cfg": "system_info: [unclosed\n",
  });
  assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/good");
});

test("cloudConfigFromCmdline() collects every cc: part, percent-decoded, with literal \\n as newlines", () => {
  assert.equal(
    cloudConfigFromCmdline("ro cc: a: [1]\\nb: %32 end_cc quiet cc:c: %E2%98%83 end_cc"),
    "a: [1]\nb: 2 \nc: ☃ ",
  );
  assert.equal(cloudConfigFromCmdline("cc: unterminated"), "unterminated");
  assert.equal(cloudConfigFromCmdline("xcc: nope"), "");
});

test("resolveRunDir(): a file with a tag PyYAML's safe_load cannot construct counts as empty, as in cloud-init", () => {
  // load_yaml catches safe_load's ConstructorError and returns {}: the file's run_dir does not count, so the
  // file below it in priority decides (the `yaml` library alone would read the tagged value as "").
  for (const tagged of ["!!python/name:os.system", "!custom /x", "!!merge /x"]) {
    const files = system({
      "/etc/cloud/cloud.cfg": runDir("/main"),
      "/etc/cloud/cloud.cfg.d/90.cfg": runDir(tagged),
    });
    assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/main", tagged);
  }
  const known = system({ "/etc/cloud/cloud.cfg.d/90.cfg": runDir("!!str /tagged") });
  assert.equal(resolveRunDir({ files: known, cmdline: "", cloudCfg: undefined }), "/tagged");
  const twoDocs = system({
    "/etc/cloud/cloud.cfg": runDir("/main"),
    "/etc/cloud/cloud.cfg.d/90.cfg": "---\na: 1\n---\nb: 2\n",
  });
  assert.equal(resolveRunDir({ files: twoDocs, cmdline: "", cloudCfg: undefined }), "/main");
});

test("resolveRunDir(): a file with a character PyYAML's reader refuses counts as empty, as in cloud-init", () => {
  for (const odd of ["\u0000", "\u001b", "\u007f", "\u0090", "\ufffe", "\ud800"]) {
    const files = system({
      "/etc/cloud/cloud.cfg": runDir("/main"),
      "/etc/cloud/cloud.cfg.d/90.cfg": runDir(`/odd${odd}`),
    });
    assert.equal(resolveRunDir({ files, cmdline: "", cloudCfg: undefined }), "/main", JSON.stringify(odd));
  }
  // NBSP, a BOM and astral characters are printable to it.
  const printable = system({ "/etc/cloud/cloud.cfg.d/90.cfg": `\ufeff${runDir("/ok\u00a0\u{1f600}")}` });
  assert.equal(resolveRunDir({ files: printable, cmdline: "", cloudCfg: undefined }), "/ok\u00a0\u{1f600}");
});

test("resolveRunDir(): NEL, LS and PS break lines in a config file, as in PyYAML (YAML 1.1)", () => {
  const nel = system({
    "/etc/cloud/cloud.cfg": "system_info:\n  paths:\n    run_dir: /nel\u0085    cloud_dir: /x\n",
  });
  assert.equal(resolveRunDir({ files: nel, cmdline: "", cloudCfg: undefined }), "/nel");
  const ls = system({ "/etc/cloud/cloud.cfg": "system_info:\n  paths:\n    run_dir: /ls\u2028" });
  assert.equal(resolveRunDir({ files: ls, cmdline: "", cloudCfg: undefined }), "/ls");
});
