// assets/js/snap_epoch.js: the procedural click's check (perception/procedural.c).
//
// When the gate finds the page unchanged since a vision pass, the element
// that pass mapped for a box is clicked without probing the box again; this
// script, one Runtime.evaluate in the top document, checks that the element
// is still there, still where the pass saw it and still the one a click
// reaches. A function expression applied to
//   {xp, sub, url, r: [x0, y0, x1, y1], tol}
// xp: the element's xpath in its frame document (the page kit's convention);
// sub: 0 when that document is the top one, 1 when it is an iframe's (every
// same-origin frame document reachable from here whose URL is url, fragment
// aside, is then searched — through window.frames, and for iframes inside
// shadow roots (which window.frames omits) through the frames a hit test at
// r's centre enters — and the one whose element lies nearest r wins: two
// frames may show one URL); r: the element's visible rect at the
// pass, top-viewport CSS px (the selector map's rect); tol: how far (px) an
// edge may have moved.
// Returns a JSON string, one of
//   {why: "gone"}    the xpath names no element (in any reachable document)
//   {why: "xo", xo}  not found, and xo frames were closed to this script
//                    (cross-origin; the element's frame is likely one of
//                    them): the caller falls back to the snapper
//   {why: "hidden"}  the element is not rendered or nothing of it is visible
//   {why: "moved", r, d}  its visible rect now (r) is d px off on some edge
//   {why: "covered", r, cover: [desc, text]}  at none of nine points spread
//                    over its visible part does a click reach it (the element
//                    a click at the centre reaches instead)
//   {ok: 1, x, y, r, fx, fy, tag, text, aria, title, name, label, dis}
//     x, y: the first of the nine points (the centre first) where the hit
//     test reaches the element; r its visible rect; fx, fy the origin of its
//     document's viewport; tag, text, aria, title and name as the snapper's
//     probe reports them (snap_probe.js); label the selector map's label of
//     it (kit.mapLabel), to tell it from another element now at its xpath;
//     dis 1 when disabled.
// All coordinates are top-viewport CSS px. Visibility, the visible rect, hit
// testing (open shadow roots and same-origin frames), texts and the xpath
// resolution are the page kit's (assets/js/lib/kit.js), as in enrich.js and
// snap_probe.js, so the three agree on what they see.
(function (arg) {
  'use strict';
  kit.reset();
  const MAX_DEPTH = 8, MAX_DOCS = 64;
  // Centre first, then the eight points enrich.js tries for a half-covered
  // element, so an element the map listed as reachable is found reachable.
  const SPOTS = [[0.5, 0.5], [0.2, 0.5], [0.8, 0.5], [0.5, 0.2], [0.5, 0.8], [0.2, 0.2],
    [0.8, 0.2], [0.2, 0.8], [0.8, 0.8]];
  const want = arg.r;
  const cut = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]),
    Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  const r3 = (v) => Math.round(v * 1000) / 1000;

  // The documents to search, each with its viewport origin (dx, dy) and the
  // part of the top viewport it shows (clip).
  const top = { doc: document, dx: 0, dy: 0, clip: [0, 0, window.innerWidth, window.innerHeight] };
  let docs = [top];
  let xo = 0;
  // CDP reports a frame's URL without its fragment.
  const bare = (u) => String(u).split('#')[0];
  if (arg.sub) {
    docs = [];
    const walk = (w, pc, depth) => {
      for (let i = 0; i < w.frames.length && docs.length < MAX_DOCS; i++) {
        const f = w.frames[i];
        let d = null, fe = null;
        try {
          d = f.document;
          fe = f.frameElement;
        } catch (e) {
          d = null;
        }
        if (!d || !fe || !d.documentElement) {
          xo++;
          continue;
        }
        const cb = kit.contentBox(fe);
        const ctx = { doc: d, dx: pc.dx + cb[0], dy: pc.dy + cb[1], clip: null };
        ctx.clip = cut(pc.clip, [ctx.dx, ctx.dy, pc.dx + cb[2], pc.dy + cb[3]]);
        if (!arg.url || bare(d.URL) === bare(arg.url)) docs.push(ctx);
        if (depth + 1 < MAX_DEPTH) walk(f, ctx, depth + 1);
      }
    };
    walk(window, top, 0);
    // window.frames leaves out iframes inside shadow roots: the frames a
    // click at r's centre passes through are added (still by URL).
    let clip = top.clip;
    kit.hitAt((want[0] + want[2]) / 2, (want[1] + want[3]) / 2, document, true, (fe, d, ox, oy, wh) => {
      clip = cut(clip, [ox, oy, ox + wh[0], oy + wh[1]]);
      if (docs.some((c) => c.doc === d) || (arg.url && bare(d.URL) !== bare(arg.url))) return;
      docs.push({ doc: d, dx: ox, dy: oy, clip });
    });
  }

  // The element in each document; the one nearest r wins.
  let best = null, bestD = Infinity;
  for (const c of docs) {
    const el = kit.resolve(arg.xp, c.doc);
    if (!el || el.many || !el.isConnected) continue;
    const lv = kit.shown(el) ? kit.visiblePart(el) : null;
    let v = lv ? cut(c.clip, [lv[0] + c.dx, lv[1] + c.dy, lv[2] + c.dx, lv[3] + c.dy]) : null;
    if (v && (v[2] - v[0] < 1 || v[3] - v[1] < 1)) v = null;
    const d = v ? Math.max(Math.abs(v[0] - want[0]), Math.abs(v[1] - want[1]),
      Math.abs(v[2] - want[2]), Math.abs(v[3] - want[3])) : Infinity;
    if (!best || d < bestD) {
      best = { el, c, v };
      bestD = d;
    }
  }
  if (!best) return JSON.stringify(xo ? { why: 'xo', xo } : { why: 'gone' });
  const el = best.el, v = best.v;
  if (!v) return JSON.stringify({ why: 'hidden' });
  const rv = v.map(r3);
  if (bestD > arg.tol) return JSON.stringify({ why: 'moved', r: rv, d: r3(bestD) });

  // Reached when the top hit is the element or inside it (through shadow
  // roots and frames): what the cascade's own top-most check accepts.
  const reaches = (h) => {
    for (let n = h; n; n = kit.composedParent(n)) if (n === el) return true;
    return false;
  };
  let at = null, first = null;
  for (let k = 0; k < SPOTS.length && !at; k++) {
    const x = v[0] + (v[2] - v[0]) * SPOTS[k][0], y = v[1] + (v[3] - v[1]) * SPOTS[k][1];
    const h = kit.hitAt(x, y, document);
    if (k === 0) first = h;
    if (h && reaches(h)) at = [x, y];
  }
  if (!at) {
    const cover = first ? [kit.descOf(first), kit.snapText(first, kit.isInteractive(first)) ||
      kit.ariaLabelOf(first)] : ['', ''];
    return JSON.stringify({ why: 'covered', r: rv, cover });
  }
  const inter = kit.isInteractive(el);
  return JSON.stringify({
    ok: 1, x: r3(at[0]), y: r3(at[1]), r: rv, fx: r3(best.c.dx), fy: r3(best.c.dy),
    tag: el.localName.toLowerCase(), text: kit.snapText(el, inter), aria: kit.ariaLabelOf(el),
    title: kit.cap(el.getAttribute('title') || '', kit.TEXT_CAP),
    name: kit.accessibleName(el, inter) || kit.visualLabel(el), label: kit.mapLabel(el),
    dis: (el.matches && el.matches(':disabled')) || el.getAttribute('aria-disabled') === 'true' ? 1 : 0,
  });
})
