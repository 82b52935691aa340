// assets/js/lib/dom.js: the composed DOM as a reader sees it, for the page
// scripts that read pages (read_markdown.js, read_search.js, read_state.js).
// Loaded after the page kit (it uses kit.styleOf, kit.frameDoc, kit.contentBox,
// kit.hitAt) as a second library: "lib/kit.js,lib/dom.js,script.js".
//
// "Composed" means what a person sees on the page: the children of an element
// with an open shadow root are that root's children; a <slot> stands for the
// nodes assigned to it (else its fallback content); a same-origin <iframe> or
// <frame> has its document's <body> as its one child. Closed shadow roots and
// cross-origin frames cannot be entered from here; the C side runs the same
// script in each cross-origin frame's own session.
const dom = (() => {
  'use strict';
  // The child nodes of n in the composed tree (an array).
  const children = (n) => {
    if (n.nodeType === 1) {
      if (n.shadowRoot) return Array.from(n.shadowRoot.childNodes);
      if (n.localName === 'slot' && typeof n.assignedNodes === 'function') {
        const a = n.assignedNodes({ flatten: true });
        if (a.length) return a;
      }
      if (kit.isFrame(n)) {
        const d = kit.frameDoc(n);
        return d && d.body ? [d.body] : [];
      }
    }
    return Array.from(n.childNodes);
  };
  // Every element under root (root included when it is an element) in
  // composed document order; visit(el) returns false to skip el's subtree.
  // Iterative: a deep page must not overflow the stack.
  const walk = (root, visit) => {
    const stack = [root];
    while (stack.length) {
      const n = stack.pop();
      if (n.nodeType === 1 && visit(n) === false) continue;
      const c = children(n);
      for (let i = c.length - 1; i >= 0; i--) if (c[i].nodeType === 1) stack.push(c[i]);
    }
  };
  // Throws a SyntaxError naming sel when it is not a valid CSS selector
  // (before any walk, so a bad selector is reported, not "no match").
  const checkSelector = (sel) => {
    document.createDocumentFragment().querySelector(sel);
  };
  // Elements matching CSS selector sel in the composed tree under root
  // (default: the document), in document order, at most max (default all).
  const queryAll = (sel, root, max) => {
    checkSelector(sel);
    const out = [];
    const lim = max || Infinity;
    walk(root || document.documentElement, (el) => {
      if (out.length >= lim) return false;
      if (el.matches(sel)) out.push(el);
      return true;
    });
    return out;
  };
  // el's border box in the TOP document's viewport px: its own rect moved by
  // the content box of every same-origin frame element above it.
  const topRect = (el) => {
    const r = el.getBoundingClientRect();
    let x = r.left, y = r.top;
    let w = el.ownerDocument.defaultView;
    for (;;) {
      let fe = null;
      try { fe = w.frameElement; } catch (e) { fe = null; }
      if (!fe) break;
      const cb = kit.contentBox(fe);
      x += cb[0];
      y += cb[1];
      w = fe.ownerDocument.defaultView;
    }
    return { x, y, w: r.width, h: r.height };
  };
  // Is el rendered with a size, not hidden by visibility or an ancestor's
  // display:none, and not inside a frame that is itself hidden?
  const visible = (el) => {
    for (let e = el; e;) {
      const r = e.getBoundingClientRect();
      if (e === el && (r.width <= 0 || r.height <= 0)) return false;
      if (typeof e.checkVisibility === 'function') {
        if (!e.checkVisibility({ visibilityProperty: true })) return false;
      } else {
        const cs = kit.styleOf(e);
        if (cs.display === 'none' || cs.visibility !== 'visible') return false;
      }
      let fe = null;
      try { fe = e.ownerDocument.defaultView.frameElement; } catch (x) { fe = null; }
      e = fe;
    }
    return true;
  };
  // Is el excluded from the rendering (display:none, the hidden attribute
  // as the UA renders it, visibility hidden/collapse)? Cheaper than visible:
  // no size test, so an empty-but-rendered container still counts.
  const hidden = (el) => {
    const cs = kit.styleOf(el);
    return cs.display === 'none' || cs.visibility === 'hidden' || cs.visibility === 'collapse';
  };
  return { children, walk, checkSelector, queryAll, topRect, visible, hidden };
})();
