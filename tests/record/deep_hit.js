// tests/record/deep_hit.js: the element at each point as the browser sees
// it, piercing open shadow roots and same-origin iframes, named with the
// snapper's xpath convention (perception/snapshot.h). Applied to an array of
// [x, y] viewport points; returns a JSON string of [{"x": xpath, "f": chain}]
// ("" xpath when nothing is there). A cross-origin iframe is reported as the
// iframe element itself with "cross": true.
(function (points) {
  const stepOf = (el) => {
    const tag = el.localName.toLowerCase();
    let n = 1;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) {
      if (s.localName.toLowerCase() === tag) n++;
    }
    return tag + '[' + n + ']';
  };
  const xpathOf = (el) => {
    const steps = [];
    let cur = el;
    while (cur) {
      steps.unshift(stepOf(cur));
      if (cur.parentElement) { cur = cur.parentElement; continue; }
      const root = cur.parentNode;
      if (root && root.host) { steps.unshift('#shadow-root'); cur = root.host; continue; }
      break;
    }
    return '/' + steps.join('/');
  };
  const hit = (doc, x, y, chain) => {
    let el = doc.elementFromPoint(x, y);
    if (!el) return { x: '', f: chain.join('|') };
    while (el.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    if (el.localName === 'iframe' || el.localName === 'frame') {
      let sub = null;
      try { sub = el.contentDocument; } catch (e) { sub = null; }
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      const ox = r.left + el.clientLeft + parseFloat(cs.paddingLeft);
      const oy = r.top + el.clientTop + parseFloat(cs.paddingTop);
      if (!sub) return { x: xpathOf(el), f: chain.join('|'), cross: true };
      const ix = x - ox, iy = y - oy;
      if (ix >= 0 && iy >= 0 && ix < el.clientWidth && iy < el.clientHeight)
        return hit(sub, ix, iy, chain.concat([xpathOf(el)]));
    }
    return { x: xpathOf(el), f: chain.join('|') };
  };
  return JSON.stringify(points.map((p) => hit(document, p[0], p[1], [])));
})
