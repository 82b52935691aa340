// assets/js/enrich.js: the selector map and the DOM enrichment of vision
// boxes (seed 002 §4.3), in one evaluate. perception/enrich_frames.c
// evaluates
//   (<this function>)(BOXES)
// in the top document, then again in every frame that pass cannot enter
// (cross-origin iframes, in their own session or an isolated world) with
// BOXES null or "states", and calls it in owner mode (below) on each such
// frame's <iframe> element.
// BOXES is null (list the page's interactive elements only: the `dom`
// vision provider), "states" (the list plus the states of every element) or
// an array of [x0, y0, x1, y1] in top-viewport CSS px.
// Returns a JSON string:
//   {"map":    [{x0,y0,x1,y1, xpath, frame, label, kind, tag}],
//    "frames": [{parent, url, oxp, hidden}],
//    "boxes":  [{dom, split}],
//    "states": {"<map index>": {expanded, active, labelledby, ctl}}}
// map: every visible, not wholly covered interactive element of the
//   document, its open shadow roots and its same-origin iframes
//   (recursively), in document order, with the page kit's notion of
//   "interactive" (assets/js/lib/kit.js: native controls, interactive ARIA
//   roles, tabindex >= 0, contenteditable, a click-like listener, a pointer
//   cursor its parent does not have; in the list modes also an element
//   with hover listeners only, kind "hover"), in this document's viewport
//   CSS px.
//   The rect is the part visible inside the viewport, the frame and every
//   scroll container (overflow clip) around it; an element some other
//   element covers is kept when any of nine points spread over that part
//   reaches it. label is the kit's accessible name (else the value). xpath
//   follows the kit's convention, relative to the element's frame document.
//   frame: -1 (this document) or an index into frames.
// frames: one per same-origin iframe document found; parent is a frames
//   index or -1, url the frame document's URL, oxp the xpath of the <iframe>
//   element in its parent document (the caller matches it with the owner
//   element of each CDP frame) and hidden 1 when no part of the frame is
//   visible (its elements are not listed).
// boxes (when BOXES is an array), per box: dom = the map index of the nearest
//   interactive element (best overlap, else the smallest element containing
//   the box centre, else the nearest centre within 40 px, else -1), and split.
// states, for every map index a box (or half box) refers to (every index
//   with "states"):
//   expanded = aria-expanded / <details open> as 1/0, -1 when absent;
//   active = checked / aria-checked / aria-pressed / aria-selected /
//   option.selected as 1/0, -1 when not applicable; labelledby = the text
//   of the aria-labelledby targets; ctl = map index of the control that
//   expands the element's container (aria-controls pointing at an ancestor,
//   or the <summary> of an enclosing <details>), -1 when none; split = null,
//   or {chip: [x0,y0,x1,y1,dom], chev: [x0,y0,x1,y1,dom]} when the box holds
//   a chip and a chevron (two elements, one a small expand control at either
//   end, or one element whose text ends or starts with a chevron glyph).
//
// Owner mode (OWNER given, through Runtime.callFunctionOn): OWNER is the
// <iframe> element of a frame the caller probed separately, RECTS that
// frame's elements in its own viewport px ([x0,y0,x1,y1] each) and HOPS how
// many same-origin frame levels separate OWNER's document from the document
// this pass started in. Returns {"oxp": OWNER's xpath, "rects": [...]}: each
// rect moved into that document's viewport, clipped to the part of the frame
// visible there, or null when nothing is left or the frame element (or one
// of its enclosing frames) is not on top at the rect's centre (e.g. a modal
// covers the iframe). Without RECTS: {"oxp", "visible"}, visible false when
// no part of the frame shows in that document's viewport.
((BOXES, OWNER, RECTS, HOPS) => {
  kit.reset();
  const ROLES = kit.ROLES;
  const GLYPHS = '\u25BE\u25BC\u25B8\u25B6\u25C2\u25C0\u25B4\u25B2\u25BF\u25BD\u25B9\u25B7' +
    '\u25C3\u25C1\u25B5\u25B3\u2304\u2303\u02C5\u02C4\u203A\u2039\u276F\u276E\u2228';
  const EXPAND_WORDS = /\b(expand|collapse|toggle|more|show|open)\b/i;
  const clean = (s, n) => kit.cap(s, n);

  const interactive = (el, cs) => kit.isInteractive(el, cs);
  const kindOf = (el) => {
    const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (role && ROLES.has(role)) return role;
    switch (el.tagName) {
      case 'A': return 'link';
      case 'BUTTON': case 'SUMMARY': return 'button';
      case 'SELECT': return 'select';
      case 'TEXTAREA': return 'input';
      case 'OPTION': return 'option';
      case 'INPUT': {
        const t = el.type;
        if (t === 'checkbox' || t === 'radio') return t;
        if (t === 'submit' || t === 'button' || t === 'reset' || t === 'image') return 'button';
        return 'input';
      }
      default: return 'clickable';
    }
  };
  const labelOf = kit.mapLabel;
  const xpathOf = kit.xpath;
  // The hit test at (x, y) of a document-local point reaches el: the kit's
  // hit test (into shadow roots, not into frames: the caller walks frame
  // levels itself) lands on el, inside it (through shadow roots and slots),
  // or on an ancestor of it (an ancestor is hit when el has pointer-events:
  // none).
  const within = (n, anc) => {
    for (; n; n = kit.composedParent(n)) if (n === anc) return true;
    return false;
  };
  const hitOk = (el, x, y) => {
    const t = kit.hitAt(x, y, el.ownerDocument, false);
    return !!t && (within(t, el) || within(el, t));
  };

  // The content box of a frame element (where its document's viewport
  // sits) in its own document's viewport px; computed borders and padding
  // keep sub-pixel values that clientLeft/clientWidth would round.
  const contentBox = (el) => {
    const b = kit.contentBox(el);
    return { x: b[0], y: b[1], w: b[2] - b[0], h: b[3] - b[1] };
  };
  const cut = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]),
    Math.min(a[2], b[2]), Math.min(a[3], b[3])];

  if (OWNER) {
    // chain[i] is a frame element, off[i] the origin of its document's
    // viewport in the pass document's viewport; chain[0] is OWNER.
    const chain = [OWNER];
    for (let w = OWNER.ownerDocument.defaultView; chain.length <= (HOPS | 0) && w.frameElement;) {
      chain.push(w.frameElement);
      w = w.frameElement.ownerDocument.defaultView;
    }
    const n = chain.length, off = new Array(n);
    const rootWin = chain[n - 1].ownerDocument.defaultView;
    let clip = [0, 0, rootWin.innerWidth, rootWin.innerHeight], inner = null;
    off[n - 1] = [0, 0];
    for (let i = n - 1; i >= 0; i--) {
      const cb = contentBox(chain[i]);
      const x = off[i][0] + cb.x, y = off[i][1] + cb.y;
      clip = cut(clip, [x, y, x + cb.w, y + cb.h]);
      if (i > 0) off[i - 1] = [x, y];
      else inner = [x, y];
    }
    const oxp = xpathOf(OWNER);
    if (!Array.isArray(RECTS))
      return JSON.stringify({ oxp, visible: clip[2] - clip[0] >= 1 && clip[3] - clip[1] >= 1 });
    const rects = RECTS.map((r) => {
      const c = cut(clip, [r[0] + inner[0], r[1] + inner[1], r[2] + inner[0], r[3] + inner[1]]);
      if (c[2] - c[0] < 1 || c[3] - c[1] < 1) return null;
      const cx = (c[0] + c[2]) / 2, cy = (c[1] + c[3]) / 2;
      for (let i = 0; i < n; i++) if (!hitOk(chain[i], cx - off[i][0], cy - off[i][1])) return null;
      return c;
    });
    return JSON.stringify({ oxp, rects });
  }

  const map = [], els = [], offs = [], frames = [];
  const SPOTS = [[0.5, 0.5], [0.2, 0.5], [0.8, 0.5], [0.5, 0.2], [0.5, 0.8], [0.2, 0.2],
    [0.8, 0.2], [0.2, 0.8], [0.8, 0.8]];
  // Lists one document's interactive elements; ox/oy translate its viewport
  // to the pass document's viewport and clip is its visible part there.
  const walk = (doc, win, ox, oy, clip, frameIdx, outer) => {
    const visit = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) visit(el.shadowRoot);
        if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
          let cd = null;
          try { cd = el.contentDocument; } catch (e) { cd = null; }
          // Cross-origin: the caller probes it through CDP (owner mode).
          if (!cd || !el.contentWindow) continue;
          const cb = contentBox(el);
          const fx = ox + cb.x, fy = oy + cb.y;
          const fclip = cut(clip, [fx, fy, fx + cb.w, fy + cb.h]);
          const hidden = fclip[2] - fclip[0] < 1 || fclip[3] - fclip[1] < 1;
          frames.push({ parent: frameIdx, url: cd.URL, oxp: xpathOf(el), hidden: hidden ? 1 : 0 });
          if (hidden) continue;
          // The frame must itself be reachable at the point we hit-test.
          walk(cd, el.contentWindow, fx, fy, fclip, frames.length - 1,
            outer.concat([[el, cb.x, cb.y]]));
          continue;
        }
        const cs = win.getComputedStyle(el);
        if (cs.visibility === 'hidden' || cs.display === 'none' || parseFloat(cs.opacity) === 0) continue;
        // The list (BOXES null or "states": the dom provider) also boxes
        // elements with hover listeners only (kind "hover": a target for
        // hover steps); vision boxes are matched to controls only.
        if (!interactive(el, cs) && !(!Array.isArray(BOXES) && kit.hoverListener(el))) continue;
        if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
        // The part inside the viewport and every scroll container around it.
        const lv = kit.visiblePart(el);
        if (!lv) continue;
        const x0 = Math.max(clip[0], lv[0] + ox), y0 = Math.max(clip[1], lv[1] + oy);
        const x1 = Math.min(clip[2], lv[2] + ox), y1 = Math.min(clip[3], lv[3] + oy);
        if (x1 - x0 < 1 || y1 - y0 < 1) continue;
        // Kept when a click can reach it somewhere: the centre, else eight
        // more points spread over the visible part (a half-covered input).
        let ok = false;
        for (let k = 0; k < SPOTS.length && !ok; k++) {
          const cx = x0 + (x1 - x0) * SPOTS[k][0] - ox, cy = y0 + (y1 - y0) * SPOTS[k][1] - oy;
          if (!hitOk(el, cx, cy)) continue;
          // Each enclosing iframe must be on top at the same point of its parent.
          ok = true;
          for (let i = outer.length - 1, px = cx, py = cy; i >= 0 && ok; i--) {
            px += outer[i][1];
            py += outer[i][2];
            ok = hitOk(outer[i][0], px, py);
          }
        }
        if (!ok) continue;
        els.push(el);
        offs.push([ox, oy]);
        map.push({ x0, y0, x1, y1, xpath: xpathOf(el), frame: frameIdx, label: labelOf(el),
          kind: interactive(el, cs) ? kindOf(el) : 'hover', tag: el.tagName.toLowerCase() });
      }
    };
    visit(doc);
  };
  walk(document, window, 0, 0, [0, 0, window.innerWidth, window.innerHeight], -1, []);
  if (!Array.isArray(BOXES) && BOXES !== 'states')
    return JSON.stringify({ map, frames, boxes: [], states: {} });

  const area = (a) => Math.max(0, a[2] - a[0]) * Math.max(0, a[3] - a[1]);
  const inter = (a, b) => area([Math.max(a[0], b[0]), Math.max(a[1], b[1]),
    Math.min(a[2], b[2]), Math.min(a[3], b[3])]);
  const rectOf = (i) => [map[i].x0, map[i].y0, map[i].x1, map[i].y1];
  const nearest = (b) => {
    let best = -1, bestIou = 0;
    for (let i = 0; i < map.length; i++) {
      const r = rectOf(i), ov = inter(b, r);
      if (ov <= 0) continue;
      const iou = ov / (area(b) + area(r) - ov);
      if (iou > bestIou) { bestIou = iou; best = i; }
    }
    if (best >= 0 && bestIou >= 0.1) return best;
    const cx = (b[0] + b[2]) / 2, cy = (b[1] + b[3]) / 2;
    let small = -1, smallArea = Infinity;
    for (let i = 0; i < map.length; i++) {
      const r = rectOf(i);
      if (cx >= r[0] && cx < r[2] && cy >= r[1] && cy < r[3] && area(r) < smallArea) {
        small = i;
        smallArea = area(r);
      }
    }
    if (small >= 0) return small;
    let near = -1, nearD = 40;
    for (let i = 0; i < map.length; i++) {
      const r = rectOf(i);
      const d = Math.hypot((r[0] + r[2]) / 2 - cx, (r[1] + r[3]) / 2 - cy);
      if (d < nearD) { nearD = d; near = i; }
    }
    return near >= 0 ? near : best;
  };
  const tri = (v) => (v === 'true' ? 1 : v === 'false' ? 0 : v === 'mixed' ? 1 : -1);
  const expandedOf = (el) => {
    if (el.hasAttribute('aria-expanded')) return tri(el.getAttribute('aria-expanded'));
    if (el.tagName === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS')
      return el.parentElement.open ? 1 : 0;
    return -1;
  };
  const activeOf = (el) => {
    if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked ? 1 : 0;
    if (el.tagName === 'OPTION') return el.selected ? 1 : 0;
    for (const a of ['aria-checked', 'aria-pressed', 'aria-selected']) {
      if (el.hasAttribute(a)) {
        const v = tri(el.getAttribute(a));
        if (v >= 0) return v;
      }
    }
    return -1;
  };
  const labelledbyOf = (el) => {
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids) {
      const t = (root.getElementById ? root.getElementById(id) : null) ||
        el.ownerDocument.getElementById(id);
      if (t) parts.push(t.getAttribute('aria-label') || t.textContent || '');
    }
    return clean(parts.join(' '), 127);
  };
  const controlOf = (el) => {
    const root = el.getRootNode();
    let a = el.parentElement;
    for (let depth = 0; a && depth < 12; depth++, a = a.parentElement) {
      if (a.id && root.querySelector) {
        const c = root.querySelector('[aria-controls~="' + CSS.escape(a.id) + '"]');
        if (c && c !== el && !a.contains(c)) return c;
      }
      if (a.tagName === 'DETAILS') {
        const s = a.querySelector(':scope > summary');
        if (s && s !== el && !s.contains(el)) return s;
      }
    }
    return null;
  };
  const isChevron = (el) => {
    if (el.hasAttribute('aria-expanded')) return true;
    const hp = el.getAttribute('aria-haspopup');
    if (hp && hp !== 'false') return true;
    const t = (el.textContent || '').trim();
    if (t && [...t].every((c) => GLYPHS.includes(c))) return true;
    return EXPAND_WORDS.test(el.getAttribute('aria-label') || el.getAttribute('title') || '');
  };
  // Chip + chevron as two elements: exactly one small expand control lying
  // at the left or right end of the box, and at least one other element.
  const splitTwo = (b) => {
    const inside = [];
    for (let i = 0; i < map.length; i++) {
      const r = rectOf(i);
      if (area(r) > 0 && inter(b, r) >= 0.7 * area(r)) inside.push(i);
    }
    if (inside.length < 2) return null;
    const chev = inside.filter((i) => isChevron(els[i]) && map[i].x1 - map[i].x0 <= 48);
    if (chev.length !== 1) return null;
    const c = chev[0], r = rectOf(c);
    const others = inside.filter((i) => i !== c);
    let chip, chevR;
    if (r[0] - b[0] > b[2] - r[2]) {
      chip = [b[0], b[1], r[0], b[3]];
      chevR = [r[0], b[1], b[2], b[3]];
    } else {
      chip = [r[2], b[1], b[2], b[3]];
      chevR = [b[0], b[1], r[2], b[3]];
    }
    // The chevron must not sit in the middle of the row.
    if (others.some((i) => map[i].x0 < chevR[0] && map[i].x1 > chevR[2])) return null;
    let chipDom = others[0], bestOv = -1;
    for (const i of others) {
      const ov = inter(chip, rectOf(i));
      if (ov > bestOv) { bestOv = ov; chipDom = i; }
    }
    return { chip: chip.concat([chipDom]), chev: chevR.concat([c]) };
  };
  // Chip + chevron as one element whose text ends (or starts) with a glyph.
  const splitGlyph = (b, i) => {
    if (i < 0) return null;
    const el = els[i];
    const text = (el.textContent || '').trim();
    if (text.length < 2) return null;
    const last = GLYPHS.includes(text[text.length - 1]);
    const first = GLYPHS.includes(text[0]);
    if (!last && !first) return null;
    // The last glyph when the text ends with one, else the first.
    const tw = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let node = null, off = -1;
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      for (let j = 0; j < n.data.length; j++) {
        if (!GLYPHS.includes(n.data[j]) || (!last && node)) continue;
        node = n;
        off = j;
      }
    }
    if (!node) return null;
    const range = el.ownerDocument.createRange();
    range.setStart(node, off);
    range.setEnd(node, off + 1);
    const gr = range.getBoundingClientRect();
    if (gr.width < 1) return null;
    const gx0 = gr.left + offs[i][0] - 2, gx1 = gr.right + offs[i][0] + 2;
    if (last && gx0 > b[0] + 8)
      return { chip: [b[0], b[1], gx0, b[3], i], chev: [gx0, b[1], b[2], b[3], i] };
    if (first && gx1 < b[2] - 8)
      return { chip: [gx1, b[1], b[2], b[3], i], chev: [b[0], b[1], gx1, b[3], i] };
    return null;
  };

  // Element states, computed only for the elements some box refers to.
  const states = {};
  const want = (i) => {
    if (i < 0 || i in states) return;
    const el = els[i], c = controlOf(el);
    states[i] = { expanded: expandedOf(el), active: activeOf(el), labelledby: labelledbyOf(el),
      ctl: c ? els.indexOf(c) : -1 };
  };
  if (BOXES === 'states') {
    for (let i = 0; i < map.length; i++) want(i);
    return JSON.stringify({ map, frames, boxes: [], states, closed: kit.closedNew() ? 1 : 0 });
  }
  const boxes = BOXES.map((b) => {
    const dom = nearest(b);
    const split = splitTwo(b) || splitGlyph(b, dom);
    want(dom);
    if (split) {
      want(split.chip[4]);
      want(split.chev[4]);
    }
    return { dom, split };
  });
  return JSON.stringify({ map, frames, boxes, states, closed: kit.closedNew() ? 1 : 0 });
})
