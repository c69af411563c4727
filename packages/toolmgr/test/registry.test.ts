import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { parse } from "smol-toml";
import { loadRegistry } from "../src/registry/registry.js";
import { registrySummary } from "../src/registry/registry-summary.js";
import { renderTemplate } from "../src/source/asset-template.js";
import { TOOLMGR_VERSION } from "../src/toolmgr-version.js";
import { parseStableTag, parseTagVersion } from "../src/version/constraint.js";
import { PACKAGE_DIR, runCli } from "./support/run-cli.js";
import { tempDir } from "./support/temp-dir.js";

const execFileAsync = promisify(execFile);

interface Sample {
  readonly version: string;
  readonly commit?: string;
  readonly artifacts: Record<string, string>;
  /** Where else these names were seen (install scripts, package recipes): the independent check of each recipe. */
  readonly source: string;
}

const samples = JSON.parse(
  readFileSync(join(PACKAGE_DIR, "test/fixtures/registry/asset-names.json"), "utf8"),
) as Record<string, Sample>;

test("every recipe renders the real asset name of a known release, for exactly its platforms", () => {
  const registry = loadRegistry();
  assert.equal(registry.recipes.length, 51);
  for (const recipe of registry.recipes) {
    const sample = samples[recipe.name];
    assert.ok(sample, `no asset-name fixture for ${recipe.name}`);
    assert.ok(sample.source.length > 20, `${recipe.name}: the fixture names no independent source`);
    assert.deepEqual(
      [...recipe.source.platforms].sort(),
      Object.keys(sample.artifacts).sort(),
      `${recipe.name} platforms`,
    );
    for (const platform of recipe.source.platforms) {
      const rendered = renderTemplate(recipe.source.template, recipe.source, {
        version: sample.version,
        platform,
        // {commit} is the first 8 hex digits of the tagged commit, as vyper, nimbus and geth name their builds.
        ...(sample.commit === undefined ? {} : { commit: sample.commit.slice(0, 8) }),
      });
      assert.equal(rendered, sample.artifacts[platform], `${recipe.name} ${platform}`);
    }
  }
});

test("the registry has 51 recipes in 17 ecosystems, 48 github_release and 3 http", () => {
  const { recipes } = loadRegistry();
  assert.equal(new Set(recipes.flatMap((r) => r.ecosystems)).size, 17);
  assert.equal(recipes.filter((r) => r.source.type === "github_release").length, 48);
  assert.deepEqual(
    recipes.filter((r) => r.source.type === "http").map((r) => r.name),
    ["bitcoin-core", "geth", "geth-tools"],
  );
});

test("registry/SNAPSHOT records the revision the recipe files hash to", () => {
  const dir = join(PACKAGE_DIR, "registry");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".toml"))
    .sort();
  const lines = files.map(
    (f) =>
      `${createHash("sha256")
        .update(readFileSync(join(dir, f)))
        .digest("hex")}  ${f}\n`,
  );
  const revision = createHash("sha256").update(lines.join("")).digest("hex").slice(0, 12);
  const snapshot = parse(readFileSync(join(dir, "SNAPSHOT"), "utf8"));
  assert.equal(snapshot.revision, revision);
  assert.equal(Number(snapshot.recipes), files.length);
  assert.equal(loadRegistry().revision, revision, "the embedded registry is the one in registry/");
});

test("toolmgr version prints exactly two lines: the version and the registry revision", async () => {
  const { code, stdout } = await runCli(["version"]);
  assert.equal(code, 0);
  const snapshot = parse(readFileSync(join(PACKAGE_DIR, "registry/SNAPSHOT"), "utf8"));
  assert.equal(
    stdout,
    `toolmgr v${TOOLMGR_VERSION}\nregistry ${snapshot.revision} (51 recipes from ${snapshot.source})\n`,
  );
  const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string };
  assert.equal(TOOLMGR_VERSION, pkg.version);
  assert.equal((await runCli(["--version"])).stdout, stdout);
});

test("toolmgr list prints the 17 ecosystems with tool counts, offline", async () => {
  const { code, stdout } = await runCli(["list"], { env: { CODEHOST_API_URL: "http://127.0.0.1:9" } });
  assert.equal(code, 0);
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 17);
  assert.match(stdout, /^ethereum +21 tools$/m);
  assert.match(stdout, /^aptos +1 tool$/m);
  const json = JSON.parse((await runCli(["list", "--json"])).stdout) as {
    ecosystem: string;
    tools: number;
  }[];
  assert.equal(json.length, 17);
  assert.equal(json.reduce((n, e) => n + e.tools, 0) >= 51, true);
});

test("toolmgr list <ecosystem> lists that ecosystem's tools, matching case-insensitively", async () => {
  const { code, stdout } = await runCli(["list", "Ethereum"]);
  assert.equal(code, 0);
  assert.match(stdout, /^foundry +Ethereum development toolkit/m);
  assert.match(stdout, /^solc +Solidity compiler$/m);
  assert.doesNotMatch(stdout, /^agave /m);
  const json = JSON.parse((await runCli(["list", "solana", "--json"])).stdout) as { name: string }[];
  assert.deepEqual(
    json.map((t) => t.name),
    ["agave", "anchor", "solana-verify", "surfpool"],
  );
});

test("toolmgr list with an unknown ecosystem is a usage error naming the known ones", async () => {
  const { code, stderr } = await runCli(["list", "dogecoin"]);
  assert.equal(code, 2);
  assert.match(
    stderr,
    /Cannot list ecosystem "dogecoin": the registry has no such ecosystem; choose one of aptos, avalanche/,
  );
});

test("toolmgr completion prints a script per shell and refuses others", async () => {
  for (const shell of ["bash", "zsh", "fish", "powershell"]) {
    const { code, stdout } = await runCli(["completion", shell]);
    assert.equal(code, 0, shell);
    assert.match(stdout, /toolmgr/);
    assert.match(stdout, /\blist\b/, shell);
    assert.match(stdout, /\bethereum\b/, shell);
  }
  assert.equal((await runCli(["completion", "tcsh"])).code, 2);
});

test("toolmgr rejects unknown commands and options with exit 2", async () => {
  const unknown = await runCli(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown command "frobnicate"/);
  const option = await runCli(["list", "--bogus"]);
  assert.equal(option.code, 2);
  assert.match(option.stderr, /--bogus/);
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: toolmgr <command>/);
  assert.match((await runCli(["list", "--help"])).stdout, /Usage: toolmgr list/);
});

test("the bundle carries the registry: list and version work from a copy with no source tree beside it", async () => {
  const dir = await tempDir("toolmgr-bundle-");
  try {
    await cp(join(PACKAGE_DIR, "dist", "toolmgr.cjs"), join(dir, "toolmgr.cjs"));
    const run = (args: string[]) =>
      execFileAsync(process.execPath, [join(dir, "toolmgr.cjs"), ...args], { cwd: dir });
    const list = await run(["list"]);
    assert.equal(list.stdout.trim().split("\n").length, 17);
    assert.match(list.stdout, /^sui +1 tool$/m);
    assert.match(list.stdout, /^fuel +1 tool$/m);
    const snapshot = parse(readFileSync(join(PACKAGE_DIR, "registry", "SNAPSHOT"), "utf8"));
    assert.match(
      (await run(["version"])).stdout,
      new RegExp(`^registry ${String(snapshot.revision)} \\(51 recipes`, "m"),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the summary list and version read agrees with the full parse lock uses", () => {
  const full = loadRegistry();
  const summary = registrySummary();
  assert.deepEqual(
    summary.recipes,
    full.recipes.map(({ name, ecosystems, description }) => ({ name, ecosystems, description })),
  );
  assert.equal(summary.revision, full.revision);
  assert.equal(summary.source, full.source);
});

test("list, version and completion run from the bundle without loading node:crypto (start-up cost)", async () => {
  // node:crypto alone costs more than the rest of toolmgr's start-up; only lock and sync need it.
  const probe =
    'data:text/javascript,process.on("exit",()=>process.stderr.write("crypto:"+process.moduleLoadList.some(m=>m.includes("crypto"))))';
  for (const args of [["list"], ["list", "ethereum"], ["version"], ["completion", "bash"]]) {
    const { stderr } = await execFileAsync(process.execPath, [
      "--import",
      probe,
      join(PACKAGE_DIR, "bin", "toolmgr.js"),
      ...args,
    ]);
    assert.equal(stderr, "crypto:false", args.join(" "));
  }
});

// Issue 31 item 1: every recipe says in a `# tags:` comment how its upstream tags releases, with real tags as
// examples; each example must be what our rules select (stable) or never select (pre-release) under its tag_prefix.
test("every recipe's real tag scheme: its stable tags are selectable under tag_prefix, its pre-releases never", () => {
  const { recipes } = loadRegistry();
  const schemes = new Map<string, number>();
  for (const recipe of recipes) {
    const text = readFileSync(join(PACKAGE_DIR, "registry", `${recipe.name}.toml`), "utf8");
    const comment = /^# tags: (.*(?:\n# {3}.*)*)/m.exec(text)?.[1]?.replace(/\n# {3}/g, " ");
    assert.ok(comment, `${recipe.name}: no "# tags:" comment naming the upstream's tag scheme`);
    const list = (label: string) =>
      new RegExp(`; ${label} ([^;]+)`)
        .exec(comment)?.[1]
        ?.split(", ")
        .map((t) => t.trim()) ?? [];
    const stable = list("stable");
    assert.ok(stable.length > 0, `${recipe.name}: no stable example tag`);
    const prefix = recipe.source.tagPrefix;
    for (const tag of stable) {
      const version = parseStableTag(tag, prefix);
      assert.ok(version, `${recipe.name}: ${tag} is not a stable version under tag_prefix "${prefix}"`);
      assert.equal(`${prefix}${version.text}`, tag, `${recipe.name}: the spelling of ${tag} is kept`);
      const scheme = `${prefix === "" ? "bare" : prefix}${version.text.split(".").length === 2 ? " two components" : ""}`;
      schemes.set(scheme, (schemes.get(scheme) ?? 0) + 1);
    }
    for (const tag of list("pre-release")) {
      assert.equal(
        parseStableTag(tag, prefix),
        undefined,
        `${recipe.name}: ${tag} must never be chosen by a prefix`,
      );
      assert.ok(parseTagVersion(tag, prefix)?.pre, `${recipe.name}: ${tag} is a pre-release of a version`);
    }
  }
  // The schemes the registry spans: v-prefixed, bare, product-prefixed tag lines, and two components (Bitcoin Core).
  for (const scheme of [
    "v",
    "bare",
    "aptos-cli-v",
    "cosmovisor/v",
    "release/",
    "mainnet-v",
    "v two components",
  ]) {
    assert.ok(schemes.has(scheme), `no recipe exercises the tag scheme "${scheme}"`);
  }
});
