// bench/step_bench.js: the Playwright half of bench/run_steps.sh.
//
//   node bench/step_bench.js [--task FILE] [--n N] [--warmup K] [--fovea BIN]
//                            [--click mouse|locator]
//
// Runs the click steps of a fovea task (default assets/tasks/bench.json) with
// playwright-core on Debian's Chromium, the way a Playwright agent grounds a
// click on the same page: per step
//   screenshot  page.screenshot() of the viewport (PNG),
//   probe       one page.evaluate of fovea's own DOM probe (assets/js/enrich.js,
//               what fovea's `dom` vision provider evaluates), then the target chosen by
//               label with fovea's rule (equal > starts with > contains, ties
//               to the smaller box),
//   hit         document.elementFromPoint at the box centre (the snapper's
//               check that the point lands on the element),
//   click       page.mouse.click at that point (--click locator: locator.click
//               on the probed element's XPath, with Playwright's actionability
//               checks: visible, stable for two frames, enabled, hit target).
// Same warm-up and cycle as `fovea bench steps`: the first K steps run
// untimed, then the steps after them repeat until N have been timed.
// With --fovea BIN the site is served by `BIN serve assets/site` (fovea's own
// loopback server, as `fovea bench steps` serves it); otherwise by Node's http.
// Viewport and device scale come from the task. Prints one JSON object with
// median and p90 per stage; exits 1 if a target is not found or a click does
// not land on it.
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { chromium } = require('playwright-core');

const root = path.join(__dirname, '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const taskFile = opt('--task', path.join(root, 'assets', 'tasks', 'bench.json'));
const site = opt('--site', path.join(root, 'assets', 'site'));
const n = Number(opt('--n', 24));
const warmup = Number(opt('--warmup', 1));
const fovea = opt('--fovea', null);
const probeName = 'enrich';
const clickMode = opt('--click', 'mouse');

function serveNode() {
  const srv = http.createServer((req, res) => {
    const p = path.join(site, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!p.startsWith(site)) { res.writeHead(403); res.end(); return; }
    fs.readFile(p, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      const type = p.endsWith('.html') ? 'text/html; charset=utf-8' : p.endsWith('.js') ? 'text/javascript'
        : p.endsWith('.css') ? 'text/css' : 'application/octet-stream';
      res.writeHead(200, { 'content-type': type });
      res.end(data);
    });
  });
  return new Promise((ok) => srv.listen(0, '127.0.0.1', () =>
    ok({ base: `http://127.0.0.1:${srv.address().port}`, close: () => srv.close() })));
}

function serveFovea() {
  const child = spawn(fovea, ['serve', site], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, fail) => {
    let buf = '';
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`fovea serve exited with ${code}`)));
    child.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/^(http:\/\/127\.0\.0\.1:\d+)\//m);
      if (m) ok({ base: m[1], close: () => child.kill('SIGTERM') });
    });
  });
}

// fovea's label normalisation and score (agent/script/run.c label_score).
const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim().toLowerCase();
function labelScore(want, have) {
  const w = norm(want), h = norm(have);
  if (!w || !h) return 0;
  if (w === h) return 100;
  if (h.startsWith(w)) return 80;
  if (h.includes(w)) return 60;
  if (h.length >= 3 && w.startsWith(h)) return 40;
  return 0;
}
function choose(map, label) {
  let best = null, bestScore = 0, bestArea = 0;
  for (const b of map) {
    const s = labelScore(label, b.label);
    const area = (b.x1 - b.x0) * (b.y1 - b.y0);
    if (s > bestScore || (s === bestScore && s > 0 && area < bestArea)) {
      best = b; bestScore = s; bestArea = area;
    }
  }
  return best;
}

function stats(v) {
  const s = [...v].sort((a, b) => a - b), k = s.length;
  const r = (x) => Math.round(x * 1000) / 1000;
  const median = k % 2 ? s[k >> 1] : (s[k / 2 - 1] + s[k / 2]) / 2;
  return { median: r(median), p90: r(s[Math.max(0, Math.ceil(0.9 * k) - 1)]) };
}

(async () => {
  const task = JSON.parse(fs.readFileSync(taskFile, 'utf8'));
  const steps = task.steps;
  const cycle = steps.length - warmup;
  if (!(n >= 1) || cycle < 1) throw new Error(`${taskFile}: nothing to time after ${warmup} warm-up steps`);
  const label = (s) => (typeof s.target === 'string' ? s.target : s.target && s.target.label);
  for (const s of steps) {
    if (s.action !== 'click' || !label(s)) throw new Error(`${taskFile}: only click steps with a label are supported (got ${s.action})`);
  }
  if (clickMode !== 'mouse' && clickMode !== 'locator') throw new Error(`--click must be mouse or locator, got ${clickMode}`);
  if (clickMode === 'locator' && probeName !== 'enrich') throw new Error('--click locator needs --probe enrich (XPaths)');
  // The page scripts use the page kit: wrapped as cmake/EmbedRun.cmake
  // embeds them, (() => { <kit>; return (<script>); })().
  const kitSrc = fs.readFileSync(path.join(root, 'assets', 'js', 'lib', 'kit.js'), 'utf8');
  const rawSrc = fs.readFileSync(path.join(root, 'assets', 'js', probeName + '.js'), 'utf8');
  const probeSrc = `(() => {\n${kitSrc}\n;\nreturn (\n${rawSrc.trim().replace(/;\s*$/, '')}\n);\n})()`;
  // enrich.js is a function of the boxes to enrich (null: list the page);
  // other probes are expressions. Both return a JSON string.
  const probeExpr = probeName === 'enrich' ? `(${probeSrc.trim().replace(/;\s*$/, '')})(null)` : probeSrc;
  const srv = fovea ? await serveFovea() : await serveNode();
  const vp = task.viewport || {};
  const browser = await chromium.launch({
    executablePath: process.env.FOVEA_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
      ...(process.env.PW_EXTRA_ARGS ? process.env.PW_EXTRA_ARGS.split(' ') : [])],
  });
  try {
    const page = await browser.newPage({
      viewport: { width: vp.width || 1280, height: vp.height || 800 }, deviceScaleFactor: vp.scale || 1,
    });
    await page.goto(srv.base + (task.url.startsWith('/') ? '' : '/') + task.url);
    const t = { screenshot: [], probe: [], hit: [], click: [], total: [] };
    for (let i = 0; i < warmup + n; i++) {
      const s = steps[i < warmup ? i : warmup + ((i - warmup) % cycle)];
      const want = label(s);
      const t0 = performance.now();
      await page.screenshot();
      const t1 = performance.now();
      const raw = await page.evaluate(probeExpr);
      const parsed = JSON.parse(raw);
      const box = choose(Array.isArray(parsed) ? parsed : parsed.map, want);
      if (!box) throw new Error(`step ${i + 1}: no box for '${want}'`);
      const x = (box.x0 + box.x1) / 2, y = (box.y0 + box.y1) / 2;
      const t2 = performance.now();
      const hit = await page.evaluate(([px, py]) => {
        const el = document.elementFromPoint(px, py);
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return { tag: el.tagName.toLowerCase(), text: (el.innerText || '').slice(0, 80), rect: [r.x, r.y, r.width, r.height] };
      }, [x, y]);
      if (!hit) throw new Error(`step ${i + 1}: nothing at (${x}, ${y}) for '${want}'`);
      const t3 = performance.now();
      if (clickMode === 'mouse') {
        await page.mouse.click(x, y);
      } else {
        if (box.frame !== -1 || /#shadow-root/.test(box.xpath)) throw new Error(`step ${i + 1}: '${want}' is not in the light DOM of the top document`);
        await page.locator('xpath=' + box.xpath).click();
      }
      const t4 = performance.now();
      if (i >= warmup) {
        t.screenshot.push(t1 - t0); t.probe.push(t2 - t1); t.hit.push(t3 - t2); t.click.push(t4 - t3); t.total.push(t4 - t0);
      }
    }
    const out = {
      client: 'playwright-core', playwright: require('playwright-core/package.json').version,
      chromium: browser.version(), task: task.name, n, warmup, probe: probeName, click: clickMode, stages: {},
    };
    for (const k of Object.keys(t)) out.stages[k] = stats(t[k]);
    console.log(JSON.stringify(out));
  } finally {
    await browser.close();
    srv.close();
  }
})().catch((e) => { console.error(`step_bench: ${e.message}`); process.exit(1); });
