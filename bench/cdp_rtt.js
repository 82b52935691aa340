// bench/cdp_rtt.js PAGE_WS_URL REPS WARMUP
// Baseline for fovea's CDP round trip: raw CDP over the `ws` package to the
// page's own websocket, awaiting each Runtime.evaluate("1") before sending
// the next. Prints "median_ms p90_ms" (one line) for `fovea bench --baseline`.
'use strict';
const WebSocket = require('ws');

const [url, repsArg, warmArg] = process.argv.slice(2);
const reps = parseInt(repsArg || '50', 10);
const warmup = parseInt(warmArg || '10', 10);
if (!url) {
  console.error('usage: node cdp_rtt.js PAGE_WS_URL [REPS] [WARMUP]');
  process.exit(2);
}

const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
let nextId = 1;
const pending = new Map();
ws.on('message', (data) => {
  const msg = JSON.parse(data.toString());
  const done = pending.get(msg.id);
  if (done) { pending.delete(msg.id); done(msg); }
});
function call(method, params) {
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });
}
ws.on('error', (e) => { console.error('cdp_rtt:', e.message); process.exit(1); });
ws.on('open', async () => {
  const times = [];
  for (let i = -warmup; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await call('Runtime.evaluate', { expression: '1' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i >= 0) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const med = reps % 2 ? times[(reps - 1) / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
  const p90 = times[Math.max(0, Math.ceil(0.9 * reps) - 1)];
  console.log(`${med.toFixed(4)} ${p90.toFixed(4)}`);
  ws.close();
});
