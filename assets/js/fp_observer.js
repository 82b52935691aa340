// assets/js/fp_observer.js: the mutation counter behind page fingerprints
// (perception/fingerprint.h). Injected at document start through
// Page.addScriptToEvaluateOnNewDocument and evaluated once in the current
// document; evaluating it again is a no-op, so it can also be prepended to
// the fingerprint probe for frames that were never set up.
//
// It counts, cumulatively for this document, the nodes added and removed and
// the attribute changes a MutationObserver reports. The counter lives on a
// non-enumerable window property so page scripts enumerating window do not
// trip over it. flush() folds in records the observer has queued but not yet
// delivered (delivery is a microtask, and an evaluate may run before it), so
// a fingerprint taken right after a mutation already counts it.
(() => {
  const KEY = '__foveaFpObserver';
  if (window[KEY]) return window[KEY].flush();
  const st = { count: 0, obs: null };
  const tally = (records) => {
    for (const r of records) {
      if (r.type === 'childList') st.count += r.addedNodes.length + r.removedNodes.length;
      else st.count += 1;
    }
  };
  st.flush = () => {
    if (st.obs) tally(st.obs.takeRecords());
    return st.count;
  };
  st.obs = new MutationObserver(tally);
  // `document` exists at document start even before <html> is parsed, and a
  // subtree observer on it sees everything the parser and scripts add.
  st.obs.observe(document, { childList: true, subtree: true, attributes: true });
  Object.defineProperty(window, KEY, { value: st, enumerable: false, configurable: false });
  return st.count;
})()
