#!/usr/bin/env node
// Runs one of the two test suites over every package's built tests (README "Tests"):
//   node scripts/run-tests.mjs unit    every *.test.js except *.peers.test.js; needs only Node
//   node scripts/run-tests.mjs peers   every *.peers.test.js, after the check below
//   node scripts/run-tests.mjs check   only checks that each program the packages declare under "testPeers" in
//                                      their package.json is installed, naming the Debian package of each one
//                                      that is not (run before the build, so a missing peer fails in seconds)
// Optional further arguments restrict the run to package names (`node scripts/run-tests.mjs unit webhook`).
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const [suite, ...only] = process.argv.slice(2);
if (suite !== "unit" && suite !== "peers" && suite !== "check") {
  process.stderr.write("usage: node scripts/run-tests.mjs unit|peers|check [package ...]\n");
  process.exit(2);
}

/** Every package under packages/ with its manifest, restricted to the names given on the command line. */
function packages() {
  const dir = join(root, "packages");
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, "package.json")))
    .filter((name) => only.length === 0 || only.includes(name))
    .sort()
    .map((name) => ({
      name,
      dir: join(dir, name),
      manifest: JSON.parse(readFileSync(join(dir, name, "package.json"), "utf8")),
    }));
}

/** Built test files below a package's dist/, found without following links. */
function testFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && entry.name.endsWith(".test.js")) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

/** A program is present when its path exists and (for an executable) can be run by this user. */
function present(peer) {
  try {
    accessSync(peer.path, peer.executable === false ? constants.R_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const selected = packages();
const files = [];
const missing = [];
for (const pkg of selected) {
  if (suite !== "unit") {
    for (const peer of pkg.manifest.testPeers ?? []) {
      if (!present(peer)) missing.push({ pkg: pkg.name, ...peer });
    }
  }
  if (suite === "check") continue;
  const all = testFiles(join(pkg.dir, "dist"));
  files.push(...all.filter((f) => f.endsWith(".peers.test.js") === (suite === "peers")));
}

if (missing.length > 0) {
  for (const m of missing) {
    process.stderr.write(
      `missing peer: ${m.path} (${m.what}), needed by ${m.pkg}'s peer tests: apt-get install ${m.debian}\n`,
    );
  }
  const debs = [...new Set(missing.map((m) => m.debian))].join(" ");
  process.stderr.write(
    `Cannot run the peer tests: install the Debian packages first: apt-get install ${debs}\n`,
  );
  process.exit(1);
}
if (suite === "check") {
  process.stdout.write("Every peer the peer tests need is installed\n");
  process.exit(0);
}
if (files.length === 0) {
  process.stderr.write(`No ${suite} test files found under packages/*/dist: run \`npm run build\` first\n`);
  process.exit(1);
}

// Every test file gets a deadline, so a wait that never ends fails instead of hanging the run. Node 20 applies
// --test-timeout to a whole file (Node 22 to each test), so the figure is a file's worst case on a loaded machine.
const timeout = suite === "peers" ? 600_000 : 480_000;
const child = spawn(
  process.execPath,
  ["--test", "--test-concurrency=2", `--test-timeout=${timeout}`, ...files.map((f) => relative(root, f))],
  { cwd: root, stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
