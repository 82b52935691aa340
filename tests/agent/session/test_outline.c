/* tests/agent/session/test_outline.c: the outline's pure half (agent/session/outline.h)
 * on canned page-script replies, no browser.
 *
 * render: landmarks as headers, nested regions indented under their parent,
 * headings as markdown, elements as [n]<tag>name</tag>, orphans under
 * (ungrouped), flat mode without regions.
 * join: an epoch's box on an element gives it the mark's number; the rest
 * are numbered after the largest mark in reading order; a frame's element
 * does not take a top-document mark; an epoch of another URL gives none.
 * collapse: the same outline again collapses every region to one line with
 * its counts; a changed link name, a changed paragraph or an added line
 * elsewhere is handled (changed region expands, others stay collapsed);
 * the same content with new numbers collapses with a "renumbered" warning.
 * budget_*: one case per content kind (term, definition, pre, code,
 * paragraph) beating plain text under a tight cap; headings beat content;
 * structure is always kept; omitted runs are one marker; no cap keeps all;
 * budget_marks_first: a line with an on-screen mark beats earlier headings
 * and terms (issue 22).
 * collapse_not_after_cut: a region the previous read cut for budget is not
 * "unchanged" next time; collapse_once: a region collapses against the read
 * that showed it whole, never against one that showed it collapsed.
 * headings / find_region / meaningful / parse_errors: as named.
 */
#include "check.h"

#include <string.h>

#include "agent/session/outline.h"
#include "base/alloc.h"

/* A shop page: banner with a nested nav, main with a heading, a paragraph
 * with an inline link, a nested named region, an orphan link. */
static const char SHOP[] =
    "{\"url\": \"http://x/shop\", \"title\": \"Shop\","
    " \"regions\": ["
    "  {\"role\": \"banner\", \"name\": \"\", \"parent\": -1, \"at\": 0},"
    "  {\"role\": \"navigation\", \"name\": \"Primary\", \"parent\": 0, \"at\": 1},"
    "  {\"role\": \"main\", \"name\": \"\", \"parent\": -1, \"at\": 2},"
    "  {\"role\": \"region\", \"name\": \"Reviews\", \"parent\": 2, \"at\": 5}],"
    " \"els\": ["
    "  {\"tag\": \"a\", \"role\": \"link\", \"name\": \"Acme\", \"xp\": \"/html[1]/body[1]/header[1]/a[1]\", \"frame\": \"\", \"x\": 0, \"y\": 0, \"w\": 50, \"h\": 20},"
    "  {\"tag\": \"a\", \"role\": \"link\", \"name\": \"Home\", \"xp\": \"/html[1]/body[1]/header[1]/nav[1]/a[1]\", \"frame\": \"\", \"x\": 60, \"y\": 0, \"w\": 40, \"h\": 20},"
    "  {\"tag\": \"a\", \"role\": \"link\", \"name\": \"Deals\", \"xp\": \"/html[1]/body[1]/header[1]/nav[1]/a[2]\", \"frame\": \"\", \"x\": 110, \"y\": 0, \"w\": 40, \"h\": 20},"
    "  {\"tag\": \"a\", \"role\": \"link\", \"name\": \"terms\", \"xp\": \"/html[1]/body[1]/main[1]/p[1]/a[1]\", \"frame\": \"\", \"x\": 0, \"y\": 900, \"w\": 40, \"h\": 20},"
    "  {\"tag\": \"button\", \"role\": \"button\", \"name\": \"Add to cart\", \"xp\": \"/html[1]/body[1]/main[1]/button[1]\", \"frame\": \"\", \"x\": 0, \"y\": 100, \"w\": 90, \"h\": 30},"
    "  {\"tag\": \"input\", \"role\": \"searchbox\", \"type\": \"search\", \"name\": \"Search\", \"val\": \"tea\", \"xp\": \"/html[1]/body[1]/input[1]\", \"frame\": \"/html[1]/body[1]/iframe[1]\", \"x\": 0, \"y\": 0, \"w\": 90, \"h\": 30},"
    "  {\"tag\": \"a\", \"role\": \"link\", \"name\": \"Help\", \"xp\": \"/html[1]/body[1]/a[1]\", \"frame\": \"\", \"x\": 0, \"y\": 1200, \"w\": 40, \"h\": 20}],"
    " \"lines\": ["
    "  {\"r\": 0, \"k\": \"ctl\", \"p\": [0]},"
    "  {\"r\": 1, \"k\": \"ctl\", \"p\": [1, \" \", 2]},"
    "  {\"r\": 2, \"k\": \"h\", \"lv\": 1, \"p\": [\"Teapots\"]},"
    "  {\"r\": 2, \"k\": \"p\", \"p\": [\"Cast iron, 1 litre. See \", 3, \".\"]},"
    "  {\"r\": 2, \"k\": \"ctl\", \"p\": [4]},"
    "  {\"r\": 3, \"k\": \"h\", \"lv\": 2, \"p\": [\"Reviews\"]},"
    "  {\"r\": 3, \"k\": \"p\", \"p\": [\"No reviews yet.\"]},"
    "  {\"r\": -1, \"k\": \"text\", \"p\": [\"Search: \", 5]},"
    "  {\"r\": -1, \"k\": \"ctl\", \"p\": [6]}]}";

static int load(const char *json, agent_outline *o)
{
    agent_outline_init(o);
    cJSON *v = cJSON_Parse(json);
    if (!v)
        return 0;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_outline_parse(v, o, err);
    cJSON_Delete(v);
    if (e)
        fprintf(stderr, "parse: %s\n", err);
    return e == BASE_OK;
}

/* Renders o (with prev) without a cap into a malloc'd string. */
static char *render(const agent_outline *o, const agent_outline_sig *prev, int mode, int focus)
{
    agent_ol_lines l;
    char err[BASE_ERRBUF_SIZE] = "";
    if (agent_outline_render(o, prev, mode, focus, &l, err) != BASE_OK)
        return NULL;
    base_buf b;
    base_buf_init(&b, 1u << 20);
    agent_outline_budget(&l, 0, &b, NULL, err);
    agent_ol_lines_fini(&l);
    return (char *)base_buf_steal(&b, NULL);
}

static void render_outline(void)
{
    agent_outline o;
    CHECK(load(SHOP, &o));
    agent_outline_join(&o, NULL);
    char *t = render(&o, NULL, AGENT_OL_OUTLINE, -1);
    CHECK(t != NULL);
    const char *want =
        "=== PAGE OUTLINE: Shop — http://x/shop ===\n"
        "BANNER:\n"
        "  [1]<a>Acme</a>\n"
        "  NAV: \"Primary\"\n"
        "    [2]<a>Home</a> [3]<a>Deals</a>\n"
        "MAIN:\n"
        "  # Teapots\n"
        "  Cast iron, 1 litre. See [4]<a>terms</a>.\n"
        "  [5]<button>Add to cart</button>\n"
        "  REGION: \"Reviews\"\n"
        "    ## Reviews\n"
        "    No reviews yet.\n"
        "(ungrouped):\n"
        "  Search: [6]<input type=search value=\"tea\">Search</input>\n"
        "  [7]<a>Help</a>\n"
        "=== END OUTLINE ===\n";
    CHECK_STR(t, want);
    base_free(t);
    t = render(&o, NULL, AGENT_OL_FLAT, -1);
    CHECK_STR(t, "[1]<a>Acme</a>\n[2]<a>Home</a> [3]<a>Deals</a>\n# Teapots\n"
                 "Cast iron, 1 litre. See [4]<a>terms</a>.\n[5]<button>Add to cart</button>\n"
                 "## Reviews\nNo reviews yet.\nSearch: [6]<input type=search "
                 "value=\"tea\">Search</input>\n[7]<a>Help</a>\n");
    base_free(t);
    /* One region in full: MAIN with its nested region. */
    t = render(&o, NULL, AGENT_OL_OUTLINE, 2);
    CHECK(t && strncmp(t, "MAIN:\n  # Teapots\n", 18) == 0);
    CHECK(t && strstr(t, "  REGION: \"Reviews\"\n    ## Reviews\n") != NULL);
    CHECK(t && strstr(t, "Acme") == NULL && strstr(t, "Help") == NULL);
    base_free(t);
    agent_outline_fini(&o);
}

static void join(void)
{
    agent_outline o;
    CHECK(load(SHOP, &o));
    perc_selector map[3];
    memset(map, 0, sizeof map);
    snprintf(map[0].xpath, sizeof map[0].xpath, "/html[1]/body[1]/main[1]/button[1]");
    map[0].r = (base_rect){0, 100, 90, 130};
    snprintf(map[1].xpath, sizeof map[1].xpath, "/html[1]/body[1]/header[1]/nav[1]/a[2]");
    map[1].r = (base_rect){110, 0, 150, 20};
    /* The frame's input by xpath, but marked as a top-document element:
     * must not join (different document). */
    snprintf(map[2].xpath, sizeof map[2].xpath, "/html[1]/body[1]/input[1]");
    perc_box boxes[3];
    memset(boxes, 0, sizeof boxes);
    boxes[0] = (perc_box){.id = 1, .dom_index = 1};
    boxes[1] = (perc_box){.id = 2, .dom_index = 0};
    boxes[2] = (perc_box){.id = 3, .dom_index = 2};
    perc_epoch ep;
    memset(&ep, 0, sizeof ep);
    ep.boxes = boxes;
    ep.n = 3;
    ep.map = map;
    ep.n_map = 3;
    agent_outline_join(&o, &ep);
    CHECK_EQ(o.max_mark, 2);
    CHECK_EQ(o.els[2].mark, 1); /* Deals */
    CHECK_EQ(o.els[4].mark, 2); /* Add to cart */
    CHECK_EQ(o.els[5].mark, 0); /* the frame's input */
    char *t = render(&o, NULL, AGENT_OL_OUTLINE, -1);
    /* Marked elements print their mark; the others follow from 3 in reading order. */
    CHECK(t && strstr(t, "[3]<a>Acme</a>") != NULL);
    CHECK(t && strstr(t, "[4]<a>Home</a> [1]<a>Deals</a>") != NULL);
    CHECK(t && strstr(t, "[5]<a>terms</a>") != NULL);
    CHECK(t && strstr(t, "[2]<button>Add to cart</button>") != NULL);
    CHECK(t && strstr(t, "[6]<input") != NULL && strstr(t, "[7]<a>Help</a>") != NULL);
    CHECK(t && strstr(t, "[Vn] for n <= 2") != NULL);
    base_free(t);
    /* The same URL with a fragment joins; another page's epoch does not. */
    snprintf(ep.url, sizeof ep.url, "http://x/shop#reviews");
    agent_outline_join(&o, &ep);
    CHECK_EQ(o.max_mark, 2);
    snprintf(ep.url, sizeof ep.url, "http://x/cart");
    agent_outline_join(&o, &ep);
    CHECK_EQ(o.max_mark, 0);
    CHECK_EQ(o.els[2].mark, 0);
    CHECK_EQ(o.els[0].n, 1);
    agent_outline_fini(&o);
}

/* SHOP with one substitution. */
static char *variant(const char *from, const char *to)
{
    const char *p = strstr(SHOP, from);
    if (!p)
        return NULL;
    size_t n = strlen(SHOP) - strlen(from) + strlen(to) + 1;
    char *s = base_malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(p - SHOP), SHOP, to, p + strlen(from));
    return s;
}

static void collapse(void)
{
    agent_outline a, b;
    CHECK(load(SHOP, &a));
    agent_outline_join(&a, NULL);
    agent_outline_sig sig;
    agent_outline_sig_init(&sig);
    char err[BASE_ERRBUF_SIZE];
    CHECK_OK(agent_outline_sig_take(&a, NULL, &sig, err));
    char *t = render(&a, &sig, AGENT_OL_OUTLINE, -1);
    CHECK(t && strstr(t, "BANNER: (unchanged, 3 links)\n") != NULL);
    CHECK(t && strstr(t, "MAIN: (unchanged, 1 link, 1 button)\n") != NULL);
    CHECK(t && strstr(t, "Teapots") == NULL && strstr(t, "Primary") == NULL);
    /* Orphans are never collapsed. */
    CHECK(t && strstr(t, "(ungrouped):\n  Search:") != NULL);
    base_free(t);

    /* A nav link renamed: the banner and its nav expand, MAIN stays collapsed. */
    char *v = variant("\"name\": \"Deals\"", "\"name\": \"Offers\"");
    CHECK(v && load(v, &b));
    base_free(v);
    agent_outline_join(&b, NULL);
    t = render(&b, &sig, AGENT_OL_OUTLINE, -1);
    CHECK(t && strstr(t, "BANNER:\n") != NULL && strstr(t, "[3]<a>Offers</a>") != NULL);
    CHECK(t && strstr(t, "MAIN: (unchanged") != NULL);
    base_free(t);
    agent_outline_fini(&b);

    /* The review text changed: MAIN expands, its unchanged nothing else
     * does; the nested region that changed is shown, the banner collapses. */
    v = variant("No reviews yet.", "One review: 5 stars.");
    CHECK(v && load(v, &b));
    base_free(v);
    agent_outline_join(&b, NULL);
    t = render(&b, &sig, AGENT_OL_OUTLINE, -1);
    CHECK(t && strstr(t, "BANNER: (unchanged, 3 links)") != NULL);
    CHECK(t && strstr(t, "MAIN:\n  # Teapots") != NULL);
    CHECK(t && strstr(t, "One review: 5 stars.") != NULL);
    base_free(t);
    agent_outline_fini(&b);

    /* A text line added to the banner: the banner expands, its nav and
     * MAIN stay collapsed. */
    v = variant("{\"r\": 1, \"k\": \"ctl\", \"p\": [1, \" \", 2]},",
                "{\"r\": 1, \"k\": \"ctl\", \"p\": [1, \" \", 2]}, {\"r\": 0, \"k\": \"text\", "
                "\"p\": [\"Sale!\"]},");
    CHECK(v && load(v, &b));
    base_free(v);
    agent_outline_join(&b, NULL);
    t = render(&b, &sig, AGENT_OL_OUTLINE, -1);
    CHECK(t && strstr(t, "BANNER:\n") != NULL && strstr(t, "Sale!") != NULL);
    CHECK(t && strstr(t, "  NAV: \"Primary\" (unchanged, 2 links)") != NULL);
    CHECK(t && strstr(t, "MAIN: (unchanged") != NULL);
    base_free(t);
    agent_outline_fini(&b);
    /* Same content, new marks (the view scrolled): still collapsed, but
     * the line warns that the numbers moved. */
    perc_selector map[1];
    memset(map, 0, sizeof map);
    snprintf(map[0].xpath, sizeof map[0].xpath, "/html[1]/body[1]/main[1]/button[1]");
    perc_box box = {.id = 1, .dom_index = 0};
    perc_epoch ep;
    memset(&ep, 0, sizeof ep);
    ep.boxes = &box;
    ep.n = 1;
    ep.map = map;
    ep.n_map = 1;
    agent_outline_join(&a, &ep);
    t = render(&a, &sig, AGENT_OL_OUTLINE, -1);
    CHECK_MSG(t && strstr(t, "MAIN: (unchanged, 1 link, 1 button; renumbered: focus_region for "
                             "the new [n])\n") != NULL, "%s", t);
    base_free(t);
    agent_outline_sig_fini(&sig);
    agent_outline_fini(&a);
}

/* Two lines: plain text then one of kind k, each 100 chars; a cap that
 * fits one keeps the kind-k line. */
static void budget_kind(int k)
{
    agent_ol_out v[3];
    char t0[101], t1[101];
    memset(t0, 'x', 100);
    t0[100] = '\0';
    memset(t1, 'k', 100);
    t1[100] = '\0';
    v[0] = (agent_ol_out){t0, AGENT_OL_TEXT, agent_ol_prio(AGENT_OL_TEXT, 0), -1, 0, 0};
    v[1] = (agent_ol_out){t1, k, agent_ol_prio(k, 0), -1, 0, 0};
    char end[] = "=== END OUTLINE ===";
    v[2] = (agent_ol_out){end, -1, 0, -1, 0, 0};
    agent_ol_lines l = {v, 3, 3};
    base_buf b;
    base_buf_init(&b, 1u << 16);
    agent_ol_budget st;
    char err[BASE_ERRBUF_SIZE];
    /* One 100-char line, the end line and one omission marker fit; both
     * lines do not. */
    CHECK_OK(agent_outline_budget(&l, 200, &b, &st, err));
    CHECK(st.out_chars <= 200);
    CHECK_MSG(b.data && strstr((char *)b.data, t1) != NULL, "%s line dropped",
              agent_ol_kind_name(k));
    CHECK_MSG(b.data && strstr((char *)b.data, t0) == NULL, "text kept over %s",
              agent_ol_kind_name(k));
    CHECK(b.data && strstr((char *)b.data, "… 1 line omitted (budget 200 chars)\n") != NULL);
    CHECK(b.data && strstr((char *)b.data, "=== END OUTLINE ===") != NULL);
    CHECK_EQ(st.kind_in[k], 1);
    CHECK_EQ(st.kind_kept[k], 1);
    CHECK_EQ(st.kind_kept[AGENT_OL_TEXT], 0);
    base_buf_fini(&b);
}

static void budget_term(void)
{
    budget_kind(AGENT_OL_TERM);
}

static void budget_definition(void)
{
    budget_kind(AGENT_OL_DEF);
}

static void budget_pre(void)
{
    budget_kind(AGENT_OL_PRE);
}

static void budget_code(void)
{
    budget_kind(AGENT_OL_CODE);
}

static void budget_paragraph(void)
{
    budget_kind(AGENT_OL_PARA);
}

/* Priorities among themselves, reading order kept, no cap keeps all. */
static void budget_order(void)
{
    char t0[] = "MAIN:", t1[102], t2[] = "  ## Section", t3[] = "  term: fn(a, b)",
         t4[] = "  [3]<button>Go</button>", t5[102];
    memset(t1, 'i', 101);
    t1[101] = '\0';
    memset(t5, 't', 101);
    t5[101] = '\0';
    agent_ol_out v[6] = {
        {t0, -1, 0, -1, 0, 0},
        {t1, AGENT_OL_ITEM, agent_ol_prio(AGENT_OL_ITEM, 0), -1, 0, 0},
        {t2, AGENT_OL_HEADING, agent_ol_prio(AGENT_OL_HEADING, 0), -1, 0, 0},
        {t3, AGENT_OL_TERM, agent_ol_prio(AGENT_OL_TERM, 0), -1, 0, 0},
        {t4, AGENT_OL_CTL, agent_ol_prio(AGENT_OL_CTL, 0), -1, 0, 0},
        {t5, AGENT_OL_TEXT, agent_ol_prio(AGENT_OL_TEXT, 0), -1, 0, 0},
    };
    agent_ol_lines l = {v, 6, 6};
    base_buf b;
    base_buf_init(&b, 1u << 16);
    char err[BASE_ERRBUF_SIZE];
    agent_ol_budget st;
    /* Room for the header, the heading, the term, the control and two
     * omission markers (counted in the cap), not for a 100-char line. */
    CHECK_OK(agent_outline_budget(&l, 6 + 13 + 17 + 25 + 2 * 48, &b, &st, err));
    CHECK_STR((char *)b.data, "MAIN:\n  … 1 line omitted (budget 157 chars)\n  ## Section\n"
                              "  term: fn(a, b)\n  [3]<button>Go</button>\n"
                              "  … 1 line omitted (budget 157 chars)\n");
    CHECK(st.out_chars <= 157);
    CHECK_EQ(st.kept_lines, 4);
    /* The order of priorities itself. */
    CHECK(agent_ol_prio(AGENT_OL_TERM, 0) < agent_ol_prio(AGENT_OL_DEF, 0));
    CHECK(agent_ol_prio(AGENT_OL_PRE, 0) < agent_ol_prio(AGENT_OL_PARA, 0));
    CHECK(agent_ol_prio(AGENT_OL_PARA, 0) < agent_ol_prio(AGENT_OL_CTL, 0));
    /* A line with an on-screen mark outranks every unmarked line (issue 22). */
    CHECK(agent_ol_prio(AGENT_OL_TEXT, 1) < agent_ol_prio(AGENT_OL_HEADING, 0));
    CHECK(agent_ol_prio(AGENT_OL_ITEM, 1) < agent_ol_prio(AGENT_OL_TERM, 0));
    base_buf_reset(&b);
    CHECK_OK(agent_outline_budget(&l, 0, &b, &st, err));
    CHECK_EQ(st.kept_lines, 6);
    CHECK(strstr((char *)b.data, "omitted") == NULL);
    base_buf_fini(&b);
}

/* Renders o against prev within cap into *text (malloc'd) and takes the
 * signatures of what was shown into next. */
static void read_once(const agent_outline *o, const agent_outline_sig *prev, int cap,
                      agent_outline_sig *next, char **text)
{
    agent_ol_lines l;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_outline_render(o, prev, AGENT_OL_OUTLINE, -1, &l, err));
    base_buf b;
    base_buf_init(&b, 1u << 20);
    CHECK_OK(agent_outline_budget(&l, cap, &b, NULL, err));
    CHECK_OK(agent_outline_sig_take(o, &l, next, err));
    agent_ol_lines_fini(&l);
    *text = (char *)base_buf_steal(&b, NULL);
}

/* A read whose budget dropped some of MAIN's lines: the next read of the
 * same page must show MAIN again (the model never saw those lines), while
 * the banner it saw whole collapses. */
static void collapse_not_after_cut(void)
{
    agent_outline a;
    CHECK(load(SHOP, &a));
    /* The banner's three links are on screen (marked), so they rank first. */
    perc_selector map[3];
    memset(map, 0, sizeof map);
    snprintf(map[0].xpath, sizeof map[0].xpath, "/html[1]/body[1]/header[1]/a[1]");
    snprintf(map[1].xpath, sizeof map[1].xpath, "/html[1]/body[1]/header[1]/nav[1]/a[1]");
    snprintf(map[2].xpath, sizeof map[2].xpath, "/html[1]/body[1]/header[1]/nav[1]/a[2]");
    perc_box box[3] = {{.id = 1, .dom_index = 0}, {.id = 2, .dom_index = 1},
                       {.id = 3, .dom_index = 2}};
    perc_epoch ep;
    memset(&ep, 0, sizeof ep);
    ep.boxes = box;
    ep.n = 3;
    ep.map = map;
    ep.n_map = 3;
    agent_outline_join(&a, &ep);
    agent_outline_sig s1, s2;
    agent_outline_sig_init(&s1);
    agent_outline_sig_init(&s2);
    /* Uncapped, the read is about 520 chars; 480 keeps the structure, the
     * marked banner, the headings and the review, and drops MAIN's
     * paragraph (the sub-region Reviews is whole). */
    char *t = NULL;
    read_once(&a, NULL, 480, &s1, &t);
    CHECK_MSG(t && strstr(t, "[3]<a>Deals</a>") != NULL && strstr(t, "No reviews yet.") != NULL,
              "%s", t);
    CHECK_MSG(t && strstr(t, "Cast iron") == NULL && strstr(t, "omitted") != NULL, "%s", t);
    base_free(t);
    read_once(&a, &s1, 0, &s2, &t);
    CHECK_MSG(t && strstr(t, "BANNER: (unchanged, 3 links)\n") != NULL, "%s", t);
    CHECK_MSG(t && strstr(t, "MAIN: (unchanged") == NULL, "%s", t);
    CHECK_MSG(t && strstr(t, "MAIN:\n  # Teapots\n  Cast iron, 1 litre.") != NULL, "%s", t);
    CHECK_MSG(t && strstr(t, "  REGION: \"Reviews\" (unchanged, 2 lines)\n") != NULL, "%s", t);
    base_free(t);
    agent_outline_sig_fini(&s1);
    agent_outline_sig_fini(&s2);
    agent_outline_fini(&a);
}

/* A region collapses against the read that showed it whole, never against
 * a read that itself showed it collapsed: read 1 full, read 2 collapsed,
 * read 3 whole again (its text is then in the context's newest two reads). */
static void collapse_once(void)
{
    agent_outline a;
    CHECK(load(SHOP, &a));
    agent_outline_join(&a, NULL);
    agent_outline_sig s1, s2, s3;
    agent_outline_sig_init(&s1);
    agent_outline_sig_init(&s2);
    agent_outline_sig_init(&s3);
    char *t = NULL;
    read_once(&a, NULL, 0, &s1, &t);
    base_free(t);
    read_once(&a, &s1, 0, &s2, &t);
    CHECK(t && strstr(t, "MAIN: (unchanged") != NULL);
    base_free(t);
    read_once(&a, &s2, 0, &s3, &t);
    CHECK_MSG(t && strstr(t, "(unchanged") == NULL && strstr(t, "# Teapots") != NULL, "%s", t);
    base_free(t);
    agent_outline_sig_fini(&s1);
    agent_outline_sig_fini(&s2);
    agent_outline_sig_fini(&s3);
    agent_outline_fini(&a);
}

/* Under a cap, lines with on-screen marks are kept before headings and
 * terms that come earlier in reading order. */
static void budget_marks_first(void)
{
    char t0[] = "MAIN:", h[80], tm[80], mk[] = "  [1]<a>On screen</a>";
    memset(h, 'h', 79);
    h[79] = '\0';
    memset(tm, 'd', 79);
    tm[79] = '\0';
    agent_ol_out v[4] = {
        {t0, -1, 0, 0, 0, 0},
        {h, AGENT_OL_HEADING, agent_ol_prio(AGENT_OL_HEADING, 0), 0, 0, 0},
        {tm, AGENT_OL_TERM, agent_ol_prio(AGENT_OL_TERM, 0), 0, 0, 0},
        {mk, AGENT_OL_TEXT, agent_ol_prio(AGENT_OL_TEXT, 1), 0, 0, 0},
    };
    agent_ol_lines l = {v, 4, 4};
    base_buf b;
    base_buf_init(&b, 1u << 16);
    char err[BASE_ERRBUF_SIZE];
    CHECK_OK(agent_outline_budget(&l, 6 + 22 + 48 + 10, &b, NULL, err));
    CHECK_STR((char *)b.data, "MAIN:\n  … 2 lines omitted (budget 86 chars)\n"
                              "  [1]<a>On screen</a>\n");
    CHECK(v[0].kept && !v[1].kept && !v[2].kept && v[3].kept);
    base_buf_fini(&b);
}

static void headings(void)
{
    agent_outline o;
    CHECK(load(SHOP, &o));
    agent_outline_join(&o, NULL);
    base_buf b;
    base_buf_init(&b, 1u << 16);
    char err[BASE_ERRBUF_SIZE];
    CHECK_OK(agent_outline_headings(&o, &b, err));
    /* "Teapots" counts its section (terms link, button; the nested region
     * is in MAIN too) and stops at MAIN's end (the orphans are not its). */
    CHECK_STR((char *)b.data, "# Teapots (MAIN, 2 elements)\n"
                              "## Reviews (REGION \"Reviews\", 0 elements)\n");
    base_buf_fini(&b);
    agent_outline_fini(&o);
}

static void find_region(void)
{
    agent_outline o;
    CHECK(load(SHOP, &o));
    agent_outline_join(&o, NULL);
    char why[256];
    CHECK_EQ(agent_outline_find_region(&o, "MAIN", why, sizeof why), 2);
    CHECK_EQ(agent_outline_find_region(&o, "main", why, sizeof why), 2);
    CHECK_EQ(agent_outline_find_region(&o, "NAV:Primary", why, sizeof why), 1);
    CHECK_EQ(agent_outline_find_region(&o, "NAV: \"Primary\"", why, sizeof why), 1);
    CHECK_EQ(agent_outline_find_region(&o, "navigation prim", why, sizeof why), 1);
    CHECK_EQ(agent_outline_find_region(&o, "#4", why, sizeof why), 3);
    CHECK_EQ(agent_outline_find_region(&o, "#9", why, sizeof why), -1);
    CHECK_EQ(agent_outline_find_region(&o, "FOOTER", why, sizeof why), -1);
    CHECK_EQ(agent_outline_find_region(&o, "NAV:Secondary", why, sizeof why), -1);
    agent_outline_fini(&o);
    /* Two unnamed navs: ambiguous, both listed. */
    CHECK(load("{\"regions\": [{\"role\": \"navigation\", \"name\": \"\", \"parent\": -1},"
               " {\"role\": \"navigation\", \"name\": \"Footer links\", \"parent\": -1}],"
               " \"els\": [], \"lines\": []}",
               &o));
    CHECK_EQ(agent_outline_find_region(&o, "NAV", why, sizeof why), -2);
    CHECK(strstr(why, "#1 NAV") != NULL && strstr(why, "#2 NAV \"Footer links\"") != NULL);
    CHECK_EQ(agent_outline_find_region(&o, "NAV:footer", why, sizeof why), 1);
    agent_outline_fini(&o);
}

static void meaningful(void)
{
    char why[128];
    const char *empty[] = {"", "   \n\t ", "null", "undefined", "{}", "[]", "\"\"",
                           "{\"price\": null, \"name\": \"\"}", "[null, \"  \", {}]",
                           "Loading...", "Skip to content\n© 2026 Acme\nPrivacy policy",
                           "We use cookies.\nAccept all", NULL};
    for (int i = 0; empty[i]; i++)
        CHECK_MSG(!agent_text_meaningful(empty[i], why, sizeof why) && why[0],
                  "'%s' counted as meaningful", empty[i]);
    CHECK(!agent_text_meaningful(NULL, why, sizeof why));
    CHECK_STR(why, "empty");
    const char *full[] = {"26,543,821", "{\"price\": 39}", "[\"a\"]", "0",
                          "Loading times are 3 s", "str.split(sep=None, maxsplit=-1)", NULL};
    for (int i = 0; full[i]; i++)
        CHECK_MSG(agent_text_meaningful(full[i], why, sizeof why), "'%s' not meaningful: %s",
                  full[i], why);
}

static void parse_errors(void)
{
    agent_outline o;
    CHECK(load(SHOP, &o));
    int n = o.n_lines;
    char err[BASE_ERRBUF_SIZE];
    const char *bad[] = {"[]", "{\"regions\": [], \"els\": []}",
                         "{\"regions\": [{\"role\": \"main\", \"parent\": 7}], \"els\": [], "
                         "\"lines\": []}",
                         "{\"regions\": [], \"els\": [], \"lines\": [{\"r\": 0, \"p\": []}]}",
                         "{\"regions\": [], \"els\": [], \"lines\": [{\"r\": -1, \"p\": [4]}]}",
                         NULL};
    for (int i = 0; bad[i]; i++) {
        cJSON *v = cJSON_Parse(bad[i]);
        err[0] = '\0';
        CHECK_EQ(agent_outline_parse(v, &o, err), BASE_EPROTO);
        CHECK_MSG(strncmp(err, "outline: ", 9) == 0, "%s", err);
        cJSON_Delete(v);
        CHECK_EQ(o.n_lines, n);
    }
    /* Reference bytes in page text cannot forge an element. */
    agent_outline_fini(&o);
    CHECK(load("{\"regions\": [], \"els\": [], \"lines\": [{\"r\": -1, \"k\": \"p\", \"p\": "
               "[\"a\\u00010\\u0002b\"]}]}",
               &o));
    CHECK_STR(o.lines[0].text, "a0b");
    agent_outline_fini(&o);
}

static const check_case cases[] = {
    {"render_outline", render_outline},
    {"join", join},
    {"collapse", collapse},
    {"budget_term", budget_term},
    {"budget_definition", budget_definition},
    {"budget_pre", budget_pre},
    {"budget_code", budget_code},
    {"budget_paragraph", budget_paragraph},
    {"budget_order", budget_order},
    {"budget_marks_first", budget_marks_first},
    {"collapse_not_after_cut", collapse_not_after_cut},
    {"collapse_once", collapse_once},
    {"headings", headings},
    {"find_region", find_region},
    {"meaningful", meaningful},
    {"parse_errors", parse_errors},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
