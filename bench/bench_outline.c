/* bench/bench_outline.c: what the model reads of real documentation pages
 * nobody here wrote (Debian's python3-doc, served on loopback): flat page
 * text vs the landmark outline (agent/session/outline.h) at the first step and at a
 * later step of the same page, the share of definition/code lines the
 * budget keeps, and the cost of one read.
 *
 *   build/bench/bench_outline [DOC_ROOT]   (default /usr/share/doc/python3-doc/html)
 *
 * Per page: flat = get_outline mode flat (every line, no regions, no
 * collapsing), outline = get_outline. "raw" is without a cap; "budget" is
 * the page-text budget (24000 chars first view, 8000 same page). The later
 * step is the model's next read after typing a word into the page's quick
 * search box (an action that changes one region): flat text is the same
 * page again, the outline collapses what did not change. Step 3 is the
 * next page of the same documentation set (navigate): regions that repeat
 * (related links, sidebar, search) collapse, the content is new. Tokens are
 * estimated as UTF-8 bytes / 4, rounded up (the usual rule of thumb for
 * English text with GPT tokenizers; the same estimate for both sides, so
 * the ratios hold whatever the tokenizer). Read time: median of 5 reads.
 * A figure, not a test: prints one Markdown table row per page.
 *
 *   build/bench/bench_outline --read [DOC_ROOT]
 *
 * prints only "what the model reads" (issue 22), before and after in the
 * same run: the agent used to read a fresh 6,000-character outline on
 * every step, with on-screen lines ranked alike with headings and
 * signatures; now it reads with seed 003's budget (24k chars for a new page,
 * 8k for the same page) where unchanged regions collapse, and lines with an
 * on-screen mark rank first. Per page: the on-screen marks the outline
 * holds, how many of them a read shows (the former ranking re-applied to the
 * same rendered lines at 6k and at 24k, the present one at 24k), and the
 * characters of three reads of the same page in a row.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/outline.h"
#include "agent/session/session.h"
#include "agent/session/tool.h"
#include "base/clock.h"
#include "harness.h"
#include "serve/httpd.h"

static const struct {
    const char *type, *path, *next;
} PAGES[] = {
    {"library reference", "/library/json.html", "/library/pickle.html"},
    {"library reference (large)", "/library/stdtypes.html", "/library/exceptions.html"},
    {"tutorial", "/tutorial/controlflow.html", "/tutorial/datastructures.html"},
    {"index (table of contents)", "/library/index.html", "/library/intro.html"},
    {"glossary (dl/dt/dd)", "/glossary.html", "/about.html"},
};

static double num(const tool_result *r, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->data, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* get_outline with args: the text's bytes (-1 on failure). */
static int read_chars(fovea_session *s, const char *args, tool_result *keep)
{
    tool_result r;
    if (!tool_call(s, "get_outline", args, &r)) {
        fprintf(stderr, "get_outline %s: %s\n", args, r.message);
        tool_result_fini(&r);
        return -1;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
    int n = cJSON_IsString(v) ? (int)strlen(v->valuestring) : -1;
    if (keep)
        *keep = r;
    else
        tool_result_fini(&r);
    return n;
}

static int tok(int bytes)
{
    return (bytes + 3) / 4;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* kept/in of kind k in r's "kinds". */
static void kind(const tool_result *r, const char *k, int *kept, int *in)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r->data, "kinds"), k);
    *kept = (int)cJSON_GetArrayItem(a, 0)->valuedouble;
    *in = (int)cJSON_GetArrayItem(a, 1)->valuedouble;
}

/* The rank lines had before issue 22, from the present one: a line with an
 * on-screen mark (1) ranked with headings and terms (2), the rest one step
 * up. */
static int former_prio(int prio)
{
    return prio <= 0 ? 0 : prio <= 2 ? 1 : prio - 1;
}

/* Distinct marks 1..max shown as "[n]<" in text. */
static int marks_in_text(const char *text, int max)
{
    char *seen = calloc((size_t)max + 2, 1);
    int n = 0;
    for (const char *p = strchr(text, '['); seen && p; p = strchr(p + 1, '[')) {
        char *end = NULL;
        long k = strtol(p + 1, &end, 10);
        if (end != p + 1 && end[0] == ']' && end[1] == '<' && k >= 1 && k <= max && !seen[k]) {
            seen[k] = 1;
            n++;
        }
    }
    free(seen);
    return n;
}

/* Marks shown when the session's page is read at cap with the former
 * ranking (former 1) or the present one; -1 on failure. */
static int marks_shown_at(fovea_session *s, cdp_page *p, int cap, int former)
{
    perc_epoch *ep = fovea_session_wait_epoch(s, 5000);
    agent_outline o;
    agent_outline_init(&o);
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_outline_read(p, ep, &o, err);
    if (ep)
        perc_epoch_release(ep);
    agent_ol_lines l;
    memset(&l, 0, sizeof l);
    if (!e)
        e = agent_outline_render(&o, NULL, AGENT_OL_OUTLINE, -1, &l, err);
    for (int i = 0; !e && former && i < l.n; i++)
        l.v[i].prio = former_prio(l.v[i].prio);
    base_buf b;
    base_buf_init(&b, 4u << 20);
    if (!e)
        e = agent_outline_budget(&l, cap, &b, NULL, err);
    int n = e ? -1 : marks_in_text(b.data ? (const char *)b.data : "", o.max_mark);
    if (e)
        fprintf(stderr, "bench_outline: %s\n", err);
    base_buf_fini(&b);
    agent_ol_lines_fini(&l);
    agent_outline_fini(&o);
    return n;
}

/* A session on a new tab at path of the served documentation (*pp its
 * page); NULL (said on stderr) on failure. */
static fovea_session *open_doc(serve_httpd *srv, const char *path, cdp_page **pp)
{
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    char url[512], err[BASE_ERRBUF_SIZE] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", serve_httpd_port(srv), path);
    fovea_session_opts so;
    fovea_session_opts_init(&so);
    so.humanize = 0;
    so.overlays = AGENT_OVERLAYS_NONE;
    fovea_session *s = NULL;
    if (!p || cdp_page_navigate(p, url, 30000, err) || fovea_session_create(p, &so, &s, err)) {
        fprintf(stderr, "bench_outline: %s: %s\n", url, err);
        cdp_page_close(p);
        return NULL;
    }
    *pp = p;
    return s;
}

/* Issue 22's figures on python3-doc pages (see the file's comment). */
static int bench_read(serve_httpd *srv)
{
    static const char *const READ_PAGES[] = {
        "/library/os.html", "/library/json.html", "/library/stdtypes.html",
        "/tutorial/controlflow.html", "/glossary.html", "/library/index.html",
    };
    printf("| page | raw chars | on-screen marks | shown: before, 6k | shown: former ranking, "
           "24k | shown: after, 24k | before: read 1 / read 2 chars | after: read 1 / read 2 / "
           "read 3 chars | regions collapsed, read 2 / read 3 |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (size_t i = 0; i < sizeof READ_PAGES / sizeof READ_PAGES[0]; i++) {
        cdp_page *p = NULL;
        fovea_session *s = open_doc(srv, READ_PAGES[i], &p);
        if (!s) {
            rc = 1;
            continue;
        }
        /* Before: what the agent asked for on every step. */
        const char *before = "{\"fresh\": true, \"max_chars\": 6000}";
        int b1 = read_chars(s, before, NULL), b2 = read_chars(s, before, NULL);
        /* After: the Worker's reads, three in a row (nothing in between, as
         * after a step that read the page without changing it). */
        struct agent_outline_sig *seen = NULL; /* forget the reads before */
        fovea_session_outline_swap(s, &seen);
        fovea_session_outline_free(seen);
        tool_result r1, r2, r3;
        int a1 = read_chars(s, "{}", &r1), a2 = read_chars(s, "{}", &r2),
            a3 = read_chars(s, "{}", &r3);
        int raw = a1 >= 0 ? (int)num(&r1, "raw_chars") : -1;
        int in = a1 >= 0 ? (int)num(&r1, "marks_in") : -1;
        int shown = a1 >= 0 ? (int)num(&r1, "marks_shown") : -1;
        int c2 = a2 >= 0 ? (int)num(&r2, "collapsed") : -1;
        int c3 = a3 >= 0 ? (int)num(&r3, "collapsed") : -1;
        if (a1 >= 0)
            tool_result_fini(&r1);
        if (a2 >= 0)
            tool_result_fini(&r2);
        if (a3 >= 0)
            tool_result_fini(&r3);
        int old6 = marks_shown_at(s, p, 6000, 1), old24 = marks_shown_at(s, p, 24000, 1);
        int now24 = marks_shown_at(s, p, 24000, 0);
        if (now24 != shown)
            fprintf(stderr, "bench_outline: %s: the tool showed %d marks, the replay %d\n",
                    READ_PAGES[i], shown, now24);
        printf("| %s | %d | %d | %d (%.0f %%) | %d | %d (%.0f %%) | %d / %d | %d / %d / %d | "
               "%d / %d |\n",
               READ_PAGES[i] + 1, raw, in, old6, in > 0 ? 100.0 * old6 / in : 0.0, old24, shown,
               in > 0 ? 100.0 * shown / in : 0.0, b1, b2, a1, a2, a3, c2, c3);
        fflush(stdout);
        fovea_session_destroy(s);
        cdp_page_close(p);
    }
    return rc;
}

int main(int argc, char **argv)
{
    int only_read = argc > 1 && strcmp(argv[1], "--read") == 0;
    if (only_read) {
        argc--;
        argv++;
    }
    const char *root = argc > 1 ? argv[1] : "/usr/share/doc/python3-doc/html";
    if (!harness_get()) {
        fprintf(stderr, "bench_outline: %s\n", harness_error());
        return 1;
    }
    serve_httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.root = root;
    serve_httpd *srv = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (serve_httpd_start(&ho, &srv, err)) {
        fprintf(stderr, "bench_outline: %s\n", err);
        return 1;
    }
    if (only_read) {
        int r = bench_read(srv);
        serve_httpd_destroy(srv);
        harness_shutdown();
        return r;
    }
    printf("| page type | page | flat raw chars / tok | outline raw chars / tok | step 1 flat / "
           "outline (budget) tok | step 2 flat / outline (budget) tok | step 2 saving | "
           "step 2 raw flat / outline tok | step 3 (next page) flat / outline (budget) tok | "
           "def+code+pre lines kept (24k) | terms kept | read ms (median of 5) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (size_t i = 0; i < sizeof PAGES / sizeof PAGES[0]; i++) {
        cdp_page *p = harness_open(1280, 800, 1, NULL);
        char url[512];
        snprintf(url, sizeof url, "http://127.0.0.1:%d%s", serve_httpd_port(srv), PAGES[i].path);
        if (!p || cdp_page_navigate(p, url, 30000, err)) {
            fprintf(stderr, "bench_outline: %s: %s\n", url, err);
            cdp_page_close(p);
            rc = 1;
            continue;
        }
        fovea_session_opts so;
        fovea_session_opts_init(&so);
        so.humanize = 0;
        so.overlays = AGENT_OVERLAYS_NONE;
        fovea_session *s = NULL;
        if (fovea_session_create(p, &so, &s, err)) {
            fprintf(stderr, "bench_outline: %s\n", err);
            cdp_page_close(p);
            rc = 1;
            continue;
        }
        double ms[5];
        for (int k = 0; k < 5; k++) {
            double t0 = base_monotime_ms();
            read_chars(s, "{\"fresh\": true, \"max_chars\": 24000}", NULL);
            ms[k] = base_monotime_ms() - t0;
        }
        qsort(ms, 5, sizeof ms[0], cmp_d);
        tool_result rf;
        int flat1 = read_chars(s, "{\"mode\": \"flat\", \"max_chars\": 24000}", &rf);
        int flat_raw = flat1 >= 0 ? (int)num(&rf, "raw_chars") : -1;
        if (flat1 >= 0)
            tool_result_fini(&rf);
        /* The first view the model gets (and the session remembers). */
        tool_result r1;
        int ol1 = read_chars(s, "{\"fresh\": true, \"max_chars\": 24000}", &r1);
        int ol_raw = -1, dk = 0, di = 0, ck = 0, ci = 0, pk = 0, pi = 0, tk = 0, ti = 0;
        if (ol1 >= 0) {
            ol_raw = (int)num(&r1, "raw_chars");
            kind(&r1, "definition", &dk, &di);
            kind(&r1, "code", &ck, &ci);
            kind(&r1, "pre", &pk, &pi);
            kind(&r1, "term", &tk, &ti);
            tool_result_fini(&r1);
        }
        /* The model's action between the steps: a word in the quick search. */
        tool_result ta;
        int typed = tool_call(s, "type_at", "{\"target\": \"Quick search\", \"text\": \"json\"}",
                              &ta);
        if (!typed)
            fprintf(stderr, "bench_outline: %s: type_at: %s\n", PAGES[i].path, ta.message);
        tool_result_fini(&ta);
        /* The second read (same page: the 8k budget), against the first view. */
        tool_result r2;
        int ol2 = read_chars(s, "{}", &r2);
        int collapsed = 0, ol2_raw = -1;
        if (ol2 >= 0) {
            collapsed = (int)num(&r2, "collapsed");
            ol2_raw = (int)num(&r2, "raw_chars");
            tool_result_fini(&r2);
        }
        int flat2 = read_chars(s, "{\"mode\": \"flat\", \"max_chars\": 8000}", &rf);
        int flat2_raw = flat2 >= 0 ? (int)num(&rf, "raw_chars") : -1;
        if (flat2 >= 0)
            tool_result_fini(&rf);
        /* Step 3: the next page of the same documentation set (navigate):
         * banner, related links and sidebar may repeat, the content not. */
        char nargs[600];
        snprintf(nargs, sizeof nargs, "{\"url\": \"http://127.0.0.1:%d%s\"}",
                 serve_httpd_port(srv), PAGES[i].next);
        tool_result tn;
        int moved = tool_call(s, "navigate", nargs, &tn);
        if (!moved)
            fprintf(stderr, "bench_outline: navigate %s: %s\n", PAGES[i].next, tn.message);
        tool_result_fini(&tn);
        tool_result r3;
        int ol3 = moved ? read_chars(s, "{}", &r3) : -1;
        int collapsed3 = 0;
        if (ol3 >= 0) {
            collapsed3 = (int)num(&r3, "collapsed");
            tool_result_fini(&r3);
        }
        int flat3 = moved ? read_chars(s, "{\"mode\": \"flat\", \"max_chars\": 24000}", NULL)
                          : -1;
        int dcp_in = di + ci + pi, dcp_kept = dk + ck + pk;
        printf("| %s | %s | %d / %d | %d / %d | %d / %d | %d / %d | %.0f %% | %d / %d | %d / %d "
               "(%.0f %%) | %d/%d (%.0f %%) | %d/%d | %.0f |\n",
               PAGES[i].type, PAGES[i].path + 1, flat_raw, tok(flat_raw), ol_raw, tok(ol_raw),
               tok(flat1), tok(ol1), tok(flat2), tok(ol2),
               flat2 > 0 ? 100.0 * (1.0 - (double)ol2 / flat2) : 0.0, tok(flat2_raw),
               tok(ol2_raw), tok(flat3), tok(ol3),
               flat3 > 0 ? 100.0 * (1.0 - (double)ol3 / flat3) : 0.0, dcp_kept, dcp_in,
               dcp_in ? 100.0 * dcp_kept / dcp_in : 100.0, tk, ti, ms[2]);
        fprintf(stderr, "%s: typed %s, %d regions collapsed at step 2, %d at step 3 (%s)\n",
                PAGES[i].path, typed ? "yes" : "no", collapsed, collapsed3, PAGES[i].next);
        fflush(stdout);
        fovea_session_destroy(s);
        cdp_page_close(p);
    }
    /* extract_with_index: a known signature and a known value, by content. */
    static const struct {
        const char *path, *args, *want;
    } EX[] = {
        {"/library/stdtypes.html", "{\"query\": \"dt, dd, code, p\", \"contains\": "
                                   "\"str.split(sep=None\"}", "str.split(sep=None, maxsplit=-1)"},
        {"/library/json.html", "{\"query\": \"dt\", \"contains\": \"json.dumps(\"}",
         "json.dumps(obj, *, skipkeys=False"},
        {"/library/math.html", "{\"query\": \"dd, p\", \"contains\": \"3.141592\"}",
         "The mathematical constant π = 3.141592…"},
    };
    printf("\n| page | extract_with_index arguments | matches | first match with the known text | "
           "its text (start) | ms (median of 5) |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof EX / sizeof EX[0]; i++) {
        cdp_page *p = NULL;
        fovea_session *s = open_doc(srv, EX[i].path, &p);
        if (!s) {
            rc = 1;
            continue;
        }
        double ms[5];
        int total = 0, found = 0;
        char text[120] = "";
        for (int k = 0; k < 5; k++) {
            tool_result r;
            double t0 = base_monotime_ms();
            int ok = tool_call(s, "extract_with_index", EX[i].args, &r);
            ms[k] = base_monotime_ms() - t0;
            if (ok && k == 0) {
                total = (int)num(&r, "total");
                const cJSON *m;
                cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(r.data, "matches"))
                {
                    const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "text");
                    if (!found && cJSON_IsString(t) && strstr(t->valuestring, EX[i].want)) {
                        found = (int)cJSON_GetObjectItemCaseSensitive(m, "index")->valuedouble;
                        snprintf(text, sizeof text, "%.60s", t->valuestring);
                    }
                }
            }
            if (!ok && k == 0)
                fprintf(stderr, "bench_outline: %s: %s\n", EX[i].path, r.message);
            tool_result_fini(&r);
        }
        qsort(ms, 5, sizeof ms[0], cmp_d);
        char at[16] = "none";
        if (found)
            snprintf(at, sizeof at, "[%d]", found);
        printf("| %s | `%s` | %d | %s | %s | %.0f |\n", EX[i].path + 1, EX[i].args, total, at,
               text, ms[2]);
        fflush(stdout);
        fovea_session_destroy(s);
        cdp_page_close(p);
    }
    serve_httpd_destroy(srv);
    harness_shutdown();
    return rc;
}
