// assets/js/snap_probe.js: the live half of the snapper (perception/probe.c).
//
// A function expression; the caller appends its argument and evaluates
//   (<this file>)({box: [x0, y0, x1, y1], pts: [[x, y], ...], cp: 1})
// in one Runtime.evaluate. Coordinates are CSS px of this document's viewport.
// For every point of `pts` (the 17 lattice points of snap_probe_points) and,
// when cp is 1, the visible centre of up to 32 interactive elements (and
// iframes we cannot see into) overlapping the box, smallest overlap first,
// it returns the elements at that point front to back: document
// .elementsFromPoint, with the hits inside OPEN shadow roots placed before
// their host and the hits inside same-origin iframes (the point translated
// by the iframe's content box) placed before the iframe. A cross-origin
// iframe stays a leaf marked as an iframe; the caller descends through its
// CDP session. The reply is one JSON string:
//   {v:1, ms, pts:[[x,y]..], fc:[cand|-1..], st:[[i..]..],
//    f:[[frame_chain, dx, dy]..],                 f[0] is this document
//    c:[[tag, role, text, aria_label, title, xpath, frame, x0, y0, x1, y1,
//        flags, paint_order, parent, "tag#id.class", name, hint]..],
//    ifr:[[cand, cx0, cy0, cx1, cy1]..],          content boxes of iframes
//    late: 1 when a probed document's listener recorder missed its start
//          and some element of the table was never asked about (lateSeen)}
// flags: 1 aria-expanded present, 2 aria-expanded "true", 4 aria-haspopup,
// 8 disabled, 16 cursor pointer, 32 interactive, 64 iframe needing descent,
// 128 a listener of its own (kit.hasListener). name and hint are the kit's
// accessibleName (else a form control's visualLabel) and iconHint. Every stack holds the element the browser
// delivers a click to (the top hit) and then only its ancestors: what is
// painted under a layer that takes the click (a date picker's panel, a
// transparent overlay) is not reachable there, so it is not listed; the
// paint order still comes from the full hit lists.
// "interactive", roles, names, xpaths and frame boxes are the page kit's
// (assets/js/lib/kit.js, prepended at build time).
// The candidate table is ordered so that a parent precedes its children.
// xpath steps are `tag[n]` (n: 1-based among same-tag element siblings, always
// written); inside an open shadow root the host's path is followed by
// `/#shadow-root`. frame_chain joins the xpaths of the iframes from this
// document down, with `|` ("" for this document).
(function (arg) {
  'use strict';
  const t0 = performance.now();
  kit.reset();
  const TEXT_CAP = 160, DEPTH = 32, MAX_CP = 32, MAX_FRAME_DEPTH = 8;
  const NO_BOX = new Set(['head', 'script', 'style', 'template', 'link', 'meta', 'title']);
  const box = arg.box;
  const bx0 = box[0], by0 = box[1], bx1 = box[2], by1 = box[3];
  const pts = arg.pts.map((p) => [p[0], p[1]]);

  const inter = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]),
    Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  const empty = (r) => !(r[2] > r[0] && r[3] > r[1]);
  const area = (r) => (empty(r) ? 0 : (r[2] - r[0]) * (r[3] - r[1]));
  const inside = (r, x, y) => x >= r[0] && x < r[2] && y >= r[1] && y < r[3];
  const styleOf = kit.styleOf;

  // Frame contexts: a document this script can reach and the translation of
  // its viewport into ours. ctx.clip is the frame's content box (null: top).
  const top = { doc: document, dx: 0, dy: 0, clip: null, chain: '', iframe: null, parent: null,
    depth: 0, id: 0 };
  const ctxs = [top];
  const frameCtx = new Map();
  const reach = (fr, pc) => {
    if (frameCtx.has(fr)) return frameCtx.get(fr);
    let ctx = null;
    let doc = null;
    try { doc = fr.contentDocument; } catch (e) { doc = null; }
    if (doc && doc.documentElement && pc.depth < MAX_FRAME_DEPTH) {
      const cb = kit.contentBox(fr);
      const x0 = pc.dx + cb[0], y0 = pc.dy + cb[1];
      let clip = [x0, y0, pc.dx + cb[2], pc.dy + cb[3]];
      if (pc.clip) clip = inter(clip, pc.clip);
      ctx = { doc, dx: x0, dy: y0, clip, chain: '', iframe: fr, parent: pc,
        depth: pc.depth + 1, id: ctxs.length };
      ctx.chain = (pc.chain ? pc.chain + '|' : '') + xpath(fr);
      ctxs.push(ctx);
    }
    frameCtx.set(fr, ctx);
    return ctx;
  };
  const isFrame = kit.isFrame;
  const xpath = kit.xpath;

  // The candidate table, in first-seen order until the final reordering.
  const els = [];
  const elCtx = [];
  const index = new Map();
  const add = (el, ctx) => {
    let i = index.get(el);
    if (i === undefined) {
      i = els.length;
      index.set(el, i);
      els.push(el);
      elCtx.push(ctx);
    }
    return i;
  };

  // Stack at (x, y) of ctx's document, appended to out (indices), front first.
  const stackIn = (ctx, x, y, out, seen) => {
    if (ctx.clip && !inside(ctx.clip, x, y)) return;
    const lx = x - ctx.dx, ly = y - ctx.dy;
    walk(ctx.doc.elementsFromPoint(lx, ly), ctx, x, y, lx, ly, out, seen);
  };
  const walk = (list, ctx, x, y, lx, ly, out, seen) => {
    for (const el of list) {
      if (out.length >= DEPTH) return;
      if (seen.has(el)) continue;
      const sr = el.shadowRoot;
      if (sr) {
        // The shadow tree's own hit list also holds the outer scopes'
        // elements; keep only its own, in front of the host.
        const own = sr.elementsFromPoint(lx, ly).filter((e) => e.getRootNode() === sr);
        walk(own, ctx, x, y, lx, ly, out, seen);
      }
      if (isFrame(el)) {
        const fc = reach(el, ctx);
        if (fc) stackIn(fc, x, y, out, seen);
      }
      if (out.length >= DEPTH) return;
      seen.add(el);
      out.push(add(el, ctx));
    }
  };

  // DOMDebugger's answers about listeners the recorder missed (added before
  // fovea attached: see lateDoc below), element -> true/false, kept in this
  // world across probes: listeners added since are the recorder's, so each
  // element is asked about once (perception/probe.c ask_listeners fills it).
  const SEEN = Symbol.for('fovea.probe.lateSeen');
  if (!globalThis[SEEN]) {
    Object.defineProperty(globalThis, SEEN, { value: new WeakMap(), configurable: false });
  }
  const lateSeen = globalThis[SEEN];
  // Only where the recorder runs (installed late): without one, a listener
  // added later would be seen by nobody, so such elements are asked anew.
  const recorded = (el) => {
    const w = (el.ownerDocument || el).defaultView;
    const r = w && w[Symbol.for('fovea.listen')];
    return !!(r && r.bridge);
  };
  const seen = (el) => (recorded(el) ? lateSeen.get(el) : undefined);
  // Listener and interactive verdicts, once per element and probe.
  const lisMemo = new Map();
  const listener = (el) => {
    let v = lisMemo.get(el);
    if (v === undefined) {
      v = kit.hasListener(el) || seen(el) === true;
      lisMemo.set(el, v);
    }
    return v;
  };
  const interactive = (el, cs) => kit.isInteractive(el, cs, listener(el));

  // Candidate points: interactive elements (and iframes we cannot enter)
  // overlapping the box, as snap_scene_probe picks them offline.
  // The overflow clip the ancestors put on el, in its document's viewport.
  const clipOf = kit.clipOf;
  const fr4 = (ctx, r) => {
    let q = [r.left + ctx.dx, r.top + ctx.dy, r.right + ctx.dx, r.bottom + ctx.dy];
    if (ctx.clip) q = inter(q, ctx.clip);
    return q;
  };
  // Measuring every element of a large page would cost more than all the
  // rest of the probe, so the search starts from what the lattice hit: each
  // element of the lattice stacks overlaps the box; its children (and open
  // shadow roots' children, and a same-origin frame's document) are measured
  // and followed when they overlap the box too, or when they have no box of
  // their own (display:contents and zero-size wrappers). Of a child list
  // longer than 32 (a long list) only the 8 neighbours of hit children on
  // each side are measured: lists are laid out in order, so the others lie
  // beyond the lattice rows. Missed: an unhit, narrow element positioned out
  // of a non-overlapping parent.
  const nLattice = pts.length;
  const stacks = pts.map((p) => {
    const out = [];
    stackIn(top, p[0], p[1], out, new Set());
    return out;
  });
  const found = [];
  const considered = new Set();
  const consider = (el, ctx, r) => {
    if (considered.has(el)) return;
    considered.add(el);
    const cs = styleOf(el);
    if (cs.visibility === 'hidden' || cs.pointerEvents === 'none') return;
    if (!((isFrame(el) && !reach(el, ctx)) || interactive(el, cs))) return;
    const rect = fr4(ctx, r);
    const cl = clipOf(el);
    const v = inter(inter(rect, [cl[0] + ctx.dx, cl[1] + ctx.dy, cl[2] + ctx.dx,
      cl[3] + ctx.dy]), box);
    if (empty(v)) return;
    found.push({ el, ctx, a: area(inter(rect, box)), x: (v[0] + v[2]) / 2, y: (v[1] + v[3]) / 2 });
  };
  const hit = new Set();
  const expanded = new Set();
  const overlaps = (ctx, r) => r.right + ctx.dx > bx0 && r.left + ctx.dx < bx1 &&
    r.bottom + ctx.dy > by0 && r.top + ctx.dy < by1;
  const expand = (el, ctx) => {
    if (expanded.has(el)) return;
    expanded.add(el);
    if (isFrame(el)) {
      const fc = reach(el, ctx);
      if (fc && !empty(inter(fc.clip, box))) {
        const root = fc.doc.documentElement;
        consider(root, fc, root.getBoundingClientRect());
        expand(root, fc);
      }
      return;
    }
    const kids = [];
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (!NO_BOX.has(c.localName)) kids.push(c);
    }
    if (el.shadowRoot) {
      for (let c = el.shadowRoot.firstElementChild; c; c = c.nextElementSibling) kids.push(c);
    }
    let pick = null;
    if (kids.length > 32) {
      pick = new Uint8Array(kids.length);
      for (let i = 0; i < kids.length; i++) {
        if (!hit.has(kids[i])) continue;
        for (let j = Math.max(0, i - 8); j <= Math.min(kids.length - 1, i + 8); j++) pick[j] = 1;
      }
    }
    for (let i = 0; i < kids.length; i++) {
      if (pick && !pick[i]) continue;
      const c = kids[i];
      const r = c.getBoundingClientRect();
      if (overlaps(ctx, r)) {
        consider(c, ctx, r);
        expand(c, ctx);
      } else if (r.width === 0 || r.height === 0) {
        expand(c, ctx);
      }
    }
  };
  const candEls = [];
  if (arg.cp) {
    for (const s of stacks) for (const i of s) hit.add(els[i]);
    for (const s of stacks) {
      for (const i of s) {
        consider(els[i], elCtx[i], els[i].getBoundingClientRect());
        expand(els[i], elCtx[i]);
      }
    }
      const FOLLOWING = 4;
    found.sort((p, q) => p.a - q.a || p.ctx.id - q.ctx.id ||
      (p.el.compareDocumentPosition(q.el) & FOLLOWING ? -1 : 1));
    for (const f of found.slice(0, MAX_CP)) {
      pts.push([f.x, f.y]);
      candEls.push(f);
      const out = [];
      stackIn(top, f.x, f.y, out, new Set());
      stacks.push(out);
    }
  }
  const forCand = pts.map(() => -1);
  for (let k = 0; k < candEls.length; k++) {
    forCand[nLattice + k] = add(candEls[k].el, candEls[k].ctx);
  }

  // Paint order: a topological order of "in front of" over all stacks,
  // first-seen order on ties; front-most gets the largest number.
  const n = els.length;
  const succ = els.map(() => []);
  const indeg = new Int32Array(n);
  for (const s of stacks) {
    for (let k = 0; k + 1 < s.length; k++) {
      succ[s[k]].push(s[k + 1]);
      indeg[s[k + 1]]++;
    }
  }
  const heap = [];
  const hpush = (v) => {
    heap.push(v);
    for (let i = heap.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (heap[p] <= heap[i]) break;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  };
  const hpop = () => {
    const top0 = heap[0], last = heap.pop();
    if (heap.length) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < heap.length && heap[l] < heap[m]) m = l;
        if (r < heap.length && heap[r] < heap[m]) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top0;
  };
  const paint = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) if (indeg[i] === 0) hpush(i);
  let rank = 0, scanFrom = 0;
  while (rank < n) {
    if (!heap.length) {
      // A cycle (inconsistent stacks): release the earliest unplaced one.
      while (paint[scanFrom] >= 0) scanFrom++;
      indeg[scanFrom] = 0;
      hpush(scanFrom);
    }
    const v = hpop();
    if (paint[v] >= 0) continue;
    paint[v] = n - rank++;
    for (const w of succ[v]) if (--indeg[w] === 0 && paint[w] < 0) hpush(w);
  }

  // What a click at each point reaches: the top hit and its ancestors.
  const reach1 = (s) => {
    if (s.length < 2) return s;
    const anc = new Set();
    for (let a = kit.composedParent(els[s[0]]); a; a = kit.composedParent(a)) anc.add(a);
    return s.filter((k, j) => j === 0 || anc.has(els[k]));
  };
  const reachStacks = stacks.map(reach1);

  // Composed parent in the table and depth, for ordering parents first.
  const parentOf = (el, ctx) => {
    let p = el.parentNode;
    let c = ctx;
    for (;;) {
      if (!p) {
        return -1;
      } else if (p.nodeType === 11) {
        p = p.host;
      } else if (p.nodeType === 9) {
        if (!c || !c.iframe) return -1;
        p = c.iframe;
        c = c.parent;
      }
      if (!p) return -1;
      const i = index.get(p);
      if (i !== undefined) return i;
      p = p.parentNode;
    }
  };
  const parent = els.map((el, i) => parentOf(el, elCtx[i]));
  const depth = new Int32Array(n).fill(-1);
  const depthOf = (i) => {
    if (depth[i] >= 0) return depth[i];
    depth[i] = parent[i] < 0 ? 0 : depthOf(parent[i]) + 1;
    return depth[i];
  };
  const order = els.map((e, i) => i);
  order.sort((a, b) => depthOf(a) - depthOf(b) || a - b);
  const remap = new Int32Array(n);
  order.forEach((old, i) => { remap[old] = i; });

  // Texts, aria labels and descriptions are the page kit's (kit.snapText,
  // kit.ariaLabelOf, kit.descOf), shared with assets/js/snap_epoch.js.
  const clean = (s) => kit.cap(s, TEXT_CAP);
  const textOf = kit.snapText;
  const ariaLabel = kit.ariaLabelOf;
  const roleOf = kit.roleOf;
  const descOf = kit.descOf;
  const r3 = (v) => Math.round(v * 1000) / 1000;

  const c = new Array(n);
  const ifr = [];
  for (let i = 0; i < n; i++) {
    const el = els[i];
    const ctx = elCtx[i];
    const cs = styleOf(el);
    const isInter = interactive(el, cs);
    let rect = fr4(ctx, el.getBoundingClientRect());
    if (el === el.ownerDocument.documentElement) {
      // The root element is hit anywhere on the canvas, whatever its own
      // box (0 px tall when everything is absolutely placed): report at
      // least its viewport so an offline model hits it where Chromium does.
      const w = el.ownerDocument.defaultView;
      let vp = [ctx.dx, ctx.dy, ctx.dx + w.innerWidth, ctx.dy + w.innerHeight];
      if (ctx.clip) vp = inter(vp, ctx.clip);
      rect = [Math.min(rect[0], vp[0]), Math.min(rect[1], vp[1]), Math.max(rect[2], vp[2]),
        Math.max(rect[3], vp[3])];
    }
    let flags = 0;
    const ex = el.getAttribute('aria-expanded');
    if (ex === 'true' || ex === 'false') flags |= 1 | (ex === 'true' ? 2 : 0);
    const hp = el.getAttribute('aria-haspopup');
    if (hp !== null && hp !== 'false') flags |= 4;
    if ((el.matches && el.matches(':disabled')) || el.getAttribute('aria-disabled') === 'true') {
      flags |= 8;
    }
    if (cs.cursor === 'pointer') flags |= 16;
    if (isInter) flags |= 32;
    if (listener(el)) flags |= 128;
    if (isFrame(el)) {
      const fc = reach(el, ctx);
      if (!fc) flags |= 64;
      const cb = fc ? fc.clip : (() => {
        const q = kit.contentBox(el);
        return [q[0] + ctx.dx, q[1] + ctx.dy, q[2] + ctx.dx, q[3] + ctx.dy];
      })();
      ifr.push([remap[i], r3(cb[0]), r3(cb[1]), r3(cb[2]), r3(cb[3])]);
    }
    c[remap[i]] = [el.localName.toLowerCase(), roleOf(el), textOf(el, isInter), ariaLabel(el),
      clean(el.getAttribute('title') || ''), xpath(el), ctx.id, r3(rect[0]), r3(rect[1]),
      r3(rect[2]), r3(rect[3]), flags, paint[i], parent[i] < 0 ? -1 : remap[parent[i]],
      descOf(el), kit.accessibleName(el, isInter) || kit.visualLabel(el), kit.iconHint(el)];
  }
  // Documents whose listener recorder (lib/listen.js) missed their start:
  // the caller asks DOMDebugger about these elements (kept, in table order,
  // until the next probe of this document), those it has not asked about
  // before (lateSeen).
  const lateDoc = ctxs.some((x) => {
    const r = x.doc.defaultView && x.doc.defaultView[Symbol.for('fovea.listen')];
    return !r || r.late;
  });
  const LATE = Symbol.for('fovea.probe.late');
  let lateAsk = 0;
  if (lateDoc) {
    // Only the elements DOMDebugger was not asked about yet.
    const byRow = new Array(n);
    for (let i = 0; i < n; i++) {
      if (seen(els[i]) === undefined) {
        byRow[remap[i]] = els[i];
        lateAsk++;
      }
    }
    Object.defineProperty(globalThis, LATE, { value: byRow, configurable: true });
  } else if (globalThis[LATE]) {
    delete globalThis[LATE];
  }
  // A closed shadow root may have appeared in this document: the caller
  // hands it to this world (perc_kit_closed_roots) and probes again.
  const closedNew = kit.closedNew();
  return JSON.stringify({
    v: 1,
    late: lateAsk ? 1 : 0,
    closed: closedNew ? 1 : 0,
    ms: performance.now() - t0,
    pts,
    fc: forCand.map((k) => (k < 0 ? -1 : remap[k])),
    st: reachStacks.map((s) => s.map((k) => remap[k])),
    f: ctxs.map((x) => [x.chain, r3(x.dx), r3(x.dy)]),
    c,
    ifr,
  });
})
