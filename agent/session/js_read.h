/* agent/session/js_read.h: the page scripts of the reading tools (agent/session/tools_read.c),
 * embedded by agent/CMakeLists.txt after the page kit (assets/js/lib/kit.js)
 * and the composed-DOM helpers (assets/js/lib/dom.js). Each is a function
 * expression taking one argument object; NUL-terminated, read-only, any
 * thread. */
#ifndef FOVEA_AGENT_SESSION_JS_READ_H
#define FOVEA_AGENT_SESSION_JS_READ_H

#include <stddef.h>

/* assets/js/read_markdown.js: a document or a region of it as Markdown. */
extern const unsigned char fovea_js_read_markdown[];
extern const size_t fovea_js_read_markdown_len;
/* assets/js/read_search.js: elements by text and/or CSS selector. */
extern const unsigned char fovea_js_read_search[];
extern const size_t fovea_js_read_search_len;
/* assets/js/read_state.js: one state of an element, or a selector's count. */
extern const unsigned char fovea_js_read_state[];
extern const size_t fovea_js_read_state_len;

#endif
