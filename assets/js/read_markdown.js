// assets/js/read_markdown.js: the readable text of a document, or of one
// region of it, as Markdown (the extract_markdown tool, agent/session/tools_read.c).
// A function expression after the page kit and lib/dom.js; called with
//   q = {css?: selector, xpath?: kit xpath, x?, y?: a point in this
//        document's viewport (a grounded target), max: chars}
// and returns {found, markdown, cut, chars}; an invalid selector throws.
//
// What a reader gets: headings as "#", paragraphs separated by a blank line,
// lists as "-" / "1." with nesting indented, links as [text](absolute href),
// images with alt text as ![alt](src), tables as pipe tables (first row as
// header), <pre> as fenced code (the language from a language-/lang- class),
// inline code in backticks, bold/italic/strike marks, blockquotes with ">".
// Form controls show their state: [x] / [ ] for check boxes, (x) / ( ) for
// radios, the value of a field or the chosen option in brackets. Hidden
// elements (display:none, visibility:hidden, the hidden attribute), scripts,
// styles and templates are skipped; open shadow roots, slots and same-origin
// frames are read in place (lib/dom.js). The output stops at the first block
// that would pass q.max characters (cut = true then).
(q) => {
  q = q || {};
  const max = q.max > 0 ? q.max : 24000;
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'title', 'head', 'meta',
    'link', 'svg', 'canvas', 'video', 'audio', 'object', 'embed', 'map', 'datalist']);
  const HEAD = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
  // Read whole, as one inline piece, even when laid out as a block (a nav
  // menu's links, a card that is one big link, a full-width button).
  const ATOM = new Set(['a', 'img', 'button', 'input', 'select', 'textarea', 'code']);
  // Blocks whatever their CSS says (a list restyled inline is still a list,
  // a table is a table).
  const STRUCT = new Set(['ul', 'ol', 'table', 'pre', 'blockquote', 'hr', 'dl', 'iframe', 'frame']);

  let root = null;
  if (q.css) {
    dom.checkSelector(q.css);
    root = dom.queryAll(q.css, document.documentElement, 1)[0] || null;
  } else if (q.xpath) {
    const r = kit.resolve(q.xpath, document);
    root = r && r.nodeType === 1 ? r : null;
  } else if (typeof q.x === 'number' && typeof q.y === 'number') {
    // A grounded target: the element under the point, widened to the
    // nearest block-level element around it (a link to its paragraph, a
    // word to its table cell, a button to its form).
    root = kit.hitAt(q.x, q.y, document);
    while (root && root.parentElement && root.localName !== 'body' && isInline(root)) {
      root = root.parentElement;
    }
  } else {
    root = document.body || document.documentElement;
  }
  if (!root) return { found: false, markdown: '', cut: false, chars: 0 };

  function isInline(el) {
    const tag = el.localName;
    if (HEAD[tag] || STRUCT.has(tag) || tag === 'li' || tag === 'p') return false;
    const d = kit.styleOf(el).display;
    return d.startsWith('inline') || d === 'contents' || d === 'ruby';
  }
  // Does inline element el hold a block (a custom element, inline by
  // default, whose shadow root has headings and paragraphs)? Then it is
  // read as a container, as the browser lays it out in anonymous blocks.
  const blockMemo = new Map();
  function hasBlock(el) {
    let b = blockMemo.get(el);
    if (b !== undefined) return b;
    b = false;
    for (const c of dom.children(el)) {
      if (c.nodeType !== 1 || skip(c)) continue;
      if (!isInline(c) || kit.isFrame(c) || hasBlock(c)) { b = true; break; }
    }
    blockMemo.set(el, b);
    return b;
  }
  const skip = (el) => SKIP.has(el.localName) || el.hidden || dom.hidden(el);
  const ws = (s) => s.replace(/[\t\n\r\f ]+/g, ' ');
  const clean = (s) => s.replace(/[ \t]*\n[ \t]*/g, '\n').replace(/[ \t]+/g, ' ').trim();

  const controlText = (el) => {
    const tag = el.localName;
    if (tag === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      return '[' + kit.norm(o ? o.label || o.text : '') + ']';
    }
    if (tag === 'textarea') return el.value ? '[' + kit.cap(kit.shownValue(el), 200) + ']' : '';
    const ty = (el.getAttribute('type') || 'text').toLowerCase();
    if (ty === 'hidden') return '';
    if (ty === 'checkbox') return el.checked ? '[x]' : '[ ]';
    if (ty === 'radio') return el.checked ? '(x)' : '( )';
    if (ty === 'password') return el.value ? '[••••]' : '';
    if (ty === 'submit' || ty === 'button' || ty === 'reset') {
      return '[' + kit.norm(el.value || (ty === 'reset' ? 'Reset' : ty === 'submit' ? 'Submit' : '')) + ']';
    }
    if (ty === 'image') return el.alt ? '[' + kit.norm(el.alt) + ']' : '';
    return el.value ? '[' + kit.cap(kit.shownValue(el), 200) + ']' : '';
  };
  const wrap = (mark, s) => {
    const t = s.trim();
    if (!t) return s;
    const lead = s.startsWith(' ') ? ' ' : '', trail = s.endsWith(' ') ? ' ' : '';
    return lead + mark + t + mark + trail;
  };
  const hrefOf = (el) => {
    const h = el.getAttribute('href');
    if (h === null || /^\s*javascript:/i.test(h)) return '';
    return el.href || h;
  };

  // The inline Markdown of n's composed children.
  function inlineKids(n) {
    let s = '';
    for (const c of dom.children(n)) s += inline(c);
    return s;
  }
  // The inline Markdown of one node: text, marks, links, images, controls.
  // A block met inside inline content is flattened to text with spaces.
  function inline(n) {
    if (n.nodeType === 3) return ws(n.data);
    if (n.nodeType !== 1 || skip(n)) return '';
    const tag = n.localName;
    switch (tag) {
      case 'br': return '\n';
      case 'img': {
        const alt = kit.norm(n.getAttribute('alt'));
        if (!alt) return '';
        const src = n.currentSrc || n.src || '';
        return src && !src.startsWith('data:') ? '![' + alt + '](' + src + ')' : alt;
      }
      case 'a': {
        const t = clean(inlineKids(n)) ||
          kit.norm(n.getAttribute('aria-label') || n.getAttribute('title') || '');
        const h = hrefOf(n);
        if (!h || !t) return t ? ' ' + t + ' ' : '';
        return '[' + t.replace(/\n/g, ' ').replace(/([[\]])/g, '\\$1') + '](' +
          h.replace(/ /g, '%20').replace(/\)/g, '%29') + ')';
      }
      case 'strong': case 'b': return wrap('**', inlineKids(n));
      case 'em': case 'i': return wrap('*', inlineKids(n));
      case 's': case 'del': case 'strike': return wrap('~~', inlineKids(n));
      case 'code': case 'kbd': case 'samp': {
        const t = kit.norm(n.textContent);
        return t ? '`' + t.replace(/`/g, '\u02cb') + '`' : '';
      }
      case 'input': case 'select': case 'textarea':
        return ' ' + controlText(n) + ' ';
      case 'button': {
        const t = clean(inlineKids(n)) || kit.accessibleName(n, true);
        return t ? ' [' + t + '] ' : '';
      }
    }
    if (kit.isFrame(n) || !isInline(n)) {
      // A block inside inline content (a div in a link, a cell in a flat
      // table): its text on the same line, set apart by spaces.
      return ' ' + inlineKids(n) + ' ';
    }
    return inlineKids(n);
  }

  // ---- blocks ---------------------------------------------------------------
  const blocks = [];
  let total = 0, cut = false;
  const emit = (s) => {
    if (cut) return;
    s = s.replace(/\n{3,}/g, '\n\n').replace(/[ \t]+$/gm, '');
    if (!s.trim()) return;
    if (total + s.length + 2 > max) {
      cut = true;
      return;
    }
    blocks.push(s);
    total += s.length + 2;
  };
  // Lines of one list (ul/ol) at depth d: one per item, nested lists
  // indented under their item.
  function list(el, d) {
    const lines = [];
    const ordered = el.localName === 'ol';
    let k = ordered ? (parseInt(el.getAttribute('start') || '1', 10) || 1) : 0;
    const pad = '   '.repeat(d);
    for (const li of dom.children(el)) {
      if (li.nodeType !== 1 || skip(li)) continue;
      let own = '';
      const sub = [];
      for (const c of dom.children(li)) {
        if (c.nodeType === 1 && (c.localName === 'ul' || c.localName === 'ol')) {
          if (!skip(c)) sub.push(...list(c, d + 1));
        } else {
          own += c.nodeType === 1 && !isInline(c) && !skip(c) ? ' ' + inlineKids(c) + ' ' : inline(c);
        }
      }
      const mark = ordered ? (k++) + '. ' : '- ';
      const t = clean(own).replace(/\n/g, ' ');
      if (t || sub.length) lines.push(pad + mark + t);
      lines.push(...sub);
    }
    return lines;
  }
  const cell = (c) => clean(inlineKids(c)).replace(/\n/g, ' ').replace(/\|/g, '\\|');
  function table(el) {
    const rows = [];
    for (const r of el.rows || []) {
      if (skip(r)) continue;
      const cells = [];
      for (const c of r.cells) {
        if (skip(c)) continue;
        cells.push(cell(c));
        for (let i = 1; i < (c.colSpan || 1) && i < 50; i++) cells.push('');
      }
      if (cells.length) rows.push(cells);
    }
    if (!rows.length) return '';
    const n = Math.max(...rows.map((r) => r.length));
    const line = (r) => '| ' + Array.from({ length: n }, (_, i) => r[i] || '').join(' | ') + ' |';
    const out = [line(rows[0]), '|' + ' --- |'.repeat(n)];
    for (const r of rows.slice(1)) out.push(line(r));
    const cap = el.caption ? clean(inlineKids(el.caption)) : '';
    return (cap ? '**' + cap + '**\n\n' : '') + out.join('\n');
  }
  function pre(el) {
    let lang = '';
    const c = el.querySelector('code') || el;
    const m = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec((c.className || '') + ' ' + (el.className || ''));
    if (m) lang = m[1];
    const text = (el.innerText || el.textContent || '').replace(/\n+$/, '');
    const fence = text.includes('```') ? '~~~~' : '```';
    return fence + lang + '\n' + text + '\n' + fence;
  }
  // The blocks of container n: runs of inline content become paragraphs,
  // block children are read by block().
  function container(n) {
    let run = '';
    const flush = () => {
      const t = clean(run);
      run = '';
      if (t) emit(t);
    };
    for (const c of dom.children(n)) {
      if (cut) return;
      if (c.nodeType === 3) { run += ws(c.data); continue; }
      if (c.nodeType !== 1 || skip(c)) continue;
      if (isInline(c) && !kit.isFrame(c) && !hasBlock(c)) { run += inline(c); continue; }
      flush();
      block(c);
    }
    flush();
  }
  function block(el) {
    const tag = el.localName;
    let lv = HEAD[tag];
    if (!lv && el.getAttribute('role') === 'heading') {
      lv = Math.min(6, Math.max(1, parseInt(el.getAttribute('aria-level') || '2', 10) || 2));
    }
    if (lv) {
      const t = clean(inlineKids(el)).replace(/\n/g, ' ');
      if (t) emit('#'.repeat(lv) + ' ' + t);
      return;
    }
    if (ATOM.has(tag)) {
      // A link or control laid out as a block (nav menus, card links) is
      // still a link or a control: read it whole, on its own line.
      const t = clean(inline(el));
      if (t) emit(t);
      return;
    }
    switch (tag) {
      case 'ul': case 'ol': emit(list(el, 0).join('\n')); return;
      case 'table': emit(table(el)); return;
      case 'pre': emit(pre(el)); return;
      case 'hr': emit('---'); return;
      case 'blockquote': {
        const save = blocks.length;
        container(el);
        const parts = blocks.splice(save);
        for (const b of parts) total -= b.length + 2;
        const inner = parts.join('\n\n');
        if (inner) emit(inner.split('\n').map((l) => '> ' + l).join('\n'));
        return;
      }
      case 'dt': {
        const t = clean(inlineKids(el));
        if (t) emit('**' + t + '**');
        return;
      }
      case 'dd': {
        const t = clean(inlineKids(el));
        if (t) emit(': ' + t);
        return;
      }
    }
    container(el);
  }
  if (isInline(root) && root.localName !== 'body') emit(clean(inline(root)));
  else if (root.localName === 'body' || root.localName === 'html') container(root);
  else block(root);
  const markdown = blocks.join('\n\n');
  return { found: true, markdown, cut, chars: markdown.length };
}
