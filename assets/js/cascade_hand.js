// assets/js/cascade_hand.js: the page half of the hand (cascade/).
//
// Evaluated once per document in fovea's own isolated world ("fovea_hand"),
// so the page cannot see or tamper with it; the DOM is shared, the page's
// JS globals are not. The expression yields an object of operations that the
// C side calls with one JSON argument each:
//   probe     resolve the target, check found/enabled/visible, scroll it into
//             view (centre) and settle, pick the press point and check that
//             the element is top-most there (covered / ambiguous otherwise)
//   effect    wait (bounded) until the page mutated, the URL changed or the
//             target's focus/checked/value/aria state changed
//   waitEl    wait (bounded) until the target exists and is visible; returns
//             the element itself (the C side asks CDP for its content quads)
//   jsClick   the scripted el.click() of tier 3
//   field / setValue / value     typing support
//   selectOption                 a native <select>'s option (scripted)
//   slider    range inputs and role=slider widgets
// Coordinates are CSS pixels of this frame's viewport; the C side adds the
// frame's origin. Targets are XPaths in fovea's form (/html[1]/body[1]/div[2],
// "/#shadow-root" after a shadow host), or any XPath document.evaluate knows,
// or a bare point.
(() => {
  'use strict';
  const S = { muts: 0, shmuts: 0, roots: new WeakSet(), shadowRoots: [], armed: null,
    seen: { any: false, down: false, click: null, where: '' } };

  // Counts mutations of the document (S.muts) and, separately, of every open
  // shadow root we found (S.shmuts): a document observer does not see inside
  // shadow roots, and a web component's reaction happens there.
  // S.wake: the pending effect wait, woken at once by a mutation.
  // S.grown: an element was inserted since the last walk for shadow roots.
  S.grown = true;
  const mo = new MutationObserver((recs) => {
    S.muts += recs.length;
    if (!S.grown) {
      for (const r of recs) {
        if (r.type !== 'childList') continue;
        for (const n of r.addedNodes) if (n.nodeType === 1) { S.grown = true; break; }
        if (S.grown) break;
      }
    }
    if (S.wake) S.wake();
  });
  const mosh = new MutationObserver((recs) => { S.shmuts += recs.length; if (S.wake) S.wake(); });
  const observe = (root) => {
    if (!root || S.roots.has(root)) return;
    S.roots.add(root);
    const o = root instanceof ShadowRoot ? mosh : mo;
    if (root instanceof ShadowRoot) S.shadowRoots.push(root);
    o.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  };
  observe(document);

  // Delivery: which element the pointer events of our press reached. The
  // listeners live in this isolated world (the page cannot see or remove
  // them) and capture at window, before the page's bubbling handlers; an
  // event whose composed path holds the armed target reached the target's
  // listeners too (an event on a descendant bubbles to it).
  const onPress = (e) => {
    if (!S.armed || !e.isTrusted) return;
    // The effect baseline moves to the press itself: what the approach's
    // hover did (a menu opening, a button sliding away) is not the press's
    // effect.
    if (!S.seen.any && (e.type === 'pointerdown' || e.type === 'mousedown')) S.base = baseline(S.armed);
    S.seen.any = true;
    const path = e.composedPath ? e.composedPath() : [];
    const el = S.armed;
    let hit = path.includes(el);
    // A label forwards its click to its control; the control's own label
    // was pressed when the target is the control.
    if (!hit && el.labels) for (const l of el.labels) if (path.includes(l)) hit = true;
    if (!hit && S.armedAlso) hit = path.includes(S.armedAlso);
    // The click decides when there is one: it goes to the common ancestor
    // of the press and release targets, so a target that moved away during
    // the hold did not get it (its click listeners did not run). Without a
    // click (a control acting on mousedown and removing itself), the press.
    if (e.type === 'click') S.seen.click = hit;
    else if (e.type !== 'mouseup' && hit) S.seen.down = true;
    if (!hit && !S.seen.where && path[0] && path[0].nodeType === 1) S.seen.where = describe(path[0]);
  };
  const delivery = () => {
    const s = S.seen;
    if (s.click !== null) return s.click ? 'target' : 'elsewhere';
    return s.down ? 'target' : s.any ? 'elsewhere' : 'none';
  };
  for (const t of ['pointerdown', 'mousedown', 'mouseup', 'click'])
    addEventListener(t, onPress, true);

  // Typing: trusted input events that reached the field being typed into
  // (its value changed at some point, even if Enter then cleared it).
  S.keyField = null;
  S.keyInputs = 0;
  addEventListener('input', (e) => {
    if (!S.keyField || !e.isTrusted) return;
    const path = e.composedPath ? e.composedPath() : [];
    if (path.includes(S.keyField)) S.keyInputs++;
  }, true);

  const parentOf = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentNode;

  // Every shadow root between the document and n, outermost last.
  const shadowChain = (n) => {
    const out = [];
    for (let r = n.getRootNode(); r instanceof ShadowRoot; r = r.host.getRootNode()) out.push(r);
    return out;
  };

  // fovea xpaths (or general XPaths) and hit testing through open shadow
  // roots come from the page kit (assets/js/lib/kit.js, prepended at build
  // time); this world runs in its own frame, so hits stay in this document.
  const resolve = (xp) => kit.resolve(xp);
  const hitAt = (x, y) => kit.hitAt(x, y, document, false);

  const contains = (a, b) => {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  };

  const clip = (s, n) => {
    s = kit.norm(s);
    return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
  };

  // A secret field's value is never part of a description (kit.shownValue).
  const textOf = (el) => el.getAttribute('aria-label') || el.innerText || kit.shownValue(el) ||
    el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt') || '';

  const describe = (el) => {
    if (!el || el.nodeType !== 1) return String(el);
    let d = el.localName;
    if (el.id) d += '#' + el.id;
    else if (typeof el.className === 'string' && el.className.trim())
      d += '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.');
    const t = clip(textOf(el), 40);
    return t ? d + " '" + t + "'" : d;
  };

  const disabledWhy = (el) => {
    try {
      if (el.matches(':disabled')) {
        const fs = el.closest('fieldset[disabled]');
        return fs && !el.disabled ? 'inside a disabled fieldset' : 'disabled';
      }
    } catch (e) { /* not a form control */ }
    for (let n = el; n && n.nodeType === 1; n = parentOf(n)) {
      if (n.getAttribute('aria-disabled') === 'true') return n === el ? 'aria-disabled' : 'inside an aria-disabled ' + n.localName;
      if (n.inert || n.hasAttribute('inert')) return 'inert';
    }
    return '';
  };

  const invisibleWhy = (el) => {
    const cs = getComputedStyle(el);
    if (cs.display === 'none') return 'display:none';
    if (cs.visibility === 'hidden' || cs.visibility === 'collapse') return 'visibility:hidden';
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }))
      return 'hidden (an ancestor is not rendered or has opacity 0)';
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return 'zero size';
    return '';
  };

  const vp = () => ({ w: document.documentElement.clientWidth || innerWidth, h: document.documentElement.clientHeight || innerHeight });

  const visRect = (el) => {
    const r = el.getBoundingClientRect(), v = vp();
    return { x0: Math.max(0, r.left), y0: Math.max(0, r.top), x1: Math.min(v.w, r.right), y1: Math.min(v.h, r.bottom) };
  };

  const inViewport = (el) => {
    const r = el.getBoundingClientRect(), v = vp();
    // Fully inside, or at least a 24x24 visible patch of a large element.
    if (r.left >= 0 && r.top >= 0 && r.right <= v.w && r.bottom <= v.h) return true;
    const q = visRect(el);
    return q.x1 - q.x0 >= Math.min(24, r.width) && q.y1 - q.y0 >= Math.min(24, r.height) &&
      q.x1 - q.x0 >= r.width / 2 && q.y1 - q.y0 >= r.height / 2;
  };

  const frame = () => new Promise((res) => {
    let done = false;
    const fin = () => { if (!done) { done = true; res(); } };
    requestAnimationFrame(fin);
    setTimeout(fin, 50);
  });

  // Waits until the element's rect stops moving (smooth scroll, transitions):
  // the same rect on two consecutive frames, counting the rect now, so a
  // still target costs one frame; at most ms.
  // Animations that can move the target: any geometry (transforms too) of
  // the target or an ancestor; the layout size of an element beside it or
  // beside an ancestor (an accordion panel above it growing). Colours,
  // opacity and shadows move nothing: a hover fade elsewhere costs no wait.
  const GEOM = /^(all|transform|translate|scale|rotate|top|left|right|bottom|inset|width|height|min-|max-|margin|padding|flex|grid|font-size|line-height|border-width|border-(top|right|bottom|left)-width)/;
  const LAYOUT = /^(all|width|height|min-|max-|margin|padding|flex|grid|font-size|line-height|border-width|border-(top|right|bottom|left)-width|top|bottom|left|right|inset)/;
  const animProps = (an) => {
    if (an.transitionProperty) return [an.transitionProperty];
    try {
      const out = new Set();
      for (const k of an.effect.getKeyframes())
        for (const p of Object.keys(k))
          if (!/^(offset|easing|composite|computedOffset)$/.test(p)) out.add(p.replace(/[A-Z]/g, (m) => '-' + m.toLowerCase()));
      return [...out];
    } catch (e) { return ['all']; }
  };
  const canMove = (el, an) => {
    const t = an.effect && an.effect.target;
    if (!t || an.playState !== 'running') return false;
    if (contains(t, el)) return animProps(an).some((p) => GEOM.test(p));
    const par = parentOf(t);
    return !!par && contains(par, el) && animProps(an).some((p) => LAYOUT.test(p));
  };
  const movers = (el) => document.getAnimations().filter((an) => canMove(el, an));
  // A transition that has just been created has not moved anything on its
  // first frame, so a finite mover keeps the wait going until it ends;
  // endless ones (a pulsing container) end it at the first still frame.
  const finiteMovers = (el) => movers(el).some((an) => Number.isFinite(an.effect.getComputedTiming().endTime));
  const settle = async (el, ms) => {
    const t0 = performance.now();
    const r0 = el.getBoundingClientRect();
    let prev = r0.left + ',' + r0.top + ',' + r0.width + ',' + r0.height, same = 0;
    while (performance.now() - t0 < ms) {
      await frame();
      const r = el.getBoundingClientRect();
      const key = r.left + ',' + r.top + ',' + r.width + ',' + r.height;
      same = key === prev ? same + 1 : 0;
      prev = key;
      if (same >= 1 && !finiteMovers(el)) break;
    }
  };

  // 1 when a running animation targets el or a (composed) ancestor of it.
  const movedByAnimation = (el) => {
    const anims = document.getAnimations();
    if (!anims.length) return false;
    for (const an of anims) {
      const t = an.effect && an.effect.target;
      if (!t || an.playState !== 'running') continue;
      for (let n = el; n; n = n.parentNode || n.host) {
        if (n === t) return true;
      }
    }
    return false;
  };

  const NOT_TEXT = /^(button|submit|reset|checkbox|radio|image|file|range|color|hidden)$/;
  const textEntry = (el) => el.localName === 'textarea' || el.localName === 'select' ||
    (el.localName === 'input' && !NOT_TEXT.test(el.type)) || el.isContentEditable;

  const state = (el) => {
    const s = {};
    if (!el) return s;
    // Focus is an effect only for controls whose purpose is to take focus
    // (a text field); a button takes focus on any click, effect or not.
    if (textEntry(el)) {
      let a = document.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      s.focus = a ? (a === el ? 'self' : contains(el, a) ? 'inside' : describe(a)) : '';
    }
    if ('checked' in el) s.checked = !!el.checked;
    if ('value' in el && typeof el.value === 'string') s.value = el.value.slice(0, 200);
    if ('open' in el) s.open = !!el.open;
    for (const k of ['aria-pressed', 'aria-expanded', 'aria-checked', 'aria-selected'])
      if (el.hasAttribute(k)) s[k] = el.getAttribute(k);
    s.connected = el.isConnected;
    return s;
  };

  // Buttons inside a covering element that a person would use to dismiss it.
  const DISMISS = /\b(accept|agree|allow|ok|okay|got it|close|dismiss|reject|decline|deny|continue|no thanks|i understand)\b|^[x\u00d7\u2715\u2716]$/i;
  const suggest = (cover) => {
    const out = [];
    const all = cover.querySelectorAll('button,a[href],[role=button],input[type=button],input[type=submit],[aria-label]');
    const ranked = [];
    for (const b of all) {
      if (invisibleWhy(b)) continue;
      const t = clip(textOf(b), 40);
      const score = DISMISS.test(t) ? 2 : /close|dismiss/i.test(b.getAttribute('aria-label') || '') ? 2 : 1;
      const r = b.getBoundingClientRect();
      ranked.push({ score, desc: describe(b), x: r.left + r.width / 2, y: r.top + r.height / 2 });
    }
    ranked.sort((a, b) => b.score - a.score);
    for (const r of ranked.slice(0, 3)) out.push(r);
    return out;
  };

  // The outermost ancestor of hit that does not contain the target: the
  // overlay itself rather than the span inside it that took the hit.
  const coverRoot = (hit, el) => {
    let c = hit;
    for (let p = parentOf(c); p && p.nodeType === 1 && p !== document.body &&
      p !== document.documentElement && !contains(p, el); p = parentOf(p)) c = p;
    return c;
  };

  // A different control between hit and el (e.g. a button inside a row).
  const nestedControl = (hit, el) => {
    for (let n = hit; n && n !== el; n = parentOf(n)) {
      if (n.nodeType !== 1) continue;
      if (el.localName === 'label' && el.control === n) return null;
      // The kit's notion of a control; listeners recorded in the page's world
      // are not visible from this one, on* attributes are.
      if (kit.isInteractive(n)) return n;
    }
    return null;
  };

  const hitOk = (el, x, y) => {
    const h = hitAt(x, y);
    if (!h) return { ok: false, hit: null };
    if (contains(el, h)) return { ok: true, hit: h };
    // A label forwards its click to its control.
    if (h.localName === 'label' && h.control === el) return { ok: true, hit: h };
    // An SVG label over its shape: the press lands on the shape.
    if (labelShape(el, h)) return { ok: true, hit: h, shape: h };
    return { ok: false, hit: h };
  };

  const target = (a) => {
    if (a.xpath) {
      const el = resolve(a.xpath);
      if (el && el.many) return { err: 'the XPath matches ' + el.many + ' elements' };
      return { el };
    }
    return { el: hitAt(a.x, a.y) };
  };

  // ---- effects beyond the DOM mutation count ----

  // Every open shadow root in the document (walked once per probe; a
  // component that renders later is inserted by a light-DOM mutation,
  // which counts anyway). Each is observed from then on.
  const findShadowRoots = (limit) => {
    // Only after elements were inserted (a new host comes with its own
    // insertion); a still page is walked once.
    if (!S.grown) return;
    S.grown = false;
    const stack = [document];
    let seen = 0;
    while (stack.length && seen < limit) {
      const root = stack.pop();
      const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (let n = w.nextNode(); n && seen < limit; n = w.nextNode()) {
        seen++;
        if (n.shadowRoot) { observe(n.shadowRoot); stack.push(n.shadowRoot); }
      }
    }
  };

  // Values of the form controls of the document and of the shadow roots we
  // know: a script writing el.value (a picker filling a field, a widget
  // writing into its own input) changes no attribute, so no observer sees it.
  const FIELDS = 'input,textarea,select';
  const fieldsSnap = () => {
    const parts = [];
    const add = (root) => {
      for (const f of root.querySelectorAll(FIELDS)) {
        if (parts.length > 4000) return;
        parts.push(f.value + '\u0001' + (f.checked ? 1 : 0) + '\u0001' + (f.selectedIndex === undefined ? '' : f.selectedIndex));
      }
    };
    add(document);
    for (const r of S.shadowRoots) if (r.host && r.host.isConnected) add(r);
    return parts.join('\u0002');
  };

  // The deepest focused element (through open shadow roots).
  const deepActive = () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  };

  const selText = () => { try { return String(getSelection() || ''); } catch (e) { return ''; } };

  // The baseline the effect check compares with, taken right before the press.
  const baseline = (el) => ({ muts: S.muts, shmuts: S.shmuts, url: location.href,
    fields: fieldsSnap(), focus: deepActive(), sel: selText(), state: el ? state(el) : {} });

  // A target inside a closed shadow root: the window's listeners see its
  // events retargeted to the outermost host (the composed path hides closed
  // trees from outside), so the root itself gets the same listeners; they
  // run after the window's and see the whole path.
  const closedWatched = new WeakSet();
  const watchClosed = (el) => {
    for (let r = el ? el.getRootNode() : null; r instanceof ShadowRoot; r = r.host.getRootNode()) {
      if (r.mode !== 'closed' || closedWatched.has(r)) continue;
      closedWatched.add(r);
      for (const t of ['pointerdown', 'mousedown', 'mouseup', 'click']) r.addEventListener(t, onPress, true);
    }
  };
  const arm = (el, also) => {
    watchClosed(el);
    S.armed = el || null;
    S.armedAlso = also || null;
    S.seen = { any: false, down: false, click: null, where: '' };
    S.base = baseline(el);
  };

  // An SVG label (<text>, <tspan>) whose shape lies under it: a press on the
  // label where the glyphs leave gaps (or with pointer-events:none on the
  // text) lands on the shape, which is what a person clicking the label hits.
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const labelShape = (el, h) => {
    if (!el || !h || el.namespaceURI !== SVG_NS || h.namespaceURI !== SVG_NS) return false;
    if (!/^(text|tspan|textPath)$/.test(el.localName)) return false;
    if (/^(svg|g|text|tspan)$/.test(h.localName)) return false;
    // The shape shares an ancestor group with the label and contains it.
    const g = el.closest('g,svg');
    if (!g || !contains(g, h)) return false;
    const a = el.getBoundingClientRect(), b = h.getBoundingClientRect();
    return b.left <= a.left + 1 && b.top <= a.top + 1 && b.right >= a.right - 1 && b.bottom >= a.bottom - 1;
  };

  // The caller's point (where perception saw the element) is no longer on
  // it: the element moved since.
  const pointOff = (el, a) => {
    if (a.x === undefined) return false;
    const r = el.getBoundingClientRect();
    return !(a.x >= r.left && a.x < r.right && a.y >= r.top && a.y < r.bottom);
  };

  const api = {};

  // el's border box lies wholly in its visible part (viewport and scroll
  // boxes) and its centre takes a click.
  const wholeShown = (el) => {
    const r = el.getBoundingClientRect(), q = visRect(el);
    if (q.x0 > r.left + 1 || q.y0 > r.top + 1 || q.x1 < r.right - 1 || q.y1 < r.bottom - 1) return false;
    return hitOk(el, (r.left + r.right) / 2, (r.top + r.bottom) / 2).ok;
  };

  api.probe = async (a) => {
    const out = { found: false, muts: S.muts, url: location.href };
    const t = target(a);
    if (t.err) { out.ambiguous = t.err; return out; }
    const el = t.el;
    if (!el) return out;
    for (const r of shadowChain(el)) observe(r);
    findShadowRoots(20000);
    out.found = true;
    out.desc = describe(el);
    out.tag = el.localName;
    out.state = state(el);
    out.disabled = disabledWhy(el);
    if (out.disabled && a.xpath && a.enable_ms > 0) {
      // A control disabled until the page is ready (a form validating, a
      // request in flight): wait for it within the step's budget.
      const t0 = performance.now();
      while (out.disabled && performance.now() - t0 < a.enable_ms) {
        await new Promise((r) => setTimeout(r, 25));
        const el2 = resolve(a.xpath);
        if (!el2 || el2.many) break;
        out.disabled = disabledWhy(el2);
        if (!out.disabled) return api.probe(Object.assign({}, a, { enable_ms: 0 }));
      }
      out.waited_enabled_ms = Math.round(performance.now() - t0);
    }
    if (out.disabled) return out;
    out.invisible = invisibleWhy(el);
    if (out.invisible) return out;
    out.scrolled = false;
    // A field to type into is brought wholly into view (issue 21, class 8):
    // typing at the strip of it that shows leaves its centre under the
    // scroll box's edge or a bar, where pages that re-render or validate
    // what is visible lose the keys.
    const partial = a.whole && a.xpath && !wholeShown(el);
    if (a.xpath && (!inViewport(el) || partial)) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      out.scrolled = true;
      await settle(el, a.settle_ms || 500);
    } else if (a.xpath && a.settle_ms && (movedByAnimation(el) || movers(el).length ||
      pointOff(el, a))) {
      // Something that can move it is animating (the target or an ancestor
      // sliding, an accordion above it opening), or the element is no
      // longer where perception saw it (a script-driven animation): wait
      // until its rect holds still for a frame and those animations end,
      // within the settle budget, before choosing the point.
      await settle(el, a.settle_ms);
      out.settled = true;
    }
    const r = el.getBoundingClientRect();
    out.rect = { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
    let q = visRect(el);
    if (q.x1 - q.x0 < 1 || q.y1 - q.y0 < 1) { out.invisible = 'outside the viewport'; return out; }
    // The press point: the caller's point if it is on the element, else the
    // centre of the visible part; if that is covered, the first uncovered
    // point of a 5x5 interior grid (a partly covered element is still
    // clickable where it shows).
    let x = (q.x0 + q.x1) / 2, y = (q.y0 + q.y1) / 2;
    const given = a.xpath && a.x !== undefined && a.x >= q.x0 && a.x < q.x1 && a.y >= q.y0 && a.y < q.y1;
    if (given) { x = a.x; y = a.y; }
    if (!a.xpath) { x = a.x; y = a.y; }
    let h = hitOk(el, x, y);
    if (!h.ok && out.scrolled) {
      // Our own scroll put it under something fixed (a sticky header, a
      // banner): try the other alignments before calling it covered.
      for (const block of ['end', 'start', 'nearest']) {
        el.scrollIntoView({ block, inline: 'nearest', behavior: 'instant' });
        await settle(el, Math.min(a.settle_ms || 500, 200));
        const q2 = visRect(el);
        if (q2.x1 - q2.x0 < 1 || q2.y1 - q2.y0 < 1) continue;
        const x2 = (q2.x0 + q2.x1) / 2, y2 = (q2.y0 + q2.y1) / 2;
        const h2 = hitOk(el, x2, y2);
        if (h2.ok) { h = h2; x = x2; y = y2; q = q2; break; }
      }
      const r2 = el.getBoundingClientRect();
      out.rect = { x0: r2.left, y0: r2.top, x1: r2.right, y1: r2.bottom };
    }
    if (!h.ok && a.xpath) {
      // The interior grid, nearest the centre first: a point at the edge
      // is where a rounded corner or a hover transform loses the press.
      const grid = [];
      for (let i = 0; i < 25; i++) {
        const fx = 0.1 + 0.2 * (i % 5), fy = 0.1 + 0.2 * Math.floor(i / 5);
        grid.push({ fx, fy, d: Math.abs(fx - 0.5) + Math.abs(fy - 0.5) });
      }
      grid.sort((u, v) => u.d - v.d);
      for (const gp of grid) {
        const gx = q.x0 + (q.x1 - q.x0) * gp.fx, gy = q.y0 + (q.y1 - q.y0) * gp.fy;
        const g = hitOk(el, gx, gy);
        if (g.ok) { h = g; x = gx; y = gy; break; }
      }
    }
    out.x = x; out.y = y;
    out.vp = vp();
    // The document's scroll: the press-point check's document coordinates.
    out.sx = scrollX; out.sy = scrollY;
    if (!h.ok) {
      if (!h.hit) { out.invisible = 'nothing is hit-testable at its point'; return out; }
      const cover = coverRoot(h.hit, el);
      out.covered = describe(cover);
      out.alternatives = suggest(cover);
      return out;
    }
    const nested = h.shape ? null : nestedControl(h.hit, el);
    if (nested) out.ambiguous = 'the point lands on ' + describe(nested) + ' inside ' + out.desc;
    out.hit = describe(h.hit);
    arm(el, h.shape);
    out.muts = S.muts;
    return out;
  };

  // Baseline for the effect check, taken right before the press (re-arms
  // the delivery listeners on the probed target).
  // With the press point (a.x, a.y): if the approach set off an animation
  // that moves the target (a hover lift, a card sliding), wait for it to
  // end, and when the point is no longer on the target give a new one (the
  // centre of its visible part, else the nearest uncovered grid point).
  api.mark = async (a) => {
    const out = { muts: S.muts, url: location.href };
    const el = S.armed;
    if (el && a && a.x !== undefined && el.isConnected) {
      // Pointer moves reach the page aligned to frames: after one frame the
      // approach's last move has set :hover and started its transitions.
      await frame();
      if (movers(el).length) await settle(el, a.settle_ms || 500);
      if (!hitOk(el, a.x, a.y).ok) {
        const q = visRect(el);
        const pts = [[0.5, 0.5], [0.3, 0.5], [0.7, 0.5], [0.5, 0.3], [0.5, 0.7], [0.3, 0.3], [0.7, 0.3], [0.3, 0.7], [0.7, 0.7]];
        for (const [fx, fy] of pts) {
          const x = q.x0 + (q.x1 - q.x0) * fx, y = q.y0 + (q.y1 - q.y0) * fy;
          if (q.x1 - q.x0 >= 1 && q.y1 - q.y0 >= 1 && hitOk(el, x, y).ok) {
            out.moved = true; out.x = x; out.y = y;
            break;
          }
        }
      }
    }
    if (S.armed) arm(S.armed, S.armedAlso);
    out.muts = S.muts;
    return out;
  };

  // Arms delivery tracking and the baseline on a target that was not probed
  // (tier 2 presses at the element's content quad).
  api.arm = (a) => {
    const el = a.xpath ? resolve(a.xpath) : null;
    arm(el && el.nodeType === 1 ? el : null);
    return true;
  };

  // Waits (at most a.ms) for an effect of the press: DOM mutations in the
  // document or in a shadow root, a URL change, a change of the target's
  // state (value, checked, aria-pressed/-checked/-expanded/-selected, open),
  // of any form control's value or checked state (also inside shadow
  // roots), focus moving to another element, or a new text selection.
  // Returns as soon as one shows, with every kind seen by then (fx), and
  // where the press was delivered (target / elsewhere / none seen).
  const textLen = () => (document.body ? document.body.innerText.length : 0);

  api.effect = async (a) => {
    S.textAt = 0;
    const el = a.xpath ? resolve(a.xpath) : (S.armed || null);
    const B0 = { muts: a.muts, shmuts: S.shmuts, url: a.url, fields: null, focus: null,
      sel: '', state: a.state || {} };
    const t0 = performance.now();
    let early = 0;
    for (;;) {
      // Read each round: the first press event moves the baseline to the
      // press (what the pointer's arrival did is not the press's effect).
      const B = S.base || B0;
      const s0 = B.state || a.state || {};
      const fx = [];
      let what = '';
      if (S.muts > B.muts) { fx.push('mutation'); what = what || 'mutation'; }
      if (S.shmuts > B.shmuts) { fx.push('shadow'); what = what || 'mutation in a shadow root'; }
      if (location.href !== B.url) { fx.push('url'); what = what || 'url changed'; }
      if (el && el.nodeType === 1) {
        const s = state(el);
        for (const k of Object.keys(s)) {
          if (JSON.stringify(s[k]) === JSON.stringify(s0[k])) continue;
          if (k === 'value') fx.push('value');
          else if (k === 'focus') fx.push('focus');
          else if (k !== 'connected') fx.push('checked');
          else fx.push('mutation');
          what = what || k + ' changed';
        }
      }
      // A hover: rendered text that appeared or went (a CSS :hover flyout
      // changes no DOM), read at most every 50 ms (innerText lays out).
      if (a.text0 !== undefined && (!S.textAt || performance.now() - S.textAt >= 50)) {
        S.textAt = performance.now();
        if (textLen() !== a.text0) { fx.push('shown'); what = what || 'text appeared'; }
      }
      if (B.fields !== null) {
        const f = fieldsSnap();
        if (f !== B.fields) {
          const x = B.fields.split('\u0002'), y = f.split('\u0002');
          let kind = 'value';
          if (x.length === y.length) {
            for (let i = 0; i < x.length; i++) {
              if (x[i] === y[i]) continue;
              kind = x[i].split('\u0001')[0] === y[i].split('\u0001')[0] ? 'checked' : 'value';
              break;
            }
          }
          fx.push(kind);
          what = what || 'a field\'s ' + (kind === 'value' ? 'value' : 'checked state') + ' changed';
        }
        const act = deepActive();
        if (act && act !== B.focus && act !== document.body && act !== document.documentElement &&
          !(el && (act === el || contains(el, act) || contains(act, el)))) {
          fx.push('focus');
          what = what || 'focus moved to ' + describe(act);
        }
        const sel = selText();
        if (sel && sel !== B.sel) { fx.push('selection'); what = what || 'text selected'; }
      }
      // Queued with the press (no-humanize), this wait can start before
      // the press events reach the page: a reaction before any of them (the
      // pointer's arrival moving the target) waits up to 150 ms for them.
      const now = performance.now();
      let hold = false;
      if (fx.length && a.press && S.armed && !S.seen.any) {
        if (!early) early = now;
        hold = now - early < 150;
      }
      const done = !hold && (fx.length > 0 || now - t0 >= (a.ms || 0));
      if (done) {
        return { effect: what, fx: [...new Set(fx)], muts: S.muts, state: el ? state(el) : {},
          delivered: delivery(),
          where: S.seen.where };
      }
      await new Promise((r) => { S.wake = r; setTimeout(r, 10); });
      S.wake = null;
    }
  };

  api.waitEl = async (a) => {
    const t0 = performance.now();
    for (;;) {
      const el = resolve(a.xpath);
      if (el && el.nodeType === 1 && !invisibleWhy(el)) {
        if (!inViewport(el)) {
          el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
          await settle(el, 300);
        }
        return el;
      }
      if (performance.now() - t0 >= (a.ms || 0)) return null;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  api.jsClick = (a) => {
    const el = resolve(a.xpath);
    if (!el || el.nodeType !== 1) return false;
    if (!inViewport(el)) el.scrollIntoView({ block: 'nearest', behavior: 'instant' });
    arm(el);
    el.click();
    return true;
  };

  // ---- typing ----
  const isEditable = (el) => el.isContentEditable;
  const kindOf = (el) => {
    if (el.localName === 'input') return 'input';
    if (el.localName === 'textarea') return 'textarea';
    if (el.localName === 'select') return 'select';
    if (isEditable(el)) return 'editable';
    return 'other';
  };
  const valueOf = (el) => {
    if (!el) return null;
    if (kindOf(el) === 'editable') return el.innerText.replace(/\n$/, '');
    return 'value' in el ? String(el.value) : null;
  };

  // The field to type into: the target itself, or the editable element the
  // click focused (a wrapper div around an input, a label).
  const fieldEl = (a) => {
    let el = resolve(a.xpath);
    if (el && el.nodeType === 1 && kindOf(el) === 'other') {
      const inner = el.querySelector('input,textarea,[contenteditable=""],[contenteditable=true]');
      if (inner) el = inner;
      else if (el.localName === 'label' && el.control) el = el.control;
    }
    return el && el.nodeType === 1 ? el : null;
  };

  // A toggle's state: 1 checked / pressed, 0 not, -1 when el is no toggle
  // (a native checkbox or radio, or aria-checked / aria-pressed on a role).
  const checkedOf = (el) => {
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio'))
      return el.checked ? 1 : 0;
    const v = el.getAttribute('aria-checked') || el.getAttribute('aria-pressed');
    return v === 'true' || v === 'mixed' ? 1 : v === 'false' ? 0 : -1;
  };

  api.field = (a) => {
    const el = fieldEl(a);
    if (!el) return { found: false };
    const o = { found: true, kind: kindOf(el), type: el.type || '', desc: describe(el),
      pattern: el.getAttribute('pattern') || '', placeholder: el.getAttribute('placeholder') || '',
      autocomplete: el.getAttribute('autocomplete') || '',
      label: clip((el.labels && el.labels[0] && el.labels[0].innerText) || el.getAttribute('aria-label') || '', 60),
      value: valueOf(el), maxlength: el.maxLength > 0 ? el.maxLength : 0, shadow: shadowChain(el).length,
      readonly: !!el.readOnly, disabled: disabledWhy(el), checked: checkedOf(el) };
    for (const r of shadowChain(el)) observe(r);
    return o;
  };

  // Focuses the field (if the click did not) and selects its content so that
  // typing replaces it, the way a person selects before retyping.
  api.prepare = (a) => {
    const el = fieldEl(a);
    if (!el) return { focused: false };
    let act = document.activeElement;
    while (act && act.shadowRoot && act.shadowRoot.activeElement) act = act.shadowRoot.activeElement;
    const clicked = act === el || contains(el, act);
    if (!clicked) el.focus();
    if (a.clear) {
      const k = kindOf(el);
      if (k === 'editable') {
        const sel = getSelection(), rg = document.createRange();
        rg.selectNodeContents(el);
        sel.removeAllRanges();
        sel.addRange(rg);
      } else if (k === 'input' || k === 'textarea') {
        try { el.select(); } catch (e) { /* types without selection */ }
      }
    }
    act = document.activeElement;
    while (act && act.shadowRoot && act.shadowRoot.activeElement) act = act.shadowRoot.activeElement;
    S.keyField = el;
    S.keyInputs = 0;
    return { focused: act === el || contains(el, act), byClick: clicked, value: valueOf(el) };
  };

  // The field's value, and how many trusted input events reached it since
  // prepare (keys that landed).
  api.value = (a) => ({ value: valueOf(fieldEl(a)), inputs: S.keyInputs });

  const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true, composed: type === 'input' }));

  // The value-set path: the prototype's native setter (bypassing a
  // framework's instance override), then input and change, then a change
  // event on every shadow host around the field.
  api.setValue = (a) => {
    const el = fieldEl(a) || (a.xpath ? resolve(a.xpath) : null);
    if (!el) return { ok: false };
    const k = kindOf(el);
    if (k === 'editable') {
      el.textContent = a.value;
    } else {
      const proto = k === 'textarea' ? HTMLTextAreaElement.prototype :
        k === 'select' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
      const d = Object.getOwnPropertyDescriptor(proto, 'value');
      d.set.call(el, a.value);
    }
    fire(el, 'input');
    fire(el, 'change');
    for (const r of shadowChain(el)) r.host.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
    return { ok: true, value: valueOf(el) };
  };

  // A native <select>: the option whose text or value is the asked text
  // (folded), else the first whose text starts with it, set through setValue.
  api.selectOption = (a) => {
    const el = resolve(a.xpath);
    if (!el || el.localName !== 'select') return { ok: false, why: 'not a <select>' };
    if (disabledWhy(el)) return { ok: false, why: 'disabled' };
    const norm = (s) => String(s).replace(/\s+/g, ' ').trim().toLowerCase();
    const want = norm(a.text);
    const opts = [...el.options];
    const o = Number.isInteger(a.index) ? opts[a.index] :
      opts.find((x) => norm(x.text) === want) || opts.find((x) => norm(x.value) === want) ||
      opts.find((x) => norm(x.text).startsWith(want));
    if (!o) return { ok: false, why: 'no such option', options: opts.map((x) => x.text.trim()).slice(0, 12) };
    el.focus();
    api.setValue({ xpath: a.xpath, value: o.value });
    return { ok: true, chosen: o.text.trim() };
  };

  // After typing into a field inside shadow roots: the change event a
  // web component listens for on its host (the field's own change is not
  // composed and never reaches the host).
  api.commit = (a) => {
    const el = fieldEl(a);
    if (!el) return 0;
    const roots = shadowChain(el);
    for (const r of roots) r.host.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
    return roots.length;
  };

  // ---- sliders ----
  const num = (v, d) => { const x = parseFloat(v); return Number.isFinite(x) ? x : d; };
  const sliderEl = (a) => {
    let el = resolve(a.xpath);
    if (!el || el.nodeType !== 1) return null;
    if (!(el.localName === 'input' && el.type === 'range') && el.getAttribute('role') !== 'slider') {
      const inner = el.querySelector('input[type=range],[role=slider]') ||
        (el.shadowRoot && el.shadowRoot.querySelector('input[type=range],[role=slider]'));
      if (inner) el = inner;
    }
    return el;
  };

  api.slider = (a) => {
    const el = sliderEl(a);
    if (!el) return { found: false };
    for (const r of shadowChain(el)) observe(r);
    if (!inViewport(el)) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const rr = (e) => { const r = e.getBoundingClientRect(); return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom }; };
    if (el.localName === 'input' && el.type === 'range') {
      const min = num(el.min, 0), max = num(el.max, 100);
      const step = el.step === 'any' ? 0 : num(el.step, 1);
      const vert = getComputedStyle(el).writingMode.startsWith('vertical');
      return { found: true, kind: 'range', min, max, step, value: num(el.value, min), rect: rr(el),
        thumb: rr(el), vertical: vert, desc: describe(el), disabled: disabledWhy(el) };
    }
    if (el.getAttribute('role') !== 'slider') return { found: true, kind: 'none', desc: describe(el) };
    const min = num(el.getAttribute('aria-valuemin'), 0), max = num(el.getAttribute('aria-valuemax'), 100);
    const vert = el.getAttribute('aria-orientation') === 'vertical';
    // The track: the nearest ancestor clearly longer than the thumb along
    // the slider's axis; a thumb that is itself long is its own track.
    const t = el.getBoundingClientRect();
    let track = el;
    const len = (r) => vert ? r.height : r.width;
    if (len(t) < 60) {
      for (let p = parentOf(el), i = 0; p && p.nodeType === 1 && i < 6; p = parentOf(p), i++) {
        if (len(p.getBoundingClientRect()) >= 3 * Math.max(len(t), 8)) { track = p; break; }
      }
    }
    return { found: true, kind: 'aria', min, max, step: num(el.dataset.step || el.getAttribute('step'), 0),
      value: num(el.getAttribute('aria-valuenow'), min), rect: rr(track), thumb: rr(el), vertical: vert,
      self_track: track === el, desc: describe(el), disabled: disabledWhy(el) };
  };

  api.focusEl = (a) => { const el = sliderEl(a) || resolve(a.xpath); if (el && el.focus) el.focus(); return true; };

  // ---- keys, hover, dropdowns, file inputs, clipboard (cascade/keys.c,
  // click.c, dropdown.c, upload.c, clipboard.c) ----

  // Trusted keydowns that reached this document since keysArm, and the
  // element the first one went to.
  S.keysSeen = 0;
  S.keysOn = '';
  addEventListener('keydown', (e) => {
    if (!e.isTrusted) return;
    S.keysSeen++;
    if (!S.keysOn) {
      const p = e.composedPath ? e.composedPath() : [];
      S.keysOn = describe(p[0] && p[0].nodeType === 1 ? p[0] : deepActive());
    }
  }, true);

  // The effect baseline before keys (no target: the whole document, its
  // fields, the focus and the selection), and what has focus now.
  api.keysArm = () => {
    arm(null);
    S.keysSeen = 0;
    S.keysOn = '';
    const f = deepActive();
    return { focus: f ? describe(f) : '' };
  };
  api.keysSeen = () => ({ keys: S.keysSeen, on: S.keysOn });
  api.textLen = () => textLen();

  // The press-point check against the browser (cascade__check_press,
  // cascade/hand.c): node is what DOM.getNodeForLocation says is at the press
  // point, resolved into this world. true when a press there reaches the
  // target xp (the node is it or inside it, its label, or the shape under an
  // SVG label: hitOk's rules), false when it does not, null when xp names no
  // single element.
  api.pressOk = (node, xp) => {
    const el = resolve(xp);
    if (!el || el.many || !node) return null;
    if (contains(el, node)) return true;
    if (node.localName === 'label' && node.control === el) return true;
    if (labelShape(el, node)) return true;
    if (el.labels) for (const l of el.labels) if (contains(l, node)) return true;
    return false;
  };

  // Is the element at (x, y) the target (or inside it, or its label)? The
  // hover's delivery check: the pointer rests on what was asked.
  api.hit = (a) => {
    const el = a.xpath ? resolve(a.xpath) : null;
    const h = hitAt(a.x, a.y);
    let on = !!h && (!el || el === h || contains(el, h));
    if (!on && h && el && el.labels) for (const l of el.labels) if (contains(l, h)) on = true;
    return { on, where: h ? describe(h) : '' };
  };

  // The listbox a combobox (or a button that opens one) controls: itself,
  // aria-controls / aria-owns, one inside it, else the visible listbox
  // nearest to it (popups are often portalled to the end of <body>).
  const OPT_SEL = '[role=option]';
  const listboxOf = (el) => {
    if (kit.roleOf(el) === 'listbox') return el;
    const root = el.getRootNode();
    for (const attr of ['aria-controls', 'aria-owns']) {
      for (const id of (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean)) {
        const c = (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
        if (!c) continue;
        if (kit.roleOf(c) === 'listbox' || c.querySelector(OPT_SEL)) return c;
        const inner = c.querySelector('[role=listbox]');
        if (inner) return inner;
      }
    }
    const inner = el.querySelector('[role=listbox]');
    if (inner) return inner;
    const r0 = el.getBoundingClientRect();
    let best = null, bestD = Infinity;
    for (const lb of document.querySelectorAll('[role=listbox]')) {
      if (invisibleWhy(lb)) continue;
      const r = lb.getBoundingClientRect();
      const d = Math.hypot(r.left - r0.left, r.top - r0.bottom);
      if (d < bestD) { best = lb; bestD = d; }
    }
    return best;
  };

  // A dropdown's options: a native <select> (the target, or the select a
  // label or wrapper holds) gives all of them; an ARIA combobox/listbox the
  // visible [role=option]s of its open listbox, each with its xpath so the
  // C side can press it.
  api.listOptions = (a) => {
    let el = resolve(a.xpath);
    if (!el || el.nodeType !== 1) return { found: false };
    if (el.localName !== 'select' && !/^(combobox|listbox)$/.test(kit.roleOf(el))) {
      const s = el.localName === 'label' && el.control ? el.control : el.querySelector('select');
      if (s && s.localName === 'select') el = s;
    }
    const out = { found: true, desc: describe(el), disabled: disabledWhy(el) };
    if (el.localName === 'select') {
      out.native = true;
      out.xpath = kit.xpath(el);
      out.multiple = el.multiple;
      out.options = [...el.options].map((o, i) => ({ index: i, text: kit.norm(o.text), value: o.value,
        selected: o.selected, disabled: o.disabled || !!(o.parentElement && o.parentElement.disabled) }));
      return out;
    }
    out.native = false;
    out.role = kit.roleOf(el);
    out.expanded = el.getAttribute('aria-expanded');
    const lb = listboxOf(el);
    out.open = !!lb && !invisibleWhy(lb);
    out.options = [];
    if (!out.open) return out;
    const seen = new Set();
    const opts = [...lb.querySelectorAll(OPT_SEL)];
    for (const id of (lb.getAttribute('aria-owns') || '').split(/\s+/).filter(Boolean)) {
      const o = document.getElementById(id);
      if (o) opts.push(o);
    }
    for (const o of opts) {
      if (seen.has(o) || invisibleWhy(o)) continue;
      seen.add(o);
      out.options.push({ index: out.options.length, text: kit.norm(o.innerText || o.textContent),
        value: o.getAttribute('data-value') || o.getAttribute('value') || o.id || '',
        selected: o.getAttribute('aria-selected') === 'true' || o.getAttribute('aria-checked') === 'true',
        disabled: !!disabledWhy(o), xpath: kit.xpath(o) });
    }
    return out;
  };

  // The <input type=file> a target stands for: itself, the control of a
  // label, or the one inside a wrapper (styled upload areas hide it).
  const fileEl = (a) => {
    const el = resolve(a.xpath);
    if (!el || el.nodeType !== 1) return null;
    if (el.localName === 'input' && el.type === 'file') return el;
    if (el.localName === 'label' && el.control && el.control.type === 'file') return el.control;
    return el.querySelector('input[type=file]') ||
      (el.shadowRoot && el.shadowRoot.querySelector('input[type=file]')) || null;
  };
  api.fileInfo = (a) => {
    const el = fileEl(a);
    if (!el) return { found: !!resolve(a.xpath), input: false };
    return { found: true, input: true, desc: describe(el), multiple: el.multiple,
      accept: el.accept || '', disabled: disabledWhy(el) };
  };
  api.fileInput = (a) => fileEl(a);

  // What the system clipboard holds (permission granted by the C side).
  api.clipRead = async () => {
    try {
      return { ok: true, text: await navigator.clipboard.readText() };
    } catch (e) {
      return { ok: false, why: String((e && e.message) || e) };
    }
  };

  // Scrolling (cascade/scroll.c): the box a wheel at (x, y) would scroll —
  // the nearest scrollable ancestor of the element there, else the page —
  // and where it stands, so the hand knows when a scroll has come to rest
  // and how far a "to 50 %" still has to go.
  api.scrollState = (a) => {
    const canScroll = (el) => {
      if (!el || el.nodeType !== 1) return false;
      const cs = getComputedStyle(el);
      return /(auto|scroll|overlay)/.test(cs.overflowY) && el.scrollHeight > el.clientHeight + 1;
    };
    let el = a.page ? null : document.elementFromPoint(a.x, a.y);
    while (el && !canScroll(el)) el = parentOf(el);
    if (el && el.nodeType === 1) {
      return { box: true, top: el.scrollTop, max: el.scrollHeight - el.clientHeight,
        view: el.clientHeight, desc: describe(el) };
    }
    const se = document.scrollingElement || document.documentElement;
    return { box: false, top: se.scrollTop, max: se.scrollHeight - se.clientHeight,
      view: innerHeight, desc: 'the page' };
  };

  return api;
})()
