// assets/js/agent_find_text.js: where a text is on the page, for the scroll
// tool's "to_text". A function expression (the page kit is prepended),
// called with the text; returns {found, top, bottom, visible} for the first
// rendered text node containing it (kit.norm, case-folded; open shadow roots
// included), top/bottom in viewport CSS px, or {found: false}. It reads; the
// hand scrolls.
(text) => {
  const want = kit.norm(text).toLowerCase();
  if (!want) return { found: false };
  const visit = (root) => {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      if (n.nodeType === 1) {
        if (kit.SKIP_TEXT && kit.SKIP_TEXT.has && kit.SKIP_TEXT.has(n.localName)) continue;
        if (n.shadowRoot) {
          const r = visit(n.shadowRoot);
          if (r) return r;
        }
        continue;
      }
      if (!kit.norm(n.data).toLowerCase().includes(want)) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const rects = range.getClientRects();
      if (!rects.length) continue; // not rendered
      const b = range.getBoundingClientRect();
      return { found: true, top: b.top, bottom: b.bottom,
        visible: b.bottom > 0 && b.top < innerHeight };
    }
    return null;
  };
  return visit(document.body || document.documentElement) || { found: false };
}
