// assets/js/nav_selector.js: the state of a CSS selector in the document,
// for wait_for_condition (agent/session/tools_nav.c), which polls it until it is
// present, visible, hidden or absent. Called as (this)(selector).
//
// "visible" means rendered with a non-empty box, not visibility:hidden and
// not fully transparent (what a person could see if scrolled to), the way
// test runners define it; "hidden" means matched but not visible. A
// selector the browser rejects is reported, not thrown, so the caller can
// name it as a bad argument.
(sel) => {
  let all;
  try {
    all = document.querySelectorAll(sel);
  } catch (e) {
    return { error: String(e && e.message || e).slice(0, 160) };
  }
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none' && Number(cs.opacity) > 0;
  };
  let visible = 0;
  let first = null;
  for (const el of all) {
    if (shown(el)) {
      visible++;
      if (!first) first = el;
    }
  }
  const el = first || all[0];
  return {
    state: all.length === 0 ? 'absent' : visible > 0 ? 'visible' : 'hidden',
    count: all.length,
    visible,
    text: el ? (el.innerText || el.value || '').replace(/\s+/g, ' ').trim().slice(0, 80) : '',
  };
}
