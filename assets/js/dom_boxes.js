// assets/js/dom_boxes.js: interactive elements of the top document that are
// visible in the viewport, as boxes for Set-of-Marks overlays and the `dom`
// vision provider. Evaluated as an expression; returns a JSON string:
//   [{"x0":..,"y0":..,"x1":..,"y1":..,"id":1,"label":"Search","tag":"button"}]
// Coordinates are CSS pixels of the viewport. An element counts when it is
// natively interactive, has an interactive ARIA role, a tabindex >= 0, an
// onclick handler, is contenteditable, or shows a pointer cursor that its
// parent does not (so a pointer-styled card yields one box, not fifty).
// Covered elements (the top-most element at their centre is not them or
// inside them) are left out.
(() => {
  const ROLES = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'tab', 'checkbox', 'radio', 'combobox', 'switch', 'gridcell', 'treeitem',
    'slider', 'spinbutton', 'searchbox', 'textbox']);
  const TAGS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'OPTION']);
  const vw = window.innerWidth, vh = window.innerHeight;
  const out = [];
  const interactive = (el, cs) => {
    if (TAGS.has(el.tagName)) {
      if (el.tagName === 'A' && !el.hasAttribute('href') && !el.hasAttribute('onclick')) return false;
      if (el.tagName === 'INPUT' && el.type === 'hidden') return false;
      return true;
    }
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return true;
    const ti = el.getAttribute('tabindex');
    if (ti !== null && parseInt(ti, 10) >= 0) return true;
    if (el.hasAttribute('onclick') || el.isContentEditable && el.contentEditable === 'true') return true;
    if (cs.cursor === 'pointer') {
      const p = el.parentElement;
      return !p || getComputedStyle(p).cursor !== 'pointer';
    }
    return false;
  };
  const labelOf = (el) => {
    const t = el.getAttribute('aria-label') || (el.innerText || '').trim() ||
      el.value || el.getAttribute('placeholder') || el.getAttribute('title') ||
      el.getAttribute('alt') || '';
    return String(t).replace(/\s+/g, ' ').slice(0, 60);
  };
  const all = document.querySelectorAll('*');
  for (const el of all) {
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none' || parseFloat(cs.opacity) === 0) continue;
    if (!interactive(el, cs)) continue;
    // Content of closed <details>, content-visibility:hidden subtrees, etc.
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const x0 = Math.max(0, r.left), y0 = Math.max(0, r.top);
    const x1 = Math.min(vw, r.right), y1 = Math.min(vh, r.bottom);
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    const top = document.elementFromPoint((x0 + x1) / 2, (y0 + y1) / 2);
    if (top && top !== el && !el.contains(top) && !top.contains(el)) continue;
    out.push({ x0, y0, x1, y1, id: out.length + 1, label: labelOf(el), tag: el.tagName.toLowerCase() });
  }
  return JSON.stringify(out);
})()
