#!/usr/bin/env node
// `npm run release` (after `npm ci`; the npm script builds first): writes release/ (README "Install"):
//   <tool>-<version>.tgz          an npm tarball of each tool, installable with `npm install -g ./<file>` on a machine
//                                 that has Node >= 20 and nothing of this repository: a workspace dependency
//                                 (@local/go-compat) travels inside it as a bundled dependency, the others come
//                                 from the npm registry as usual
//   toolmgr-linux-x64,            Node single executable applications (nodejs.org/api/single-executable-applications)
//   bootstatus-linux-x64          for machines with no Node at all: this Node binary with the tool's one-file
//                                 CommonJS bundle injected by postject
//   SHA256SUMS                    `sha256sum` format over every other file there
// `node scripts/release.mjs --check-versions` only checks that each tool prints the version of its package.json.
// `--out DIR` writes elsewhere than release/; `--tools a,b` builds only those tools' files (`npm run images` and the
// packaging tests take the two servers' tarballs this way).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const ALL_TOOLS = ["toolmgr", "webhook", "pushgateway", "bootstatus"];
// The tools that run where cloud images and CI runners have no Node: bootstatus reads cloud-init's state on a fresh
// instance, toolmgr installs the other tools (as block, aqua and foundryup ship one binary each).
const SINGLE_FILES = ["toolmgr", "bootstatus"];
const { values: options } = parseArgs({
  options: {
    out: { type: "string", default: join(root, "release") },
    tools: { type: "string", default: ALL_TOOLS.join(",") },
    "check-versions": { type: "boolean", default: false },
  },
});
const out = resolve(options.out);
const TOOLS = options.tools.split(",");
for (const tool of TOOLS) {
  if (!ALL_TOOLS.includes(tool))
    throw new Error(`--tools: unknown tool "${tool}" (one of ${ALL_TOOLS.join(", ")})`);
}
// postject's marker in Node's binary (nodejs.org/api/single-executable-applications, "Injecting the blob").
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

function manifest(dir) {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
}

/** The first line a tool run by node prints for `--version`. */
function versionLine(tool) {
  return execFileSync(process.execPath, [join(root, "packages", tool, "bin", `${tool}.js`), "--version"], {
    encoding: "utf8",
  }).split("\n")[0];
}

/**
 * The version a tool prints must be the version in its file names and its package.json: `--version` is each tool's
 * own format (upstream's for webhook and pushgateway, which scripts parse), so the check finds the version there as
 * a whole word rather than imposing one format.
 */
function checkVersion(tool) {
  const { version } = manifest(join(root, "packages", tool));
  const printed = versionLine(tool);
  const word = new RegExp(`(^|[ v])${version.replaceAll(".", "\\.")}($|[ (,])`);
  if (!word.test(printed)) {
    throw new Error(
      `${tool} prints "${printed}" for --version but packages/${tool}/package.json says ${version}: make them agree`,
    );
  }
  return { version, printed };
}

/** The package.json a tarball carries: what npm needs to install and run it, nothing of the workspace. */
function publishedManifest(pkg) {
  const { scripts, devDependencies, testPeers, ...kept } = pkg;
  return kept;
}

/** Copies what a package's "files" names (npm pack applies the patterns again) plus its README. */
function stagePackage(from, to) {
  const pkg = manifest(from);
  mkdirSync(to, { recursive: true });
  for (const entry of pkg.files ?? []) {
    if (!entry.startsWith("!")) cpSync(join(from, entry), join(to, entry), { recursive: true });
  }
  copyFileSync(join(from, "README.md"), join(to, "README.md"));
  return publishedManifest(pkg);
}

function writeManifest(dir, pkg) {
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
}

// `npm run release` hands this script npm_config_* variables (local prefix, workspace...) that would point a nested
// npm at the repository: the nested ones work in their staging directory only.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, env: npmEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** The version of a dependency that `npm ci` installed for a package, which is the one its tests ran against. */
function lockedVersion(lock, tool, name) {
  const entry =
    lock.packages[`packages/${tool}/node_modules/${name}`] ?? lock.packages[`node_modules/${name}`];
  if (entry?.version === undefined)
    throw new Error(`package-lock.json has no ${name} for ${tool}: run npm install`);
  return entry.version;
}

/**
 * `npm pack` of one tool with every runtime dependency inside (bundleDependencies), so `npm install -g` of the file
 * needs no registry: an air-gapped host, or a container build without network, installs it as is. Workspace
 * dependencies (@local/go-compat) are packed first and installed from their own tarball; the registry ones at the
 * versions package-lock.json pins for the tool. Returns the tarball's file name.
 */
function packTool(tool, { stageRoot, lock }) {
  const stage = join(stageRoot, tool);
  const pkg = stagePackage(join(root, "packages", tool), stage);
  const dependencies = {};
  for (const name of Object.keys(pkg.dependencies ?? {})) {
    if (name.startsWith("@local/")) {
      const depStage = join(stageRoot, name.slice(1).replace("/", "-"));
      writeManifest(depStage, stagePackage(join(root, "packages", name.slice("@local/".length)), depStage));
      const [packed] = JSON.parse(npm(["pack", "--json", "--pack-destination", stageRoot], depStage));
      dependencies[name] = `file:${join(stageRoot, packed.filename)}`;
    } else {
      dependencies[name] = lockedVersion(lock, tool, name);
    }
  }
  writeManifest(stage, { ...pkg, dependencies });
  // Install scripts are not run: koffi (webhook) ships its prebuilt binaries in its package.
  npm(
    [
      "install",
      "--omit=dev",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--no-package-lock",
    ],
    stage,
  );
  // The published manifest names the bundled workspace package by version, not by a path on this machine.
  writeManifest(stage, { ...pkg, bundleDependencies: Object.keys(pkg.dependencies ?? {}) });
  const [packed] = JSON.parse(npm(["pack", "--json", "--pack-destination", out], stage));
  return packed.filename;
}

/**
 * esbuild plugin for the single executables: Node 20 runs their main script as CommonJS, which has no top-level
 * await, so a tool's cli.ts (its composition root, `process.exitCode = await main(...)`) runs inside an async
 * function; toolmgr's shims launch the executable itself; and files a tool reads beside its code at run time are
 * inlined. A source that no longer has the shape rewritten here stops the release with the reason.
 */
function seaPlugin(tool) {
  const cli = join(root, "packages", tool, "src", "cli.ts");
  return {
    name: "single-executable",
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]cli\.ts$/ }, (args) => {
        if (args.path !== cli) return undefined;
        const source = readFileSync(cli, "utf8");
        const lines = source.split("\n");
        let body = 0;
        for (let i = 0, inImport = false; i < lines.length; i++) {
          const line = lines[i];
          if (inImport || /^import\s/.test(line)) {
            inImport = !/;\s*$/.test(line);
            body = i + 1;
          } else if (line.trim() !== "" && !line.startsWith("//")) break;
        }
        const head = lines.slice(0, body).join("\n");
        let rest = lines.slice(body).join("\n");
        if (tool === "toolmgr") {
          // The shims start the toolmgr that wrote them through `launcher` (node and the script, from argv); in a
          // single executable argv[1] is only the name it was called by, and the executable is the whole program.
          const launcher = /launcher: \[process\.execPath, .*\],$/m;
          if (!launcher.test(rest))
            throw new Error("toolmgr src/cli.ts changed: no `launcher: [process.execPath, ...]`");
          rest = rest.replace(launcher, "launcher: [process.execPath],");
        }
        return {
          contents: `${head}\n(async () => {\n${rest}\n})().catch((error) => {\n  process.stderr.write(\`${tool}: \${error?.stack ?? error}\\n\`);\n  process.exitCode = 70;\n});\n`,
          loader: "ts",
        };
      });
      if (tool === "bootstatus") {
        // src/schema.ts reads schema/boot-status-report-v1.json next to the package: the executable carries it.
        const schema = join(root, "packages", "bootstatus", "src", "schema.ts");
        b.onLoad({ filter: /[\\/]schema\.ts$/ }, (args) => {
          if (args.path !== schema) return undefined;
          const source = readFileSync(schema, "utf8");
          const file = /new URL\("([^"]+)", import\.meta\.url\)/.exec(source);
          if (file === null)
            throw new Error("bootstatus src/schema.ts no longer reads its schema by new URL(...)");
          // Relative to where the module runs from: dist/src/schema.js (or the bundle), two levels below the package.
          const builtAt = pathToFileURL(join(root, "packages", "bootstatus", "dist", "src", "schema.js"));
          const text = readFileSync(new URL(file[1], builtAt), "utf8");
          let contents = source;
          for (const [pattern, replacement] of [
            [/^import \{ readFileSync \} from "node:fs";\n/m, ""],
            [/new URL\("[^"]+", import\.meta\.url\)/, "undefined"],
            [/readFileSync\(SCHEMA_URL, "utf8"\)/, JSON.stringify(text)],
          ]) {
            if (!pattern.test(contents))
              throw new Error(`bootstatus src/schema.ts changed: no ${pattern} to inline the schema`);
            contents = contents.replace(pattern, replacement);
          }
          return { contents, loader: "ts" };
        });
      }
    },
  };
}

// `useCodeCache` compiles the main script without running it, so the blob holds only its top level and every
// function a start calls is compiled then. For these tools the bundle and a V8 code cache taken after a real run
// (the package's `bundle.mjs --make-cache`, as for its npm bin) travel as SEA assets, run by a small main script
// through vm.Script; the libraries named here are bundled apart and compiled only when first required, so a start
// hashes and deserializes 1/7 of the code (bench/bootstatus/README.md: 1.11-1.12 x an empty start, now ~1.08).
const WARM_CACHE = new Map([["bootstatus", ["yaml", "ajv/dist/2020.js"]]]);

async function warmCache(tool, dir) {
  const app = join(dir, "app.cjs");
  const libraries = WARM_CACHE.get(tool);
  const assets = { "app.cjs": app, "app.cjs.cache": `${app}.cache` };
  for (const [i, name] of libraries.entries()) {
    const outfile = join(dir, `lib-${i}.cjs`);
    const entry = createRequire(join(root, "packages", tool, "package.json")).resolve(name);
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      outfile,
    });
    assets[name] = outfile;
  }
  execFileSync(
    process.execPath,
    [join(root, "packages", tool, "scripts", "bundle.mjs"), "--make-cache", app],
    {
      stdio: "ignore",
    },
  );
  // Beside those libraries the bundle needs only node: built-ins, which the executable's own require() gives it.
  writeFileSync(
    join(dir, "main.cjs"),
    [
      '"use strict";',
      'const { getAsset } = require("node:sea");',
      'const { Module } = require("node:module");',
      'const vm = require("node:vm");',
      `const libraries = new Set(${JSON.stringify(libraries)});`,
      "const loaded = new Map();",
      "function run(name, cachedData) {",
      '  const script = new vm.Script(Module.wrap(getAsset(name, "utf8")), { filename: __filename, cachedData });',
      "  const module_ = { exports: {} };",
      "  script.runInThisContext()(module_.exports, appRequire, module_, __filename, __dirname);",
      "  return module_.exports;",
      "}",
      "function appRequire(id) {",
      "  if (!libraries.has(id)) return require(id);",
      "  if (!loaded.has(id)) loaded.set(id, run(id));",
      "  return loaded.get(id);",
      "}",
      'run("app.cjs", Buffer.from(getAsset("app.cjs.cache")));',
      "",
    ].join("\n"),
  );
  return assets;
}

async function singleExecutable(tool, { stageRoot, expected }) {
  const dir = join(stageRoot, `${tool}-sea`);
  mkdirSync(dir, { recursive: true });
  const result = await build({
    entryPoints: [join(root, "packages", tool, "src", "cli.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: join(dir, WARM_CACHE.has(tool) ? "app.cjs" : "main.cjs"),
    // A single executable's main script runs with no ES module loader behind it: an import() left in (of a
    // node: module, the only external) throws ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING, so each becomes a require().
    supported: { "dynamic-import": false },
    external: WARM_CACHE.get(tool) ?? [],
    plugins: [seaPlugin(tool)],
    logLevel: "silent",
  });
  // A warning here (an import.meta left in CommonJS, a missing export) would be a broken executable: refuse it.
  if (result.warnings.length > 0) {
    throw new Error(
      `${tool}: esbuild warnings in the single-executable bundle:\n${result.warnings.map((w) => w.text).join("\n")}`,
    );
  }
  const assets = WARM_CACHE.has(tool) ? await warmCache(tool, dir) : undefined;
  const seaConfig = join(dir, "sea-config.json");
  writeFileSync(
    seaConfig,
    JSON.stringify({
      main: join(dir, "main.cjs"),
      output: join(dir, "sea.blob"),
      disableExperimentalSEAWarning: true,
      // V8's compiled code goes in the blob, so a start does not compile the bundle first.
      useCodeCache: true,
      assets,
    }),
  );
  execFileSync(process.execPath, ["--experimental-sea-config", seaConfig], { stdio: "ignore" });
  const target = join(out, `${tool}-${process.platform}-${process.arch}`);
  copyFileSync(process.execPath, target);
  chmodSync(target, 0o755);
  const postject = join(root, "node_modules", "postject", "dist", "cli.js");
  execFileSync(
    process.execPath,
    [postject, target, "NODE_SEA_BLOB", join(dir, "sea.blob"), "--sentinel-fuse", SEA_FUSE],
    {
      stdio: "ignore",
    },
  );
  // The executable must start as the program it replaces: same version line as the tool run by node.
  const printed = execFileSync(target, ["--version"], { encoding: "utf8" }).split("\n")[0];
  if (printed !== expected) throw new Error(`${target} --version printed "${printed}", not "${expected}"`);
  return target;
}

function writeChecksums() {
  const names = readdirSync(out)
    .filter((name) => name !== "SHA256SUMS")
    .sort();
  const lines = names.map(
    (name) =>
      `${createHash("sha256")
        .update(readFileSync(join(out, name)))
        .digest("hex")}  ${name}\n`,
  );
  writeFileSync(join(out, "SHA256SUMS"), lines.join(""));
  return names;
}

async function release() {
  // Each tool's version line, checked once and kept: the single executables must print the same.
  const versionLines = new Map(TOOLS.map((tool) => [tool, checkVersion(tool).printed]));
  // release/ is rewritten whole; another --out must be new or empty, so a mistyped path deletes nothing.
  if (out === join(root, "release")) rmSync(out, { recursive: true, force: true });
  else if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`--out ${out} is not empty`);
  mkdirSync(out, { recursive: true });
  const stageRoot = mkdtempSync(join(tmpdir(), "release-"));
  try {
    // Read once for all tools: the versions npm ci installed.
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
    for (const tool of TOOLS) process.stdout.write(`${packTool(tool, { stageRoot, lock })}\n`);
    if (process.platform === "linux" && process.arch === "x64") {
      for (const tool of SINGLE_FILES.filter((t) => TOOLS.includes(t))) {
        const target = await singleExecutable(tool, { stageRoot, expected: versionLines.get(tool) });
        process.stdout.write(`${target.slice(out.length + 1)}\n`);
      }
    } else {
      process.stderr.write(
        `single executables are built on linux/x64 only (this is ${process.platform}/${process.arch})\n`,
      );
    }
  } finally {
    rmSync(stageRoot, { recursive: true, force: true });
  }
  writeChecksums();
  process.stdout.write(`SHA256SUMS\nrelease written to ${out}\n`);
}

if (options["check-versions"]) {
  for (const tool of TOOLS) process.stdout.write(`${tool} ${checkVersion(tool).version}\n`);
} else {
  await release();
}
