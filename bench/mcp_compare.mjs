// bench/mcp_compare.mjs: fovea mcp against Playwright MCP and Chrome DevTools
// MCP, in one run, through the official MCP SDK client over stdio, each
// server on Debian's Chromium (headless), on the same pages served here on
// 127.0.0.1: python3-doc's library/os.html (a long page) and the fixture
// pages tests/fixtures/pages/mcp/ (small ones).
//
//   node bench/mcp_compare.mjs CLIENTS_DIR ANCHORS_DIR FOVEA [REPS]
//
// Per server: start to tools/list answered (ms), tools/list size (bytes,
// tools), the page view a model gets after navigating (characters of text
// content: fovea's navigate answer; for Playwright MCP browser_navigate plus
// browser_snapshot, and for Chrome DevTools MCP navigate_page plus
// take_snapshot, since their navigate answers carry no page tree inline), the same page read again (get_outline /
// browser_snapshot / take_snapshot), and the latency of a click on a button
// and of typing into a field of a small page by the reference each server
// hands out (fovea: the label; the others: the snapshot's ref/uid), REPS
// times each after a fresh navigation (median, min, max). bench/run_mcp.sh
// runs it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [clientsDir, anchorsDir, fovea, repsArg] = process.argv.slice(2);
const REPS = Number(repsArg || 7);
const sdk = (p) => import(pathToFileURL(path.join(clientsDir, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pages = path.join(root, 'tests/fixtures/pages');
const pydoc = '/usr/share/doc/python3-doc/html';

const site = http.createServer((req, res) => {
  const u = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const p = u.startsWith('/pydoc/') ? path.join(pydoc, u.slice(7)) : path.join(pages, u);
  if (!fs.existsSync(p) || fs.statSync(p).isDirectory()) { res.writeHead(404); res.end(); return; }
  const ext = path.extname(p);
  res.writeHead(200, { 'content-type': ext === '.html' ? 'text/html; charset=utf-8' : ext === '.css' ? 'text/css' : ext === '.js' ? 'text/javascript' : 'application/octet-stream' });
  fs.createReadStream(p).pipe(res);
});
await new Promise((r) => site.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${site.address().port}`;
const LONG = `${base}/pydoc/library/os.html`;
const SMALL = `${base}/mcp/orders.html`;
const FORM = `${base}/mcp/account.html`;

const chars = (r) => (r.content || []).filter((c) => c.type === 'text').reduce((n, c) => n + c.text.length, 0);
const alltext = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[(s.length - 1) >> 1] : NaN; };

const chromium = '/usr/bin/chromium';
const servers = [
  {
    name: 'fovea mcp',
    command: fovea, args: ['mcp', '--no-humanize'],
    nav: (url) => ['navigate', { url }],
    read: () => ['get_outline', {}],
    snapshotAfterNav: false,
    click: (_t, label) => ['click_at', { target: label }],
    type: (_t, label, text) => ['type_at', { target: label, text }],
  },
  {
    name: 'Playwright MCP',
    command: process.execPath,
    args: [path.join(anchorsDir, 'node_modules/@playwright/mcp/cli.js'), '--headless', '--isolated',
      '--browser', 'chromium', '--executable-path', chromium, '--no-sandbox'],
    nav: (url) => ['browser_navigate', { url }],
    read: () => ['browser_snapshot', {}],
    snapshotAfterNav: true, /* its navigate answer links the snapshot, in a file */
    ref: (text, role, label) => new RegExp(`${role} "${label}"[^\\n]*\\[ref=(\\w+)\\]`).exec(text)?.[1],
    click: (ref, label) => ['browser_click', { element: label, target: ref }],
    type: (ref, label, text) => ['browser_type', { element: label, target: ref, text }],
  },
  {
    name: 'Chrome DevTools MCP',
    command: process.execPath,
    args: [path.join(anchorsDir, 'node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'), '--headless', '--isolated',
      '--executablePath', chromium, '--chromeArg=--no-sandbox', '--no-usage-statistics', '--no-page-id-routing'],
    nav: (url) => ['navigate_page', { url }],
    read: () => ['take_snapshot', {}],
    snapshotAfterNav: true,
    ref: (text, role, label) => new RegExp(`uid=(\\S+) ${role} "${label}"`).exec(text)?.[1],
    click: (uid) => ['click', { uid }],
    type: (uid, _label, text) => ['fill', { uid, value: text }],
  },
];

async function call(c, [name, args]) {
  const t0 = performance.now();
  const r = await c.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
  return [r, performance.now() - t0];
}

// Playwright MCP writes snapshot files into its working directory.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fovea-mcp-bench-'));
const rows = [];
for (const s of servers) {
  const row = { name: s.name };
  try {
    const t0 = performance.now();
    const transport = new StdioClientTransport({ command: s.command, args: s.args, stderr: 'ignore', cwd: work });
    const c = new Client({ name: 'fovea-bench', version: '1.0.0' });
    await c.connect(transport);
    const { tools } = await c.listTools();
    row.list_ms = performance.now() - t0;
    row.list_bytes = JSON.stringify({ tools }).length;
    row.tools = tools.length;

    // The long page: the view after navigating, and read again.
    // Navigate time counts what a model needs for its next step: the
    // navigate call, plus the snapshot call for servers whose navigate
    // answer carries no page tree. The first navigation includes the
    // browser's start for every server (all three launch on first use);
    // nav_long2_ms is a second one, warm.
    let [r, ms] = await call(c, s.nav(LONG));
    row.nav_long_ms = ms;
    row.view_long = chars(r);
    if (s.snapshotAfterNav) { const [r2, ms2] = await call(c, s.read()); row.view_long += chars(r2); row.nav_long_ms += ms2; }
    [r] = await call(c, s.read());
    row.again_long = chars(r);

    [r, ms] = await call(c, s.nav(LONG));
    row.nav_long2_ms = ms;
    if (s.snapshotAfterNav) { const [, ms2] = await call(c, s.read()); row.nav_long2_ms += ms2; }

    // The small page's view.
    [r, ms] = await call(c, s.nav(SMALL));
    row.nav_small_ms = ms;
    row.view_small = chars(r);
    if (s.snapshotAfterNav) { const [r2] = await call(c, s.read()); row.view_small += chars(r2); }

    // Click and type latency, each after a fresh navigation.
    const clicks = [], types = [];
    for (let i = 0; i < REPS; i++) {
      let [nr] = await call(c, s.nav(SMALL));
      if (s.snapshotAfterNav) [nr] = await call(c, s.read());
      const ref = s.ref ? s.ref(alltext(nr), 'button', 'Reorder NW-1042') : null;
      if (s.ref && !ref) throw new Error('no ref for the button in: ' + alltext(nr).slice(0, 400));
      const [cr, cms] = await call(c, s.click(ref, 'Reorder NW-1042'));
      if (cr.isError) throw new Error('click failed: ' + alltext(cr).slice(0, 300));
      clicks.push(cms);
      [nr] = await call(c, s.nav(FORM));
      if (s.snapshotAfterNav) [nr] = await call(c, s.read());
      const fref = s.ref ? s.ref(alltext(nr), 'textbox', 'Username') : null;
      if (s.ref && !fref) throw new Error('no ref for the field in: ' + alltext(nr).slice(0, 400));
      const [tr, tms] = await call(c, s.type(fref, 'Username', 'ada lovelace'));
      if (tr.isError) throw new Error('type failed: ' + alltext(tr).slice(0, 300));
      types.push(tms);
    }
    row.click = clicks;
    row.type = types;
    await c.close();
  } catch (e) {
    row.error = String(e.message || e).slice(0, 300);
  }
  rows.push(row);
  console.error(JSON.stringify(row));
}
site.close();
fs.rmSync(work, { recursive: true, force: true });

const f0 = (x) => (x === undefined || Number.isNaN(x) ? '-' : Math.round(x).toLocaleString('en-US'));
const lat = (a) => (a && a.length ? `${f0(median(a))} (${f0(Math.min(...a))}–${f0(Math.max(...a))})` : '-');
console.log(`| server | start → tools/list ms | tools/list bytes (tools) | navigate os.html ms (first, with the browser's start / warm; + snapshot call where needed) | page view os.html chars | read again chars | page view orders.html chars | click ms median (min–max) | type ms median (min–max) |`);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  if (r.error) { console.log(`| ${r.name} | error: ${r.error.replace(/\|/g, '/')} |||||||| `); continue; }
  console.log(`| ${r.name} | ${f0(r.list_ms)} | ${f0(r.list_bytes)} (${r.tools}) | ${f0(r.nav_long_ms)} / ${f0(r.nav_long2_ms)} | ${f0(r.view_long)} | ${f0(r.again_long)} | ${f0(r.view_small)} | ${lat(r.click)} | ${lat(r.type)} |`);
}
process.exit(0);
