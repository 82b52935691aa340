// assets/js/nav_challenge.js: what stands between the agent and the page:
// a captcha, an anti-bot interstitial, an access-denied or geo block, a
// cookie wall. Detection only: fovea says what is there and never tries to
// solve or dismiss it (the navigate and detect_challenge tools of
// agent/session/tools_nav.c). Embedded after the page kit (kit.norm).
//
// Returns {found: [{kind, vendor, evidence, blocking}], blocking}, where kind
// is "captcha" (a widget: an iframe or container of a known provider),
// "interstitial" (the whole page is a "checking your browser" step),
// "blocked" (access denied by a bot manager or a firewall), "geo" (not
// offered in this country or region) or "cookie_wall" / "cookie_banner"
// (consent overlay covering the page, or merely shown). `blocking` says the
// page cannot be used as it is: an interstitial, a block, a visible
// captcha widget, a cookie wall. An invisible reCAPTCHA (it scores the visit
// in the background) and a cookie banner are reported but do not block.
//
// Signals are the ones real providers put in their markup: the providers'
// iframe hosts and titles, their container classes and response fields,
// the challenge page's title and headline, and the consent managers'
// container ids. Text rules look only at the title and the first few
// thousand characters of visible text, so an article that merely mentions
// captchas is not mistaken for one.
(() => {
  const found = [];
  const seen = new Set();
  const add = (kind, vendor, evidence, blocking) => {
    const key = kind + '|' + vendor;
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ kind, vendor, evidence: kit.norm(String(evidence || '')).slice(0, 160), blocking: !!blocking });
  };
  const visible = (el) => {
    if (!el || !el.getBoundingClientRect) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const cs = getComputedStyle(el);
    return cs.display !== 'none' && cs.visibility !== 'hidden' && Number(cs.opacity) > 0.05;
  };
  // Provider by iframe/script URL, widget class or iframe title.
  const PROVIDERS = [
    { vendor: 'reCAPTCHA', url: /(google\.com|recaptcha\.net|gstatic\.com)\/recaptcha/i,
      sel: '.g-recaptcha, textarea[name="g-recaptcha-response"]', title: /^recaptcha/i },
    { vendor: 'hCaptcha', url: /hcaptcha\.com/i,
      sel: '.h-captcha, textarea[name="h-captcha-response"]', title: /hcaptcha/i },
    { vendor: 'Cloudflare Turnstile', url: /challenges\.cloudflare\.com/i,
      sel: '.cf-turnstile, input[name="cf-turnstile-response"]', title: /cloudflare security challenge/i },
    { vendor: 'Arkose Labs', url: /arkoselabs\.com|funcaptcha\.com/i,
      sel: '#FunCaptcha, [data-pkey]', title: /arkose|funcaptcha/i },
    { vendor: 'GeeTest', url: /geetest\.com/i, sel: '.geetest_holder, .geetest_panel', title: /geetest/i },
    { vendor: 'DataDome', url: /captcha-delivery\.com/i, sel: '', title: /datadome/i },
    { vendor: 'PerimeterX', url: /perimeterx\.net|px-cdn\.net|px-cloud\.net/i,
      sel: '#px-captcha', title: /perimeterx|human challenge/i },
  ];
  for (const f of document.querySelectorAll('iframe')) {
    const src = f.getAttribute('src') || '';
    const title = f.getAttribute('title') || '';
    for (const p of PROVIDERS) {
      if (!(p.url.test(src) || p.title.test(title))) continue;
      // reCAPTCHA v3 and invisible v2 only score the visit.
      const invisible = /[?&]size=invisible/.test(src) || !visible(f);
      add('captcha', p.vendor, (title || src) + (invisible ? ' (invisible)' : ''), !invisible);
    }
  }
  for (const p of PROVIDERS) {
    if (!p.sel) continue;
    const el = document.querySelector(p.sel);
    if (!el) continue;
    const box = el.matches('textarea, input') ? el.closest('form, div') || el : el;
    const size = el.getAttribute && el.getAttribute('data-size');
    const invisible = size === 'invisible' || !visible(box);
    add('captcha', p.vendor, el.outerHTML.slice(0, 120) + (invisible ? ' (invisible)' : ''), !invisible);
  }
  const generic = document.querySelector('#captcha, .captcha, img[src*="captcha" i], input[name*="captcha" i]');
  if (generic && visible(generic)) add('captcha', 'unknown', generic.outerHTML.slice(0, 120), true);

  const title = kit.norm(document.title || '');
  const body = document.body ? kit.norm((document.body.innerText || '').slice(0, 4000)) : '';
  const head = title + ' | ' + body.slice(0, 1500);
  const cloudflare = /cloudflare|cf-ray|ray id/i.test(body) || !!document.querySelector('[id^="cf-"], .cf-browser-verification, #challenge-form, #challenge-stage');
  // Interstitials: the page itself is a check.
  const INTERSTITIAL = /just a moment|checking (if the site connection is secure|your browser)|verify(ing)? (that )?you are (a )?human|are you a robot|are you human|human verification|bot verification|security check|one more step|please wait while we verify|press (&|and) hold|pardon our interruption|unusual traffic from your (computer )?network|enable javascript and cookies to continue|ddos protection by/i;
  const challengeDom = document.querySelector('#challenge-form, #challenge-running, #challenge-stage, #cf-challenge-running, .cf-browser-verification, #px-captcha-wrapper, #sec-if-container');
  // A challenge page says what it is in its title or its headline; body
  // text counts only on a near-empty page. An article that mentions a
  // "security check" in a paragraph is not one.
  const short = body.length < 2000;
  const headings = [...document.querySelectorAll('h1, h2, h3, [role="heading"]')].slice(0, 20)
    .map((e) => kit.norm(e.innerText || '')).join(' | ');
  const lead = title + ' | ' + headings;
  const im = lead.match(INTERSTITIAL) || (body.length < 200 && body.match(INTERSTITIAL));
  if (challengeDom || im) {
    const vendor = cloudflare ? 'Cloudflare' : /perimeterx|px-captcha|press (&|and) hold/i.test(head + (challengeDom ? challengeDom.id : '')) ? 'PerimeterX'
      : /datadome/i.test(body) ? 'DataDome' : 'unknown';
    add('interstitial', vendor, im ? im[0] : '#' + challengeDom.id, true);
  }
  // Access denied by a firewall or bot manager.
  const bm = (short ? head : lead).match(/access denied|you have been blocked|request (was )?blocked|403 forbidden|sorry, you have been blocked|your (ip|access) (address )?has been (blocked|banned)/i);
  if (bm) {
    const vendor = cloudflare ? 'Cloudflare' : /reference #\s*\d|akamai/i.test(body) ? 'Akamai'
      : /incapsula|imperva/i.test(body) ? 'Imperva' : 'unknown';
    add('blocked', vendor, bm[0], true);
  }
  // Geo restrictions.
  const gm = head.match(/not (currently )?available in your (country|region|location|area)|(unavailable|isn't available|is not available) (in|from) your (country|region|location)|not available outside (of )?the|we (don't|do not) (currently )?(serve|operate in|ship to) your (country|region|area)|this (content|service|site) is not available in your|geo-?(blocked|restricted)/i);
  if (gm) add('geo', 'site', gm[0], true);

  // Consent managers, by the containers they render, else any fixed or
  // modal element that talks about cookies and offers a button.
  const CMP = [
    ['#onetrust-banner-sdk, #onetrust-consent-sdk .ot-sdk-container, #onetrust-pc-sdk', 'OneTrust'],
    ['#CybotCookiebotDialog', 'Cookiebot'],
    ['.fc-consent-root', 'Google Funding Choices'],
    ['#qc-cmp2-container, .qc-cmp2-container', 'Quantcast Choice'],
    ['[id^="sp_message_container"]', 'Sourcepoint'],
    ['#didomi-popup, #didomi-notice', 'Didomi'],
    ['#usercentrics-root, #uc-banner-modal', 'Usercentrics'],
    ['#truste-consent-track, #consent_blackbar', 'TrustArc'],
    ['.cc-window, .cc-banner', 'Cookie Consent'],
  ];
  const vw = innerWidth || 1, vh = innerHeight || 1;
  const covers = (el) => {
    // The element, or a full-screen backdrop of the same dialog, hides the page.
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const r = e.getBoundingClientRect();
      const w = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
      const h = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
      if (visible(e) && w * h >= 0.5 * vw * vh) return true;
    }
    return false;
  };
  const locked = () => {
    const s = (e) => e && getComputedStyle(e).overflowY;
    return s(document.documentElement) === 'hidden' || s(document.body) === 'hidden';
  };
  const consent = (el, vendor) => {
    if (!visible(el)) return;
    const wall = covers(el) || (locked() && (el.getAttribute('aria-modal') === 'true' || !!el.querySelector('[aria-modal="true"]') || el.matches('[role="dialog"], [role="alertdialog"]')));
    const text = kit.norm(el.innerText || '').slice(0, 100);
    add(wall ? 'cookie_wall' : 'cookie_banner', vendor, text, wall);
  };
  for (const [sel, vendor] of CMP) {
    const el = document.querySelector(sel);
    if (el) consent(el, vendor);
  }
  if (!found.some((f) => f.kind.startsWith('cookie'))) {
    // Bounded: a page of many thousands of blocks is not styled one by one.
    const all = document.querySelectorAll('[role="dialog"], [role="alertdialog"], [aria-modal="true"], div, section, aside');
    for (let i = 0; i < all.length && i < 4000; i++) {
      const el = all[i];
      const cs = getComputedStyle(el);
      if (cs.position !== 'fixed' && cs.position !== 'sticky' && el.getAttribute('aria-modal') !== 'true') continue;
      const t = (el.innerText || '').slice(0, 1500);
      if (!/cookie|consent/i.test(t) || !el.querySelector('button, [role="button"], a[href], input[type="submit"]')) continue;
      consent(el, 'site');
      break;
    }
  }
  return { found, blocking: found.some((f) => f.blocking) };
})()
