// assets/js/agent_text.js: the rendered text of one document for the task
// runner's wait_for, assert_text and extract steps. Evaluated as an
// expression in each frame's own context (the runner visits cross-origin
// frames through their sessions); returns a string with one line per
// rendered line: the body's innerText, then the text of open shadow roots
// (innerText does not enter them) and of same-origin iframes, each line
// normalised with the page kit (kit.normLines).
(() => {
  const parts = [];
  const seen = new Set();
  const shadowText = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (!el.shadowRoot || seen.has(el.shadowRoot)) continue;
      seen.add(el.shadowRoot);
      for (const c of el.shadowRoot.children) {
        if (c.tagName === 'STYLE' || c.tagName === 'SCRIPT') continue;
        const t = c.innerText || '';
        if (t.trim()) parts.push(t);
      }
      shadowText(el.shadowRoot);
    }
  };
  const visit = (doc) => {
    if (!doc || !doc.body) return;
    parts.push(doc.body.innerText || '');
    shadowText(doc);
    for (const f of doc.querySelectorAll('iframe, frame')) {
      let inner = null;
      try { inner = f.contentDocument; } catch (e) { inner = null; }
      if (inner) visit(inner);
    }
  };
  visit(document);
  // NBSP, zero-width characters and space runs folded as everywhere else
  // text is compared (the page kit's rule), line breaks kept.
  return kit.normLines(parts.join('\n'));
})()
