// assets/js/read_state.js: reads one state of one element, or counts a
// selector's matches (the assert_state and assert_absent tools,
// agent/session/tools_read.c). A function expression after the page kit and
// lib/dom.js; called with
//   q = {css?: selector | xpath?: kit xpath | x?, y?: a grounded target's
//        point in this document's viewport,
//        state: "checked" | "unchecked" | "value_equals" | "value_contains" |
//               "class_has" | "enabled" | "disabled" | "visible" | "hidden" |
//               "attribute" | "count" | "count_at_least" | "present" | "text",
//        value?: string, name?: attribute name, count?: integer}
// and returns {found, ok, seen}: found = the element (or, for a selector,
// at least one match) exists; ok = the state holds; seen = what is there
// now, in words, for the failure message; state "text" also returns text,
// the element's rendered text and aria-label. An invalid selector throws.
//
// A selector names a set: "visible" holds when one match is visible,
// "hidden" and "present" (absence) look at all of them, the counts count
// them (visible or not), every other state reads the first match. A point
// names the control under it: a <label> (or text inside one) stands for its
// control, as a click on it would toggle that control, and a wrapper with
// exactly one form control inside stands for that control.
(q) => {
  const state = q.state;
  // The control a grounded element stands for: a <label> (or text inside
  // one) for its control, a wrapper with exactly one form control inside
  // for that control, a part of a role=checkbox/radio/switch widget for it.
  const FORM = 'input:not([type=hidden]), select, textarea';
  const WIDGET = '[role=checkbox],[role=radio],[role=switch],[role=menuitemcheckbox]';
  // States of a control; the others (visible, class, attribute, text) are
  // read from the element itself.
  const CONTROL_STATES = new Set(['checked', 'unchecked', 'value_equals', 'value_contains',
    'enabled', 'disabled']);
  const controlOf = (el) => {
    const lab = el.localName === 'label' ? el : el.closest('label');
    if (lab && lab.control) return lab.control;
    if (el.matches(FORM) || el.matches(WIDGET)) return el;
    const box = el.closest(WIDGET);
    if (box) return box;
    const inner = el.querySelectorAll(FORM);
    return inner.length === 1 ? inner[0] : el;
  };
  let els = [];
  if (q.css) {
    els = dom.queryAll(q.css);
  } else if (q.xpath) {
    const r = kit.resolve(q.xpath, document);
    if (r && r.nodeType === 1) els = [CONTROL_STATES.has(q.state) ? controlOf(r) : r];
  } else if (typeof q.x === 'number' && typeof q.y === 'number') {
    const el = kit.hitAt(q.x, q.y, document);
    if (el) els = [CONTROL_STATES.has(q.state) ? controlOf(el) : el];
  }
  const n = els.length;
  if (state === 'text') {
    // The element's rendered text and its label (assert_text on a target
    // re-reads this while it polls), not an assertion of its own.
    if (!n) return { found: false, ok: false, seen: 'not in the page', text: '' };
    const el = els[0];
    const t = (el.getClientRects().length ? el.innerText : el.textContent) || '';
    return { found: true, ok: true, seen: '', text: kit.normLines(t + '\n' + (el.getAttribute('aria-label') || '')) };
  }
  const plural = (k) => k + (k === 1 ? ' match' : ' matches');
  if (state === 'count') return { found: n > 0, ok: n === q.count, seen: plural(n) };
  if (state === 'count_at_least') return { found: n > 0, ok: n >= q.count, seen: plural(n) };
  const nVis = els.filter((e) => dom.visible(e)).length;
  if (state === 'present') {
    // The inverse of "absent": an element is present when it is visible
    // (a closed dialog kept in the DOM is gone for a person).
    return { found: n > 0, ok: nVis > 0, seen: n ? plural(n) + ', ' + nVis + ' visible' : 'no match' };
  }
  if (state === 'hidden') {
    return { found: n > 0, ok: nVis === 0, seen: n ? (nVis ? nVis + ' visible' : 'hidden') : 'not in the page' };
  }
  if (!n) return { found: false, ok: false, seen: 'not in the page' };
  if (state === 'visible') return { found: true, ok: nVis > 0, seen: nVis ? 'visible' : 'hidden' };
  const el = els[0];
  const desc = (s) => JSON.stringify(kit.cap(s, 120));
  switch (state) {
    case 'checked':
    case 'unchecked': {
      let on;
      if (typeof el.checked === 'boolean' && el.localName === 'input') on = el.checked;
      else {
        const a = el.getAttribute('aria-checked') || el.getAttribute('aria-pressed') ||
          el.getAttribute('aria-selected');
        on = a === 'true' || a === 'mixed';
      }
      return { found: true, ok: state === 'checked' ? on : !on, seen: on ? 'checked' : 'unchecked' };
    }
    case 'value_equals':
    case 'value_contains': {
      let v;
      if (el.localName === 'select') {
        const o = el.selectedOptions[0];
        v = o ? o.label || o.text : '';
        // A select "equals" its option's label or its value attribute.
        if (state === 'value_equals' && o && kit.norm(o.value) === kit.norm(q.value)) {
          return { found: true, ok: true, seen: 'value ' + desc(v) };
        }
      } else if (typeof el.value === 'string' && el.localName !== 'button' && el.localName !== 'li') {
        v = el.value;
      } else {
        v = el.isContentEditable ? el.innerText : el.textContent;
      }
      const a = kit.norm(v), b = kit.norm(q.value);
      const ok = state === 'value_equals' ? a === b : a.toLowerCase().includes(b.toLowerCase());
      const shown = kit.secretField(el) ? (a ? 'a hidden value' : 'empty') : 'value ' + desc(a);
      return { found: true, ok, seen: shown };
    }
    case 'class_has': {
      const c = el.getAttribute('class') || '';
      return { found: true, ok: el.classList.contains(q.value), seen: 'class ' + desc(c) };
    }
    case 'enabled':
    case 'disabled': {
      const off = el.matches(':disabled') || el.closest('[aria-disabled=true]') !== null ||
        el.getAttribute('aria-disabled') === 'true';
      return { found: true, ok: state === 'disabled' ? off : !off, seen: off ? 'disabled' : 'enabled' };
    }
    case 'attribute': {
      const v = el.getAttribute(q.name);
      const ok = q.value === undefined || q.value === null ? v !== null : v === q.value;
      return { found: true, ok, seen: v === null ? 'no ' + q.name + ' attribute' : q.name + '=' + desc(v) };
    }
  }
  throw new Error('unknown state ' + state);
}
