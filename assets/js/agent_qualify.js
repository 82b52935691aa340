// assets/js/agent_qualify.js: what tells apart controls a label names alike
// when the target qualifies it (issue 21, class 5): "the green Choose",
// "Delete in the row of Alice". A function expression (the page kit is
// prepended), called with a list of fovea xpaths of the top document and a
// context text (or ""); returns one entry per xpath: {bg, fg, row} — the
// colour words (red, orange, yellow, green, teal, blue, purple, pink,
// brown, black, white, gray; "" when transparent or not found) of its
// computed background (the nearest ancestor's that paints one, within 3)
// and of its text, and whether its row holds the context text (the nearest
// tr, li, [role=row], [role=listitem] or article, else the nearest ancestor
// at most three times its height, up to 5 levels; case-folded). It reads
// only.
(xpaths, ctx) => {
  const want = kit.norm(ctx || '').toLowerCase();
  const ROWISH = new Set(['tr', 'li', 'article']);
  const rowHas = (el) => {
    if (!want) return false;
    const h = Math.max(el.getBoundingClientRect().height, 16);
    for (let a = el.parentElement, i = 0; a && i < 5; a = a.parentElement, i++) {
      const tag = a.localName, role = a.getAttribute('role');
      const rowish = ROWISH.has(tag) || role === 'row' || role === 'listitem';
      if (!rowish && a.getBoundingClientRect().height > 3 * h) break;
      if (kit.norm(a.innerText || '').toLowerCase().includes(want)) return true;
      if (rowish) break;
    }
    return false;
  };
  const parse = (s) => {
    const m = /rgba?\(([^)]+)\)/.exec(s || '');
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const word = (c) => {
    if (!c || c.a < 0.2) return '';
    const r = c.r / 255, g = c.g / 255, b = c.b / 255;
    const max = Math.max(r, g, b), min = Math.min(r, g, b), l = (max + min) / 2;
    const d = max - min, s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
    if (s < 0.18 || d < 0.08) return l < 0.2 ? 'black' : l > 0.85 ? 'white' : 'gray';
    let h = 0;
    if (max === r) h = 60 * (((g - b) / d) % 6);
    else if (max === g) h = 60 * ((b - r) / d + 2);
    else h = 60 * ((r - g) / d + 4);
    if (h < 0) h += 360;
    if (h < 15 || h >= 345) return l < 0.3 && s < 0.6 ? 'brown' : 'red';
    if (h < 40) return l < 0.35 ? 'brown' : 'orange';
    if (h < 65) return 'yellow';
    if (h < 165) return 'green';
    if (h < 195) return 'teal';
    if (h < 255) return 'blue';
    if (h < 290) return 'purple';
    return 'pink';
  };
  return xpaths.map((xp) => {
    const el = kit.resolve(xp);
    if (!el || el.many) return { bg: '', fg: '', row: false };
    let bg = '';
    for (let a = el, i = 0; a && a.nodeType === 1 && i < 4 && !bg; a = a.parentElement, i++)
      bg = word(parse(getComputedStyle(a).backgroundColor));
    return { bg, fg: word(parse(getComputedStyle(el).color)), row: rowHas(el) };
  });
}
