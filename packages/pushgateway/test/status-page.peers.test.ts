// The status page in a real browser: Debian's chromium, headless, driven by playwright-core (which drives the
// installed browser and downloads nothing). Each run takes screenshots in a temporary directory, removed
// afterwards unless PUSHGATEWAY_KEEP_SHOTS is set (then the run names it).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { startGateway, stopAll } from "./support/processes.js";

const CHROMIUM = process.env.PUSHGATEWAY_TEST_CHROMIUM ?? "/usr/bin/chromium";
const DEADLINE_MS = 20_000;

let browser: Browser | undefined;
let shots: string;

before(async () => {
  shots = await mkdtemp(join(tmpdir(), "pg-status-page-"));
  try {
    // Running as root in CI needs --no-sandbox; headless, no window.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--headless"],
      timeout: 60_000,
    });
  } catch (e) {
    throw new Error(
      `Cannot start ${CHROMIUM}: ${(e as Error).message} (install Debian's chromium, as .ci/run does)`,
      {
        cause: e,
      },
    );
  }
});

after(async () => {
  // Playwright kills the browser process on close; the deadline keeps a wedged browser from holding the file.
  await Promise.race([browser?.close(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  await stopAll();
  if (process.env.PUSHGATEWAY_KEEP_SHOTS === undefined) await rm(shots, { recursive: true, force: true });
});

async function push(base: string, path: string, body: string): Promise<void> {
  const response = await fetch(`${base}${path}`, { method: "PUT", body });
  assert.equal(response.status, 200, await response.text());
}

/** A page that records script errors and failed requests (a CSP violation or a 404 asset shows up here). */
async function openPage(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await (browser as Browser).newPage();
  page.setDefaultTimeout(DEADLINE_MS);
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(url);
  return { page, problems };
}

async function scrape(url: string): Promise<string> {
  return (await fetch(url)).text();
}

for (const prefix of ["", "/pg"]) {
  test(`open, expand a group, delete it with the confirmation, gone from /metrics (route prefix "${prefix}")`, async () => {
    const { base } = await startGateway(prefix === "" ? [] : [`--web.route-prefix=${prefix}`]);
    const root = `${base}${prefix}`;
    await push(
      root,
      "/metrics/job/nightly/instance/db1",
      "# TYPE backup_bytes gauge\nbackup_bytes 1.5e+09\n",
    );
    await push(root, "/metrics/job/hourly", "# TYPE rotated_files counter\nrotated_files 12\n");
    assert.match(await scrape(`${root}/metrics`), /backup_bytes\{instance="db1",job="nightly"\} 1\.5e\+09/);

    const { page, problems } = await openPage(`${root}/`);
    // The stylesheet came from static/ under the prefix: the page is styled.
    // A string, evaluated in the page: this package's TypeScript has no DOM types.
    const background = await page.evaluate("getComputedStyle(document.documentElement).backgroundColor");
    assert.equal(background, "rgb(245, 246, 248)");

    const group = page.locator("section.group", { hasText: 'job="nightly"' });
    const sample = group.locator(".sample", { hasText: "backup_bytes" });
    assert.equal(await sample.isVisible(), false, "collapsed at first");
    await group.locator("summary").click();
    await sample.waitFor({ state: "visible" });
    assert.equal(
      (await sample.innerText()).trim(),
      'backup_bytes{instance="db1",job="nightly"} 1.5e+09',
      "the sample as the text format prints it",
    );
    await page.screenshot({ path: join(shots, `expanded${prefix.replace("/", "-")}.png`), fullPage: true });

    await group.getByRole("button", { name: "Delete Group" }).click();
    const dialog = page.locator("dialog#confirm");
    await dialog.waitFor({ state: "visible" });
    assert.match(await dialog.innerText(), /job="nightly", instance="db1"/);
    await page.screenshot({ path: join(shots, `confirm${prefix.replace("/", "-")}.png`) });
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await group.waitFor({ state: "detached" });
    assert.equal(await page.locator("#group-count").innerText(), "1 group");
    await page.screenshot({ path: join(shots, `deleted${prefix.replace("/", "-")}.png`), fullPage: true });

    const exposition = await scrape(`${root}/metrics`);
    assert.doesNotMatch(exposition, /backup_bytes/);
    assert.match(exposition, /rotated_files\{instance="",job="hourly"\} 12/);
    // After a reload the group stays gone (the gateway deleted it, not just the page).
    await page.reload();
    assert.equal(await page.locator("section.group", { hasText: 'job="nightly"' }).count(), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("Cancel keeps the group; the filter, TTL countdown, failure time in red, status tab and wipe work", async (t) => {
  const { base } = await startGateway(["--web.enable-admin-api", "--push.group-ttl=1h"]);
  await push(base, "/metrics/job/alpha/env/prod", "a_metric 1\n");
  await push(base, "/metrics/job/beta/env/test", "b_metric 2\n");
  // A push with a timestamp fails: beta's failure time is set.
  await fetch(`${base}/metrics/job/beta/env/test`, { method: "PUT", body: "b_metric 2 1000\n" });

  const { page, problems } = await openPage(`${base}/`);
  t.diagnostic(`screenshots in ${shots}`);
  const beta = page.locator("section.group", { hasText: 'job="beta"' });
  const failure = beta.locator(".failure time");
  assert.match(await failure.innerText(), /^\d{4}-\d\d-\d\dT/);
  assert.equal(
    await page.evaluate(
      `getComputedStyle(document.querySelector("section.group.failed .failure time")).color`,
    ),
    "rgb(198, 40, 40)",
  );
  assert.match(await beta.locator(".ttl").innerText(), /TTL left 59 min \d+ s/);
  assert.match(await beta.locator("summary .pushed .ago").innerText(), /^\(\d+ s ago\)$/);

  await beta.locator("summary").click();
  await page.screenshot({ path: join(shots, "failed-push-and-ttl.png"), fullPage: true });

  // Cancel leaves everything as it was.
  await beta.getByRole("button", { name: "Delete Group" }).click();
  await page.locator("dialog#confirm").getByRole("button", { name: "Cancel" }).click();
  assert.equal(await page.locator("section.group").count(), 2);
  assert.match(await scrape(`${base}/metrics`), /b_metric/);

  // The live filter hides groups as one types and keeps the filter in the address.
  await page.locator("#filter").fill('env=~"pro.*"');
  assert.equal(await beta.isVisible(), false);
  assert.equal(await page.locator("section.group", { hasText: 'job="alpha"' }).isVisible(), true);
  assert.equal(await page.locator("#group-count").innerText(), "1 of 2 groups");
  assert.match(page.url(), /\?filter=env%3D%7E%22pro\.\*%22$/);
  await page.screenshot({ path: join(shots, "filtered.png"), fullPage: true });
  // The live filter and the server's ?filter= agree.
  for (const filter of ["env=prod", 'job!="alpha"', "job=~.*a", "TEST", 'env!~"p.*" job=beta', "nomatch"]) {
    await page.locator("#filter").fill(filter);
    const live = await page.locator("section.group:visible .label-job").allInnerTexts();
    const served = await (await fetch(`${base}/?filter=${encodeURIComponent(filter)}`)).text();
    const expected = [...served.matchAll(/label-job">(job=&quot;|job=")(\w+)/g)].map((m) => `job="${m[2]}"`);
    assert.deepEqual(live, expected, filter);
  }
  await page.locator("#filter").fill("");

  await page.getByRole("link", { name: "Status" }).click();
  const status = page.locator("section#status");
  await status.waitFor({ state: "visible" });
  assert.equal(await page.locator("section#metrics").isVisible(), false);
  assert.match(await status.innerText(), /web\.enable-admin-api\s+true/);
  assert.match(await status.innerText(), /push\.group-ttl\s+1h0m0s/);
  await page.screenshot({ path: join(shots, "status.png"), fullPage: true });
  await page.getByRole("link", { name: "Metrics" }).click();

  await page.getByRole("button", { name: /Delete All 2 Groups/ }).click();
  await page.locator("dialog#confirm").getByRole("button", { name: "Delete", exact: true }).click();
  await page.locator("section.group").first().waitFor({ state: "detached" });
  assert.equal(await page.locator("#group-count").innerText(), "0 groups");
  const exposition = await scrape(`${base}/metrics`);
  assert.doesNotMatch(exposition, /a_metric|b_metric/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("without JavaScript the listing is complete: groups, samples and values are in the page", async () => {
  const { base } = await startGateway();
  await push(base, "/metrics/job/plain", "# TYPE jobs_done counter\njobs_done 7\n");
  const context = await (browser as Browser).newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(DEADLINE_MS);
    await page.goto(`${base}/?filter=job%3Dplain`);
    const group = page.locator("section.group", { hasText: 'job="plain"' });
    await group.locator("summary").click();
    assert.equal(
      (await group.locator(".sample", { hasText: "jobs_done" }).innerText()).trim(),
      'jobs_done{instance="",job="plain"} 7',
    );
    assert.equal(await page.locator("#group-count").innerText(), "1 group");
    await page.screenshot({ path: join(shots, "no-javascript.png"), fullPage: true });
  } finally {
    await context.close();
  }
});

test("the selector field loads a match[] selection and Delete N Selected Groups deletes exactly it", async () => {
  const { base } = await startGateway(["--web.enable-admin-api"]);
  for (const path of ["/metrics/job/batch-1", "/metrics/job/batch-2/instance/x", "/metrics/job/web"])
    await push(base, path, "# TYPE m gauge\nm 1\n");
  const { page, problems } = await openPage(`${base}/`);
  await page.locator("#match").fill('{job=~"batch-.*"}');
  await page.getByRole("button", { name: "Filter" }).click();
  await page.locator("#selection").waitFor({ state: "visible" });
  assert.equal(new URL(page.url()).searchParams.get("match[]"), '{job=~"batch-.*"}');
  assert.equal(await page.locator("section.group").count(), 2);
  assert.equal(await page.locator("#group-count").innerText(), "2 groups");
  await page.screenshot({ path: join(shots, "selected.png"), fullPage: true });
  await page.getByRole("button", { name: "Delete 2 Selected Groups" }).click();
  const dialog = page.locator("dialog#confirm");
  await dialog.waitFor({ state: "visible" });
  assert.match(await dialog.innerText(), /Delete the 2 groups selected by the selector\?/);
  await dialog.getByRole("button", { name: "Delete", exact: true }).click();
  await page.locator("section.group").first().waitFor({ state: "detached" });
  assert.equal(await page.locator("section.group").count(), 0);
  const left = (await (await fetch(`${base}/api/v1/groups`)).json()) as {
    data: { labels: { job: string } }[];
  };
  assert.deepEqual(
    left.data.map((g) => g.labels.job),
    ["web"],
  );
  assert.deepEqual(problems, []);
  await page.close();
});
