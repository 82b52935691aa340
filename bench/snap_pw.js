// bench/snap_pw.js ENDPOINT URL_SUBSTRING REPS WARMUP
// Playwright baseline for bench_snap: connects over CDP to the same browser
// (connectOverCDP keeps an existing tab's viewport), takes the tab whose URL
// contains URL_SUBSTRING and times locator(`#rK button`).boundingBox() for
// rows K = 2..21 in turn: Playwright finding one element and its box on the
// same 2,000-element page. Prints "median_ms p90_ms" on one line.
'use strict';
const { chromium } = require('playwright-core');

const [endpoint, sub, repsArg, warmArg] = process.argv.slice(2);
const reps = parseInt(repsArg || '300', 10);
const warmup = parseInt(warmArg || '10', 10);
if (!endpoint || !sub) {
  console.error('usage: node snap_pw.js ENDPOINT URL_SUBSTRING [REPS] [WARMUP]');
  process.exit(2);
}

(async () => {
  const url = endpoint.startsWith('http') || endpoint.startsWith('ws') ? endpoint : 'http://' + endpoint;
  const browser = await chromium.connectOverCDP(url);
  const page = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url().includes(sub));
  if (!page) {
    console.error('snap_pw: no tab with', sub);
    process.exit(1);
  }
  const times = [];
  for (let i = -warmup; i < reps; i++) {
    const k = 2 + ((i + warmup) % 20);
    const t0 = process.hrtime.bigint();
    const box = await page.locator(`#r${k} button`).boundingBox();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (!box) {
      console.error('snap_pw: no box for row', k);
      process.exit(1);
    }
    if (i >= 0) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  console.log(q(0.5).toFixed(3), q(0.9).toFixed(3));
  // Leave the browser and its tabs as they were: only disconnect.
  await browser.close();
})().catch((e) => {
  console.error('snap_pw:', e.message);
  process.exit(1);
});
