// assets/js/kit_dump.js: the page kit's answers for every element of this
// document, its open shadow roots and its same-origin iframes (recursively),
// as `fovea record` stores them in a snapshot (perception/snapshot.c), so
// the offline replay reads the kit's own verdicts instead of computing them
// again. A function expression, called with no argument; returns a JSON
// string
//   {docs: [{chain, late, els: [[xpath, role, interactive, listener, name, hint]..]}]}
// chain: the xpaths of the frame elements from this document down, joined by
// '|' ("" for this document); late: the listener tracker (lib/listen.js) ran
// after the document started or not at all, so listeners added before are
// unknown. role is kit.roleOf, interactive kit.isInteractive, listener
// kit.hasListener, name kit.accessibleName (else a form control's
// kit.visualLabel, as the live probe) and hint kit.iconHint. An element
// whose answers are all empty or 0 is left out (most of a page), so a
// missing element reads as ('', 0, 0, '', '').
(function () {
  'use strict';
  kit.reset();
  const docs = [];
  const visitDoc = (doc, chain, depth) => {
    const reg = doc.defaultView && doc.defaultView[Symbol.for('fovea.listen')];
    const out = { chain, late: reg ? (reg.late ? 1 : 0) : 1, els: [] };
    docs.push(out);
    const frames = [];
    const visit = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) visit(el.shadowRoot);
        if (kit.isFrame(el)) frames.push(el);
        const lis = kit.hasListener(el);
        const inter = kit.isInteractive(el, undefined, lis);
        const role = kit.roleOf(el);
        const name = kit.accessibleName(el, inter) || kit.visualLabel(el);
        const hint = kit.iconHint(el);
        if (role || inter || lis || name || hint) {
          out.els.push([kit.xpath(el), role, inter ? 1 : 0, lis ? 1 : 0, name, hint]);
        }
      }
    };
    visit(doc);
    if (depth >= 8) return;
    for (const f of frames) {
      const d = kit.frameDoc(f);
      if (d && d.documentElement) visitDoc(d, (chain ? chain + '|' : '') + kit.xpath(f), depth + 1);
    }
  };
  visitDoc(document, '', 0);
  return JSON.stringify({ docs });
})
