import assert from "node:assert/strict";
import { test } from "node:test";
import { bootCode } from "./boot-code.js";
import type { BootState } from "./state-files.js";
import { emptyStatusV1 } from "./status-file.js";
import type { RunSystemctl } from "./systemd.js";

function state(overrides: Partial<BootState>): BootState {
  return {
    isSystemd: true,
    cmdline: "",
    kernelCmdlineEnv: "",
    markerFile: false,
    runDir: "/run/cloud-init",
    generatorDisabled: false,
    generatorEnabled: true,
    statusFileExists: false,
    statusV1: emptyStatusV1(),
    resultExists: false,
    warnings: [],
    ...overrides,
  };
}

const healthy: RunSystemctl = async () => ({ ok: true, stdout: "LANG=C.UTF-8\n", stderr: "" });
const options = {
  systemctl: healthy,
  query: { retry: false, deadline: undefined, now: () => 0, sleep: async () => {} },
};

test("bootCode() splits the command line on Python's whitespace, not JavaScript's", async () => {
  // U+001F separates tokens for str.split(); U+FEFF does not.
  const split = await bootCode(state({ cmdline: "ro\u001fcloud-init=disabled" }), options);
  assert.equal(split.code, "disabled-by-kernel-command-line");
  const joined = await bootCode(state({ cmdline: "ro\ufeffcloud-init=disabled" }), options);
  assert.equal(joined.code, "enabled-by-generator");
});

test("bootCode() follows upstream precedence: cloud-init=enabled, marker, cloud-init=disabled, env, generator", async () => {
  const code = async (s: Partial<BootState>): Promise<string> => (await bootCode(state(s), options)).code;
  assert.equal(await code({ isSystemd: false, markerFile: true }), "enabled-by-sysvinit");
  assert.equal(
    await code({ cmdline: "cloud-init=enabled", markerFile: true }),
    "enabled-by-kernel-command-line",
  );
  assert.equal(await code({ cmdline: "cloud-init=disabled", markerFile: true }), "disabled-by-marker-file");
  assert.equal(
    await code({ kernelCmdlineEnv: "xcloud-init=disabledx", generatorDisabled: true }),
    "disabled-by-environment-variable",
  );
  assert.equal(await code({ generatorDisabled: true }), "disabled-by-generator");
  assert.equal(await code({ generatorEnabled: false }), "unknown");
});
