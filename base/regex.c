/* base/regex.c: the bounded PCRE2 wrapper behind base/regex.h.
 *
 * glibc's regcomp builds a DFA whose size can explode with nested
 * quantifiers, and neither it nor regexec can be told to stop, so one
 * hostile pattern could take the machine down. PCRE2 can be bounded at
 * every stage, and this file sets every bound: the pattern length, the
 * bytes compilation may allocate (a counting allocator, below), the nesting
 * of parentheses, and per match the backtracking steps, the depth and the
 * heap. JIT is not used: its code ignores the depth and heap limits, and
 * fovea matches a handful of patterns per step, where the interpreter's
 * speed does not matter.
 *
 * All PCRE2 memory comes from base_malloc (so the failure-injecting test
 * allocator reaches it) through a general context whose memory_data is the
 * base_regex itself; the counter is only written while compiling, so a
 * compiled regex is read-only and can be matched from several threads.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "base/regex.h"

#include <pcre2.h>
#include <stdio.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"

/* The deepest parenthesis nesting accepted; PCRE2's default is 250. Real
 * patterns rarely nest more than five levels. */
#define PARENS_NEST_LIMIT 64

struct base_regex {
    pcre2_code *code;
    pcre2_general_context *gctx;
    pcre2_match_context *mctx;
    int counting;       /* 1 while compiling: allocations are counted and capped */
    int over;           /* the compile cap refused an allocation */
    size_t compile_mem; /* bytes allocated while compiling */
};

static void *re_malloc(PCRE2_SIZE n, void *data)
{
    base_regex *re = data;
    if (re->counting) {
        if (n > BASE_REGEX_COMPILE_MEM || re->compile_mem > BASE_REGEX_COMPILE_MEM - n) {
            re->over = 1;
            return NULL;
        }
        re->compile_mem += n;
    }
    return base_malloc(n);
}

static void re_free(void *p, void *data)
{
    (void)data;
    base_free(p);
}

void base_regex_destroy(base_regex *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code);
    pcre2_match_context_free(re->mctx);
    pcre2_general_context_free(re->gctx);
    base_free(re);
}

base_err base_regex_compile(const char *pattern, size_t len, unsigned flags, base_regex **out,
                            char *err)
{
    if (!pattern || !out)
        return base_errf(err, BASE_EINVAL, "regex: no pattern");
    if (len > BASE_REGEX_MAX_PATTERN)
        return base_errf(err, BASE_ETOOBIG, "regex: pattern is %zu bytes, at most %d", len,
                         BASE_REGEX_MAX_PATTERN);
    base_regex *re = base_calloc(1, sizeof *re);
    if (!re)
        return base_errf(err, BASE_ENOMEM, "regex: out of memory");
    pcre2_compile_context *cctx = NULL;
    base_err e = BASE_OK;
    re->gctx = pcre2_general_context_create(re_malloc, re_free, re);
    if (re->gctx) {
        cctx = pcre2_compile_context_create(re->gctx);
        re->mctx = pcre2_match_context_create(re->gctx);
    }
    if (!re->gctx || !cctx || !re->mctx) {
        e = base_errf(err, BASE_ENOMEM, "regex: out of memory");
        goto fail;
    }
    pcre2_set_max_pattern_length(cctx, BASE_REGEX_MAX_PATTERN);
    pcre2_set_parens_nest_limit(cctx, PARENS_NEST_LIMIT);
    pcre2_set_match_limit(re->mctx, BASE_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(re->mctx, BASE_REGEX_DEPTH_LIMIT);
    pcre2_set_heap_limit(re->mctx, BASE_REGEX_HEAP_LIMIT_KIB);
    /* UTF mode so that `.` and classes work on characters; page text may
     * hold invalid sequences, which MATCH_INVALID_UTF lets us search
     * without a separate check (they simply never match). \C could split a
     * character, so it is refused. */
    /* AUTO_CALLOUT: a callout before every pattern item is how one match
     * call counts its TOTAL work. PCRE2's match limit restarts at every
     * start position, so an unanchored pattern over many lines could do
     * (lines x limit) steps; the callout also sees the caller's deadline
     * and a stop signal. */
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C |
                    PCRE2_AUTO_CALLOUT;
    if (flags & BASE_REGEX_MULTILINE)
        opts |= PCRE2_MULTILINE;
    if (flags & BASE_REGEX_CASELESS)
        opts |= PCRE2_CASELESS;
    int code = 0;
    PCRE2_SIZE at = 0;
    re->counting = 1;
    re->code = pcre2_compile((PCRE2_SPTR)pattern, len, opts, &code, &at, cctx);
    re->counting = 0;
    if (!re->code) {
        char why[120];
        if (pcre2_get_error_message(code, (PCRE2_UCHAR *)why, sizeof why) < 0)
            snprintf(why, sizeof why, "error %d", code);
        if (re->over)
            e = base_errf(err, BASE_ETOOBIG,
                          "regex: pattern too large or complex (compiling needs more than %u "
                          "bytes)",
                          BASE_REGEX_COMPILE_MEM);
        else if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAP_FAILED)
            e = base_errf(err, BASE_ENOMEM, "regex: out of memory");
        else if (code == PCRE2_ERROR_PATTERN_TOO_LARGE ||
                 code == PCRE2_ERROR_PATTERN_TOO_COMPLICATED ||
                 code == PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP)
            e = base_errf(err, BASE_ETOOBIG, "regex: pattern too large or complex: %s", why);
        else
            e = base_errf(err, BASE_EINVAL, "regex: %s at byte %zu", why, (size_t)at);
        goto fail;
    }
    pcre2_compile_context_free(cctx);
    *out = re;
    return BASE_OK;
fail:
    pcre2_compile_context_free(cctx);
    base_regex_destroy(re);
    return e;
}

/* One match call's running total, handed to the callout. */
typedef struct {
    uint64_t steps;
    double deadline_ms; /* base_monotime_ms() value, 0 = none */
    int why;            /* STOP_* once the callout ended the match */
} match_budget;

enum { STOP_NONE, STOP_BUDGET, STOP_DEADLINE, STOP_SIGNAL };

/* Reading the clock is far dearer than a pattern item: look every 4096. */
#define CLOCK_EVERY 4096u

static int re_callout(pcre2_callout_block *cb, void *data)
{
    (void)cb;
    match_budget *b = data;
    if (++b->steps > BASE_REGEX_TOTAL_STEPS) {
        b->why = STOP_BUDGET;
        return PCRE2_ERROR_CALLOUT;
    }
    if ((b->steps % CLOCK_EVERY) == 0) {
        if (base_interrupted()) {
            b->why = STOP_SIGNAL;
            return PCRE2_ERROR_CALLOUT;
        }
        if (b->deadline_ms > 0 && base_monotime_ms() >= b->deadline_ms) {
            b->why = STOP_DEADLINE;
            return PCRE2_ERROR_CALLOUT;
        }
    }
    return 0;
}

base_err base_regex_match(const base_regex *re, const char *subject, size_t len, int *matched,
                          char *err)
{
    return base_regex_match_until(re, subject, len, 0, matched, err);
}

base_err base_regex_match_until(const base_regex *re, const char *subject, size_t len,
                                double deadline_ms, int *matched, char *err)
{
    if (!re || !subject || !matched)
        return base_errf(err, BASE_EINVAL, "regex: no pattern or subject");
    /* The callout's counter is per call: a copy of the shared match
     * context carries it, so the compiled regex stays read-only. */
    match_budget b = {0, deadline_ms, STOP_NONE};
    pcre2_match_context *mctx = pcre2_match_context_copy(re->mctx);
    pcre2_match_data *md = mctx ? pcre2_match_data_create(1, re->gctx) : NULL;
    if (!md) {
        pcre2_match_context_free(mctx);
        return base_errf(err, BASE_ENOMEM, "regex: out of memory");
    }
    pcre2_set_callout(mctx, re_callout, &b);
    int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, 0, 0, md, mctx);
    pcre2_match_data_free(md);
    pcre2_match_context_free(mctx);
    if (rc >= 0) {
        *matched = 1;
        return BASE_OK;
    }
    switch (rc) {
    case PCRE2_ERROR_NOMATCH:
        *matched = 0;
        return BASE_OK;
    case PCRE2_ERROR_CALLOUT:
        if (b.why == STOP_SIGNAL)
            return base_errf(err, BASE_ECANCELED, "regex: match stopped by %s",
                             base_signal_name(base_interrupted()));
        if (b.why == STOP_DEADLINE)
            return base_errf(err, BASE_ETOOBIG,
                             "regex: match still running at the step's deadline after %llu "
                             "steps (the pattern backtracks catastrophically on this text; "
                             "simplify it)",
                             (unsigned long long)b.steps);
        return base_errf(err, BASE_ETOOBIG,
                         "regex: match gave up after %u steps in total over %zu bytes (the "
                         "pattern backtracks catastrophically on this text; simplify it)",
                         BASE_REGEX_TOTAL_STEPS, len);
    case PCRE2_ERROR_MATCHLIMIT:
        return base_errf(err, BASE_ETOOBIG,
                         "regex: match gave up after %u backtracking steps (the pattern "
                         "backtracks catastrophically on this text; simplify it)",
                         BASE_REGEX_MATCH_LIMIT);
    case PCRE2_ERROR_DEPTHLIMIT:
        return base_errf(err, BASE_ETOOBIG,
                         "regex: match gave up at backtracking depth %u (simplify the pattern)",
                         BASE_REGEX_DEPTH_LIMIT);
    case PCRE2_ERROR_HEAPLIMIT:
        return base_errf(err, BASE_ETOOBIG,
                         "regex: match gave up at its %u KiB heap limit (simplify the pattern)",
                         BASE_REGEX_HEAP_LIMIT_KIB);
    case PCRE2_ERROR_NOMEMORY:
        return base_errf(err, BASE_ENOMEM, "regex: out of memory");
    default: {
        char why[120];
        if (pcre2_get_error_message(rc, (PCRE2_UCHAR *)why, sizeof why) < 0)
            snprintf(why, sizeof why, "error %d", rc);
        return base_errf(err, BASE_EINVAL, "regex: match failed: %s", why);
    }
    }
}
