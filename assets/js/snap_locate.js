// assets/js/snap_locate.js: resolves a CSS selector to the xpath and frame
// chain fovea's snapper uses to name elements (perception/snapshot.h), so a
// user recording a case (`fovea record --expect-selector`) can name the target
// the friendly way. Evaluated as a function expression applied to the
// selector string; returns a JSON string {"xpath":..,"frame":..,"tag":..,
// "text":..} or {"error":..}.
//
// Selector syntax: plain CSS, resolved in the top document; "A >>> B"
// resolves A, then B inside A's open shadow root or, for a same-origin
// iframe, inside its document.
//
// xpath convention (the page kit's, assets/js/lib/kit.js): each step is
// tag[n], lower-case tag, n the 1-based index among element siblings of the
// same tag, always written; inside an open shadow root the host's path is
// followed by /#shadow-root and the steps inside it. frame: the xpaths of the iframe elements from the top document
// down to the element's document, joined by '|' ("" for the top document).
(function (selector) {
  // The xpath convention is the page kit's (assets/js/lib/kit.js).
  kit.reset();
  const xpathOf = kit.xpath;
  const parts = String(selector).split('>>>').map((s) => s.trim()).filter((s) => s.length);
  if (!parts.length) return JSON.stringify({ error: 'empty selector' });
  let scope = document;
  const frames = [];
  let el = null;
  for (let i = 0; i < parts.length; i++) {
    try {
      el = scope.querySelector(parts[i]);
    } catch (e) {
      return JSON.stringify({ error: 'bad selector "' + parts[i] + '": ' + e.message });
    }
    if (!el) return JSON.stringify({ error: 'no element matches "' + parts[i] + '"' });
    if (i + 1 === parts.length) break;
    if (el.shadowRoot) {
      scope = el.shadowRoot;
    } else if (el.localName === 'iframe' || el.localName === 'frame') {
      let doc = null;
      try {
        doc = el.contentDocument;
      } catch (e) {
        doc = null;
      }
      if (!doc) {
        return JSON.stringify({
          error: '"' + parts[i] + '" is a cross-origin frame; use --expect-point or --expect-xpath',
        });
      }
      frames.push(xpathOf(el));
      scope = doc;
    } else {
      return JSON.stringify({ error: '"' + parts[i] + '" has no open shadow root or frame' });
    }
  }
  const text = kit.norm(el.innerText || el.getAttribute('aria-label') || '');
  return JSON.stringify({
    xpath: xpathOf(el),
    frame: frames.join('|'),
    tag: el.localName.toLowerCase(),
    text: text.slice(0, 80),
  });
})
