import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MultipartError } from "../errors.js";
import { readFormFile, readMultipartForm, removeFormFiles } from "./multipart-form.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "webhook-multipart-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = (body: string, options: { maxMemory?: number; contentType?: string } = {}) =>
  readMultipartForm(Buffer.from(body, "latin1"), {
    contentType: options.contentType ?? "multipart/form-data; boundary=xxx",
    maxMemory: options.maxMemory ?? 1 << 20,
    tempDir: dir,
  });

test("CRLF and bare-LF bodies give the same form", async () => {
  const crlf = await read('--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\nv1\r\n--xxx--\r\n');
  const lf = await read('--xxx\nContent-Disposition: form-data; name="a"\n\nv1\n--xxx--\n');
  assert.deepEqual(crlf.values.get("a"), ["v1"]);
  assert.deepEqual(lf.values.get("a"), ["v1"]);
});

test("in CRLF mode a bare-LF boundary is body text, and the reverse keeps the CR", async () => {
  const crlf = await read('--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\nv1\n--xxx\r\n--xxx--');
  assert.deepEqual(crlf.values.get("a"), ["v1\n--xxx"]);
  const lf = await read('--xxx\nContent-Disposition: form-data; name="a"\n\nv1\r\n--xxx--');
  assert.deepEqual(lf.values.get("a"), ["v1\r"]);
});

test("a boundary followed by other text does not end the part", async () => {
  const form = await read(
    '--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\nv1\r\n--xxx-x\r\n--xxx--',
  );
  assert.deepEqual(form.values.get("a"), ["v1\r\n--xxx-x"]);
});

test("the preamble is skipped, folded headers are joined, quoted-printable is decoded", async () => {
  const form = await read(
    'pre\r\n--xxx \t\r\nContent-Disposition: form-data;\r\n name="a"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nv=31=\r\nx=3\r\n--xxx--',
  );
  assert.deepEqual(form.values.get("a"), ["v1x=3"]);
});

test("Go's refusals: missing colon, leading white space, truncated body, long preamble line, text after the end", async () => {
  const cases: [string, RegExp][] = [
    ["--xxx\r\nnocolon\r\n\r\nv\r\n--xxx--", /missing colon: "nocolon"/],
    ['--xxx\r\n\tContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--xxx--', /initial line/],
    ['--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\nv1', /unexpected EOF/],
    [`${"a".repeat(5000)}\r\n--xxx--`, /buffer full/],
    ['--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\nv1\r\n--xxx--garbage', /NextPart: EOF/],
    ["", /NextPart: EOF/],
  ];
  for (const [body, message] of cases)
    await assert.rejects(read(body), (e) => e instanceof MultipartError && message.test(e.message));
  await assert.rejects(read("--xxx--", { contentType: "multipart/form-data; x=y" }), /no multipart boundary/);
  await assert.rejects(
    read("--xxx--", { contentType: "multipart/form-data; boundary=a; boundary=b" }),
    /isn't multipart/,
  );
});

test("a header cut off by the end of the body ends the form, keeping the parts before it", async () => {
  const form = await read(
    '--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\nv1\r\n--xxx\r\nContent-Disposition: form-data; name="g"',
  );
  assert.deepEqual([...form.values.keys()], ["a"]);
});

test("file parts past -max-multipart-mem go to a temporary file, removed by removeFormFiles", async () => {
  const body =
    '--xxx\r\nContent-Disposition: form-data; name="small"; filename="s"\r\n\r\n0123\r\n' +
    '--xxx\r\nContent-Disposition: form-data; name="big"; filename="b"\r\nContent-Type: application/json\r\n\r\n{"x":"0123456789"}\r\n--xxx--';
  const form = await read(body, { maxMemory: 10 });
  const small = form.files.get("small")?.[0];
  const big = form.files.get("big")?.[0];
  assert.equal(small?.content?.toString(), "0123");
  assert.equal(small?.tmpfile, undefined);
  assert.match(big?.tmpfile ?? "", /multipart-\d+$/);
  assert.deepEqual(big?.header.get("Content-Type"), ["application/json"]);
  assert.equal(
    (await readFormFile(big ?? { filename: "", header: new Map(), size: 0 })).toString(),
    '{"x":"0123456789"}',
  );
  assert.equal((await readdir(dir)).length, 1);
  await removeFormFiles(form);
  assert.deepEqual(await readdir(dir), []);
});

test("values beyond -max-multipart-mem + 10 MiB are too large; temporary files are removed on failure", async () => {
  const big = "v".repeat(10 * 1024 * 1024);
  const body =
    '--xxx\r\nContent-Disposition: form-data; name="f"; filename="f"\r\n\r\n0123456789\r\n' +
    `--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\n${big}\r\n--xxx--`;
  await assert.rejects(read(body, { maxMemory: 5 }), /multipart: message too large/);
  assert.deepEqual(await readdir(dir), []);
  // Within the budget it is read.
  const form = await read(
    `--xxx\r\nContent-Disposition: form-data; name="a"\r\n\r\n${"v".repeat(1000)}\r\n--xxx--`,
    { maxMemory: 5 },
  );
  assert.equal(form.values.get("a")?.[0]?.length, 1000);
});

test("parts without a form-data name are skipped; a filename makes a file part", async () => {
  const form = await read(
    '--xxx\r\nContent-Disposition: attachment; name="x"\r\n\r\nv\r\n' +
      '--xxx\r\nContent-Disposition : form-data; name="y"\r\n\r\nv\r\n' +
      '--xxx\r\nContent-Disposition: form-data; name="f"; filename="../a/b.txt"\r\n\r\nfile\r\n--xxx--',
  );
  assert.deepEqual([...form.values.keys()], []);
  assert.equal(form.files.get("f")?.[0]?.content?.toString(), "file");
});
