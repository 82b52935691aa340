// assets/js/fingerprint.js: one document's fingerprint (seed 002 §4.5), in
// one evaluate. Returns {d, t, f, u, m, sy}:
//   d  h_dom: the interactive element list (count, tag histogram, the ordered
//      tag/role/type sequence and a sample of at most 48 accessible names),
//   t  h_text: the rendered text (innerText) plus the scroll position in
//      100 px buckets,
//   f  h_frame: every iframe descendant reachable from here: same-origin ones
//      are scanned directly (their interactive list, text and scroll); one
//      whose document is not reachable (cross-origin) contributes its src and
//      size only, and the caller adds what its own CDP session reports,
//   u  location.href, m the mutation counter of fp_observer.js (0 when the
//      observer is not installed) plus those of same-origin frames, sy the
//      vertical scroll bucket.
// Evaluate it right after fp_observer.js (perception/fingerprint.c sends
// both in one expression). Hashes are 64-bit (two 32-bit multiplicative lanes with different primes,
// finalised with the murmur3 mixer) as 16 hex digits. Open shadow roots are
// walked. Nothing here forces style recalculation except innerText, which
// needs layout anyway for "rendered" text.
(() => {
  // The hashing function is defined once per document and kept on the
  // observer's state object: a function that survives between evaluates
  // gets optimised by the JIT, a fresh closure per evaluate never does.
  const st = window.__foveaFpObserver;
  if (st && st.take) return st.take();
  const NAME_SAMPLE = 48;

  // Two-lane hash state: h[0] an FNV-1a-style lane, h[1] a murmur-style lane.
  const mk = () => [0x811c9dc5 | 0, 0x3c6ef372 | 0];
  const addStr = (h, s) => {
    let a = h[0], b = h[1];
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    // A separator so that ("ab","c") and ("a","bc") differ.
    h[0] = Math.imul(a ^ 0x1f, 0x01000193);
    h[1] = Math.imul(b ^ 0x1f, 0x5bd1e995);
  };
  const addNum = (h, n) => addStr(h, String(n));
  const fmix = (x) => {
    x ^= x >>> 16; x = Math.imul(x, 0x85ebca6b);
    x ^= x >>> 13; x = Math.imul(x, 0xc2b2ae35);
    x ^= x >>> 16;
    return x >>> 0;
  };
  const hex = (h) => {
    const hi = fmix(h[0] ^ Math.imul(h[1], 0x27d4eb2f));
    const lo = fmix(h[1] ^ Math.imul(h[0], 0x165667b1));
    return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
  };

  // The page kit's notion of a control without the pointer-cursor rule,
  // which needs computed styles this scan of every element cannot afford,
  // and with the recorder's listeners only (no handler-property reads);
  // <details> and <label> count too (their state changes the page).
  const LISTEN = Symbol.for('fovea.listen');
  let reg = null; // the recorder's registry of the document being scanned
  const isInteractive = (el) => el.localName === 'details' || el.localName === 'label' ||
    kit.isControl(el, (!!reg && reg.has(el)) || (el.hasAttributes() && el.hasAttribute('onclick')));
  const nameOf = (el) => kit.norm(el.getAttribute('aria-label') || el.getAttribute('title') ||
    el.getAttribute('placeholder') || el.textContent || el.value || '').slice(0, 40);

  // Collects the interactive elements and iframes of root (a document or a
  // shadow root), descending into open shadow roots in tree order.
  const collect = (root, inter, frames) => {
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i];
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') frames.push(el);
      else if (isInteractive(el)) inter.push(el);
      if (el.shadowRoot) collect(el.shadowRoot, inter, frames);
    }
  };

  // Hashes one document into dom/text lanes; returns its iframes and the
  // mutation counter of its observer.
  const scan = (doc, win, hd, ht) => {
    const inter = [], frames = [];
    reg = win[LISTEN] || null;
    collect(doc, inter, frames);
    const hist = new Map();
    addNum(hd, inter.length);
    for (const el of inter) {
      const role = el.getAttribute('role');
      const key = role ? el.tagName + ':' + role : el.tagName;
      hist.set(key, (hist.get(key) || 0) + 1);
      addStr(hd, el.type ? key + '/' + el.type : key);
    }
    for (const [k, v] of [...hist].sort()) addStr(hd, k + '=' + v);
    const step = Math.max(1, Math.ceil(inter.length / NAME_SAMPLE));
    for (let i = 0; i < inter.length; i += step) addStr(hd, nameOf(inter[i]));
    addStr(ht, doc.body ? doc.body.innerText || '' : '');
    addNum(ht, Math.floor((win.scrollY || 0) / 100));
    addNum(ht, Math.floor((win.scrollX || 0) / 100));
    const obs = win.__foveaFpObserver;
    return { frames, mut: obs ? obs.flush() : 0 };
  };

  const take = () => {
    const hd = mk(), ht = mk(), hf = mk();
    const top = scan(document, window, hd, ht);
    let mut = top.mut;
    // Same-origin frames are scanned in place (breadth first, bounded);
    // unreachable ones leave their src and size in h_frame.
    const queue = top.frames.slice();
    for (let i = 0; i < queue.length && i < 256; i++) {
      const f = queue[i];
      addStr(hf, f.getAttribute('src') || '');
      addStr(hf, f.offsetWidth + 'x' + f.offsetHeight);
      let doc = null;
      try { doc = f.contentDocument; } catch (e) { doc = null; }
      if (!doc || !f.contentWindow) {
        addStr(hf, '#unreachable');
        continue;
      }
      addStr(hf, doc.URL);
      const r = scan(doc, f.contentWindow, hf, hf);
      mut += r.mut;
      for (const g of r.frames) queue.push(g);
    }
    return { d: hex(hd), t: hex(ht), f: hex(hf), u: location.href, m: mut,
      sy: Math.floor((window.scrollY || 0) / 100) };
  };
  if (st) Object.defineProperty(st, 'take', { value: take, enumerable: false });
  return take();
})()
