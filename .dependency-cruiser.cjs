// Import rules checked by `npm run lint` (ARCHITECTURE.md "Import rules"): no import cycle inside a package, and
// no package reaching into another one's files. A package may use another only through its name and declared
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
    exclude: { path: ["/dist/", "/test/fixtures/", "node_modules"] },
    tsConfig: { fileName: "tsconfig.base.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
    builtInModules: { add: ["node:test", "node:sqlite"] },
  },
};
