/* agent/plan/loop.c: repeated-action detection and its escalating nudges (loop.h). */
#include "agent/plan/loop.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

void agent_loop_init(agent_loop *lp)
{
    memset(lp, 0, sizeof *lp);
}

/* Appends s to out[*n..cap) folded: lower case, whitespace runs as one space. */
static void put_folded(char *out, size_t cap, size_t *n, const char *s)
{
    int space = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isspace(c)) {
            space = 1;
            continue;
        }
        if (space && *n > 0 && *n + 1 < cap && out[*n - 1] != '{' && out[*n - 1] != '=')
            out[(*n)++] = ' ';
        space = 0;
        if (*n + 1 < cap)
            out[(*n)++] = (char)tolower(c);
    }
    out[*n < cap ? *n : cap - 1] = 0;
}

static int ignored_key(const char *k)
{
    static const char *const keys[] = {"note", "timeout_ms", "retries", "critical", "save_as",
                                       "reason", "reasoning"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

static int coordinate_key(const char *k)
{
    return !strcmp(k, "x") || !strcmp(k, "y") || !strcmp(k, "dx") || !strcmp(k, "dy") ||
           !strcmp(k, "to_x") || !strcmp(k, "to_y");
}

static void put_value(char *out, size_t cap, size_t *n, const char *key, const cJSON *v)
{
    char num[64];
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (key && coordinate_key(key))
            d = floor(d / 25.0) * 25.0; /* a few pixels off is the same place */
        snprintf(num, sizeof num, "%.6g", d);
        put_folded(out, cap, n, num);
    } else if (cJSON_IsString(v)) {
        put_folded(out, cap, n, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        put_folded(out, cap, n, cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        /* Object keys in sorted order, so key order does not matter. */
        put_folded(out, cap, n, cJSON_IsObject(v) ? "{" : "[");
        const char *last = "";
        for (;;) {
            const cJSON *best = NULL;
            if (cJSON_IsObject(v)) {
                for (const cJSON *f = v->child; f; f = f->next)
                    if (f->string && strcmp(f->string, last) > 0 && !ignored_key(f->string) &&
                        (!best || strcmp(f->string, best->string) < 0))
                        best = f;
                if (!best)
                    break;
                put_folded(out, cap, n, best->string);
                put_folded(out, cap, n, "=");
                put_value(out, cap, n, best->string, best);
                put_folded(out, cap, n, ";");
                last = best->string;
            } else {
                for (const cJSON *f = v->child; f; f = f->next) {
                    put_value(out, cap, n, key, f);
                    put_folded(out, cap, n, ",");
                }
                break;
            }
        }
        put_folded(out, cap, n, cJSON_IsObject(v) ? "}" : "]");
    }
}

size_t agent_loop_normalise(const char *tool, const char *args, char *out, size_t cap)
{
    if (!cap)
        return 0;
    size_t n = 0;
    out[0] = 0;
    put_folded(out, cap, &n, tool ? tool : "?");
    cJSON *j = args ? cJSON_Parse(args) : NULL;
    if (j && cJSON_IsObject(j)) {
        put_value(out, cap, &n, NULL, j);
    } else if (args) {
        put_folded(out, cap, &n, "(");
        put_folded(out, cap, &n, args);
        put_folded(out, cap, &n, ")");
    }
    cJSON_Delete(j);
    return n < cap ? n : cap - 1;
}

static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* A concrete next move suited to the tool, when the caller has none. */
static const char *default_alternative(const char *tool)
{
    static const struct {
        const char *prefix;
        const char *alt;
    } alts[] = {
        {"click", "scroll to bring the element into view or pick another [Vn] mark from the "
                  "element list; if the control is not there, navigate to the page directly"},
        {"type", "clear the field and type once, then press Enter with send_keys or click the "
                 "form's submit button"},
        {"select", "open the dropdown with click_at and pick the option from the list it shows"},
        {"scroll", "stop scrolling: look for the content with find_text or extract, or navigate "
                   "to the section directly"},
        {"navigate", "use a link on the current page, go_back, or search the site instead"},
        {"go_back", "navigate to the page's URL directly"},
        {"wait", "stop waiting: check the page with a screenshot or extract what is there"},
        {"extract", "the text is not there: scroll, open the next page of results, or re-plan"},
        {"hover", "click the element instead, or use the element list"},
    };
    for (size_t i = 0; tool && i < sizeof alts / sizeof alts[0]; i++)
        if (strncmp(tool, alts[i].prefix, strlen(alts[i].prefix)) == 0)
            return alts[i].alt;
    return "use a different tool or target, or hand back to the Planner to re-plan";
}

void agent_loop_observe(agent_loop *lp, int step, const char *tool, const char *args,
                        uint64_t page_fp, const char *alternative, agent_loop_verdict *out)
{
    char norm[400];
    agent_loop_normalise(tool, args, norm, sizeof norm);
    uint64_t key = fnv(norm, 1469598103934665603ull);
    key = (key ^ page_fp) * 1099511628211ull;
    int repeats = 1;
    int first = step;
    for (int i = 0; i < lp->n; i++)
        if (lp->recent[i].key == key) {
            repeats++;
            if (lp->recent[i].step < first)
                first = lp->recent[i].step;
        }
    lp->recent[lp->head] = (agent_loop_entry){key, step};
    lp->head = (lp->head + 1) % AGENT_LOOP_WINDOW;
    if (lp->n < AGENT_LOOP_WINDOW)
        lp->n++;
    memset(out, 0, sizeof *out);
    out->repeats = repeats;
    out->first_step = first;
    const char *alt = alternative && *alternative ? alternative : default_alternative(tool);
    if (repeats >= AGENT_LOOP_STOP_AT) {
        out->level = AGENT_LOOP_STOP;
        snprintf(out->message, sizeof out->message,
                 "%s: %.150s ran %d times on an unchanged page (first at step %d)",
                 AGENT_LOOP_STOPPED, norm, repeats, first);
    } else if (repeats == AGENT_LOOP_STOP_AT - 1) {
        out->level = AGENT_LOOP_WARN;
        snprintf(out->message, sizeof out->message,
                 "Loop: %.150s has now run %d times on this page without changing it (first at "
                 "step %d). Repeating it again ends the run. Instead: %.250s.",
                 norm, repeats, first, alt);
    } else if (repeats == 2) {
        out->level = AGENT_LOOP_NUDGE;
        snprintf(out->message, sizeof out->message,
                 "You already ran %.150s on this page at step %d and the page did not change. "
                 "Try something else: %.250s.",
                 norm, first, alt);
    }
}
