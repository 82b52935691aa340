// assets/js/agent_select.js: chooses an option of a native <select> for the
// runner's select step. Native select popups are drawn outside the page (not
// in screenshots, not reachable by page clicks), so after the element was
// found through vision and the snapper, the option is set here and the
// events a user's choice fires are dispatched; the trace marks it scripted.
// Evaluated as a function expression called with (xpath, optionText);
// returns a JSON string {ok, chosen} or {ok:false, why, options}.
(xpath, text) => {
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE,
    null).singleNodeValue;
  if (!el || el.tagName !== 'SELECT') return JSON.stringify({ ok: false, why: 'not a <select>' });
  const norm = (s) => String(s).replace(/\s+/g, ' ').trim().toLowerCase();
  const want = norm(text);
  const opts = [...el.options];
  const o = opts.find((x) => norm(x.text) === want) || opts.find((x) => norm(x.value) === want) ||
    opts.find((x) => norm(x.text).startsWith(want));
  if (!o) {
    return JSON.stringify({ ok: false, why: 'no such option',
      options: opts.map((x) => x.text.trim()).slice(0, 12) });
  }
  el.focus();
  el.value = o.value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return JSON.stringify({ ok: true, chosen: o.text.trim() });
}
