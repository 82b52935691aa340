// assets/js/agent_outline.js: the page as the model reads it (agent/session/outline.c,
// seed 000 "Plan 3"): landmark regions, headings, block-level lines of text
// with the interactive elements inline. Evaluated as an expression after the
// page kit, once per document the C side visits (the top document, and each
// cross-origin frame through its own session).
//
// Returns {url, title, regions: [{role, name, parent}], els: [{tag, role,
// name, xp, frame, type, val, x, y, w, h}], lines: [{r, k, lv, p}]} where a
// line's r is the index of its innermost region (-1 = none), k its kind
// (h heading, term, def, pre, code, p paragraph, item, cell, ctl a line of
// controls only, text anything else), lv the heading level, and p its parts:
// strings of text and numbers (indices into els) in reading order.
//
// Landmarks follow the HTML accessibility mappings: an explicit landmark
// role wins; header/footer are banner/contentinfo only outside article,
// aside, main, nav and section (and the roles those carry); aside nested in
// sectioning content, form and section are landmarks only when named;
// role=none/presentation removes a landmark. Names, roles, interactivity
// and xpaths are the kit's (kit.accessibleName, kit.roleOf,
// kit.isInteractive, kit.xpath): the outline and the vision marks agree.
(() => {
  'use strict';
  const LANDMARKS = new Set(['banner', 'navigation', 'main', 'complementary', 'contentinfo',
    'search', 'form', 'region']);
  const NEEDS_NAME = new Set(['form', 'region']);
  // Elements (and roles) that scope header/footer out of banner/contentinfo.
  const SCOPING_TAGS = new Set(['article', 'aside', 'main', 'nav', 'section']);
  const SCOPING_ROLES = new Set(['article', 'complementary', 'main', 'navigation', 'region']);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg',
    'math', 'canvas', 'video', 'audio', 'object', 'embed']);
  const KIND_OF = {
    p: 'p', dt: 'term', dd: 'def', pre: 'pre', li: 'item', td: 'cell', th: 'cell',
    caption: 'text', figcaption: 'text', blockquote: 'p', summary: 'text', label: 'text',
  };
  const CODE = new Set(['code', 'kbd', 'samp', 'tt', 'var']);
  const LINE_CAP = 1000, NAME_CAP = 120, MAX_LINES = 20000, MAX_ELS = 5000;
  const NATIVE_INNER = 'a[href],button,input,select,textarea,[role=button],[role=link]';

  kit.reset();
  const regions = [], els = [], lines = [];


  // The landmark role of el given the scoping state, or ''.
  const landmarkOf = (el, scoped) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (explicit === 'none' || explicit === 'presentation') return '';
    const tag = el.localName;
    let role = explicit;
    if (!role) {
      if (tag === 'header') role = scoped ? '' : 'banner';
      else if (tag === 'footer') role = scoped ? '' : 'contentinfo';
      else if (tag === 'nav') role = 'navigation';
      else if (tag === 'main') role = 'main';
      else if (tag === 'aside') role = scoped ? 'region' : 'complementary';
      else if (tag === 'search') role = 'search';
      else if (tag === 'form') role = 'form';
      else if (tag === 'section') role = 'region';
    }
    if (!LANDMARKS.has(role)) return '';
    if (NEEDS_NAME.has(role) && !named(el)) return '';
    return role;
  };
  const named = (el) => !!(el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') ||
    el.getAttribute('title'));
  const nameOf = (el) => {
    // Landmark names come from aria-labelledby / aria-label / title only.
    if (!named(el)) return '';
    return kit.cap(kit.accessibleName(el), NAME_CAP);
  };

  // The current line: parts, region, kind, level.
  let cur = null;
  const flush = () => {
    if (!cur) return;
    const p = cur.p;
    let text = 0, ctl = 0;
    for (const x of p) {
      if (typeof x === 'number') ctl++;
      else if (x.trim()) text++;
    }
    if ((text || ctl) && lines.length < MAX_LINES) {
      let k = cur.k;
      if (k === 'text' && !text) k = 'ctl';
      else if (k === 'text' && cur.allCode) k = 'code';
      // Fold whitespace; keep the parts' order.
      const out = [];
      let len = 0;
      for (const x of p) {
        if (typeof x === 'number') { out.push(x); continue; }
        // Code keeps its indentation; other text folds its whitespace.
        const s = k === 'pre' ? x.replace(/\s+$/, '').replace(/\t/g, '    ') : x.replace(/\s+/g, ' ');
        if (!s || len >= LINE_CAP) continue;
        const t = len + s.length > LINE_CAP ? s.slice(0, LINE_CAP - len) + '…' : s;
        len += t.length;
        if (out.length && typeof out[out.length - 1] === 'string') {
          out[out.length - 1] = k === 'pre' ? out[out.length - 1] + t : (out[out.length - 1] + t).replace(/  +/g, ' ');
        }
        else out.push(t);
      }
      if (out.length && typeof out[0] === 'string' && k !== 'pre') out[0] = out[0].replace(/^\s+/, '');
      const last = out.length - 1;
      if (last >= 0 && typeof out[last] === 'string') out[last] = out[last].replace(/\s+$/, '');
      lines.push({ r: cur.r, k, lv: cur.lv, p: out.filter((x) => x !== '') });
    }
    cur = null;
  };
  const line = (ctx) => {
    if (!cur) cur = { r: ctx.region, k: ctx.kind, lv: ctx.lv, p: [], allCode: true };
    return cur;
  };
  const addText = (s, ctx) => {
    if (!s) return;
    const l = line(ctx);
    if (s.trim() && !ctx.code) l.allCode = false;
    l.p.push(s);
  };

  const addEl = (el, ctx) => {
    if (els.length >= MAX_ELS) return false;
    const tag = el.localName;
    const rect = dom.topRect(el);
    const rec = {
      tag, role: kit.roleOf(el) || '', name: kit.cap(kit.accessibleName(el), NAME_CAP),
      xp: kit.xpath(el), frame: kit.framePath(el),
      x: Math.round(rect.x), y: Math.round(rect.y), w: Math.round(rect.w), h: Math.round(rect.h),
    };
    if (tag === 'input') rec.type = (el.getAttribute('type') || 'text').toLowerCase();
    // A secret field's value (password, card number, one-time code) is
    // never shown: the outline says it holds one.
    if ((tag === 'input' || tag === 'textarea' || tag === 'select') &&
      typeof el.value === 'string' && el.value) {
      rec.val = kit.secretField(el) ? kit.MASK
        : tag === 'select' && el.selectedOptions && el.selectedOptions[0]
          ? kit.cap(el.selectedOptions[0].textContent, NAME_CAP) : kit.cap(el.value, NAME_CAP);
    }
    if (el.checked === true) rec.val = 'checked';
    els.push(rec);
    const l = line(ctx);
    l.allCode = false;
    l.p.push(els.length - 1);
    return true;
  };

  // Iterative walk with exit actions, so deep pages cannot overflow the stack.
  const stack = [{ n: document.documentElement, ctx: { region: -1, kind: 'text', lv: 0, scoped: false, code: false, hidden: false } }];
  while (stack.length) {
    const f = stack.pop();
    if (f.exit) { f.exit(); continue; }
    const n = f.n, ctx = f.ctx;
    if (n.nodeType === 3) {
      if (!ctx.hidden) addText(n.data, ctx);
      continue;
    }
    if (n.nodeType !== 1 || SKIP.has(n.localName)) continue;
    const el = n;
    let cs = null;
    try { cs = kit.styleOf(el); } catch (e) { cs = null; }
    if (!cs || cs.display === 'none') continue;
    if (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') continue;
    const tag = el.localName;
    const hidden = cs.visibility !== 'visible' || el.getAttribute('aria-hidden') === 'true';
    if (el.getAttribute('aria-hidden') === 'true') continue;
    if (tag === 'br') { if (!hidden) flush(); continue; }
    const inline = cs.display.startsWith('inline') || cs.display === 'contents';
    const nctx = Object.assign({}, ctx, { hidden });
    const role = landmarkOf(el, ctx.scoped);
    const exits = [];
    if (role) {
      flush();
      regions.push({ role, name: nameOf(el), parent: ctx.region, at: lines.length });
      nctx.region = regions.length - 1;
      exits.push(flush);
    }
    if (SCOPING_TAGS.has(tag) || SCOPING_ROLES.has(kit.roleOf(el))) nctx.scoped = true;
    if (CODE.has(tag)) nctx.code = true;
    // Interactive: one element on the line, its subtree read as its name,
    // unless it wraps other controls (a clickable card): then a container.
    if (!hidden && kit.isInteractive(el, cs) && !(tag !== 'select' && el.querySelector(NATIVE_INNER))) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) {
        if (!inline) flush();
        addEl(el, nctx);
        if (!inline) flush();
        continue;
      }
    }
    const h = /^h([1-6])$/.exec(tag);
    const roleHeading = (el.getAttribute('role') || '') === 'heading';
    if (h || roleHeading) {
      flush();
      nctx.kind = 'h';
      nctx.lv = h ? +h[1] : Math.min(6, Math.max(1, parseInt(el.getAttribute('aria-level') || '2', 10) || 2));
      exits.push(flush);
    } else if (!inline) {
      flush();
      // A paragraph inside a definition, term or cell is that kind's data
      // (Sphinx wraps every dd's text in a p).
      if (tag === 'p' && (ctx.kind === 'def' || ctx.kind === 'term' || ctx.kind === 'cell')) nctx.kind = ctx.kind;
      else if (KIND_OF[tag]) nctx.kind = KIND_OF[tag];
      else if (ctx.kind === 'pre' || ctx.kind === 'h') nctx.kind = ctx.kind;
      else if (role) nctx.kind = 'text';
      exits.push(flush);
    }
    if (tag === 'pre') {
      // One line per line of preformatted text.
      const txt = hidden ? '' : (el.innerText || el.textContent || '');
      {
        flush();
        for (const ln of txt.split('\n')) {
          if (!ln.trim()) continue;
          addText(ln, Object.assign({}, nctx, { kind: 'pre' }));
          flush();
        }
        // Controls inside a pre (a link in a code sample) still count.
        for (const a of el.querySelectorAll('a[href],button,input,select,textarea')) {
          const r = a.getBoundingClientRect();
          if (r.width > 0 && r.height > 0) { addEl(a, Object.assign({}, nctx, { kind: 'pre' })); flush(); }
        }
        for (const x of exits.reverse()) x();
        continue;
      }
    }
    if (exits.length) stack.push({ exit: () => { for (const x of exits.reverse()) x(); } });
    const c = dom.children(el);
    for (let i = c.length - 1; i >= 0; i--) stack.push({ n: c[i], ctx: nctx });
  }
  flush();
  return { url: location.href, title: document.title || '', regions, els, lines,
    closed: kit.closedNew() ? 1 : 0 };
})()
