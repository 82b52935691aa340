// assets/js/lib/listen.js: which elements have click-like listeners, the one
// fovea hook that lives in the page's own (main) world.
//
// The text is a function of one argument, a per-page random nonce; the C side
// (perc_kit_install, perception/kit.c) evaluates `(<this>)("NONCE")` at
// document start (Page.addScriptToEvaluateOnNewDocument, before any page
// script) and once in the current document; evaluating it again is a no-op.
//
// It wraps EventTarget.prototype.addEventListener / removeEventListener so
// that, per element, the live listeners for click, mouse, pointer, touch and
// key events are known; the page's call still goes to the original function
// with the same `this`, arguments and return value. Elements are remembered
// in a WeakMap held by this closure (no attribute, no expando, no global).
//
// Everything this script calls after the page's scripts started was captured
// here first (Reflect.apply, the WeakMap methods, the Event accessors, ...),
// so a page that replaces built-ins later cannot change what it does.
//
// fovea's scripts run in an isolated world (cdp/browser.h CDP_WORLD_NAME) and
// ask this world through events whose type is NONCE + '.' + question,
// dispatched on the element: the window capture listener added here first
// answers with preventDefault (yes) and stops the event, so no page listener
// ever sees it, and a page that does not know the nonce cannot answer or
// forge one. assets/js/lib/bridge.js is the asking side. Questions:
//   has    the recorder saw a click-like listener on the element (the
//          recorder also keeps hover listeners: mouseenter/over,
//          pointerenter/over; "sync" marks those elements apart)
//   own    the element has a handler of its own: a recorded listener (unless
//          it is a dispatch root: html, body, a React root, a jQuery host
//          whose handlers are all delegated), an on* property, a React/Vue
//          handler prop (assets/js/lib/kit.js ownListener in the main world)
//   deleg  a jQuery handler on an ancestor whose selector matches it
//   any    own or deleg (one event instead of two)
//   changed (on the document) the registry changed since the last ask
//   late   (on the document) the script ran after the document had started
//   here   (on the document) always yes: the recorder is installed
//   closed (on the document) a closed shadow root may have appeared since the
//          last ask (yes on the first ask of each document)
// The answers about React, Vue and jQuery read the page's own objects: a page
// can make fovea think one of its elements has a handler, as a real listener
// would, but cannot change what fovea reads of the DOM.
((nonce) => {
  const KEY = Symbol.for('fovea.listen');
  if (globalThis[KEY]) return 0;
  const ET = globalThis.EventTarget && EventTarget.prototype;
  if (!ET || typeof nonce !== 'string' || !nonce) return 0;
  // ---- pristine built-ins ----------------------------------------------------
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const getDesc = Object.getOwnPropertyDescriptor;
  const keysOf = Object.keys;
  const freeze = Object.freeze;
  const WM = WeakMap;
  const wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
  const wmHas = WeakMap.prototype.has, wmDel = WeakMap.prototype.delete;
  const strLower = String.prototype.toLowerCase, strStarts = String.prototype.startsWith;
  const strSlice = String.prototype.slice;
  const reTest = RegExp.prototype.test;
  const String_ = String;
  const add = ET.addEventListener;
  const remove = ET.removeEventListener;
  const evPath = Event.prototype.composedPath;
  const evType = getDesc(Event.prototype, 'type').get;
  const prevent = Event.prototype.preventDefault;
  const stopNow = Event.prototype.stopImmediatePropagation;
  const hasAttr = Element.prototype.hasAttribute;
  const matches = Element.prototype.matches;
  const parentOf = getDesc(Node.prototype, 'parentNode').get;
  const nodeTypeOf = getDesc(Node.prototype, 'nodeType').get;
  const localNameOf = getDesc(Element.prototype, 'localName').get;
  const lower = (s) => apply(strLower, String_(s), []);
  const starts = (s, p) => apply(strStarts, s, [p]);
  // 1: click-like (the element is a control); 2: hover only (a caption or
  // menu that shows on hover: boxed for hover steps, not pressed).
  const TYPES = { click: 1, dblclick: 1, auxclick: 1, contextmenu: 1, mousedown: 1, mouseup: 1,
    pointerdown: 1, pointerup: 1, touchstart: 1, touchend: 1, keydown: 1, keyup: 1, keypress: 1,
    mouseenter: 2, mouseover: 2, pointerenter: 2, pointerover: 2 };
  const EVENTS = ['click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup',
    'pointerdown', 'pointerup', 'touchstart', 'touchend', 'keydown', 'keyup', 'keypress'];
  const ON = [];
  for (let i = 0; i < EVENTS.length; i++) ON[ON.length] = 'on' + EVENTS[i];
  const REACT_KEYS = ['onClick', 'onClickCapture', 'onMouseDown', 'onMouseUp', 'onPointerDown',
    'onPointerUp', 'onTouchStart', 'onTouchEnd', 'onKeyDown', 'onKeyUp', 'onDoubleClick',
    'onContextMenu'];
  const VUE_ON = /^on(click|mouse|pointer|touch|key)/i;
  // ---- the recorder ----------------------------------------------------------
  // target -> array of [type, listener, capture]
  const lis = new WM();
  // The registry changed since the bridge last asked ("changed"): until it
  // does, the bridge keeps the set of recorded elements it got ("sync").
  let changed = true;
  // The recorded elements, weakly, for "sync" (a WeakMap cannot be listed).
  const WR_ = WeakRef;
  const derefOf = WeakRef.prototype.deref;
  let refs = [];
  const capOf = (o) => (typeof o === 'boolean' ? o : !!(o && typeof o === 'object' && o.capture));
  const isNode = (t) => {
    try { const k = apply(nodeTypeOf, t, []); return k === 1 || k === 9; } catch (e) { return false; }
  };
  const tracked = (t, type, fn) => !!fn && !!t && TYPES[lower(type)] >= 1 && isNode(t);
  // What el's recorded listeners are: 1 some click-like, 2 only hover ones,
  // 0 none.
  const kindOf = (el) => {
    const a = apply(wmGet, lis, [el]);
    if (!a) return 0;
    let k = 0;
    for (let i = 0; i < a.length; i++) {
      if (TYPES[a[i][0]] === 1) return 1;
      k = 2;
    }
    return k;
  };
  const find = (a, ty, fn, c) => {
    for (let i = 0; i < a.length; i++) if (a[i][0] === ty && a[i][1] === fn && a[i][2] === c) return i;
    return -1;
  };
  const forget = (t, ty, fn, c) => {
    const a = apply(wmGet, lis, [t]);
    if (!a) return;
    const i = find(a, ty, fn, c);
    if (i < 0) return;
    changed = true;
    for (let j = i; j + 1 < a.length; j++) a[j] = a[j + 1];
    a.length = a.length - 1;
    if (!a.length) apply(wmDel, lis, [t]);
  };
  // Closed shadow roots: their elements are out of reach of every script but
  // the page's own. fovea finds them through CDP (DOM.getDocument with
  // pierce); this only says when that is worth doing: a closed root was
  // attached since the last question (and at first, for roots the parser
  // made from declarative shadow DOM or that predate this script).
  const attach = Element.prototype.attachShadow;
  let closedNew = true;
  const wrapped = {
    attachShadow(init) {
      const root = apply(attach, this, arguments);
      try { if (init && init.mode === 'closed') closedNew = true; } catch (e) { /* never break the page */ }
      return root;
    },
    addEventListener(type, fn, opts) {
      try {
        if (tracked(this, type, fn)) {
          const ty = lower(type), c = capOf(opts);
          let a = apply(wmGet, lis, [this]);
          if (!a) { a = []; apply(wmSet, lis, [this, a]); refs[refs.length] = new WR_(this); }
          if (find(a, ty, fn, c) < 0) { a[a.length] = [ty, fn, c]; changed = true; }
          if (opts && typeof opts === 'object' && opts.signal && opts.signal.aborted === false) {
            const self = this;
            apply(add, opts.signal, ['abort', () => forget(self, ty, fn, c), { once: true }]);
          }
        }
      } catch (e) { /* never break the page */ }
      return apply(add, this, arguments);
    },
    removeEventListener(type, fn, opts) {
      try {
        if (tracked(this, type, fn)) forget(this, lower(type), fn, capOf(opts));
      } catch (e) { /* never break the page */ }
      return apply(remove, this, arguments);
    },
  };
  // ---- the answers -----------------------------------------------------------
  const jqOf = () => {
    const jq = globalThis.jQuery;
    return jq && typeof jq._data === 'function' ? jq : null;
  };
  const jqEvents = (jq, el) => { try { return jq._data(el, 'events') || null; } catch (e) { return null; } };
  const dispatchRoot = (el) => {
    const tag = lower(apply(localNameOf, el, []));
    if (tag === 'html' || tag === 'body') return true;
    const ks = keysOf(el);
    for (let i = 0; i < ks.length; i++) {
      if (starts(ks[i], '__reactContainer$') || ks[i] === '_reactRootContainer') return true;
    }
    const jq = jqOf();
    const ev = jq && jqEvents(jq, el);
    if (ev) {
      let own = 0, del = 0;
      for (let i = 0; i < EVENTS.length; i++) {
        const hs = ev[EVENTS[i]] || [];
        for (let j = 0; j < hs.length; j++) { if (hs[j] && hs[j].selector) del++; else own++; }
      }
      if (del && !own) return true;
    }
    return false;
  };
  const handlerProps = (el) => {
    for (let i = 0; i < ON.length; i++) if (typeof el[ON[i]] === 'function') return true;
    const ks = keysOf(el);
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      if (starts(k, '__reactProps$') || starts(k, '__reactEventHandlers$')) {
        const p = el[k];
        if (p && typeof p === 'object') {
          for (let j = 0; j < REACT_KEYS.length; j++) if (typeof p[REACT_KEYS[j]] === 'function') return true;
        }
      } else if (k === '_vei') {
        const v = el._vei;
        if (v && typeof v === 'object') {
          const hs = keysOf(v);
          for (let j = 0; j < hs.length; j++) if (apply(reTest, VUE_ON, [hs[j]])) return true;
        }
      }
    }
    return false;
  };
  const own = (el) => {
    if (kindOf(el) === 1 && !dispatchRoot(el)) return true;
    const tag = lower(apply(localNameOf, el, []));
    if (tag === 'html' || tag === 'body') return false;
    for (let i = 0; i < ON.length; i++) if (apply(hasAttr, el, [ON[i]])) return true;
    return handlerProps(el);
  };
  const deleg = (el) => {
    const jq = jqOf();
    if (!jq) return false;
    for (let a = apply(parentOf, el, []); a; a = apply(parentOf, a, [])) {
      const k = apply(nodeTypeOf, a, []);
      if (k !== 1 && k !== 9) break;
      if (!apply(wmHas, lis, [a])) continue;
      const ev = jqEvents(jq, a);
      if (!ev) continue;
      for (let i = 0; i < EVENTS.length; i++) {
        const hs = ev[EVENTS[i]] || [];
        for (let j = 0; j < hs.length; j++) {
          if (!hs[j] || !hs[j].selector) continue;
          try { if (apply(matches, el, [hs[j].selector])) return true; } catch (e) { /* jQuery-only syntax */ }
        }
      }
    }
    return false;
  };
  const late = document.readyState !== 'loading' ||
    !!(document.documentElement && document.documentElement.childElementCount > 1);
  const closed = () => { const c = closedNew; closedNew = false; return c; };
  const changedSince = () => { const c = changed; changed = false; return c; };
  // "sync": one mark event (NONCE + '.mark', caught by the bridge's window
  // capture listener) on each element that has recorded click-like
  // listeners now, NONCE + '.hmark' on each that has only hover ones; the
  // list of weak references is compacted on the way.
  const evCtor = Event;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const sync = () => {
    const keep = [];
    for (let i = 0; i < refs.length; i++) {
      const el = apply(derefOf, refs[i], []);
      const k = el ? kindOf(el) : 0;
      if (!k) continue;
      keep[keep.length] = refs[i];
      const ty = prefix + (k === 1 ? 'mark' : 'hmark');
      try { apply(dispatch, el, [new evCtor(ty, { bubbles: false, composed: true })]); } catch (e) { /* keep going */ }
    }
    refs = keep;
    return true;
  };
  const QS = { __proto__: null, here: () => true, has: (el) => kindOf(el) === 1, own, deleg,
    late: () => late, closed, changed: changedSince, sync, any: (el) => own(el) || deleg(el) };
  const prefix = nonce + '.';
  const answer = function (ev) {
    const ty = apply(evType, ev, []);
    if (!starts(ty, prefix)) return;
    apply(stopNow, ev, []);
    const q = QS[apply(strSlice, ty, [prefix.length])];
    let yes = false;
    // The element asked about, also inside an open shadow root (at window the
    // target is retargeted to the outermost host; the path is not). Elements
    // of closed shadow roots are hidden from the path: unknown here.
    try {
      const path = apply(evPath, ev, []);
      yes = typeof q === 'function' && path.length > 0 && !!q(path[0]);
    } catch (e) { yes = false; }
    if (yes) apply(prevent, ev, []);
  };
  const QN = ['here', 'has', 'own', 'deleg', 'any', 'late', 'closed', 'changed', 'sync'];
  for (let i = 0; i < QN.length; i++) apply(add, globalThis, [prefix + QN[i], answer, true]);
  // Same names, lengths and property attributes as the originals.
  const WR = [[ET, 'addEventListener'], [ET, 'removeEventListener'],
    [Element.prototype, 'attachShadow']];
  for (let i = 0; i < WR.length; i++) {
    const o = WR[i][0], k = WR[i][1];
    const d = getDesc(o, k);
    if (!d || typeof d.value !== 'function') continue;
    defineProperty(o, k, { value: wrapped[k], writable: d.writable,
      enumerable: d.enumerable, configurable: d.configurable });
  }
  // A marker only (it holds no capability): evaluating the script again is a no-op.
  defineProperty(globalThis, KEY, { value: freeze({}), enumerable: false, configurable: false });
  return 0;
})
