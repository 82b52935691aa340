// assets/js/kit_dump.js: the page kit's verdicts for every element of this
// document, its open shadow roots and its same-origin iframes (recursively).
// A function expression applied to {all: 0|1}; returns a JSON string
//   {docs: [{chain, late, els: [[xpath, interactive, listener, name, hint]..]}]}
// chain: the xpaths of the frame elements from this document down, joined by
// '|' ("" for this document); late: the listener tracker (lib/listen.js) ran
// after the document started or not at all, so listeners added before are
// unknown. With all 0 only elements with a listener are listed, name and hint
// left empty: what `fovea record` stores with a snapshot (perception/
// snapshot.c marks those elements). With all 1 every element is listed: the
// parity test compares this with snapshot.c's own computation.
(function (arg) {
  'use strict';
  const all = !!(arg && arg.all);
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
        if (!all) {
          if (lis) out.els.push([kit.xpath(el), 0, 1, '', '']);
          continue;
        }
        const inter = kit.isInteractive(el, undefined, lis);
        out.els.push([kit.xpath(el), inter ? 1 : 0, lis ? 1 : 0, kit.accessibleName(el, inter),
          kit.iconHint(el)]);
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
