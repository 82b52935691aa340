// assets/js/agent_secret_rects.js: where the run's secrets are visible on
// the page, so that the step overlays (screenshots) can paint over them. A
// function expression; the runner calls it with the secret forms it knows
// (agent/session/secrets.h) and gets back up to 64 viewport rects [x0, y0, x1, y1]
// in CSS px: every text node and every input/textarea value that holds a
// secret as written, case-folded, URL-decoded (a page that echoes its query
// string) or, for number-like secrets, with its digits grouped any way.
// Open shadow roots are searched; other frames are not.
(forms) => {
  const wants = forms.map((f) => {
    const digits = f.replace(/\D/g, '');
    const numberLike = /^[\d\s\-./]+$/.test(f) && digits.length >= 6;
    return { low: f.toLowerCase(), digits: numberLike ? digits : '' };
  });
  const decode = (s) => {
    try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch (e) { return s; }
  };
  const holds = (text) => {
    if (!text) return false;
    for (const c of [text.toLowerCase(), decode(text).toLowerCase()]) {
      const compact = c.replace(/[\s\-./+]/g, '');
      for (const w of wants) {
        if (c.includes(w.low)) return true;
        if (w.digits && compact.includes(w.digits)) return true;
      }
    }
    return false;
  };
  const rects = [];
  const add = (r) => {
    if (r.width > 0 && r.height > 0 && rects.length < 64)
      rects.push([r.left, r.top, r.right, r.bottom]);
  };
  const walk = (root) => {
    const doc = root.ownerDocument || root;
    const tw = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      if (!holds(n.nodeValue)) continue;
      const range = doc.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) add(r);
    }
    for (const el of root.querySelectorAll('input, textarea')) {
      if (holds(el.value)) add(el.getBoundingClientRect());
    }
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  if (document.body) walk(document.body);
  return rects;
}
