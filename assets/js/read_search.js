// assets/js/read_search.js: finds elements by text and/or CSS selector (the
// dom_search tool, agent/session/tools_read.c). A function expression after the page
// kit and lib/dom.js; called with
//   q = {text?: string, css?: selector, max: 1..80, visibleOnly?: bool,
//        selectors?: bool}
// and returns {total, matches: [{tag, text, attrs, xpath, frame, visible,
// box: {x, y, w, h}, selector?}]}; an invalid selector throws a SyntaxError.
// visibleOnly (extract_with_index, agent/session/tools_outline.c) skips hidden
// elements before counting and reports (and also matches) the rendered
// text; selectors adds a stable CSS selector for each
// match, unique within its document or shadow root: #id, else a unique
// tag[data-testid|data-test|data-qa|name|aria-label="..."], else
// :nth-of-type steps from the nearest ancestor with a unique id.
//
// A text match is the innermost element whose rendered text contains the
// text (case-insensitive, spaces folded with kit.norm), or whose label-like
// attribute does (aria-label, placeholder, title, alt, value): "Add to
// cart" finds the button, not the body around it. With css too, only
// elements matching the selector count, and their whole text is searched.
// The walk covers open shadow roots and same-origin frames (lib/dom.js);
// xpath is kit.xpath within the element's own document and frame is the
// xpath of the frame element(s) above it ("" in the top document). Boxes are
// in the top document's viewport px. total counts every match (up to 10000);
// matches holds the first max in document order.
(q) => {
  q = q || {};
  const max = Math.min(80, Math.max(1, q.max || 80));
  const want = q.text ? kit.norm(q.text).toLowerCase() : '';
  if (q.css) dom.checkSelector(q.css);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head']);
  const ATTRS = ['aria-label', 'placeholder', 'title', 'alt'];
  const KEEP = ['id', 'class', 'name', 'type', 'role', 'href', 'src', 'aria-label', 'placeholder',
    'title', 'alt', 'for', 'action', 'data-testid'];

  // The composed text of each element (shadow content and same-origin frames
  // included, unlike textContent), lower-cased and folded, memoised: each
  // element's text is built once from its children's.
  const memo = new Map();
  const textOf = (el) => {
    let t = memo.get(el);
    if (t !== undefined) return t;
    const parts = [];
    for (const c of dom.children(el)) {
      if (c.nodeType === 3) parts.push(c.data);
      else if (c.nodeType === 1 && !SKIP.has(c.localName)) parts.push(' ' + textOf(c) + ' ');
    }
    t = kit.norm(parts.join(''));
    memo.set(el, t);
    return t;
  };
  // The text as rendered (innerText), folded; the composed text when the
  // element has no layout.
  const rendered = (el) => (typeof el.innerText === 'string' && el.getClientRects().length
    ? kit.norm(el.innerText) : textOf(el));
  const attrHit = (el) => {
    for (const a of ATTRS) {
      const v = el.getAttribute(a);
      if (v && kit.norm(v).toLowerCase().includes(want)) return true;
    }
    const tag = el.localName;
    if ((tag === 'input' || tag === 'textarea') && !kit.secretField(el) &&
      typeof el.value === 'string' && kit.norm(el.value).toLowerCase().includes(want)) return true;
    return false;
  };
  const hits = [];
  let total = 0;
  const TOTAL_CAP = 10000;
  const take = (el) => {
    if (q.visibleOnly && !dom.visible(el)) return;
    total++;
    if (hits.length < max) hits.push(el);
  };
  dom.walk(document.documentElement, (el) => {
    if (total >= TOTAL_CAP) return false;
    if (SKIP.has(el.localName)) return false;
    if (q.css && !el.matches(q.css)) return true;
    if (!want) { take(el); return true; }
    if (attrHit(el)) { take(el); return true; }
    const t = textOf(el).toLowerCase();
    // With visibleOnly and a selector, the rendered text counts too (inline
    // children joined as shown: "split(sep=None)", not "split ( sep=None )").
    if (q.css && q.visibleOnly && !t.includes(want) && rendered(el).toLowerCase().includes(want)) {
      take(el);
      return true;
    }
    // No pruning when the text is absent: an attribute below may still match.
    if (!t.includes(want)) return true;
    if (q.css) { take(el); return true; }
    // Innermost: no element child carries the whole text.
    for (const c of dom.children(el)) {
      if (c.nodeType === 1 && !SKIP.has(c.localName) && textOf(c).toLowerCase().includes(want)) {
        return true;
      }
    }
    take(el);
    return true;
  });
  const esc = (v) => (typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(v)
    : String(v).replace(/[^\w-]/g, (c) => '\\' + c));
  const unique = (el, sel) => {
    try { return el.getRootNode().querySelectorAll(sel).length === 1; } catch (e) { return false; }
  };
  const stable = (el) => {
    const tag = el.localName;
    const id = el.getAttribute('id');
    if (id && unique(el, '#' + esc(id))) return '#' + esc(id);
    for (const a of ['data-testid', 'data-test', 'data-qa', 'name', 'aria-label']) {
      const v = el.getAttribute(a);
      if (!v) continue;
      const sel = tag + '[' + a + '="' + v.replace(/["\\]/g, '\\$&') + '"]';
      if (unique(el, sel)) return sel;
    }
    const steps = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const eid = e.getAttribute('id');
      if (e !== el && eid && unique(e, '#' + esc(eid))) { steps.unshift('#' + esc(eid)); break; }
      let n = 1;
      for (let p = e.previousElementSibling; p; p = p.previousElementSibling) if (p.localName === e.localName) n++;
      steps.unshift(e.localName + ':nth-of-type(' + n + ')');
    }
    return steps.join(' > ');
  };
  const matches = hits.map((el) => {
    const attrs = {};
    for (const a of KEEP) {
      const v = el.getAttribute(a);
      if (v !== null && v !== '') attrs[a] = v.length > 120 ? v.slice(0, 120) + '…' : v;
    }
    const tag = el.localName;
    if ((tag === 'input' || tag === 'textarea' || tag === 'select') && el.value) {
      attrs.value = kit.cap(kit.shownValue(el), 120);
    }
    if (el.checked === true) attrs.checked = 'true';
    if (el.disabled === true) attrs.disabled = 'true';
    const r = dom.topRect(el);
    return {
      tag,
      text: kit.cap(q.visibleOnly ? rendered(el) : textOf(el), 200),
      attrs,
      xpath: kit.xpath(el),
      frame: kit.framePath(el),
      visible: dom.visible(el),
      box: { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.w), h: Math.round(r.h) },
      selector: q.selectors ? stable(el) : undefined,
    };
  });
  return { total, matches };
}
