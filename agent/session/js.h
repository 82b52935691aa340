/* agent/session/js.h: the page script the agent embeds (agent/CMakeLists.txt):
 * assets/js/agent_text.js after the page kit (assets/js/lib/kit.js), as
 * fovea_js_agent_text[] (NUL-terminated) and its length. Read-only, any
 * thread. */
#ifndef FOVEA_AGENT_SESSION_JS_H
#define FOVEA_AGENT_SESSION_JS_H

#include <stddef.h>

extern const unsigned char fovea_js_agent_text[];
extern const size_t fovea_js_agent_text_len;
/* assets/js/agent_secret_rects.js: where the page shows a secret (overlay masks). */
extern const unsigned char fovea_js_agent_secret_rects[];
extern const size_t fovea_js_agent_secret_rects_len;
/* assets/js/agent_reveal.js after the page kit: scrolls the scroll box that
 * clips the one control a label names (agent/session/reveal.c). */
extern const unsigned char fovea_js_agent_reveal[];
extern const size_t fovea_js_agent_reveal_len;
/* assets/js/agent_find_text.js after the page kit: where a text is (the scroll tool's to_text). */
extern const unsigned char fovea_js_agent_find_text[];
extern const size_t fovea_js_agent_find_text_len;
/* assets/js/agent_find_named.js after the page kit: the elements a name
 * means, by accessible name, alt, title or own text (hover's fallback). */
extern const unsigned char fovea_js_agent_find_named[];
extern const size_t fovea_js_agent_find_named_len;
/* assets/js/agent_qualify.js after the page kit: elements' colour words and
 * whether their row holds a text (a target's qualifiers). */
extern const unsigned char fovea_js_agent_qualify[];
extern const size_t fovea_js_agent_qualify_len;
/* assets/js/nav_challenge.js after the page kit: captcha, interstitial,
 * block, geo and cookie-wall detection (agent/session/tools_nav.c). */
extern const unsigned char fovea_js_nav_challenge[];
extern const size_t fovea_js_nav_challenge_len;
/* assets/js/nav_selector.js: a function (selector) -> {state, count, visible,
 * text} for wait_for_condition's selector conditions. */
extern const unsigned char fovea_js_nav_selector[];
extern const size_t fovea_js_nav_selector_len;
/* assets/js/agent_outline.js after the page kit and lib/dom.js: the page as regions, headings and lines
 * (agent/session/outline_page.c). */
extern const unsigned char fovea_js_agent_outline[];
extern const size_t fovea_js_agent_outline_len;

#endif
