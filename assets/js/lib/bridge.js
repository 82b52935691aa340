// assets/js/lib/bridge.js: the isolated-world side of the listener recorder.
//
// A function of the per-page nonce, evaluated as `(<this>)("NONCE")` in
// fovea's isolated world (cdp/browser.h CDP_WORLD_NAME) at document start and
// once in the current document (perc_kit_install, perception/kit.c). It puts
// the registry the kit reads (assets/js/lib/kit.js `reg`) under
// Symbol.for('fovea.listen') in this world: {bridge, has(el), own(el),
// deleg(el), late}. Each question is an event of type NONCE + '.' + question
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
  let here = false;
  const present = () => here || (here = ask('here', document));
  const api = {
    bridge: true,
    has: (el) => ask('has', el),
    own: (el) => ask('own', el),
    deleg: (el) => ask('deleg', el),
    get late() { return !present() || ask('late', document); },
  };
  Object.defineProperty(globalThis, KEY, { value: Object.freeze(api), enumerable: false,
    configurable: false });
  return 0;
})
