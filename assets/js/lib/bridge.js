// assets/js/lib/bridge.js: the isolated-world side of the listener recorder.
//
// A function of the per-page nonce, evaluated as `(<this>)("NONCE")` in
// fovea's isolated world (cdp/browser.h CDP_WORLD_NAME) at document start and
// once in the current document (perc_kit_install, perception/kit.c). It puts
// the registry the kit reads (assets/js/lib/kit.js `reg`) under
// Symbol.for('fovea.listen') in this world: {bridge, has(el), hov(el), any(el),
// own(el), deleg(el), closed(), late}. Each question is an event of type NONCE + '.' + question
// dispatched on the element; the main-world recorder (assets/js/lib/listen.js)
// catches it first on window in the capture phase, answers with
// preventDefault and stops it, so the page never sees it. The page's scripts
// cannot read this world's globals, hence not the nonce either.
// late is true when the recorder missed the document's start, or is not
// there at all (then fovea asks DOMDebugger, as for a tab it attached to).
((nonce) => {
  const KEY = Symbol.for('fovea.listen');
  if (globalThis[KEY] || typeof nonce !== 'string' || !nonce) return 0;
  const ask = (q, node) => {
    try {
      const ev = new Event(nonce + '.' + q, { cancelable: true, bubbles: false, composed: true });
      return !node.dispatchEvent(ev);
    } catch (e) {
      return false;
    }
  };
  // Closed shadow roots, handed in by the C side (perc_kit_closed_roots,
  // perception/kit.h: DOM.getDocument with pierce, each root resolved into
  // this world): host -> root. Element.prototype.shadowRoot of THIS world
  // answers them too, so every fovea script (the kit's xpaths and hit
  // tests, the probe, the hand) walks into them as into open ones. The
  // page's world keeps its own, unchanged prototype.
  const closedRoots = new WeakMap();
  const srDesc = Object.getOwnPropertyDescriptor(Element.prototype, 'shadowRoot');
  if (srDesc && srDesc.get) {
    const get = srDesc.get;
    Object.defineProperty(Element.prototype, 'shadowRoot', {
      get() { return get.call(this) || closedRoots.get(this) || null; },
      enumerable: srDesc.enumerable, configurable: true,
    });
  }
  Object.defineProperty(globalThis, Symbol.for('fovea.closed.add'), {
    value: (root) => { if (root && root.host) closedRoots.set(root.host, root); },
    enumerable: false, configurable: false,
  });
  let here = false;
  const present = () => here || (here = ask('here', document));
  // "has" depends on the registry alone, which changes only through the
  // recorder's add/remove (it says so: "changed"). The bridge keeps the set
  // of recorded elements: after a change it asks "sync", and the recorder
  // fires one mark event on each recorded element, caught here at window
  // (capture) before anything else of the page's. Asked once per synchronous
  // run (the page cannot run in between); a microtask ends the run. A scan
  // of every element (fingerprint.js) then costs no event per element.
  let recorded = new WeakSet();
  let hovered = new WeakSet(); // elements whose recorded listeners are hover ones only
  addEventListener(nonce + '.mark', (ev) => {
    ev.stopImmediatePropagation();
    const p = ev.composedPath();
    if (p.length) recorded.add(p[0]);
  }, true);
  addEventListener(nonce + '.hmark', (ev) => {
    ev.stopImmediatePropagation();
    const p = ev.composedPath();
    if (p.length) hovered.add(p[0]);
  }, true);
  let fresh = false;
  const synced = () => {
    if (!fresh) {
      fresh = true;
      queueMicrotask(() => { fresh = false; });
      if (ask('changed', document)) {
        recorded = new WeakSet();
        hovered = new WeakSet();
        ask('sync', document);
      }
    }
  };
  const has = (el) => {
    synced();
    return recorded.has(el);
  };
  const hov = (el) => {
    synced();
    return hovered.has(el);
  };
  const api = {
    bridge: true,
    has,
    hov,
    any: (el) => ask('any', el),
    own: (el) => ask('own', el),
    deleg: (el) => ask('deleg', el),
    closed: () => present() && ask('closed', document),
    get late() { return !present() || ask('late', document); },
  };
  Object.defineProperty(globalThis, KEY, { value: Object.freeze(api), enumerable: false,
    configurable: false });
  return 0;
})
