// assets/js/agent_reveal.js: scrolls a scroll box so the control a step names
// comes into view. A function expression (the page kit is prepended); the
// runner calls it with the step's label when no vision box carries that label,
// as a person scrolls a list to find an item. It acts only on ONE interactive
// element whose accessible name (or text) equals the label (kit.norm,
// case-folded) and that a scrolling ancestor clips out of its visible area;
// it scrolls that ancestor (and no further) and returns true, else false.
// The page itself is not scrolled: a target below the fold is the runner's
// own business (it scrolls the page as part of the step).
(label) => {
  const want = kit.norm(label).toLowerCase();
  if (!want) return false;
  const found = [];
  const all = document.querySelectorAll('*');
  for (let i = 0; i < all.length && found.length < 2; i++) {
    const el = all[i];
    if (!kit.isInteractive(el)) continue;
    const name = kit.norm(kit.accessibleName(el, true) || el.textContent).toLowerCase();
    if (name === want) found.push(el);
  }
  if (found.length !== 1) return false;
  const el = found[0];
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement;
    p = p.parentElement) {
    const cs = getComputedStyle(p);
    const sy = /(auto|scroll)/.test(cs.overflowY) && p.scrollHeight > p.clientHeight;
    const sx = /(auto|scroll)/.test(cs.overflowX) && p.scrollWidth > p.clientWidth;
    if (!sy && !sx) continue;
    const b = p.getBoundingClientRect();
    const top = b.top + p.clientTop, left = b.left + p.clientLeft;
    const bottom = top + p.clientHeight, right = left + p.clientWidth;
    const out = r.top < top || r.bottom > bottom || r.left < left || r.right > right;
    if (!out) return false;
    // Centre the element in the box's visible area, within the box only.
    if (sy) p.scrollTop += (r.top + r.height / 2) - (top + p.clientHeight / 2);
    if (sx) p.scrollLeft += (r.left + r.width / 2) - (left + p.clientWidth / 2);
    return true;
  }
  return false;
}
