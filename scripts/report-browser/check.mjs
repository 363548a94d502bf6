// Opens one `opguard report` page in headless chromium and checks what a
// reader sees against `opguard inspect --json` of the same traces (the
// figures come from the analyses, the page from the renderer: the check
// holds one against the other). Fails on any console message of level
// error, any page error, and any request that leaves the file.
//
// usage: node check.mjs PAGE.html INSPECT.json SCREENSHOT.png
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [page_path, inspect_path, screenshot] = process.argv.slice(2);
if (!screenshot) {
  console.error('usage: node check.mjs PAGE.html INSPECT.json SCREENSHOT.png');
  process.exit(64);
}
const expected = JSON.parse(readFileSync(inspect_path, 'utf8'));
const failures = [];
const fail = (msg) => failures.push(msg);

// The network is closed here and a report must not need it anyway.
const profile = mkdtempSync(join(tmpdir(), 'opguard-report-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1200, height: 900 },
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') fail(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => fail(`page error: ${e.message}`));
  const url = pathToFileURL(resolve(page_path)).href;
  page.on('request', (r) => {
    if (r.url() !== url && !r.url().startsWith('data:')) fail(`request left the page: ${r.url()}`);
  });
  await page.goto(url, { waitUntil: 'load' });

  const seen = await page.evaluate(() => {
    const text = (el) => (el ? el.textContent : '');
    return {
      scripts: document.scripts.length,
      user_select: getComputedStyle(document.body).userSelect,
      artifacts: [...document.querySelectorAll('section.artifact')].map((s) => ({
        title: text(s.querySelector('h2')),
        text: s.textContent,
        timeline_lanes: s.querySelectorAll('svg.timeline g.lane').length,
        busy_rects: s.querySelectorAll('svg.timeline rect.busy').length,
        bars: [...s.querySelectorAll('svg.bars rect.bar')].map((r) => r.getBBox().width),
        bar_kinds: [...s.querySelectorAll('svg.bars rect.bar')].map((r) => r.getAttribute('class')),
        profile_names: [...s.querySelectorAll('table.profile tbody tr')].map(
          (tr) => tr.querySelectorAll('td.name')[0].textContent),
        coverage: s.querySelectorAll('svg.coverage rect.cov-part').length,
      })),
      alignment: text(document.querySelector('#alignment')),
      verdict: text(document.querySelector('#seam-verdict .verdict')),
    };
  });

  if (seen.scripts !== 0) fail(`${seen.scripts} script elements in the page`);
  if (seen.user_select === 'none') fail('text is not selectable');
  if (seen.artifacts.length !== expected.traces.length) {
    fail(`${seen.artifacts.length} trace sections, inspect read ${expected.traces.length} traces`);
  }
  expected.traces.forEach((t, i) => {
    const a = seen.artifacts[i];
    if (!a) return;
    const where = `trace ${t.file}`;
    if (a.title !== t.file) fail(`${where}: section titled ${JSON.stringify(a.title)}`);
    if (!a.text.includes(t.launches.artifact)) fail(`${where}: artifact digest missing`);
    // The timeline: one lane per host thread and stream (up to 48).
    const lanes = t.launches.launch_gaps.length + t.launches.streams.length;
    if (t.launches.region_duration_ns !== null) {
      if (a.timeline_lanes !== Math.min(lanes, 48)) fail(`${where}: ${a.timeline_lanes} lanes, want ${lanes}`);
      if (a.busy_rects === 0) fail(`${where}: the timeline draws no activity`);
    }
    // The Top-N: every row, by name, with a bar whose length is its share.
    const rows = t.profile.rows;
    if (a.bars.length !== rows.length) fail(`${where}: ${a.bars.length} bars for ${rows.length} rows`);
    if (JSON.stringify(a.profile_names) !== JSON.stringify(rows.map((r) => r.name))) {
      fail(`${where}: profile names differ: ${JSON.stringify(a.profile_names)}`);
    }
    rows.forEach((r, j) => {
      if (!a.bar_kinds[j]?.split(' ').includes(`kind-${r.entity_kind}`)) {
        fail(`${where}: bar ${j + 1} is not drawn as ${r.entity_kind}`);
      }
      if (!a.text.includes(r.short_name)) fail(`${where}: ${r.short_name} missing`);
      const want = (r.total_device_ns / rows[0].total_device_ns) * a.bars[0];
      if (Math.abs(a.bars[j] - want) > 0.01) {
        fail(`${where}: bar ${j + 1} is ${a.bars[j]} px, its share of the first gives ${want}`);
      }
    });
    if (a.coverage !== 4) fail(`${where}: coverage chart has ${a.coverage} bars`);
  });
  if (expected.alignment) {
    const [l, r] = expected.alignment.files;
    if (!seen.alignment.includes(`${l} vs ${r}`)) fail('alignment section missing');
    if (expected.alignment.pairs !== null && !seen.alignment.includes(`${expected.alignment.pairs}`)) {
      fail('alignment pairs missing');
    }
  }
  if (expected.seam_verdict) {
    const want = expected.seam_verdict.ok ? 'passed' : 'refused';
    if (seen.verdict !== want) fail(`seam verdict shows ${JSON.stringify(seen.verdict)}, want ${want}`);
  }
  await page.screenshot({ path: screenshot, fullPage: true });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${page_path}: ${f}`);
  process.exit(1);
}
console.log(`ok ${page_path} (screenshot ${screenshot})`);
