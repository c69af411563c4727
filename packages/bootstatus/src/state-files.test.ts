import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readBootState } from "./state-files.js";

/** A root whose host kernel line disables cloud-init and whose PID 1 was started as `/sbin/init splash`. */
function root(files: Record<string, string> = {}, dirs: string[] = []): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bootstatus-state-"));
  const all: Record<string, string> = {
    "proc/cmdline": "BOOT_IMAGE=/vmlinuz cloud-init=disabled\n",
    "proc/1/cmdline": "/sbin/init\0splash\0",
    ...files,
  };
  for (const [name, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  for (const name of dirs) mkdirSync(path.join(dir, name), { recursive: true });
  return dir;
}

async function cmdlineOf(dir: string): Promise<string> {
  try {
    return (await readBootState({ root: dir, env: {} })).cmdline;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// cloudinit/util.py is_container and systemd-detect-virt --container: each marker makes cloud-init read PID 1's
// command line instead of the host kernel's.
const containers: [string, () => string][] = [
  ["/run/systemd/container", () => root({ "run/systemd/container": "docker\n" })],
  ["/.dockerenv", () => root({ ".dockerenv": "" })],
  ["/run/.containerenv", () => root({ "run/.containerenv": "" })],
  ["container= in PID 1's environment", () => root({ "proc/1/environ": "PATH=/bin\0container=lxc\0" })],
  ["LIBVIRT_LXC_UUID in PID 1's environment", () => root({ "proc/1/environ": "LIBVIRT_LXC_UUID=42\0" })],
  ["OpenVZ (/proc/vz without /proc/bc)", () => root({}, ["proc/vz"])],
  ["Linux-VServer (VxID other than 0)", () => root({ "proc/self/status": "Name:\tinit\nVxID:\t42\n" })],
];

for (const [marker, make] of containers) {
  test(`readBootState() in a container (${marker}) reads PID 1's command line`, async () => {
    assert.equal(await cmdlineOf(make()), "/sbin/init splash");
  });
}

test("readBootState() outside a container reads /proc/cmdline, stripped", async () => {
  assert.equal(await cmdlineOf(root()), "BOOT_IMAGE=/vmlinuz cloud-init=disabled");
  assert.equal(
    await cmdlineOf(root({}, ["proc/vz", "proc/bc"])),
    "BOOT_IMAGE=/vmlinuz cloud-init=disabled",
    "OpenVZ's host has /proc/bc",
  );
  assert.equal(
    await cmdlineOf(root({ "proc/self/status": "Name:\tinit\nVxID:0\n" })),
    "BOOT_IMAGE=/vmlinuz cloud-init=disabled",
    "VxID 0 is the host",
  );
  // Upstream compares the text after "VxID:" as it is, so the kernel's "VxID:\t0" reads as a container.
  assert.equal(await cmdlineOf(root({ "proc/self/status": "VxID:\t0\n" })), "/sbin/init splash");
});

test("readBootState() does not count a symlink named /run/systemd/system as systemd", async () => {
  const dir = root({}, ["run/systemd", "elsewhere"]);
  symlinkSync(path.join(dir, "elsewhere"), path.join(dir, "run/systemd/system"));
  try {
    assert.equal((await readBootState({ root: dir, env: {} })).isSystemd, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const real = root({}, ["run/systemd/system"]);
  try {
    assert.equal((await readBootState({ root: real, env: {} })).isSystemd, true);
  } finally {
    rmSync(real, { recursive: true, force: true });
  }
});
