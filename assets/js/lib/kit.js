// assets/js/lib/kit.js: the one page-side kit every fovea page script uses.
//
// Prepended at build time (cmake/Embed.cmake, fovea_embed KIT): the embedded
// form of a script S that declares the kit is
//   (() => { <this file>; return (S); })()
// so S sees the constant `kit` below and keeps its own shape (a function
// expression stays a function expression, an IIFE is still evaluated once).
// Nothing here touches the page until a function is called.
//
// The definitions below are the only ones: `fovea record` stores their
// answers in a snapshot (assets/js/kit_dump.js, perception/snapshot.c), so the
// offline replay uses them too. norm is mirrored by base/text.c (the snapper
// folds text with it; tests/perception/test_kit kit_text_classes checks both agree):
//   norm(s)        NBSP and the other Unicode spaces become spaces, zero-width
//                  characters and soft hyphens vanish, whitespace runs fold to
//                  one space, the ends are trimmed.
//   roleOf(el)     the first token of role="..." (lower-cased), else the
//                  implicit role of the tag (IMPLICIT, INPUT_ROLES below).
//   isInteractive  native control (a with href or with a listener, button,
//                  input but hidden, select, textarea, summary, option), a
//                  ROLES role, tabindex >= 0 (an integer, as HTML parses it),
//                  contenteditable ("", true, plaintext-only), a listener
//                  (hasListener), or a pointer cursor the parent lacks.
//   hasListener    a click/mouse/pointer/touch/key listener added through
//                  addEventListener (recorded by assets/js/lib/listen.js at
//                  document start), an on* attribute or property for those
//                  events, a React/Vue handler prop, or a jQuery delegated
//                  handler whose selector matches the element.
//   accessibleName accname, in this order: aria-labelledby (each target's
//                  aria-label or text), aria-label, the native label (<label
//                  for>, wrapping <label>; alt of img and input[type=image];
//                  value of button-like inputs; SVG <title>), the content for
//                  roles named from content and for every element fovea counts
//                  as interactive (its text, else the alt / SVG title inside),
//                  title, placeholder. Folded with norm, at most NAME_CAP chars.
//   iconHint       words an icon carries, lower-cased and de-duplicated: class
//                  tokens and data-icon of the element and of its first
//                  HINT_NODES descendants, the ids <use href="#id"> points
//                  at, and the text of an icon-font element (a class token
//                  containing "icon" or "symbol", text of at most 32 chars).
//   xpath          steps tag[n] (lower-case, n 1-based among same-tag element
//                  siblings, always written), "/#shadow-root" after a shadow
//                  host; relative to the element's frame document.
const kit = (() => {
  'use strict';
  const ROLES = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'tab', 'checkbox', 'radio', 'combobox', 'switch', 'gridcell', 'treeitem',
    'slider', 'spinbutton', 'searchbox', 'textbox']);
  const NATIVE = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'option']);
  const IMPLICIT = {
    button: 'button', summary: 'button', textarea: 'textbox', option: 'option',
    h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
    ul: 'list', ol: 'list', menu: 'list', li: 'listitem', nav: 'navigation', main: 'main',
    dialog: 'dialog', table: 'table', tr: 'row', td: 'cell', th: 'columnheader',
    header: 'banner', footer: 'contentinfo', aside: 'complementary', article: 'article',
    hr: 'separator', progress: 'progressbar', meter: 'meter', details: 'group',
    fieldset: 'group', output: 'status', datalist: 'listbox', form: 'form',
  };
  const INPUT_ROLES = {
    checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button',
    image: 'button', range: 'slider', number: 'spinbutton', hidden: '', color: '', file: '',
    date: '', 'datetime-local': '', month: '', time: '', week: '', password: '',
  };
  // Roles whose name comes from their content (accname 1.2, "name from
  // content"), besides every element fovea counts as interactive.
  const FROM_CONTENT = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'tab', 'checkbox', 'radio', 'switch', 'treeitem', 'gridcell',
    'cell', 'columnheader', 'rowheader', 'heading', 'tooltip', 'row']);
  // Event types whose listener makes an element a control.
  const EVENTS = ['click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup',
    'pointerdown', 'pointerup', 'touchstart', 'touchend', 'keydown', 'keyup', 'keypress'];
  const ON = EVENTS.map((t) => 'on' + t);
  const REACT_KEYS = ['onClick', 'onMouseDown', 'onMouseUp', 'onPointerDown', 'onPointerUp',
    'onTouchStart', 'onTouchEnd', 'onKeyDown', 'onDoubleClick', 'onContextMenu'];
  const SKIP_TEXT = new Set(['script', 'style', 'noscript', 'template', 'title']);
  const NAME_CAP = 160, HINT_CAP = 160, HINT_NODES = 16;

  // ---- text -----------------------------------------------------------------
  // These two classes must list exactly the characters base_text_char_class
  // (base/text.c) classifies as spaces and invisible: the snapper and the
  // snapshot loader compare what this script reports with that C rule, and
  // tests/perception/test_kit.c checks every code point of the union agrees.
  const SPACES = /[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;
  const ZERO = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;
  const norm = (s) => String(s == null ? '' : s).replace(ZERO, '').replace(SPACES, ' ').trim();
  // The same per line, keeping the line breaks (rendered text, one line per
  // rendered line); empty lines are dropped.
  const normLines = (s) => String(s == null ? '' : s).replace(ZERO, '').split(/\r\n|[\n\r\u2028\u2029]/)
    .map((l) => l.replace(SPACES, ' ').trim()).filter((l) => l).join('\n');
  const cap = (s, n) => {
    s = String(s == null ? '' : s);
    if (s.length > 4 * n) s = s.slice(0, 4 * n);
    s = norm(s);
    return s.length > n ? s.slice(0, n).trim() : s;
  };

  const styleOf = (el) => el.ownerDocument.defaultView.getComputedStyle(el);
  const tagOf = (el) => el.localName.toLowerCase();
  // secretField: a field whose value is a secret (docs/safety.md "Secret
  // fields", agent_field_sensitive in C): type=password, or an autocomplete
  // token cc-* (card data), current-password, new-password or one-time-code.
  // Its value never leaves the page in an answer: callers show MASK.
  const MASK = '********';
  const secretField = (el) => {
    if (!el || el.nodeType !== 1) return false;
    const tag = tagOf(el);
    if (tag !== 'input' && tag !== 'textarea' && tag !== 'select') return false;
    if (tag === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'password') {
      return true;
    }
    const ac = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
    return ac.some((t) => t.startsWith('cc-') || t === 'current-password' ||
      t === 'new-password' || t === 'one-time-code');
  };
  // A field's value as answers may show it: MASK for a secret field.
  const shownValue = (el) => {
    const v = typeof el.value === 'string' ? el.value : '';
    return v && secretField(el) ? MASK : v;
  };

  // ---- roles ----------------------------------------------------------------
  const firstRole = (el) => {
    const r = el.getAttribute('role');
    if (!r) return '';
    const t = r.trim().split(/\s+/)[0];
    return t ? t.toLowerCase() : '';
  };
  const roleOf = (el) => {
    const r = firstRole(el);
    if (r) return r;
    const tag = tagOf(el);
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'input') {
      const ty = (el.getAttribute('type') || 'text').toLowerCase();
      if (ty in INPUT_ROLES) return INPUT_ROLES[ty];
      return el.hasAttribute('list') ? 'combobox' : (ty === 'search' ? 'searchbox' : 'textbox');
    }
    if (tag === 'select') {
      const sz = parseInt(el.getAttribute('size') || '', 10);
      return el.hasAttribute('multiple') || sz > 1 ? 'listbox' : 'combobox';
    }
    if (tag === 'img') return el.getAttribute('alt') === '' ? 'presentation' : 'img';
    if (tag === 'section') {
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
    }
    return Object.prototype.hasOwnProperty.call(IMPLICIT, tag) ? IMPLICIT[tag] : '';
  };

  // ---- listeners --------------------------------------------------------------
  // The registry for el's document in this world: in fovea's isolated world
  // the bridge (assets/js/lib/bridge.js) that asks the main-world recorder
  // (assets/js/lib/listen.js) through nonce events; null when neither ran.
  const LISTEN = Symbol.for('fovea.listen');
  const winOf = (el) => (el.ownerDocument || el).defaultView || globalThis;
  const reg = (el) => {
    const r = winOf(el)[LISTEN];
    return r && typeof r.has === 'function' ? r : null; // the main world has only a marker
  };
  const jqOf = (el) => {
    const jq = winOf(el).jQuery;
    return jq && typeof jq._data === 'function' ? jq : null;
  };
  const ownHandlerProps = (el) => {
    // React 17+ keeps the props on the node (__reactProps$<random>), Vue 3
    // its invokers in _vei; both attach the real listener to the root.
    for (const k of Object.keys(el)) {
      if (k.startsWith('__reactProps$') || k.startsWith('__reactEventHandlers$')) {
        const p = el[k];
        if (p && typeof p === 'object') {
          for (const h of REACT_KEYS) if (typeof p[h] === 'function') return true;
        }
      } else if (k === '_vei') {
        const v = el._vei;
        if (v && typeof v === 'object') {
          for (const h of Object.keys(v)) if (/^on(click|mouse|pointer|touch|key)/i.test(h)) return true;
        }
      }
    }
    return false;
  };
  // A root that only dispatches for its descendants is not a control itself:
  // the document element and body (frameworks listen there), a React root,
  // a jQuery host whose handlers are all delegated.
  const dispatchRoot = (el) => {
    for (const k of Object.keys(el)) {
      if (k.startsWith('__reactContainer$') || k === '_reactRootContainer') return true;
    }
    const jq = jqOf(el);
    if (jq) {
      let ev = null;
      try { ev = jq._data(el, 'events'); } catch (e) { ev = null; }
      if (ev) {
        let own = 0, del = 0;
        for (const t of EVENTS) for (const h of ev[t] || []) { if (h && h.selector) del++; else own++; }
        if (del && !own) return true;
      }
    }
    return false;
  };
  const ownListener = (el) => {
    const tag = tagOf(el);
    if (tag === 'html' || tag === 'body') return false;
    const r = reg(el);
    // The main world holds the listeners and the frameworks' expandos: it
    // answers the whole question (the same rules, listen.js `own`).
    if (r && r.bridge) return r.own(el);
    if (r && r.has(el)) return !dispatchRoot(el);
    for (let i = 0; i < ON.length; i++) {
      if (el.hasAttribute(ON[i])) return true;
      const v = el[ON[i]];
      if (typeof v === 'function') return true;
    }
    return ownHandlerProps(el);
  };
  // jQuery delegation: a handler bound on an ancestor with a selector. jQuery
  // adds one real listener to the ancestor (so the registry has it) and keeps
  // the selectors in its private data.
  const delegated = (el) => {
    const r = reg(el);
    if (r && r.bridge) return r.deleg(el);
    const jq = jqOf(el);
    if (!jq) return false;
    for (let a = el.parentNode; a; a = a.parentNode) {
      if (a.nodeType !== 1 && a.nodeType !== 9) break;
      if (r && !r.has(a)) continue;
      let ev = null;
      try { ev = jq._data(a, 'events'); } catch (e) { ev = null; }
      if (!ev) continue;
      for (const t of EVENTS) {
        const hs = ev[t];
        if (!hs) continue;
        for (const h of hs) {
          if (!h || !h.selector) continue;
          try { if (el.matches(h.selector)) return true; } catch (e) { /* jQuery-only syntax */ }
        }
      }
    }
    return false;
  };
  const hasListener = (el) => {
    const r = reg(el);
    if (r && r.bridge) {
      // One question to the main world; the on* attribute needs none.
      const tag = tagOf(el);
      if (tag === 'html' || tag === 'body') return delegated(el);
      for (let i = 0; i < ON.length; i++) if (el.hasAttribute(ON[i])) return true;
      return r.any(el);
    }
    return ownListener(el) || delegated(el);
  };
  // True when a closed shadow root may have appeared in this document since
  // the last ask (the recorder's `closed`, through the bridge): the caller
  // then hands the document's closed roots to this world
  // (perc_kit_closed_roots, perception/kit.h) and runs its script again.
  const closedNew = () => {
    try {
      const r = globalThis[LISTEN];
      return !!(r && r.bridge && r.closed());
    } catch (e) {
      return false;
    }
  };
  // A cheap approximation for scans of every element (fingerprint.js): the
  // recorder's registry and an onclick attribute only.
  const recordedListener = (el) => {
    if (el.hasAttribute('onclick')) return true;
    const r = reg(el);
    return !!r && r.has(el);
  };
  // Only hover listeners (mouseenter/over, pointerenter/over) recorded on
  // el, none click-like: an avatar whose caption shows on hover, a menu
  // title. Not a control to press; a target for a hover step. Known only
  // where the recorder ran from the document's start or since it was
  // installed (fovea's world: the bridge); false elsewhere.
  const hoverListener = (el) => {
    const r = reg(el);
    return !!(r && r.bridge && typeof r.hov === 'function' && r.hov(el));
  };

  // ---- interactive ------------------------------------------------------------
  const tabbable = (el) => {
    const ti = el.getAttribute('tabindex');
    if (ti === null) return false;
    // HTML's rules for parsing integers: optional sign, then digits.
    const m = /^[\t\n\f\r ]*([+-]?)(\d+)/.exec(ti);
    return !!m && (m[1] !== '-' || /^0+$/.test(m[2]));
  };
  const editable = (el) => {
    const ce = el.getAttribute('contenteditable');
    if (ce === null) return false;
    const v = ce.toLowerCase();
    return v === '' || v === 'true' || v === 'plaintext-only';
  };
  // isInteractive without the pointer-cursor rule (no style needed): what a
  // cheap scan of every element (fingerprint.js) can afford.
  const isControl = (el, lis) => {
    const tag = el.localName; // the NATIVE tags are lower-case in any document
    if (NATIVE.has(tag)) {
      if (tag === 'a' && !el.hasAttribute('href')) return lis !== undefined ? !!lis : hasListener(el);
      return !(tag === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'hidden');
    }
    const l = !!(lis !== undefined ? lis : hasListener(el));
    // Most elements carry no attribute at all: one call instead of three.
    if (l || !el.hasAttributes()) return l;
    return ROLES.has(firstRole(el)) || tabbable(el) || editable(el);
  };
  // cs: the element's computed style (optional; computed when needed). lis:
  // a precomputed hasListener (optional).
  const isInteractive = (el, cs, lis) => {
    const tag = tagOf(el);
    if (NATIVE.has(tag)) {
      if (tag === 'a' && !el.hasAttribute('href')) {
        return lis !== undefined ? !!lis : hasListener(el);
      }
      if (tag === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return false;
      return true;
    }
    if (ROLES.has(firstRole(el))) return true;
    if (tabbable(el) || editable(el)) return true;
    if (lis !== undefined ? lis : hasListener(el)) return true;
    if (!cs) cs = styleOf(el);
    if (cs.cursor === 'pointer') {
      const p = el.parentElement;
      return !p || styleOf(p).cursor !== 'pointer';
    }
    return false;
  };

  // ---- accessible name --------------------------------------------------------
  const rootOf = (el) => el.getRootNode();
  const byId = (el, id) => {
    const root = rootOf(el);
    return (root.getElementById ? root.getElementById(id) : null) ||
      el.ownerDocument.getElementById(id);
  };
  // Text of an element: rendered (innerText) when it has layout, else its
  // text content (a hidden label still names its control).
  const textOf = (el) => {
    if (typeof el.innerText === 'string' && el.getClientRects().length) return el.innerText;
    return el.textContent || '';
  };
  const svgTitle = (el) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName === 'title') return c.textContent || '';
    }
    return '';
  };
  // The first img alt / SVG title inside el (an icon-only control).
  const innerIconName = (el) => {
    const q = el.querySelector('img[alt]:not([alt=""]), svg');
    if (!q) return '';
    if (q.localName === 'img') return q.getAttribute('alt');
    return q.getAttribute('aria-label') || svgTitle(q);
  };
  let labelIdx = new Map();
  const labelsOf = (el) => {
    const parts = [];
    const id = el.getAttribute('id');
    if (id) {
      // One index of <label for> per document or shadow root and reset().
      const root = rootOf(el);
      let idx = labelIdx.get(root);
      if (!idx) {
        idx = new Map();
        if (root.querySelectorAll) {
          for (const l of root.querySelectorAll('label[for]')) {
            const f = l.getAttribute('for');
            if (!idx.has(f)) idx.set(f, []);
            idx.get(f).push(l);
          }
        }
        labelIdx.set(root, idx);
      }
      for (const l of idx.get(id) || []) parts.push(textOf(l));
    }
    const w = el.parentElement ? el.parentElement.closest('label') : null;
    if (w && !w.hasAttribute('for')) parts.push(textOf(w));
    return norm(parts.join(' '));
  };
  const LABELABLE = new Set(['input', 'select', 'textarea', 'button', 'meter', 'output',
    'progress']);
  const accessibleName = (el, inter) => {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const parts = [];
      for (const id of lb.trim().split(/\s+/)) {
        const t = id ? byId(el, id) : null;
        if (t) parts.push(norm(t.getAttribute('aria-label')) || textOf(t));
      }
      const s = cap(parts.join(' '), NAME_CAP);
      if (s) return s;
    }
    const al = cap(el.getAttribute('aria-label'), NAME_CAP);
    if (al) return al;
    const tag = tagOf(el);
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
    if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) {
      const v = cap(el.getAttribute('value'), NAME_CAP);
      if (v) return v;
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
    }
    if (tag === 'img' || (tag === 'input' && type === 'image')) {
      const a = cap(el.getAttribute('alt'), NAME_CAP);
      if (a) return a;
    }
    if (LABELABLE.has(tag)) {
      const l = cap(labelsOf(el), NAME_CAP);
      if (l) return l;
    }
    if (tag === 'svg') {
      const t = cap(svgTitle(el), NAME_CAP);
      if (t) return t;
    }
    const role = roleOf(el);
    if (inter === undefined) inter = isInteractive(el);
    const content = tag !== 'input' && tag !== 'select' && tag !== 'textarea' && tag !== 'img' &&
      (FROM_CONTENT.has(role) || inter);
    if (content) {
      const t = cap(textOf(el), NAME_CAP) || cap(innerIconName(el), NAME_CAP);
      if (t) return t;
    }
    const ti = cap(el.getAttribute('title'), NAME_CAP);
    if (ti) return ti;
    if (tag === 'input' || tag === 'textarea') return cap(el.getAttribute('placeholder'), NAME_CAP);
    return '';
  };

  // ---- icon hint --------------------------------------------------------------
  const ICONISH = /icon|symbol/;
  const iconHint = (el) => {
    const words = [];
    const seen = new Set();
    let len = 0;
    const push = (w) => {
      w = w.toLowerCase();
      if (!w || seen.has(w) || len + w.length + 1 > HINT_CAP) return;
      seen.add(w);
      words.push(w);
      len += w.length + 1;
    };
    const take = (n) => {
      const cls = n.getAttribute('class');
      let iconFont = false;
      if (cls) {
        for (const t of cls.split(/[\s]+/)) {
          if (!t) continue;
          push(t);
          if (ICONISH.test(t.toLowerCase())) iconFont = true;
        }
      }
      const di = n.getAttribute('data-icon');
      if (di) for (const t of di.split(/\s+/)) if (t) push(t);
      if (n.localName === 'use') {
        const h = n.getAttribute('href') || n.getAttribute('xlink:href') || '';
        const k = h.indexOf('#');
        if (k >= 0 && k + 1 < h.length) push(h.slice(k + 1));
      }
      if (iconFont && n.childElementCount === 0) {
        const t = norm(n.textContent);
        if (t && t.length <= 32) for (const w of t.split(' ')) push(w);
      }
    };
    take(el);
    let k = 0;
    const w = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_ELEMENT);
    for (let n = w.nextNode(); n && k < HINT_NODES; n = w.nextNode(), k++) take(n);
    return words.join(' ');
  };

  // ---- xpath ------------------------------------------------------------------
  // Memoised sibling indices: a list of 2,000 rows is counted once. A kit
  // instance lives as long as the script using it, so callers that keep
  // their function between evaluates call reset() first.
  let sibN = new Map();
  let xpCache = new Map();
  const sibIndex = (el) => {
    let n = sibN.get(el);
    if (n !== undefined) return n;
    const p = el.parentNode;
    if (p && p.childElementCount > 16) {
      const count = new Map();
      for (let c = p.firstElementChild; c; c = c.nextElementSibling) {
        const k = tagOf(c);
        const v = (count.get(k) || 0) + 1;
        count.set(k, v);
        sibN.set(c, v);
      }
      return sibN.get(el);
    }
    const tag = tagOf(el);
    n = 1;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) {
      if (tagOf(s) === tag) n++;
    }
    sibN.set(el, n);
    return n;
  };
  const xpath = (el) => {
    let s = xpCache.get(el);
    if (s !== undefined) return s;
    const p = el.parentNode;
    let prefix = '';
    if (p && p.nodeType === 11) prefix = (p.host ? xpath(p.host) : '') + '/#shadow-root';
    else if (p && p.nodeType === 1) prefix = xpath(p);
    s = prefix + '/' + tagOf(el) + '[' + sibIndex(el) + ']';
    xpCache.set(el, s);
    return s;
  };
  // The frame chain of el: the xpaths of the frame elements from the top
  // document down to el's document, joined by ' > '; '' in the top document.
  // A cross-origin parent ends the chain (its frameElement is not ours).
  const framePath = (el) => {
    const steps = [];
    let w = el.ownerDocument.defaultView;
    for (;;) {
      let fe = null;
      try { fe = w.frameElement; } catch (e) { fe = null; }
      if (!fe) break;
      steps.unshift(xpath(fe));
      w = fe.ownerDocument.defaultView;
    }
    return steps.join(' > ');
  };
  // The element an xpath names in doc: fovea's form (/html[1]/body[1]/div[2],
  // "/#shadow-root" after a shadow host, steps without [n] meaning [1]), or
  // any XPath document.evaluate knows (light DOM only); {many: n} when a
  // general XPath matches several elements, null when none.
  const FOVEA_XP = /^(\/([a-zA-Z][\w-]*(\[\d+\])?|#shadow-root))+$/;
  const resolve = (xp, doc) => {
    doc = doc || document;
    if (!xp) return null;
    if (!FOVEA_XP.test(xp)) {
      const r = doc.evaluate(xp, doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      if (r.snapshotLength > 1) return { many: r.snapshotLength };
      const n = r.snapshotItem(0);
      return n && n.nodeType === 1 ? n : null;
    }
    let node = doc;
    for (const step of xp.split('/').slice(1)) {
      if (step === '#shadow-root') {
        node = node.shadowRoot;
        if (!node) return null;
        continue;
      }
      const m = /^([\w-]+)(?:\[(\d+)\])?$/.exec(step);
      const tag = m[1].toLowerCase();
      let k = m[2] ? parseInt(m[2], 10) : 1;
      let hit = null;
      for (const c of node.children) {
        if (tagOf(c) === tag && --k === 0) { hit = c; break; }
      }
      if (!hit) return null;
      node = hit;
    }
    return node === doc ? null : node;
  };

  // ---- overflow clips -----------------------------------------------------------
  // The clip the ancestors' overflow puts on el, in its document's viewport
  // px ([x0, y0, x1, y1], infinite when none). It follows containing blocks
  // as perception/snapshot.c does: a statically or relatively positioned
  // element is clipped by its parent's clip, an absolutely positioned one by
  // its nearest positioned (or transformed) ancestor's, a fixed one only by a
  // transformed ancestor's; a box with overflow other than visible clips its
  // contents to its padding box, per axis.
  const INF = [-Infinity, -Infinity, Infinity, Infinity];
  let clipMemo = new Map();
  const positioned = (cs) => cs.position !== 'static' || (cs.transform && cs.transform !== 'none');
  const cbOf = (el, cs) => {
    let p = composedParent(el);
    if (p && p.ownerDocument !== el.ownerDocument) return null; // a frame's root
    if (cs.position === 'fixed') {
      for (; p && p.nodeType === 1; p = composedParent(p)) {
        const ps = styleOf(p);
        if (ps.transform && ps.transform !== 'none') return p;
      }
      return null;
    }
    if (cs.position === 'absolute') {
      for (; p && p.nodeType === 1; p = composedParent(p)) {
        if (positioned(styleOf(p))) return p;
      }
      return null;
    }
    return p && p.nodeType === 1 ? p : null;
  };
  const clipOf = (el) => {
    let c = clipMemo.get(el);
    if (c !== undefined) return c;
    c = INF;
    const cb = cbOf(el, styleOf(el));
    if (cb) {
      c = clipOf(cb);
      const cs = styleOf(cb);
      const cx = cs.overflowX !== 'visible', cy = cs.overflowY !== 'visible';
      const tag = tagOf(cb);
      if ((cx || cy) && tag !== 'html' && tag !== 'body') {
        const r = cb.getBoundingClientRect();
        const x0 = r.left + cb.clientLeft, y0 = r.top + cb.clientTop;
        const pad = [x0, y0, x0 + (cb.clientWidth || r.width), y0 + (cb.clientHeight || r.height)];
        c = [cx ? Math.max(c[0], pad[0]) : c[0], cy ? Math.max(c[1], pad[1]) : c[1],
          cx ? Math.min(c[2], pad[2]) : c[2], cy ? Math.min(c[3], pad[3]) : c[3]];
      }
    }
    clipMemo.set(el, c);
    return c;
  };
  const reset = () => {
    sibN = new Map();
    xpCache = new Map();
    clipMemo = new Map();
    labelIdx = new Map();
  };

  // ---- visibility ---------------------------------------------------------------
  // shown: el is rendered and not hidden by CSS (visibility, display, zero
  // opacity, and whatever checkVisibility knows: content-visibility, a
  // display:none ancestor). visiblePart: the part of el's border box inside
  // its document's viewport and every scroll container around it (clipOf),
  // in that viewport's px; null when the box is under 1 px either way. The
  // selector map (enrich.js) and the procedural check (snap_epoch.js) use
  // both, so an element's rect there and then compares edge for edge.
  const shown = (el, cs) => {
    cs = cs || styleOf(el);
    if (cs.visibility === 'hidden' || cs.display === 'none' || parseFloat(cs.opacity) === 0) return false;
    return !el.checkVisibility || el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  };
  const visiblePart = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return null;
    const win = el.ownerDocument.defaultView;
    const oc = clipOf(el);
    return [Math.max(0, r.left, oc[0]), Math.max(0, r.top, oc[1]),
      Math.min(win.innerWidth, r.right, oc[2]), Math.min(win.innerHeight, r.bottom, oc[3])];
  };

  // ---- visual label -------------------------------------------------------------
  // visualLabel: the text a person reads as the name of a form control that
  // has no accessible name (issue 21, class 4): for a checkbox, radio or
  // switch the nearest text on its row, right of it first ("[x] Remember
  // me"), else left; for a field the nearest text left of it on its row
  // ("Date: [____]"), else just above it (a heading or <p> over the input,
  // or the text element before it).
  // Text is looked for within the control's nearest ancestors (at most 3
  // levels, each at most a few rows tall), never inside another control or
  // in a <label> of another control; "" when none is near.
  const FIELD_ROLES = new Set(['textbox', 'combobox', 'searchbox', 'spinbutton']);
  const TOGGLE_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  const NOT_FIELD = new Set(['button', 'submit', 'reset', 'image', 'hidden', 'file', 'range', 'color']);
  const VL_GAP = 160, VL_ABOVE = 48, VL_NODES = 200;
  const visualLabel = (el) => {
    const tag = tagOf(el), role = roleOf(el);
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
    const toggle = type === 'checkbox' || type === 'radio' || TOGGLE_ROLES.has(role);
    const field = !toggle && ((tag === 'input' && !NOT_FIELD.has(type)) || tag === 'textarea' ||
      tag === 'select' || FIELD_ROLES.has(role));
    if (!toggle && !field) return '';
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return '';
    let scope = el;
    for (let i = 0; i < 3; i++) {
      const p = composedParent(scope);
      if (!p || p.nodeType !== 1 || p.ownerDocument !== el.ownerDocument) break;
      const pt = tagOf(p);
      if (pt === 'body' || pt === 'html' || pt === 'form') break;
      if (p.getBoundingClientRect().height > Math.max(6 * r.height, 160)) break;
      scope = p;
    }
    // A heading or <p> just above (the element before the field, or before
    // one of its two nearest ancestors), holding no control.
    const above = () => {
      if (!field) return '';
      for (let a = el, i = 0; a && i < 3; a = a.parentElement, i++) {
        const p = a.previousElementSibling;
        if (!p || SKIP_TEXT.has(tagOf(p)) || isInteractive(p) ||
            p.querySelector('a,button,input,select,textarea,[role],[tabindex]')) continue;
        const q = p.getBoundingClientRect();
        if (q.height < 1 || q.bottom > r.top + 2 || r.top - q.bottom > VL_ABOVE ||
            q.left >= r.right || q.right <= r.left - 20) continue;
        const t = norm(p.innerText || p.textContent);
        if (t && t.length <= NAME_CAP) return t;
      }
      return '';
    };
    if (scope === el) return cap(above().replace(/\s*[:*]+$/, ''), NAME_CAP);
    const doc = el.ownerDocument;
    const w = doc.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    const range = doc.createRange();
    let best = '', bestScore = Infinity;
    for (let k = 0; k < VL_NODES; k++) {
      const t = w.nextNode();
      if (!t) break;
      const text = norm(t.data);
      if (!text || el.contains(t)) continue;
      const pe = t.parentElement;
      if (!pe || SKIP_TEXT.has(tagOf(pe))) continue;
      // Inside another control, or a label that names another control.
      let owned = false;
      for (let a = pe; a && a !== scope; a = a.parentElement) {
        if (a !== el && (isInteractive(a) || (tagOf(a) === 'label' && a.control && a.control !== el))) {
          owned = true;
          break;
        }
      }
      if (owned) continue;
      range.selectNodeContents(t);
      const q = range.getBoundingClientRect();
      if (q.width < 1 || q.height < 1) continue;
      const hmin = Math.min(q.height, r.height);
      const row = Math.min(q.bottom, r.bottom) - Math.max(q.top, r.top) >= 0.5 * hmin;
      let score = Infinity;
      if (row && q.left >= r.right - 2 && q.left - r.right <= VL_GAP)
        score = (q.left - r.right) + (toggle ? 0 : 60);
      else if (row && q.right <= r.left + 2 && r.left - q.right <= VL_GAP)
        score = (r.left - q.right) + (toggle ? 40 : 0);
      else if (field && q.bottom <= r.top + 2 && r.top - q.bottom <= VL_ABOVE &&
               q.left < r.right && q.right > r.left - 20)
        score = (r.top - q.bottom) + 20;
      if (score < bestScore) {
        bestScore = score;
        best = text;
      }
    }
    return cap((best || above()).replace(/\s*[:*]+$/, ''), NAME_CAP);
  };

  // mapLabel: the label the selector map (enrich.js) records for an element
  // and the procedural check (snap_epoch.js) compares with it: the
  // accessible name, else the visual label (a form control's), else the
  // value (masked for a secret field), at most 127 characters.
  const mapLabel = (el) => cap(accessibleName(el, true) || visualLabel(el) || shownValue(el), 127);

  // ---- element text for the snapper --------------------------------------------
  // What the live snapper (snap_probe.js) and the procedural check
  // (snap_epoch.js) report as an element's text, aria label and short
  // description, so both paths describe the same element the same way.
  // snapText: the value or placeholder of a field, the selected option of a
  // select, an image's alt, the rendered text of an interactive element (its
  // flat tree when innerText is empty: slotted labels; else the alt or SVG
  // title inside), else the first text nodes of a large element; at most
  // TEXT_CAP characters.
  const TEXT_CAP = 160;
  const clean = (s) => cap(s, TEXT_CAP);
  // Bounded text of a (large) non-interactive element: the first text nodes.
  const someText = (el) => {
    const w = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let s = '';
    for (let k = 0; k < 64 && s.length < 2 * TEXT_CAP; k++) {
      const t = w.nextNode();
      if (!t) break;
      const pt = t.parentNode && t.parentNode.localName;
      if (!SKIP_TEXT.has(pt)) {
        s += t.data + ' ';
      }
    }
    return clean(s);
  };
  // Text of el's flat tree (slots replaced by what is assigned to them, open
  // shadow roots entered), bounded: the label of a web-component button.
  const flatText = (el) => {
    let s = '';
    let budget = 200;
    const visit = (node) => {
      if (budget-- <= 0 || s.length > 2 * TEXT_CAP) return;
      if (node.nodeType === 3) {
        s += node.data + ' ';
        return;
      }
      if (node.nodeType !== 1 && node.nodeType !== 11) return;
      if (node.nodeType === 1 && SKIP_TEXT.has(node.localName)) return;
      let kids = node.childNodes;
      if (node.localName === 'slot') {
        const a = node.assignedNodes({ flatten: true });
        if (a.length) kids = a;
      } else if (node.shadowRoot) {
        kids = node.shadowRoot.childNodes;
      }
      for (let k = 0; k < kids.length; k++) visit(kids[k]);
    };
    visit(el);
    return s;
  };
  const snapText = (el, isInter) => {
    const tag = el.localName;
    let t = '';
    if (tag === 'input') {
      const ty = el.type;
      if (ty === 'checkbox' || ty === 'radio') t = '';
      else t = shownValue(el) || el.getAttribute('placeholder') || '';
    } else if (tag === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      t = o ? o.text : '';
    } else if (tag === 'textarea') {
      t = shownValue(el) || el.getAttribute('placeholder') || '';
    } else if (tag === 'img') {
      t = el.getAttribute('alt') || '';
    } else if (isInter && typeof el.innerText === 'string') {
      t = el.innerText;
      // innerText follows the DOM, not the flat tree: a shadow button whose
      // label is slotted light content reads empty, so walk the flat tree.
      if (!t.trim()) t = flatText(el);
      if (!t.trim()) {
        const img = el.querySelector('img[alt],svg title');
        if (img) t = img.localName === 'img' ? img.getAttribute('alt') : img.textContent;
      }
    } else {
      t = someText(el);
    }
    return clean(t);
  };
  const ariaLabelOf = (el) => {
    const a = el.getAttribute('aria-label');
    if (a && a.trim()) return clean(a);
    const ids = el.getAttribute('aria-labelledby');
    if (!ids) return '';
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.split(/\s+/)) {
      const e = id && root.getElementById ? root.getElementById(id) : null;
      if (e) parts.push(e.textContent);
    }
    return clean(parts.join(' '));
  };
  const descOf = (el) => {
    let d = el.localName.toLowerCase();
    if (el.id) d += '#' + el.id;
    const cl = el.classList;
    for (let k = 0; cl && k < cl.length && d.length < 60; k++) d += '.' + cl[k];
    return d.length > 80 ? d.slice(0, 80) : d;
  };

  // ---- frames and hit testing ---------------------------------------------------
  const isFrame = (el) => el.localName === 'iframe' || el.localName === 'frame';
  // Content box of a frame element (where its document's viewport sits) in
  // its own document's viewport px; computed borders and padding keep the
  // sub-pixel values clientLeft/clientWidth would round.
  const contentBox = (el) => {
    const r = el.getBoundingClientRect();
    const cs = styleOf(el);
    const px = (k) => parseFloat(cs[k]) || 0;
    const x0 = r.left + px('borderLeftWidth') + px('paddingLeft');
    const y0 = r.top + px('borderTopWidth') + px('paddingTop');
    const x1 = r.right - px('borderRightWidth') - px('paddingRight');
    const y1 = r.bottom - px('borderBottomWidth') - px('paddingBottom');
    return [x0, y0, Math.max(x0, x1), Math.max(y0, y1)];
  };
  const frameDoc = (el) => {
    try { return el.contentDocument; } catch (e) { return null; }
  };
  // Parent in the event path: a slotted node's slot, through shadow roots to
  // the host, and from a frame document to its frame element.
  const composedParent = (n) => {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 11) return p.host || null;
    if (p.nodeType === 9) {
      const w = p.defaultView;
      try { return w && w.frameElement ? w.frameElement : null; } catch (e) { return null; }
    }
    return p;
  };
  // The element a click at (x, y) of doc's viewport is delivered to: the top
  // hit, descending into open shadow roots and (unless frames is false)
  // same-origin frames. onFrame (optional) is told of every frame entered,
  // top down: (frame element, its document, the origin of that document's
  // viewport in doc's viewport px, the frame's content box size [w, h]).
  const hitAt = (x, y, doc, frames, onFrame) => {
    doc = doc || document;
    const x0 = x, y0 = y;
    let e = doc.elementFromPoint(x, y);
    for (;;) {
      if (!e) return null;
      if (e.shadowRoot) {
        const inner = e.shadowRoot.elementFromPoint(x, y);
        if (inner && inner !== e) { e = inner; continue; }
      }
      if (frames !== false && isFrame(e)) {
        const d = frameDoc(e);
        if (d && d.documentElement) {
          const cb = contentBox(e);
          x -= cb[0];
          y -= cb[1];
          if (onFrame) onFrame(e, d, x0 - x, y0 - y, [cb[2] - cb[0], cb[3] - cb[1]]);
          const inner = d.elementFromPoint(x, y);
          if (inner) { e = inner; continue; }
        }
      }
      return e;
    }
  };

  return { ROLES, MASK, secretField, shownValue, norm, normLines, cap, styleOf, roleOf, hasListener, recordedListener, hoverListener, ownListener, delegated, closedNew,
    isInteractive, isControl, accessibleName, iconHint, xpath, framePath, resolve, reset, isFrame, contentBox, frameDoc,
    composedParent, hitAt, clipOf, SKIP_TEXT, TEXT_CAP, snapText, ariaLabelOf, descOf, shown, visiblePart, mapLabel,
    visualLabel };
})();
