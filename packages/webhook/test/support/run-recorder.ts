// The command both servers run in the parity suites: each run appends one JSON line (argv, environment, files passed,
// working directory, stdin) to $REC_DIR/<name>.jsonl with the side's own directories ($SIDE_DIR, $WD_DIR) replaced,
// so the peer's and our runs compare as text. The variables both sides set themselves are left out.

/** The recorder module (CommonJS): `require(<file>)(name, { exit, stderr })` records the run and exits. */
export const RUN_RECORDER = `const fs = require("fs"), path = require("path");
const BASE = ["PATH", "REC_DIR", "SIDE_DIR", "WD_DIR", "TMPDIR", "TPL_TOKEN", "TPL_PLAIN"];
module.exports = function record(name, opts) {
  const side = process.env.SIDE_DIR, wd = process.env.WD_DIR;
  const norm = (s) => s.split(side).join("<side>").split(wd).join("<wd>");
  const env = {}, files = {}, paths = [];
  for (const k of Object.keys(process.env).sort()) {
    if (BASE.includes(k)) continue;
    const v = process.env[k];
    let isFile = false;
    try { isFile = path.isAbsolute(v) && fs.statSync(v).isFile(); } catch {}
    if (isFile) {
      files[k] = { dir: norm(path.dirname(v)), base: path.basename(v).replace(/[0-9]+$/, "#"), content: fs.readFileSync(v).toString("base64") };
      paths.push(v);
      env[k] = "<file>";
    } else env[k] = norm(v);
  }
  let stdin;
  try { stdin = fs.readFileSync(0).toString(); } catch (e) { stdin = "<" + e.code + ">"; }
  const entry = { args: process.argv.slice(2).map(norm), env, files, cwd: norm(process.cwd()), stdin };
  fs.appendFileSync(path.join(process.env.REC_DIR, name + ".jsonl"), JSON.stringify({ ...entry, paths }) + "\\n");
  process.stdout.write("ran " + name + " " + JSON.stringify(entry.args) + "\\n");
  if (opts.stderr) setTimeout(() => { process.stderr.write("to stderr\\n"); process.exit(opts.exit || 0); }, 150);
  else process.exit(opts.exit || 0);
};
`;
