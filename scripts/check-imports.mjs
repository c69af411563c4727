#!/usr/bin/env node
// `npm run lint:imports`: runs dependency-cruiser once over packages/ with .dependency-cruiser.cjs (its rules are
// reported as its `err` reporter reports them) and, over the same import graph, the folder-cycle check that
// dependency-cruiser cannot do itself.
//
// Why the second check: dependency-cruiser's folder scope puts a file directly in a package's src/ into the folder
// src/, which contains every other folder, so a cycle `store/ -> flags.ts -> store/` is invisible to its
// no-folder-cycle rule. Here each top-level folder of src/ is one node and each file directly in src/ is a node of
// its own (denoland/std's _tools/check_circular_submodule_dependencies.ts is the model); a strongly connected
// component of more than one node is a cycle, reported with one import for each arrow.
import { spawnSync } from "node:child_process";
import { format } from "dependency-cruiser";

const run = spawnSync(
  process.execPath,
  [
    "node_modules/dependency-cruiser/bin/dependency-cruise.mjs",
    "packages",
    "--config",
    ".dependency-cruiser.cjs",
    "--output-type",
    "json",
  ],
  { encoding: "utf8", maxBuffer: 1 << 30 },
);
if (run.error) throw run.error;
let result;
try {
  result = JSON.parse(run.stdout);
} catch {
  process.stderr.write(run.stderr || run.stdout);
  process.exit(run.status || 1);
}
const report = await format(result, { outputType: "err" });
process.stdout.write(report.output);
let failed = report.exitCode !== 0;

const cycles = folderCycles(result.modules);
for (const cycle of cycles) {
  process.stdout.write(
    `\n  error no-folder-cycle-via-src-file: ${cycle.nodes.join(" <-> ")}\n` +
      "    A folder of src/ and a file directly in src/ import each other (through the arrows below): move the shared\n" +
      "    part down a layer, or pass the value in instead of importing it\n" +
      cycle.witnesses.map((w) => `      ${w}\n`).join(""),
  );
  failed = true;
}
if (cycles.length > 0)
  process.stdout.write(`\nx ${cycles.length} folder cycle(s) through files directly in src/\n`);
process.exit(failed ? 1 : 0);

/**
 * The node of a module: `packages/<p>/src/<folder>/` for a module in a folder of src/, the module itself for a file
 * directly in src/; undefined outside a package's src/.
 */
function nodeOf(path) {
  const m = /^(packages\/[^/]+\/src\/)([^/]+)(\/)?/.exec(path);
  if (!m) return undefined;
  return m[3] ? `${m[1]}${m[2]}/` : path;
}

/** Strongly connected components (Tarjan) of the node graph that hold more than one node. */
function folderCycles(modules) {
  const edges = new Map();
  const witness = new Map();
  for (const module of modules) {
    const from = nodeOf(module.source);
    if (!from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    for (const dep of module.dependencies) {
      const to = nodeOf(dep.resolved);
      if (!to || to === from || !dep.resolved.startsWith(from.replace(/src\/.*$/, "src/"))) continue;
      edges.get(from).add(to);
      if (!edges.has(to)) edges.set(to, new Set());
      const key = `${from}\0${to}`;
      if (!witness.has(key)) witness.set(key, `${module.source} -> ${dep.resolved}`);
    }
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  // Iterative Tarjan: the graph is small, but no recursion depth should depend on input size.
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work = [[root, [...edges.get(root)], 0]];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [v, succ] = frame;
      if (frame[2] < succ.length) {
        const w = succ[frame[2]++];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, [...edges.get(w)], 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1) {
          const nodes = component.sort();
          const inside = new Set(nodes);
          const witnesses = [...witness]
            .filter(([key]) => {
              const [a, b] = key.split("\0");
              return inside.has(a) && inside.has(b);
            })
            .map(([, text]) => text);
          found.push({ nodes, witnesses });
        }
      }
    }
  }
  return found;
}
