// assets/js/lib/listen.js: which elements have click-like listeners.
//
// Injected at document start (Page.addScriptToEvaluateOnNewDocument, see
// perc_kit_install in perception/kit.h) and evaluated once in the current
// document; evaluating it again is a no-op. It wraps
// EventTarget.prototype.addEventListener / removeEventListener so that, per
// element, the live listeners for click, mouse, pointer, touch and key
// events are known; the page's call still goes to the original function with
// the same `this`, arguments and return value, so nothing changes for the
// page. Elements are remembered in a WeakMap (no attribute, no expando, no
// leak). The registry sits under Symbol.for('fovea.listen') in this world,
// non-enumerable: {has(el), late}. late is true when the script ran after
// the document had started (fovea attached to an open tab): listeners added
// before that are unknown here and the C side asks DOMDebugger for them.
// on* attributes and properties need no wrapping: the kit reads them.
(() => {
  const KEY = Symbol.for('fovea.listen');
  if (globalThis[KEY]) return 0;
  const TYPES = new Set(['click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup',
    'pointerdown', 'pointerup', 'touchstart', 'touchend', 'keydown', 'keyup', 'keypress']);
  const ET = globalThis.EventTarget && EventTarget.prototype;
  if (!ET) return 0;
  const add = ET.addEventListener;
  const remove = ET.removeEventListener;
  // target -> array of [type, listener, capture]
  const lis = new WeakMap();
  const capOf = (o) => (typeof o === 'boolean' ? o : !!(o && typeof o === 'object' && o.capture));
  const tracked = (t, type, fn) => fn && t && (t.nodeType === 1 || t.nodeType === 9) &&
    TYPES.has(String(type).toLowerCase());
  const wrapped = {
    addEventListener(type, fn, opts) {
      try {
        if (tracked(this, type, fn)) {
          const ty = String(type).toLowerCase(), c = capOf(opts);
          let a = lis.get(this);
          if (!a) lis.set(this, (a = []));
          if (!a.some((e) => e[0] === ty && e[1] === fn && e[2] === c)) a.push([ty, fn, c]);
          if (opts && typeof opts === 'object' && opts.signal && opts.signal.aborted === false) {
            const self = this;
            add.call(opts.signal, 'abort', () => forget(self, ty, fn, c), { once: true });
          }
        }
      } catch (e) { /* never break the page */ }
      return add.apply(this, arguments);
    },
    removeEventListener(type, fn, opts) {
      try {
        if (tracked(this, type, fn)) forget(this, String(type).toLowerCase(), fn, capOf(opts));
      } catch (e) { /* never break the page */ }
      return remove.apply(this, arguments);
    },
  };
  const forget = (t, ty, fn, c) => {
    const a = lis.get(t);
    if (!a) return;
    const i = a.findIndex((e) => e[0] === ty && e[1] === fn && e[2] === c);
    if (i >= 0) a.splice(i, 1);
    if (!a.length) lis.delete(t);
  };
  // Same names, lengths and property attributes as the originals.
  for (const k of ['addEventListener', 'removeEventListener']) {
    const d = Object.getOwnPropertyDescriptor(ET, k);
    if (!d || typeof d.value !== 'function') continue;
    Object.defineProperty(ET, k, { value: wrapped[k], writable: d.writable,
      enumerable: d.enumerable, configurable: d.configurable });
  }
  const late = document.readyState !== 'loading' ||
    !!(document.documentElement && document.documentElement.childElementCount > 1);
  const api = Object.freeze({ has: (el) => lis.has(el), late });
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false, configurable: false });
  return 0;
})()
