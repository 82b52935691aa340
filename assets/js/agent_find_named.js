// assets/js/agent_find_named.js: the elements a name means, for a hover whose
// target no vision box carries (issue 21, class 6: an avatar <img> named by
// its alt, a link whose only listener is mouseenter, a caption's trigger). A
// function expression (the page kit is prepended), called with the name;
// returns {n, items: [{xpath, rect: [x0, y0, x1, y1], tag, name}]} for up to
// 4 rendered, visible elements of the top document (open shadow roots
// included) whose accessible name, alt, title or own text equals the name
// (kit.norm, case-folded), innermost first: an element is left out when one
// inside it carries the name too. It reads; the hand hovers.
(name) => {
  const want = kit.norm(name).toLowerCase();
  if (!want) return { n: 0, items: [] };
  const hits = [];
  const matches = (el) => {
    const own = [kit.accessibleName(el), el.getAttribute('alt'), el.getAttribute('title'),
      el.getAttribute('aria-label')];
    for (const s of own) if (s && kit.norm(s).toLowerCase() === want) return true;
    // Own text only for small elements: a row holding the words is not them.
    const t = kit.norm(el.innerText || '').toLowerCase();
    return t === want && el.children.length <= 3;
  };
  const visit = (root) => {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = w.nextNode(); el && hits.length < 64; el = w.nextNode()) {
      if (kit.SKIP_TEXT.has(el.localName)) continue;
      if (el.shadowRoot) visit(el.shadowRoot);
      const tag = el.localName;
      if (tag === 'html' || tag === 'body' || tag === 'head') continue;
      if (!matches(el) || !kit.shown(el)) continue;
      const v = kit.visiblePart(el);
      if (!v || v[2] - v[0] < 1 || v[3] - v[1] < 1) continue;
      hits.push(el);
    }
  };
  visit(document);
  // Innermost: drop an element holding another hit.
  const inner = hits.filter((el) => !hits.some((o) => o !== el && el.contains(o)));
  const items = inner.slice(0, 4).map((el) => {
    const v = kit.visiblePart(el);
    return { xpath: kit.xpath(el), rect: v.map((x) => Math.round(x)), tag: el.localName,
      name: kit.cap(kit.accessibleName(el) || el.getAttribute('alt') || kit.norm(el.innerText || ''), 80) };
  });
  return { n: inner.length, items };
}
