// Import rules checked by `npm run lint` (ARCHITECTURE.md "Import rules"): no import cycle inside a package, no
// folder of a package's src/ importing back into a folder that imports it (layers), and no package reaching into
// another one's files. A package may use another only through its name and declared
// exports (a workspace dependency in its package.json), never by a relative path.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle: split out the shared part (a module both can import) instead",
      from: {},
      to: { circular: true },
    },
    {
      // Layers: a folder of src/ never imports back into a folder that imports it, even when no module cycle
      // exists (denoland/std's _tools/check_circular_submodule_dependencies.ts is the model; issue 31 item 6).
      // Unit tests beside their modules (src/**/*.test.ts) are not cruised (options.exclude): they import
      // test/support, which imports src/, and would make every folder look like a cycle. Nothing imports a test,
      // so no module cycle can run through one, and tsc resolves their imports.
      // This rule cannot see a cycle through a file directly in src/ (dependency-cruiser puts such a file into the
      // folder src/, which contains all the others): scripts/check-imports.mjs, which runs this configuration for
      // `npm run lint:imports`, checks those over the same graph, each such file a node of its own.
      name: "no-folder-cycle",
      severity: "error",
      scope: "folder",
      comment: "A folder imports back into a folder that imports it: move the shared part down a layer",
      from: { path: "^packages/[^/]+/src(/|$)" },
      to: { path: "^packages/[^/]+/src(/|$)", circular: true },
    },
    {
      // Folder rules do not see a file directly in src/ (its folder contains every other one), so those files
      // are held to being the base layer: they import no folder of src/. The composition root (cli.ts, main.ts,
      // command-table.ts, and a package's top-level entry points) is the exception: it is the layer above all.
      name: "toolmgr-base-imports-no-folder",
      severity: "error",
      comment:
        "A file directly in src/ is the base layer: move it into the folder it belongs to, or move what it imports down",
      from: {
        path: "^packages/toolmgr/src/[^/]+[.]ts$",
        pathNot: "^packages/toolmgr/src/(cli|main|command-table)[.]ts$|[.]test[.]ts$",
      },
      to: { path: "^packages/toolmgr/src/[^/]+/" },
    },
    {
      name: "no-cross-package-path",
      severity: "error",
      comment:
        "One package imports another's file by path: depend on the package by name and use its declared exports",
      from: { path: "^packages/([^/]+)/" },
      to: {
        path: "^packages/([^/]+)/",
        pathNot: ["^packages/$1/", "node_modules"],
        dependencyTypesNot: ["aliased-workspace"],
      },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that does not resolve",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["/dist/", "/test/fixtures/", "node_modules", "/src/.*[.]test[.]ts$"] },
    tsConfig: { fileName: "tsconfig.base.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
    builtInModules: { add: ["node:test", "node:sqlite"] },
  },
};
