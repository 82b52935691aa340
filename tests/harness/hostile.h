/* tests/harness/hostile.h: the 23 one-line overrides of built-ins of issue 23,
 * as tests/fixtures/pages/hostile/override.html?o=NAME applies them (plus
 * "spoof" there: swapped rectangles). Shared by tests/cascade/test_hostile.c
 * (fovea snap --click) and tests/agent/session/test_hostile_click.c
 * (click_at). Read-only, any thread. */
#ifndef FOVEA_TESTS_HOSTILE_H
#define FOVEA_TESTS_HOSTILE_H

#include <stddef.h>

static const char *const hostile_overrides[] = {
    "JSON.stringify",           "Array.prototype.toJSON",
    "Object.prototype.toJSON",  "Array.prototype.map",
    "Array.prototype.push",     "Function.prototype.call",
    "Function.prototype.apply", "Element.prototype.getBoundingClientRect",
    "querySelectorAll",         "getComputedStyle",
    "document.elementFromPoint", "String.prototype.trim",
    "String.prototype.replace", "Set.prototype.has",
    "Math.max",                 "Math.min",
    "Array.prototype.filter",   "Array.prototype.forEach",
    "Object.keys",              "Node.prototype.contains",
    "Element.prototype.closest", "Array.from",
    "Promise.prototype.then",
};

#define HOSTILE_N_OVERRIDES (sizeof hostile_overrides / sizeof hostile_overrides[0])

#endif
