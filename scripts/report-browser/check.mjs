// Opens one `opguard report` page in headless chromium and checks what a
// reader sees against `opguard inspect --json` of the same traces (the
// figures come from the analyses, the page from the renderer: the check
// holds one against the other). Fails on any console message of level
// error, any page error, and any request that leaves the file.
//
// usage: node check.mjs PAGE.html INSPECT.json SCREENSHOT.png
//        node check.mjs PAGE.html JOB.json SCREENSHOT.png   (a page of `--job JOB.json`)
//        node check.mjs PAGE.html CMP.json SCREENSHOT.png   (a page of `--compare CMP.json`)
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
        lanes_by_kind: Object.fromEntries(['device', 'comm', 'host', 'stream', 'hostwork'].map(
          (k) => [k, s.querySelectorAll(`svg.timeline g.lane.${k}`).length])),
        device_lanes: [...s.querySelectorAll('svg.timeline g.lane.device')].map((g) => ({
          label: text(g.querySelector('text')),
          painted: [...g.querySelectorAll('rect.busy')].reduce((w, r) => w + r.getBBox().width, 0),
          plot: g.querySelector('rect.lane-bg').getBBox().width,
        })),
        comm_exposed: s.querySelectorAll('svg.timeline rect.busy.comm').length,
        comm_overlapped: s.querySelectorAll('svg.timeline rect.overlapped.comm').length,
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
  if (expected.format === 'opguard.job/v1') {
    await checkJob(page, expected);
  } else if (expected.format === 'opguard.compare/v1') {
    await checkCompare(page, expected);
  } else {
    checkTraces(seen, expected);
  }
  await page.screenshot({ path: screenshot, fullPage: true });
  await checkFileNamesWrapBetweenFolders(page);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${page_path}: ${f}`);
  process.exit(1);
}
console.log(`ok ${page_path} (screenshot ${screenshot})`);

// A job page against the job document it was drawn from (`opguard job
// --json`): the ranks listed, and for each drawn frame one dot per rank
// whose rendered centre sits at its cost's share of the row's slowest rank,
// the slowest rank's dot marked, the median's tick, the frame's name.
async function checkJob(page, job) {
  const seen = await page.evaluate(() => {
    const s = document.querySelector('#job');
    if (!s) return null;
    const centre = (el) => {
      const b = el.getBBox();
      return b.x + b.width / 2;
    };
    return {
      title: s.querySelector('h2').textContent,
      ranks: [...s.querySelectorAll('table.ranks tbody tr')].map((tr) => tr.children[0].textContent),
      rows: [...s.querySelectorAll('svg.strips g.strip-row')].map((g) => {
        const axis = g.querySelector('line.strip-axis');
        return {
          x0: axis.x1.baseVal.value,
          x1: axis.x2.baseVal.value,
          median: g.querySelector('line.median').x1.baseVal.value,
          dots: [...g.querySelectorAll('circle.rank')].map((c) => ({
            x: centre(c),
            slowest: c.classList.contains('slowest'),
            title: c.querySelector('title').textContent,
          })),
        };
      }),
      names: [...s.querySelectorAll('table.frames tbody tr')].map((tr) => tr.querySelector('td.name').textContent),
    };
  });
  if (!seen) {
    fail('no job section');
    return;
  }
  if (seen.title !== `Job: ${job.ranks.length} ranks`) fail(`job titled ${JSON.stringify(seen.title)}`);
  const ranks = job.ranks.slice(0, 50).map((r) => (r.rank === null ? '-' : String(r.rank)));
  if (JSON.stringify(seen.ranks) !== JSON.stringify(ranks)) fail(`ranks listed ${JSON.stringify(seen.ranks)}`);
  const frames = job.frames.slice(0, 20);
  if (seen.rows.length !== frames.length) fail(`${seen.rows.length} strips for ${frames.length} frames`);
  if (JSON.stringify(seen.names) !== JSON.stringify(frames.map((f) => f.name))) {
    fail(`frame names differ: ${JSON.stringify(seen.names)}`);
  }
  frames.forEach((f, i) => {
    const row = seen.rows[i];
    if (!row) return;
    const at = (ns) => row.x0 + (ns / f.max_ns) * (row.x1 - row.x0);
    if (row.dots.length !== f.per_rank.length) fail(`${f.name}: ${row.dots.length} dots, ${f.per_rank.length} ranks`);
    f.per_rank.forEach((c, j) => {
      const dot = row.dots[j];
      if (!dot) return;
      if (Math.abs(dot.x - at(c.cost_ns)) > 0.01) fail(`${f.name}: rank ${c.rank} drawn at ${dot.x}, want ${at(c.cost_ns)}`);
      if (dot.slowest !== (c.rank === f.slowest_rank)) fail(`${f.name}: rank ${c.rank} slowest mark is ${dot.slowest}`);
    });
    if (Math.abs(row.median - at(f.median_ns)) > 0.01) fail(`${f.name}: median at ${row.median}, want ${at(f.median_ns)}`);
  });
}

// File names (table cells of class `file`, the section headings) wrap only
// after a `/` or at a space, never inside a name — unless that one name is
// wider than the element's line and must break somewhere: checked on a
// narrow page, where long paths must wrap, by the rendered line and width of
// every character.
async function checkFileNamesWrapBetweenFolders(page) {
  await page.setViewportSize({ width: 520, height: 900 });
  const cells = await page.evaluate(() => [...document.querySelectorAll('td.file, h2')].map((el) => {
    const range = document.createRange();
    const chars = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (let i = 0; i < n.length; i += 1) {
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const box = range.getClientRects()[0];
        if (box) chars.push({ ch: n.data[i], top: box.top, width: box.width });
      }
    }
    const style = getComputedStyle(el);
    const line = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const separator = (ch) => ch === '/' || /\s/.test(ch);
    // The width of the name (between separators) that character i is in.
    const nameWidth = (i) => {
      let from = i;
      while (from > 0 && !separator(chars[from - 1].ch)) from -= 1;
      let to = i;
      while (to < chars.length && !separator(chars[to].ch)) to += 1;
      return chars.slice(from, to).reduce((sum, c) => sum + c.width, 0);
    };
    const breaks = [];
    for (let i = 1; i < chars.length; i += 1) {
      if (chars[i].top > chars[i - 1].top + 2) {
        breaks.push([chars[i - 1].ch, chars[i].ch, nameWidth(i) > line]);
      }
    }
    return { file: el.matches('td.file'), text: el.textContent, breaks };
  }));
  let wrapped = 0;
  for (const c of cells) {
    if (c.breaks.length > 0 && c.file) wrapped += 1;
    for (const [before, after, wider] of c.breaks) {
      if (before !== '/' && !/\s/.test(before) && !/\s/.test(after) && !wider) {
        fail(`${JSON.stringify(c.text)} wraps inside a name, between ${JSON.stringify(before)} and ${JSON.stringify(after)}`);
      }
    }
  }
  // A page with a long path in a table must have wrapped it: the check saw a wrap.
  if (cells.some((c) => c.file && c.text.length > 60) && wrapped === 0) fail('no file cell wrapped on a narrow page');
}

// A comparison page against the comparison it was drawn from (`opguard
// compare --json`): the gate's status, then per entity that took time (in
// the document's order: regressions first) a baseline and a candidate
// strip, one dot per sample whose rendered centre sits at its share of the
// entity's largest sample, candidate dots red exactly when it regressed.
async function checkCompare(page, cmp) {
  const seen = await page.evaluate(() => {
    const s = document.querySelector('#compare');
    if (!s) return null;
    const centre = (el) => {
      const b = el.getBBox();
      return b.x + b.width / 2;
    };
    const svg = s.querySelector('svg.compare');
    return {
      gate: s.querySelector('.verdict').textContent,
      rows: svg ? [...svg.querySelectorAll('g.compare-row')].map((g) => {
        const axis = g.querySelector('line.strip-axis');
        return {
          name: g.querySelector('title').textContent,
          x0: axis.x1.baseVal.value,
          x1: axis.x2.baseVal.value,
          base: [...g.querySelectorAll('circle.base')].map(centre),
          cand: [...g.querySelectorAll('circle.cand')].map(centre),
          red: g.querySelectorAll('circle.cand.regressed').length,
        };
      }) : [],
    };
  });
  if (!seen) {
    fail('no compare section');
    return;
  }
  if (seen.gate !== `gate ${cmp.gate.status}`) fail(`gate shown as ${JSON.stringify(seen.gate)}`);
  const drawn = cmp.entities
    .filter((e) => (e.baseline.median_ns ?? 0) > 0 || (e.candidate.median_ns ?? 0) > 0)
    .slice(0, 20);
  if (seen.rows.length !== drawn.length) fail(`${seen.rows.length} rows for ${drawn.length} entities`);
  drawn.forEach((e, i) => {
    const row = seen.rows[i];
    if (!row) return;
    if (row.name !== e.name) fail(`row ${i} is ${row.name}, want ${e.name}`);
    const max = Math.max(1, ...e.baseline.samples_ns, ...e.candidate.samples_ns);
    const at = (ns) => row.x0 + (ns / max) * (row.x1 - row.x0);
    for (const [side, xs] of [['baseline', row.base], ['candidate', row.cand]]) {
      const ns = e[side].samples_ns;
      if (xs.length !== ns.length) fail(`${e.name}: ${xs.length} ${side} dots, ${ns.length} samples`);
      ns.forEach((v, j) => {
        if (Math.abs(xs[j] - at(v)) > 0.01) fail(`${e.name}: ${side} sample ${j} at ${xs[j]}, want ${at(v)}`);
      });
    }
    const red = e.verdict === 'regressed' ? e.candidate.samples_ns.length : 0;
    if (row.red !== red) fail(`${e.name}: ${row.red} red dots, verdict ${e.verdict}`);
  });
}

function checkTraces(seen, expected) {
  if (seen.artifacts.length !== expected.traces.length) {
    fail(`${seen.artifacts.length} trace sections, inspect read ${expected.traces.length} traces`);
  }
  expected.traces.forEach((t, i) => {
    const a = seen.artifacts[i];
    if (!a) return;
    const where = `trace ${t.file}`;
    if (a.title !== t.file) fail(`${where}: section titled ${JSON.stringify(a.title)}`);
    if (!a.text.includes(t.launches.artifact)) fail(`${where}: artifact digest missing`);
    // The timeline: per device a busy lane and, when it ran collectives, a
    // communication lane; then one lane per host thread and stream (up to
    // 48 lanes in all, device lanes always drawn).
    const L = t.launches;
    const region = L.region_duration_ns;
    if (region !== null) {
      const devices = L.devices.length;
      const comm = L.devices.filter((d) => d.communication.kernel_count > 0).length;
      const others = Math.min(L.launch_gaps.length + L.streams.length, 48 - devices - comm);
      const k = a.lanes_by_kind;
      if (k.device !== devices) fail(`${where}: ${k.device} device lanes, want ${devices}`);
      if (k.comm !== comm) fail(`${where}: ${k.comm} communication lanes, want ${comm}`);
      if (k.host + k.stream !== others) fail(`${where}: ${k.host + k.stream} host and stream lanes, want ${others}`);
      if (a.busy_rects === 0) fail(`${where}: the timeline draws no activity`);
      // A device lane paints every column its busy time touches: at least
      // its share of the plot.
      a.device_lanes.forEach((lane, j) => {
        const share = (L.devices[j].busy_ns / region) * lane.plot;
        if (lane.painted + 1e-6 < Math.floor(share)) {
          fail(`${where}: ${lane.label} paints ${lane.painted} px for ${share} px of busy time`);
        }
      });
      if (L.communication.exposed_ns > 0 && a.comm_exposed === 0) fail(`${where}: exposed communication not drawn`);
      if (L.communication.overlapped_with_compute_ns > 0 && a.comm_overlapped === 0) {
        fail(`${where}: overlapped communication not drawn`);
      }
    } else if (t.profile.host && t.profile.host.operations > 0) {
      // No device work: the host threads' activity is drawn instead.
      if (a.lanes_by_kind.hostwork === 0) fail(`${where}: a host-only capture draws no host lanes`);
      if (a.text.includes('nothing to draw')) fail(`${where}: says nothing to draw`);
    }
    // The Top-N: every row, by name, with a bar whose length is its share
    // (of device time; of host self time for a capture without device rows).
    const host = t.profile.rows.length === 0 && t.profile.host;
    const rows = host ? t.profile.host.rows : t.profile.rows;
    const value = (r) => (host ? r.self_ns : r.total_device_ns);
    if (a.bars.length !== rows.length) fail(`${where}: ${a.bars.length} bars for ${rows.length} rows`);
    if (JSON.stringify(a.profile_names) !== JSON.stringify(rows.map((r) => r.name))) {
      fail(`${where}: profile names differ: ${JSON.stringify(a.profile_names)}`);
    }
    rows.forEach((r, j) => {
      if (!a.bar_kinds[j]?.split(' ').includes(`kind-${r.entity_kind}`)) {
        fail(`${where}: bar ${j + 1} is not drawn as ${r.entity_kind}`);
      }
      if (!host && !a.text.includes(r.short_name)) fail(`${where}: ${r.short_name} missing`);
      const want = (value(r) / value(rows[0])) * a.bars[0];
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
}
