// bench/click_bench.js: the Playwright half of bench/run_click.sh.
//
//   node bench/click_bench.js [reps]
//
// Serves tests/fixtures/pages on 127.0.0.1, launches Debian's Chromium through
// playwright-core with the same flags fovea's launcher uses, opens
// hand/bench.html at 800x600 and times page.mouse.click at button A's centre
// and locator.click('#a'), alternating, after a warm-up. Prints one JSON
// object; fails if any click did not reach the page.
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const root = path.join(__dirname, '..', 'tests', 'fixtures', 'pages');
const reps = Number(process.argv[2] || 200);

function serve() {
  const srv = http.createServer((req, res) => {
    const p = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!p.startsWith(root)) { res.writeHead(403); res.end(); return; }
    fs.readFile(p, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': p.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise((ok) => srv.listen(0, '127.0.0.1', () => ok(srv)));
}

function stats(v) {
  v.sort((a, b) => a - b);
  const n = v.length, sum = v.reduce((a, b) => a + b, 0);
  const r = (x) => Math.round(x * 1000) / 1000;
  // The median and nearest-rank p90 of base_summarize (base/stats.h).
  const median = n % 2 ? v[n >> 1] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return { n, min: r(v[0]), median: r(median), p90: r(v[Math.max(0, Math.ceil(0.9 * n) - 1)]), max: r(v[n - 1]), mean: r(sum / n) };
}

(async () => {
  const srv = await serve();
  const browser = await chromium.launch({
    executablePath: process.env.FOVEA_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  await page.goto(`http://127.0.0.1:${srv.address().port}/hand/bench.html`);
  const box = await page.locator('#a').boundingBox();
  const x = box.x + box.width / 2, y = box.y + box.height / 2;
  const loc = page.locator('#a');
  for (let i = 0; i < 10; i++) { await page.mouse.click(x, y); await loc.click(); }
  const tm = [], tl = [];
  for (let i = 0; i < reps; i++) {
    let t0 = performance.now();
    await page.mouse.click(x, y);
    tm.push(performance.now() - t0);
    t0 = performance.now();
    await loc.click();
    tl.push(performance.now() - t0);
  }
  const clicks = await page.evaluate(() => window.__clicks);
  const out = { chromium: browser.version(), playwright: require('playwright-core/package.json').version,
    clicks, playwright_mouse_click_ms: stats(tm), playwright_locator_click_ms: stats(tl) };
  console.log(JSON.stringify(out, null, 2));
  await browser.close();
  srv.close();
  if (clicks.a !== 20 + 2 * reps || clicks.untrusted) process.exit(1);
})().catch((e) => { console.error(e); process.exit(1); });
