/* agent/session/outline.h: what the model reads of a page (seed 000 "Plan 3",
 * seed 003 "Gen 10").
 *
 * An outline is the page as landmark regions (banner, navigation, main,
 * complementary, contentinfo, search; form and region when named), nested
 * regions as sub-regions, headings as markdown headings, and block-level
 * lines of text with the interactive elements inline as [n]<tag>name</tag>,
 * where n is the element's vision mark [Vn] when the epoch has a box on it.
 * A region whose role, name, elements and text are as in the previous read
 * prints as one line ("NAV: \"Primary\" (unchanged, 3 links)"); when its
 * elements' numbers moved (the view scrolled, so the marks did) the line
 * says so, as the numbers the model remembers no longer hold. A budget
 * keeps the lines that carry data (terms, definitions, code, preformatted
 * text, paragraphs) within a character cap.
 *
 * The pure half (this header's parse / render / budget / headings /
 * meaningful functions, agent/session/outline.c) works on the JSON the page script
 * (assets/js/agent_outline.js) returns, so it is unit-tested on canned
 * trees; agent_outline_read (agent/session/outline_page.c) reads a live page.
 */
#ifndef FOVEA_AGENT_SESSION_OUTLINE_H
#define FOVEA_AGENT_SESSION_OUTLINE_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/geom.h"
#include "cdp/browser.h"
#include "perception/prefetch.h"

/* Line kinds, in the order the page script names them. */
typedef enum agent_ol_kind {
    AGENT_OL_HEADING = 0, /* h1-h6, role=heading */
    AGENT_OL_TERM,        /* dt */
    AGENT_OL_DEF,         /* dd */
    AGENT_OL_PRE,         /* one line of a pre */
    AGENT_OL_CODE,        /* a line that is all code / kbd / samp */
    AGENT_OL_PARA,        /* p, blockquote */
    AGENT_OL_ITEM,        /* li */
    AGENT_OL_CELL,        /* td, th */
    AGENT_OL_CTL,         /* controls only, no text */
    AGENT_OL_TEXT,        /* anything else */
    AGENT_OL_KIND_COUNT
} agent_ol_kind;

/* "heading", "term", ... ("?" out of range). A static string. Any thread. */
const char *agent_ol_kind_name(int kind);

typedef struct agent_ol_el {
    char tag[24], role[24], type[24];
    char *name, *val, *xp, *frame; /* owned; never NULL after parse */
    base_rect r;                   /* top-viewport CSS px */
    int mark;                      /* the vision mark [Vn] on it, 0 = none */
    int n;                         /* the printed index (agent_outline_number) */
} agent_ol_el;

typedef struct agent_ol_line {
    int region; /* index into regions, -1 = none */
    int kind;   /* agent_ol_kind */
    int level;  /* heading level 1..6, else 0 */
    /* Text with element references as "\x01" index "\x02" (index into els). */
    char *text;
} agent_ol_line;

typedef struct agent_ol_region {
    char role[16];  /* "navigation", ... */
    char *name;     /* owned, "" when unnamed */
    int parent;     /* index, -1 = top level */
    int at;         /* index of the first line after the region starts */
    int depth;      /* 0 for top-level regions */
    int occ;        /* how many earlier regions have the same role and name */
    uint64_t digest; /* its lines' text and elements, sub-regions included */
    uint64_t ndigest; /* its elements' printed numbers */
    int n_links, n_buttons, n_fields, n_other, n_lines; /* sub-regions included */
} agent_ol_region;

typedef struct agent_outline {
    char url[1024];
    char title[256];
    agent_ol_region *regions;
    int n_regions;
    agent_ol_line *lines;
    int n_lines;
    agent_ol_el *els;
    int n_els;
    int max_mark; /* the largest mark joined, 0 when none */
} agent_outline;

/* An empty outline (init); fini frees what parse added and empties it
 * (NULL: no-op). The caller owns o. Any thread. */
void agent_outline_init(agent_outline *o);
void agent_outline_fini(agent_outline *o);

/* Appends one document's reply of assets/js/agent_outline.js to o (the top
 * document first, then each cross-origin frame's). page is borrowed; o keeps
 * copies. Errors: BASE_EPROTO naming the bad field (o unchanged),
 * BASE_ENOMEM. Any thread; pure. */
base_err agent_outline_parse(const cJSON *page, agent_outline *o, char *err);

/* The marks of epoch ep joined to o's elements (same xpath within the same
 * kind of frame, the nearest rect among several), then the printed indices: a
 * marked element gets its mark, the others max_mark+1, +2, ... in reading
 * order; the region digests and counts. ep NULL, or an epoch of another URL
 * (fragments aside): no marks. Any thread; pure. */
void agent_outline_join(agent_outline *o, const perc_epoch *ep);

struct agent_ol_lines;

/* Signatures of a read's regions, kept for the next read's collapsing. */
typedef struct agent_outline_sig {
    char url[1024];
    int n;
    struct agent_ol_sig {
        char role[16];
        char name[128];
        int occ;
        uint64_t digest, ndigest;
        /* 1 when that read showed the region whole: not collapsed and none
         * of its lines (sub-regions' included) dropped by the budget. Only
         * such a region may collapse in the next read: the text it stands
         * for is then in the previous read, one observation back. */
        int full;
    } *r;
} agent_outline_sig;

/* Empty signatures (init); fini frees them (NULL: no-op). Caller-owned. Any
 * thread; neither can fail. */
void agent_outline_sig_init(agent_outline_sig *s);
void agent_outline_sig_fini(agent_outline_sig *s);

/* Replaces *s with o's region signatures; shown (NULL: the whole outline
 * was shown) is what the model got of o: the lines agent_outline_render made
 * of it after agent_outline_budget marked the kept ones. A region shown
 * collapsed or cut is not "full" (see agent_ol_sig.full). Errors:
 * BASE_ENOMEM (s unchanged). Any thread. */
base_err agent_outline_sig_take(const agent_outline *o, const struct agent_ol_lines *shown,
                                agent_outline_sig *s, char *err);

/* *dst becomes a copy of src (dst's old signatures freed). Errors:
 * BASE_ENOMEM (dst unchanged). Any thread. */
base_err agent_outline_sig_copy(agent_outline_sig *dst, const agent_outline_sig *src, char *err);

/* One output line and its budget priority (lower = kept first). */
typedef struct agent_ol_out {
    char *text; /* owned, no newline */
    int kind;   /* agent_ol_kind, or -1 for structure (region headers, markers) */
    int prio;
    int region; /* the region whose text it is (its header included), -1 none */
    int collapsed; /* a region's one-line "(unchanged ...)" header */
    int kept;   /* set by agent_outline_budget: 1 when the line was written */
} agent_ol_out;

typedef struct agent_ol_lines {
    agent_ol_out *v;
    int n, cap;
} agent_ol_lines;

/* Frees the lines render made and empties l (NULL: no-op). Any thread. */
void agent_ol_lines_fini(agent_ol_lines *l);

enum {
    AGENT_OL_FLAT = 0,   /* every line in reading order, no regions */
    AGENT_OL_OUTLINE = 1 /* regions, collapsing */
};

/* Renders o as lines: flat, or the outline with the regions prev has
 * unchanged collapsed (prev NULL: none). focus >= 0 renders only that region
 * (never collapsed). *out is the caller's (agent_ol_lines_fini). Errors:
 * BASE_ENOMEM. Any thread; pure. */
base_err agent_outline_render(const agent_outline *o, const agent_outline_sig *prev, int mode,
                              int focus, agent_ol_lines *out, char *err);

/* What the budget kept. */
typedef struct agent_ol_budget {
    int cap_chars;
    int in_chars, out_chars;      /* before and after (markers included after) */
    int in_lines, kept_lines;
    int kind_in[AGENT_OL_KIND_COUNT], kind_kept[AGENT_OL_KIND_COUNT];
} agent_ol_budget;

/* The largest priority render gives (plain text). */
#define AGENT_OL_PRIO_MAX 7

/* The budget priority of a line of kind (agent_ol_kind) that has an
 * element with a vision mark (marked 1) or not: 1 lines with a mark (on
 * the screenshot now: what the model can act on at once, issue 22); 2
 * headings and terms; 3 definitions, code, preformatted; 4 paragraphs; 5
 * controls; 6 list items and cells; 7 other text. Any thread; pure. */
int agent_ol_prio(int kind, int marked);

/* The page-text budgets of seed 003 ("Gen 10"), in characters: a page the
 * reader sees for the first time, the same page again (its first view is in
 * the model's context), and the Planner's view (the caller that checks the
 * data before the task ends). */
#define AGENT_OL_CAP_FIRST 24000
#define AGENT_OL_CAP_SAME 8000
#define AGENT_OL_CAP_PLANNER 24000

/* Writes the lines to out within cap_chars (0 = no cap): the lowest
 * priorities first (structure; lines with an on-screen mark; headings and
 * terms; definitions, code and preformatted lines; paragraphs; controls;
 * list items and cells; other text), ties in reading order; the kept lines
 * in reading order, each run of dropped lines as one "… N lines omitted"
 * marker, the markers counted in the cap (structure lines are always kept,
 * so a cap smaller than them is exceeded by them alone). Each line's kept
 * is set (for agent_outline_sig_take). st (optional) says what was kept.
 * Errors: BASE_ENOMEM, BASE_ETOOBIG (out's cap). Any thread; pure but for
 * the kept flags. */
base_err agent_outline_budget(agent_ol_lines *l, int cap_chars, base_buf *out,
                              agent_ol_budget *st, char *err);

/* The table of contents: one line per heading, "## Text (MAIN, 4 elements)",
 * the elements counted up to the next heading of the same or a higher level.
 * Errors: BASE_ENOMEM, BASE_ETOOBIG. Any thread; pure. */
base_err agent_outline_headings(const agent_outline *o, base_buf *out, char *err);

/* The region spec names ("MAIN", "nav", "NAV:Primary", "NAV: \"Primary\"",
 * "navigation Primary", or "#3" for the third region listed): its index, -1
 * when none, -2 when several match equally (why lists them). Any thread;
 * pure. */
int agent_outline_find_region(const agent_outline *o, const char *spec, char *why, size_t n);

/* The upper-case label of a role ("NAV" for navigation, ...; "REGION" for
 * an unknown one). Static storage; any thread. */
const char *agent_ol_role_label(const char *role);

/* Is text something an agent may treat as an answer? 0 when it is NULL,
 * empty, only whitespace, a null-like literal ("null", "undefined", "{}",
 * "[]", "\"\""), a JSON object or array of only such values, or only
 * boilerplate lines (cookie notices, "loading…", copyright, "skip to
 * content", ...); then why says which. 1 otherwise. Any thread; pure. */
int agent_text_meaningful(const char *text, char *why, size_t n);

/* Reads page's outline: the page script in the top document and in each
 * cross-origin frame (through its session), joined with epoch ep's marks
 * (NULL = none). *o is the caller's (agent_outline_fini), filled on success
 * only. Any thread but the cdp service thread. Errors: CDP errors (page gone,
 * script error), BASE_EPROTO, BASE_ENOMEM. */
base_err agent_outline_read(cdp_page *page, const perc_epoch *ep, agent_outline *o, char *err);

#endif
