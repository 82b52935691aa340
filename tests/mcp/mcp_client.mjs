// tests/mcp/mcp_client.mjs: `fovea mcp` driven by clients nobody here wrote —
// the official MCP TypeScript SDK's Client (StdioClientTransport,
// StreamableHTTPClientTransport) and the MCP Inspector CLI — against a real
// headless Chromium on fixture pages (tests/fixtures/pages/mcp/) served here
// on 127.0.0.1. No model: the calls a model would make are made by the test.
//
// stdio: the tool surface (page view with each action, collapsing, secrets by
//   name, uploads, click_box/type_box/click_point, errors, progress, a
//   cancelled wait), raw bad lines, and attach mode (--cdp/--target on a
//   Chromium the test starts: the user's tab stays, fovea's own tab goes).
// http: two clients at once with separate sessions, token/Host/Origin checks,
//   progress in the POST's event stream (live: a client cancels at the
//   first notification), a cancelled wait, DELETE.
// inspector: the Inspector CLI's tools/list and tools/call.
//
//   node mcp_client.mjs CLIENTS_DIR FOVEA PAGES stdio|http|inspector
//
// CLIENTS_DIR holds node_modules (scripts/mcp_clients.sh). Prints one line
// per check; exit 0 when all passed, 1 otherwise.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [clientsDir, fovea, pagesDir, mode] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(path.join(clientsDir, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

const SECRET = 'hunter2-Zq9-never-shown';
let failed = 0;
function check(ok, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? ': ' + String(detail).slice(0, 600) : ''}`);
  if (!ok) failed++;
}
const text = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// The fixture pages, on a port of our own.
const types = { '.html': 'text/html; charset=utf-8', '.txt': 'text/plain' };
const site = http.createServer((req, res) => {
  const p = path.join(pagesDir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!p.startsWith(pagesDir) || !fs.existsSync(p) || fs.statSync(p).isDirectory()) {
    res.writeHead(404); res.end('not found'); return;
  }
  res.writeHead(200, { 'content-type': types[path.extname(p)] || 'application/octet-stream' });
  fs.createReadStream(p).pipe(res);
});
await new Promise((r) => site.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${site.address().port}/mcp`;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fovea-mcp-'));
const secretsFile = path.join(tmp, 'secrets.json');
fs.writeFileSync(secretsFile, JSON.stringify({ SITE_PASSWORD: SECRET }), { mode: 0o600 });
const uploads = path.join(tmp, 'uploads');
fs.mkdirSync(uploads);
fs.writeFileSync(path.join(uploads, 'note.txt'), 'hello');
fs.writeFileSync(path.join(tmp, 'private.txt'), 'not for upload');

async function expectRpcError(p, code, what) {
  try {
    await p;
    check(false, what, 'no error');
  } catch (e) {
    check(e.code === code, what, `code ${e.code}: ${e.message}`);
  }
}

// ---- stdio: the whole tool surface ------------------------------------------
async function stdioSuite() {
  const transport = new StdioClientTransport({
    command: fovea,
    args: ['mcp', '--secrets', secretsFile, '--no-humanize', '--width', '1000', '--height', '700'],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'fovea-test', version: '1.0.0' });
  const wire = [];
  const t0 = Date.now();
  await client.connect(transport);
  transport.onmessage = ((orig) => (m) => { wire.push(JSON.stringify(m)); orig(m); })(transport.onmessage);
  check(client.getServerVersion()?.name === 'fovea', 'initialize: serverInfo.name is fovea');
  check(!!client.getServerCapabilities()?.tools, 'initialize: capabilities.tools');

  const { tools } = await client.listTools();
  console.log(`# tools/list: ${tools.length} tools, ${JSON.stringify(tools).length} bytes, ${Date.now() - t0} ms from start`);
  const names = tools.map((t) => t.name);
  for (const n of ['navigate', 'click_at', 'type_at', 'get_outline', 'click_box', 'type_box', 'click_point', 'upload_file'])
    check(names.includes(n), `tools/list has ${n}`);
  check(!names.includes('evaluate_script'), 'tools/list: evaluate_script left out without --allow-scripts');
  check(!names.includes('done'), 'tools/list: done (the planner\'s end) left out');
  const typeAt = tools.find((t) => t.name === 'type_at');
  check(JSON.stringify(typeAt.inputSchema.properties.text).includes('SITE_PASSWORD'), 'type_at: text takes {secret: SITE_PASSWORD}');
  check(tools.every((t) => t.inputSchema?.type === 'object'), 'every tool has an inputSchema');
  check(tools.filter((t) => t.annotations?.readOnlyHint).every((t) => t.outputSchema?.type === 'object') &&
    tools.find((t) => t.name === 'get_outline').outputSchema, 'the tools that return data have an outputSchema');
  check(/--upload-dir/.test(tools.find((t) => t.name === 'upload_file').description), 'upload_file states its permission');

  // navigate: the page view comes with the answer.
  let r = await client.callTool({ name: 'navigate', arguments: { url: `${base}/account.html` } });
  check(!r.isError && /Page view of .*account\.html/.test(text(r)) && /Sign in to Northwind/.test(text(r)),
    'navigate answers with the page view', text(r));
  check(r.structuredContent?.success === true && r.structuredContent?.page?.chars > 0, 'navigate: structuredContent with page measures', JSON.stringify(r.structuredContent));
  const firstView = text(r).length;

  r = await client.callTool({ name: 'get_outline', arguments: {} });
  check(!r.isError && text(r).length < firstView, `get_outline again: unchanged regions collapse (${text(r).length} < ${firstView} chars)`, text(r));

  r = await client.callTool({ name: 'type_at', arguments: { target: 'Username', text: 'ada' } });
  check(!r.isError, 'type_at Username', text(r));
  r = await client.callTool({ name: 'type_at', arguments: { target: 'Password', text: { secret: 'SITE_PASSWORD' } } });
  check(!r.isError, 'type_at Password with {secret: SITE_PASSWORD}', text(r));
  r = await client.callTool({ name: 'click_at', arguments: { target: 'Sign in' } });
  check(!r.isError && new RegExp(`Welcome, ada \\(password length ${SECRET.length}\\)`).test(text(r)),
    'click_at Sign in: the page view shows the typed secret reached the page', text(r));
  await expectRpcError(client.callTool({ name: 'type_at', arguments: { target: 'Password', text: { secret: 'NOPE' } } }), -32602,
    'a secret name the server does not hold: -32602');

  // Uploads are refused without --upload-dir.
  r = await client.callTool({ name: 'upload_file', arguments: { target: 'Attachment', files: [path.join(uploads, 'note.txt')] } });
  check(r.isError && r.structuredContent?.reason === 'blocked' && /upload-dir/.test(text(r)), 'upload_file refused without --upload-dir', text(r));

  // Vision grounding: a box over both Delete buttons is ambiguous, nothing clicked.
  r = await client.callTool({ name: 'get_outline', arguments: { fresh: true } });
  const rects = await client.callTool({ name: 'click_box', arguments: { box: [0, 0, 1000, 700], label: 'Delete' } });
  const cands = rects.structuredContent?.data?.candidates || [];
  check(rects.isError && rects.structuredContent?.reason === 'ambiguous' && cands.length === 2,
    'click_box over two Delete buttons: ambiguous, two candidates', JSON.stringify(rects.structuredContent));
  r = await client.callTool({ name: 'get_outline', arguments: { fresh: true } });
  check(!/Deleted address/.test(text(r)), 'ambiguous click_box clicked nothing');
  if (cands.length === 2) {
    const [x, y] = cands[1].point;
    r = await client.callTool({ name: 'click_point', arguments: { x, y } });
    check(!r.isError && /Deleted address 2/.test(text(r)) && !/Deleted address 1/.test(text(r)),
      'click_point on the second candidate deletes address 2 only', text(r));
    const [x0, y0, x1, y1] = cands[0].rect;
    r = await client.callTool({ name: 'click_box', arguments: { box: [x0 - 4, y0 - 4, x1 + 4, y1 + 4], label: 'Delete' } });
    check(!r.isError && /Deleted address 1/.test(text(r)), 'click_box on a box around one button clicks it', text(r));
  }
  r = await client.callTool({ name: 'type_box', arguments: { box: [0, 0, 1000, 700], label: 'Username', text: 'grace' } });
  check(!r.isError, 'type_box Username', text(r));
  r = await client.callTool({ name: 'click_at', arguments: { target: 'Sign in', screenshot: true } });
  check(!r.isError && /Welcome, grace/.test(text(r)), 'type_box reached the field', text(r));
  check(!r.content.some((c) => c.type === 'image') && /no page image/.test(text(r)),
    'no page image once a secret was typed (the model never sees it)', text(r));

  // Bad requests: JSON-RPC errors, and the server goes on.
  await expectRpcError(client.callTool({ name: 'no_such_tool', arguments: {} }), -32602, 'unknown tool: -32602');
  await expectRpcError(client.callTool({ name: 'navigate', arguments: {} }), -32602, 'navigate without url: -32602');
  await expectRpcError(client.callTool({ name: 'click_at', arguments: { target: 'x', bogus: 1 } }), -32602, 'an unknown argument: -32602');
  await expectRpcError(client.request({ method: 'no/such/method', params: {} }, (await sdk('types.js')).EmptyResultSchema), -32601, 'unknown method: -32601');
  await client.ping();
  check(true, 'ping after the errors');

  // Progress, then a cancelled long wait.
  const progress = [];
  const waiting = client.callTool({ name: 'wait', arguments: { ms: 2300 } }, undefined, { onprogress: (p) => progress.push(p), timeout: 20000 });
  await new Promise((res) => setTimeout(res, 300));
  const tp = Date.now();
  await client.ping();
  const pingMs = Date.now() - tp;
  r = await waiting;
  check(pingMs < 1000, `ping during a running call is answered at once (${pingMs} ms)`);
  check(!r.isError && progress.length >= 2, `wait 2.3 s with a progress token: ${progress.length} progress notifications`, JSON.stringify(progress));
  const ac = new AbortController();
  const tc = Date.now();
  setTimeout(() => ac.abort('test cancels'), 700);
  try {
    await client.callTool({ name: 'wait', arguments: { ms: 60000 } }, undefined, { signal: ac.signal, timeout: 90000 });
    check(false, 'the cancelled wait was cancelled');
  } catch (e) {
    check(Date.now() - tc < 5000, `the cancelled wait ended at once (${Date.now() - tc} ms)`, e.message);
  }
  const tn = Date.now();
  r = await client.callTool({ name: 'go_back', arguments: {} });
  r = await client.callTool({ name: 'list_tabs', arguments: {} });
  check(!r.isError && Date.now() - tn < 15000, `the session goes on after the cancel (${Date.now() - tn} ms)`, text(r));
  await new Promise((res) => setTimeout(res, 300));
  check(/cancelled by the client/.test(stderr), 'the server logged the cancellation');

  // Permissions at a glance: the secret never appears on the wire or in logs.
  check(!wire.join('\n').includes(SECRET), 'the secret value is in no message the client received');
  await client.close();
  await new Promise((res) => setTimeout(res, 500));
  check(!stderr.includes(SECRET), 'the secret value is in no log line');
  // In the ASan+UBSan build a report (a leak at exit included) lands here.
  check(!/Sanitizer|runtime error:/.test(stderr), 'no sanitizer report from the server', stderr.slice(-1500));

  // With --upload-dir: inside is taken, outside (and ../ tricks) refused.
  const t2 = new StdioClientTransport({ command: fovea, args: ['mcp', '--upload-dir', uploads, '--no-humanize'], stderr: 'pipe' });
  const c2 = new Client({ name: 'fovea-test-upload', version: '1.0.0' });
  await c2.connect(t2);
  await c2.callTool({ name: 'navigate', arguments: { url: `${base}/account.html` } });
  r = await c2.callTool({ name: 'upload_file', arguments: { target: 'Attachment', files: path.join(uploads, '..', 'private.txt') } });
  check(r.isError && /outside the folder/.test(text(r)), 'upload_file: ../ out of --upload-dir refused', text(r));
  r = await c2.callTool({ name: 'upload_file', arguments: { target: 'Attachment', files: path.join(uploads, 'note.txt') } });
  check(!r.isError, 'upload_file: a file inside --upload-dir is uploaded', text(r));
  await c2.close();
}

// Raw stdio: malformed JSON and invalid requests, the server going on.
async function rawSuite() {
  const p = spawn(fovea, ['mcp'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  p.stdout.on('data', (d) => { out += d; });
  const lines = [
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{this is not json',
    '[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    '{"jsonrpc":"1.0","id":3,"method":"ping"}',
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"navigate","arguments":"x"}}',
    '{"jsonrpc":"2.0","id":5,"method":"ping"}',
  ];
  p.stdin.write(lines.join('\n') + '\n');
  p.stdin.end();
  await new Promise((r) => p.on('close', r));
  const msgs = out.trim().split('\n').map((l) => JSON.parse(l));
  const byId = (id) => msgs.find((m) => m.id === id);
  check(msgs.some((m) => m.id === null && m.error?.code === -32700), 'malformed JSON: -32700', out);
  check(msgs.filter((m) => m.id === null && m.error?.code === -32600).length === 1, 'a batch array: -32600', out);
  check(byId(3)?.error?.code === -32600, 'jsonrpc 1.0: -32600', out);
  check(byId(4)?.error?.code === -32602, 'arguments not an object: -32602', out);
  check(byId(5)?.result && Object.keys(byId(5).result).length === 0, 'ping answered after the bad lines', out);
  check(byId(1)?.result?.protocolVersion === '2025-06-18', 'protocolVersion 2025-06-18 agreed', out);
}

// ---- Streamable HTTP: two clients at once, each its own session -----------------
async function httpSuite() {
  const token = 'test-token-' + Math.random().toString(36).slice(2) + '-0123456789';
  // Every log line on (FOVEA_TRACE=all): a typed secret must be masked in
  // all of them, whichever session typed it.
  const srv = spawn(fovea, ['mcp', '--port', '0', '--token', token, '--no-humanize'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FOVEA_TRACE: 'all' } });
  let err = '';
  const port = await new Promise((resolve, reject) => {
    srv.stderr.on('data', (d) => {
      err += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    srv.on('exit', () => reject(new Error('server exited: ' + err)));
  });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const mk = async (name) => {
    const t = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const c = new Client({ name, version: '1.0.0' });
    await c.connect(t);
    return [c, t];
  };
  try {
    const [a, ta] = await mk('client-a');
    const [b, tb] = await mk('client-b');
    check(ta.sessionId && tb.sessionId && ta.sessionId !== tb.sessionId, 'two clients get two Mcp-Session-Ids');
    const { tools } = await a.listTools();
    check(tools.some((t) => t.name === 'click_box'), 'tools/list over HTTP');
    const [ra, rb] = await Promise.all([
      a.callTool({ name: 'navigate', arguments: { url: `${base}/account.html` } }),
      b.callTool({ name: 'navigate', arguments: { url: `${base}/orders.html` } }),
    ]);
    check(!ra.isError && /Sign in to Northwind/.test(text(ra)), 'client A navigated (at the same time as B)', text(ra));
    check(!rb.isError && /Your orders/.test(text(rb)), 'client B navigated (at the same time as A)', text(rb));
    const [oa, ob] = await Promise.all([
      a.callTool({ name: 'get_outline', arguments: { fresh: true } }),
      b.callTool({ name: 'get_outline', arguments: { fresh: true } }),
    ]);
    check(/Sign in/.test(text(oa)) && !/Your orders/.test(text(oa)), 'A\'s session still shows A\'s page');
    check(/Your orders/.test(text(ob)) && !/Sign in to Northwind/.test(text(ob)), 'B\'s session still shows B\'s page');
    // A password typed as plain text (not by name) in A's session, while a
    // later session (C) exists: masked in every log line of the server.
    const PLAIN = 'Plain-Typed-Pw-7731';
    let rt = await a.callTool({ name: 'type_at', arguments: { target: 'Password', text: PLAIN } });
    check(!rt.isError && !JSON.stringify(rt).includes(PLAIN), 'A types a password as plain text (masked in its answer)', text(rt));
    const [c3, tc3] = await mk('client-c');
    await c3.callTool({ name: 'navigate', arguments: { url: `${base}/orders.html` } });
    rt = await a.callTool({ name: 'type_at', arguments: { target: 'Password', text: PLAIN } });
    check(!rt.isError, 'A types it again after C started', text(rt));
    await tc3.terminateSession();
    await c3.close();
    rt = await a.callTool({ name: 'type_at', arguments: { target: 'Password', text: PLAIN } });
    check(!rt.isError, 'and again after C ended', text(rt));
    check(!err.includes(PLAIN), 'a plain-text password of one session is masked in the log while other sessions start and end',
      err.split('\n').filter((l) => l.includes(PLAIN)).slice(0, 3).join('\n'));
    const rc = await b.callTool({ name: 'click_at', arguments: { target: 'Reorder NW-1042', screenshot: true } });
    check(!rc.isError && /Reordered NW-1042/.test(text(rc)), 'click_at over HTTP answers with the page view', text(rc));
    const img = rc.content.find((c) => c.type === 'image');
    check(img && img.mimeType === 'image/jpeg' && Buffer.from(img.data, 'base64').subarray(0, 2).equals(Buffer.from([0xff, 0xd8])),
      'screenshot: true adds the marked page image (JPEG)', JSON.stringify(rc.content.map((c) => c.type)));
    await expectRpcError(a.callTool({ name: 'no_such_tool', arguments: {} }), -32602, 'HTTP: unknown tool: -32602');
    const progress = [];
    const rw = await a.callTool({ name: 'wait', arguments: { ms: 2300 } }, undefined, { onprogress: (p) => progress.push(p), timeout: 20000 });
    check(!rw.isError && progress.length >= 2, `HTTP: progress notifications in the POST's event stream (${progress.length})`, JSON.stringify(progress));
    // Live, not with the answer: the client cancels a 15 s wait at its first
    // progress notification, which must come long before the wait's end.
    const al = new AbortController();
    let seen = 0, how = 'answered';
    const tl = Date.now();
    await a.callTool({ name: 'wait', arguments: { ms: 15000 } }, undefined, {
      onprogress: () => { if (!seen++) al.abort('first progress'); }, signal: al.signal, timeout: 60000,
    }).catch(() => { how = 'cancelled'; });
    const ml = Date.now() - tl;
    check(seen >= 1 && how === 'cancelled' && ml < 10000,
      `HTTP: progress streams live (cancelled at the first notification after ${ml} ms of a 15 s wait)`, `${seen} ${how}`);
    const ac = new AbortController();
    setTimeout(() => ac.abort('test cancels'), 700);
    const tc = Date.now();
    await a.callTool({ name: 'wait', arguments: { ms: 60000 } }, undefined, { signal: ac.signal, timeout: 90000 }).catch(() => {});
    const tn = Date.now();
    const rl = await a.callTool({ name: 'list_tabs', arguments: {} });
    check(!rl.isError && Date.now() - tn < 10000 && tn - tc < 5000,
      `HTTP: a cancelled wait ends and A's next call runs at once (${Date.now() - tn} ms)`, text(rl));

    // Who may talk.
    const raw = (headers, method = 'POST', body = '{"jsonrpc":"2.0","id":9,"method":"ping"}') => new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
        (res) => { let d = ''; res.on('data', (x) => { d += x; }); res.on('end', () => resolve({ status: res.statusCode, body: d, headers: res.headers })); });
      req.end(method === 'POST' ? body : undefined);
    });
    const auth = { authorization: `Bearer ${token}`, 'mcp-session-id': ta.sessionId, 'mcp-protocol-version': '2025-06-18' };
    check((await raw({ ...auth, authorization: 'Bearer wrong-token-0000000000' })).status === 401, 'a wrong bearer token: 401');
    check((await raw({ 'mcp-session-id': ta.sessionId })).status === 401, 'no token: 401');
    check((await raw({ ...auth, host: 'evil.example:' + port })).status === 403, 'a foreign Host (DNS rebinding): 403');
    check((await raw({ ...auth, origin: 'http://evil.example' })).status === 403, 'a foreign Origin: 403');
    const { 'mcp-session-id': _sid, ...noSession } = auth;
    check((await raw(noSession)).status === 400, 'no Mcp-Session-Id: 400');
    const okPing = await raw(auth);
    check(okPing.status === 200 && JSON.parse(okPing.body).id === 9, 'a raw ping with token and session: 200', okPing.body);
    const bad = await raw(auth, 'POST', '{nope');
    check(bad.status === 400 && JSON.parse(bad.body).error.code === -32700, 'malformed JSON over HTTP: -32700', bad.body);
    check((await raw(auth, 'GET')).status === 405, 'GET (no server stream): 405');

    // DELETE ends A's session; B's goes on.
    await ta.terminateSession();
    check((await raw(auth)).status === 404, 'after DELETE, A\'s session id: 404');
    const rb2 = await b.callTool({ name: 'get_outline', arguments: {} });
    check(!rb2.isError, 'B goes on after A ended', text(rb2) + (process.env.MCP_DEBUG ? fs.writeFileSync(process.env.MCP_DEBUG, err) || '' : ''));
    await b.close();
    await a.close().catch(() => {});
  } finally {
    srv.kill('SIGTERM');
    await new Promise((r) => srv.on('close', r));
  }
}

// ---- attach: the user's own browser, close only what fovea opened --------------
async function attachSuite() {
  const prof = path.join(tmp, 'chrome-profile');
  const chrome = spawn(process.env.FOVEA_CHROMIUM || '/usr/bin/chromium', ['--headless', '--no-sandbox', '--disable-gpu',
    '--remote-debugging-port=0', `--user-data-dir=${prof}`, `${base}/orders.html`], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let err = '';
    const port = await new Promise((resolve, reject) => {
      chrome.stderr.on('data', (d) => { err += d; const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err); if (m) resolve(m[1]); });
      chrome.on('exit', () => reject(new Error('chromium exited: ' + err.slice(-500))));
    });
    const tabs = async () => JSON.parse(await (await fetch(`http://127.0.0.1:${port}/json/list`)).text()).filter((t) => t.type === 'page');
    for (let i = 0; i < 50 && !(await tabs()).some((t) => t.url.includes('orders.html')); i++) await new Promise((r) => setTimeout(r, 100));
    const before = await tabs();
    // --target: the user's tab, as it is; left open at the end.
    let t = new StdioClientTransport({ command: fovea, args: ['mcp', '--cdp', `http://127.0.0.1:${port}`, '--target', 'orders.html', '--no-humanize'], stderr: 'ignore' });
    let c = new Client({ name: 'attach', version: '1' });
    await c.connect(t);
    let r = await c.callTool({ name: 'get_outline', arguments: {} });
    check(!r.isError && /Your orders/.test(text(r)), '--cdp --target: the session works on the user\'s own tab', text(r));
    await c.close();
    await new Promise((res) => setTimeout(res, 300));
    check((await tabs()).some((x) => x.url.includes('orders.html')), 'the user\'s tab stays open after the session');
    // --cdp alone: a tab of fovea's own in the user's browser, closed at the end.
    t = new StdioClientTransport({ command: fovea, args: ['mcp', '--cdp', `http://127.0.0.1:${port}`, '--no-humanize'], stderr: 'ignore' });
    c = new Client({ name: 'attach2', version: '1' });
    await c.connect(t);
    r = await c.callTool({ name: 'navigate', arguments: { url: `${base}/account.html` } });
    check(!r.isError && /Sign in to Northwind/.test(text(r)), '--cdp: the session opens its own tab', text(r));
    check((await tabs()).length === before.length + 1, 'one tab more while the session runs');
    await c.close();
    await new Promise((res) => setTimeout(res, 500));
    const after = await tabs();
    check(after.length === before.length && !after.some((x) => x.url.includes('account.html')),
      'fovea closed its own tab and only it; the browser runs on', JSON.stringify(after.map((x) => x.url)));
  } finally {
    chrome.kill('SIGKILL');
    await new Promise((r) => chrome.on('close', r));
  }
}

// ---- the Inspector CLI -------------------------------------------------------
async function inspectorSuite() {
  const bin = path.join(clientsDir, 'node_modules/.bin/mcp-inspector');
  const run = (args) => new Promise((resolve) => {
    const p = spawn(bin, ['--cli', fovea, 'mcp', '--no-humanize', ...args], {
      cwd: tmp, env: { ...process.env, MCP_CATALOG_PATH: path.join(tmp, 'catalog.json') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => resolve({ code, out, err }));
  });
  let r = await run(['--method', 'tools/list']);
  let j = null;
  try { j = JSON.parse(r.out); } catch { /* checked below */ }
  check(r.code === 0 && j?.tools?.some((t) => t.name === 'click_box') && j.tools.some((t) => t.name === 'navigate'),
    `Inspector CLI tools/list (${j?.tools?.length} tools)`, r.out.slice(0, 300) + r.err.slice(-300));
  r = await run(['--method', 'tools/call', '--tool-name', 'navigate', '--tool-arg', `url=${base}/orders.html`]);
  try { j = JSON.parse(r.out); } catch { j = null; }
  check(r.code === 0 && /Your orders/.test(JSON.stringify(j)), 'Inspector CLI tools/call navigate', r.out.slice(0, 300) + r.err.slice(-300));
}

try {
  if (mode === 'stdio') { await stdioSuite(); await rawSuite(); await attachSuite(); }
  else if (mode === 'http') await httpSuite();
  else if (mode === 'inspector') await inspectorSuite();
  else { console.error('mode: stdio, http or inspector'); failed++; }
} catch (e) {
  check(false, 'the suite ran to its end', e.stack || e);
} finally {
  site.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(failed ? `${failed} check(s) failed` : 'all checks passed');
process.exit(failed ? 1 : 0);
