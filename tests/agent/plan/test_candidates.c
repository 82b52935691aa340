/* tests/agent/plan/test_candidates.c: the candidate x constraint table
 * (agent/plan/candidates.h); pure, no browser, no model.
 *
 * mode: --candidates parses auto/on/off and nothing else.
 * names: rows and columns match case-, space- and underscore-insensitively;
 *   an existing column keeps its kind and gains a description it lacked.
 * limits: the 65th row and the 25th column are refused with ETOOBIG, the
 *   table unchanged; texts are cut at AGENT_CAND_TEXT_MAX bytes on a UTF-8
 *   boundary; invalid bytes become U+FFFD; spaces fold.
 * ranking: yes count first, a row with any "no" never above one without,
 *   then fewest no, then first seen; rejected rows only fill what is left.
 * apply: a model's update adds columns (declared and implied by cells),
 *   rows, statuses, notes, cells (yes/no/unknown, booleans, numbers,
 *   texts) and merges into existing rows; each invalid part is skipped and
 *   counted exactly; a non-object is EINVAL; the limits hold through it.
 * apply_oom: every allocation of an update failed in turn: ENOMEM or
 *   success, never a crash or leak, the table always consistent.
 * text: the markdown for a prompt: descriptions above, top-k rows in rank
 *   order, '|' escaped, evidence cut; "" with no rows.
 * json: the report's shape, with counts and steps.
 * wants: the `auto` heuristic on constraint-heavy finding tasks (1) and
 *   plain procedures (0), the lists below.
 */
#include "check.h"

#include "agent/plan/candidates.h"
#include "base/alloc.h"
#include "base/utf8.h"

static void mode(void)
{
    agent_cand_mode m = AGENT_CAND_ON;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_cand_mode_parse("auto", &m, err));
    CHECK_EQ(m, AGENT_CAND_AUTO);
    CHECK_OK(agent_cand_mode_parse("off", &m, err));
    CHECK_EQ(m, AGENT_CAND_OFF);
    CHECK_OK(agent_cand_mode_parse("on", &m, err));
    CHECK_EQ(m, AGENT_CAND_ON);
    CHECK_EQ(agent_cand_mode_parse("yes", &m, err), BASE_EINVAL);
    CHECK(strstr(err, "auto, on or off"));
    CHECK_EQ(m, AGENT_CAND_ON); /* untouched on failure */
    CHECK_EQ(agent_cand_mode_parse(NULL, &m, NULL), BASE_EINVAL);
    CHECK_STR(agent_cand_mode_name(AGENT_CAND_OFF), "off");
}

static void names(void)
{
    agent_cand_table t;
    agent_cand_init(&t);
    char err[BASE_ERRBUF_SIZE] = "";
    int a = agent_cand_row_get(&t, "Lisbon", 1, err);
    CHECK_EQ(a, 0);
    CHECK_EQ(agent_cand_row_get(&t, " lisbon ", 5, err), 0);
    CHECK_EQ(agent_cand_row_get(&t, "LIS BON", 5, err), 0);
    CHECK_EQ(agent_cand_row_get(&t, "Porto", 2, err), 1);
    CHECK_EQ(t.n_rows, 2);
    CHECK_STR(t.rows[0].name, "Lisbon");
    CHECK_EQ(t.rows[0].first_step, 1);
    CHECK_EQ(t.rows[0].status, AGENT_CAND_CANDIDATE);
    CHECK_EQ(agent_cand_row_get(&t, "  \t ", 1, err), -1);
    CHECK(strstr(err, "name"));
    int c = agent_cand_column_get(&t, "Screen Size", NULL, 1, err);
    CHECK_EQ(c, 0);
    CHECK_EQ(agent_cand_column_get(&t, "screen_size", "80 inches or more", 0, err), 0);
    CHECK_EQ(t.cols[0].constraint, 1); /* keeps its kind */
    CHECK_STR(t.cols[0].description, "80 inches or more");
    CHECK_EQ(agent_cand_column_get(&t, "SCREENSIZE", "other", 0, err), 0);
    CHECK_STR(t.cols[0].description, "80 inches or more"); /* first description stays */
    CHECK_EQ(agent_cand_column_get(&t, "price", NULL, 0, err), 1);
    CHECK_EQ(t.n_cols, 2);
    /* A row added before a column has a fresh cell for it. */
    CHECK_EQ(t.rows[1].cells[1].step, -1);
    CHECK(t.rows[1].cells[1].text == NULL);
    CHECK_EQ(t.rows[1].cells[1].value, AGENT_CAND_UNKNOWN);
    /* Non-ASCII names match byte for byte, with spaces folded. */
    CHECK_EQ(agent_cand_row_get(&t, "São  Paulo", 3, err), 2);
    CHECK_EQ(agent_cand_row_get(&t, "são paulo", 3, err), 2);
    agent_cand_fini(&t);
    CHECK_EQ(t.n_rows, 0);
}

static void limits(void)
{
    agent_cand_table t;
    agent_cand_init(&t);
    char err[BASE_ERRBUF_SIZE] = "", name[32];
    for (int i = 0; i < AGENT_CAND_MAX_ROWS; i++) {
        snprintf(name, sizeof name, "row %d", i);
        CHECK_EQ(agent_cand_row_get(&t, name, i, err), i);
    }
    CHECK_EQ(agent_cand_row_get(&t, "one too many", 0, err), -1);
    CHECK(strstr(err, "rows already"));
    CHECK_EQ(t.n_rows, AGENT_CAND_MAX_ROWS);
    CHECK_EQ(agent_cand_row_get(&t, "ROW 7", 0, err), 7); /* existing ones still found */
    for (int i = 0; i < AGENT_CAND_MAX_COLS; i++) {
        snprintf(name, sizeof name, "col %d", i);
        CHECK_EQ(agent_cand_column_get(&t, name, NULL, i & 1, err), i);
    }
    err[0] = '\0';
    CHECK_EQ(agent_cand_column_get(&t, "extra", NULL, 1, err), -1);
    CHECK(strstr(err, "columns already"));
    CHECK_EQ(t.n_cols, AGENT_CAND_MAX_COLS);
    /* Every row has every cell: set the last one of the last row. */
    CHECK_OK(agent_cand_set(&t, AGENT_CAND_MAX_ROWS - 1, AGENT_CAND_MAX_COLS - 1, AGENT_CAND_YES,
                            NULL, "seen", 3, err));
    CHECK_EQ(agent_cand_set(&t, AGENT_CAND_MAX_ROWS, 0, AGENT_CAND_YES, NULL, NULL, 3, err),
             BASE_EINVAL);
    CHECK_EQ(agent_cand_set(&t, 0, -1, AGENT_CAND_YES, NULL, NULL, 3, err), BASE_EINVAL);
    agent_cand_fini(&t);

    /* Text cuts: 2-byte characters after one ASCII byte cannot end at 240. */
    agent_cand_init(&t);
    char long_name[1024] = "a";
    for (int i = 0; i < 300; i++)
        memcpy(long_name + 1 + 2 * i, "\xC3\xA9", 3); /* é, and the NUL after it */
    int r = agent_cand_row_get(&t, long_name, 0, err);
    CHECK_EQ(r, 0);
    size_t n = strlen(t.rows[0].name);
    CHECK(n <= AGENT_CAND_TEXT_MAX);
    CHECK_EQ(n, 239);
    CHECK_EQ(base_utf8_check(t.rows[0].name, n), n);
    /* The same long name finds the same row (cut the same way). */
    CHECK_EQ(agent_cand_row_get(&t, long_name, 0, err), 0);
    /* Invalid bytes become U+FFFD; line breaks and runs of spaces fold. */
    CHECK_EQ(agent_cand_column_get(&t, "x", NULL, 0, err), 0);
    CHECK_OK(
        agent_cand_set(&t, 0, 0, AGENT_CAND_UNKNOWN, "a\xFF b\n\n  c", "line1\nline2", 1, err));
    CHECK_STR(t.rows[0].cells[0].text, "a\xEF\xBF\xBD b c");
    CHECK_STR(t.rows[0].cells[0].evidence, "line1 line2");
    CHECK_EQ(t.rows[0].cells[0].step, 1);
    /* A cell is replaced whole: no stale evidence. */
    CHECK_OK(agent_cand_set(&t, 0, 0, AGENT_CAND_UNKNOWN, "new", NULL, 2, err));
    CHECK(t.rows[0].cells[0].evidence == NULL);
    /* Long evidence is cut too. */
    char ev[2000];
    memset(ev, 'e', sizeof ev - 1);
    ev[sizeof ev - 1] = '\0';
    CHECK_OK(agent_cand_set(&t, 0, 0, AGENT_CAND_UNKNOWN, ev, ev, 2, err));
    CHECK_EQ(strlen(t.rows[0].cells[0].text), AGENT_CAND_TEXT_MAX);
    CHECK_EQ(strlen(t.rows[0].cells[0].evidence), AGENT_CAND_TEXT_MAX);
    /* Status and note. */
    CHECK_OK(agent_cand_status(&t, 0, AGENT_CAND_REJECTED, "too dear", err));
    CHECK_OK(agent_cand_status(&t, 0, AGENT_CAND_TO_EXPLORE, NULL, err));
    CHECK_STR(t.rows[0].note, "too dear");
    CHECK_EQ(t.rows[0].status, AGENT_CAND_TO_EXPLORE);
    CHECK_EQ(agent_cand_status(&t, 1, AGENT_CAND_REJECTED, NULL, err), BASE_EINVAL);
    CHECK_EQ(agent_cand_status(&t, 0, (agent_cand_row_status)7, NULL, err), BASE_EINVAL);
    agent_cand_fini(&t);
}

/* A table of constraint columns c0..c2 and rows built from strings of
 * y/n/u, one letter per column. */
static void build(agent_cand_table *t, const char *const *rows, int n)
{
    agent_cand_init(t);
    char name[16];
    for (int c = 0; c < 3; c++) {
        snprintf(name, sizeof name, "c%d", c);
        agent_cand_column_get(t, name, NULL, 1, NULL);
    }
    agent_cand_column_get(t, "price", NULL, 0, NULL);
    for (int r = 0; r < n; r++) {
        snprintf(name, sizeof name, "r%d", r);
        int i = agent_cand_row_get(t, name, 10 - r, NULL);
        for (int c = 0; c < 3; c++) {
            char v = rows[r][c];
            agent_cand_set(t, i, c,
                           v == 'y'   ? AGENT_CAND_YES
                           : v == 'n' ? AGENT_CAND_NO
                                      : AGENT_CAND_UNKNOWN,
                           NULL, NULL, 1, NULL);
        }
        /* An attribute holding "yes" never counts as a constraint. */
        agent_cand_set(t, i, 3, AGENT_CAND_YES, "yes", NULL, 1, NULL);
    }
}

static void ranking(void)
{
    agent_cand_table t;
    /* first_step is 10 - index: later rows were seen first. */
    static const char *const rows[] = {"yyn", "yuu", "uuu", "yyu", "nnn", "yuu"};
    build(&t, rows, 6);
    CHECK_EQ(agent_cand_row_yes(&t, 0), 2);
    CHECK_EQ(agent_cand_row_no(&t, 0), 1);
    CHECK_EQ(agent_cand_row_yes(&t, 3), 2);
    CHECK_EQ(agent_cand_row_no(&t, 4), 3);
    CHECK_EQ(agent_cand_row_yes(&t, 99), 0);
    int top[8];
    CHECK_EQ(agent_cand_top(&t, 8, top), 6);
    /* r3 (2 yes), then r5 and r1 (1 yes; r5 seen first), r2 (none), then
     * the rows with a "no": r0 (2 yes) before r4. */
    static const int want[] = {3, 5, 1, 2, 0, 4};
    for (int i = 0; i < 6; i++)
        CHECK_MSG(top[i] == want[i], "rank %d: row %d, want %d", i, top[i], want[i]);
    CHECK_EQ(agent_cand_top(&t, 2, top), 2);
    CHECK_EQ(top[0], 3);
    CHECK_EQ(top[1], 5);
    CHECK_EQ(agent_cand_top(&t, 0, top), 0);
    /* Rejected rows go last, and only fill what is left. */
    agent_cand_status(&t, 3, AGENT_CAND_REJECTED, "sold out", NULL);
    CHECK_EQ(agent_cand_top(&t, 8, top), 6);
    CHECK_EQ(top[0], 5);
    CHECK_EQ(top[5], 3);
    CHECK_EQ(agent_cand_top(&t, 3, top), 3);
    for (int i = 0; i < 3; i++)
        CHECK(top[i] != 3);
    agent_cand_fini(&t);

    /* Only rejected rows: they are still returned. */
    static const char *const two[] = {"yyy", "uuu"};
    build(&t, two, 2);
    agent_cand_status(&t, 0, AGENT_CAND_REJECTED, NULL, NULL);
    agent_cand_status(&t, 1, AGENT_CAND_REJECTED, NULL, NULL);
    CHECK_EQ(agent_cand_top(&t, 3, top), 2);
    CHECK_EQ(top[0], 0);
    agent_cand_fini(&t);
}

static cJSON *parse(const char *s)
{
    cJSON *j = cJSON_Parse(s);
    if (!j)
        fprintf(stderr, "bad test JSON: %s\n", s);
    return j;
}

static void apply(void)
{
    agent_cand_table t;
    agent_cand_init(&t);
    char err[BASE_ERRBUF_SIZE] = "";
    int skipped = -1;
    cJSON *u = parse(
        "{\"new_columns\": [ {\"name\": \"price\", \"description\": \"under $500\", "
        "\"constraint\": true}, {\"name\": \"Screen\", \"description\": \"80 inch\"}, {\"name\": "
        "\"brand\", \"constraint\": false}],\"rows\": [ {\"name\": \"Epson X1\", \"status\": "
        "\"candidate\", \"note\": \"first seen\",  \"cells\": [{\"column\": \"price\", \"value\": "
        "\"yes\", \"evidence\": \"$449\"},             {\"column\": \"screen\", \"value\": "
        "\"NO\"},             {\"column\": \"brand\", \"value\": \"Epson\"},             "
        "{\"column\": \"rating\", \"value\": 4.5},             {\"column\": \"in stock\", "
        "\"value\": true}]}, {\"name\": \"BenQ W2\", \"status\": \"To Explore\"}]}");
    CHECK(u);
    CHECK_OK(agent_cand_apply(&t, u, 4, &skipped, err));
    cJSON_Delete(u);
    CHECK_EQ(skipped, 0);
    CHECK_EQ(t.n_cols, 5);
    CHECK_EQ(t.cols[0].constraint, 1);
    CHECK_EQ(t.cols[1].constraint, 1); /* declared columns are constraints by default */
    CHECK_EQ(t.cols[2].constraint, 0);
    CHECK_STR(t.cols[3].name, "rating");
    CHECK_EQ(t.cols[3].constraint, 0); /* implied by a value: an attribute */
    CHECK_STR(t.cols[4].name, "in stock");
    CHECK_EQ(t.cols[4].constraint, 1); /* implied by yes/no: a constraint */
    CHECK_EQ(t.n_rows, 2);
    CHECK_EQ(t.rows[0].first_step, 4);
    CHECK_STR(t.rows[0].note, "first seen");
    CHECK_EQ(t.rows[0].cells[0].value, AGENT_CAND_YES);
    CHECK_STR(t.rows[0].cells[0].evidence, "$449");
    CHECK_EQ(t.rows[0].cells[0].step, 4);
    CHECK_EQ(t.rows[0].cells[1].value, AGENT_CAND_NO);
    CHECK_STR(t.rows[0].cells[2].text, "Epson");
    CHECK_STR(t.rows[0].cells[3].text, "4.5");
    CHECK_EQ(t.rows[0].cells[4].value, AGENT_CAND_YES);
    CHECK_EQ(t.rows[1].status, AGENT_CAND_TO_EXPLORE);
    CHECK_EQ(agent_cand_row_yes(&t, 0), 2);
    CHECK_EQ(agent_cand_row_no(&t, 0), 1);

    /* A later update merges into the same row and can change its status;
     * yes/no into an attribute column is kept as its text. */
    u = parse("{\"rows\": [{\"name\": \" epson  x1 \", \"status\": \"rejected\", \"cells\": "
              "[{\"column\": \"Screen\", \"value\": \"yes\", \"evidence\": \"100 in\"},            "
              "{\"column\": \"BRAND\", \"value\": \"no\"},            {\"column\": \"price\", "
              "\"value\": \"$449.99\"}]}]}");
    CHECK_OK(agent_cand_apply(&t, u, 9, &skipped, err));
    cJSON_Delete(u);
    CHECK_EQ(skipped, 0);
    CHECK_EQ(t.n_rows, 2);
    CHECK_EQ(t.rows[0].status, AGENT_CAND_REJECTED);
    CHECK_STR(t.rows[0].note, "first seen"); /* no note: kept */
    CHECK_EQ(t.rows[0].cells[1].value, AGENT_CAND_YES);
    CHECK_EQ(t.rows[0].cells[1].step, 9);
    CHECK_STR(t.rows[0].cells[2].text, "no");
    /* A text into a constraint column: the value becomes unknown. */
    CHECK_EQ(t.rows[0].cells[0].value, AGENT_CAND_UNKNOWN);
    CHECK_STR(t.rows[0].cells[0].text, "$449.99");

    /* Invalid parts: each skipped and counted, the valid rest applied. */
    u = parse(
        "{\"new_columns\": [3, {\"description\": \"no name\"}, {\"name\": \"ok col\", "
        "\"constraint\": \"yes\"}], \"rows\": [\"str\", {\"status\": \"candidate\"}, {\"name\": "
        "\"\"},  {\"name\": \"Optoma\", \"status\": \"maybe\", \"note\": 5,   \"cells\": [7, "
        "{\"value\": \"yes\"}, {\"column\": \"price\"},     {\"column\": \"price\", \"value\": "
        "{\"a\": 1}},     {\"column\": \"price\", \"value\": \"yes\", \"evidence\": [1]}]}]}");
    CHECK_OK(agent_cand_apply(&t, u, 11, &skipped, err));
    cJSON_Delete(u);
    /* columns: 3, no name, constraint not bool (column still added) = 3;
     * rows: "str", no name, empty name = 3; Optoma: bad status, note not a
     * string = 2; cells: 7, no column, no value, object value, evidence
     * not a string (cell still set) = 5. */
    CHECK_EQ(skipped, 13);
    CHECK_EQ(t.n_cols, 6);
    CHECK_STR(t.cols[5].name, "ok col");
    CHECK_EQ(t.n_rows, 3);
    CHECK_EQ(t.rows[2].status, AGENT_CAND_CANDIDATE);
    CHECK_EQ(t.rows[2].cells[0].value, AGENT_CAND_YES);
    CHECK(t.rows[2].cells[0].evidence == NULL);

    /* Not an object; members of the wrong type. */
    u = parse("[1]");
    CHECK_EQ(agent_cand_apply(&t, u, 1, &skipped, err), BASE_EINVAL);
    cJSON_Delete(u);
    CHECK_EQ(agent_cand_apply(&t, NULL, 1, NULL, err), BASE_EINVAL);
    u = parse("{\"rows\": {}, \"new_columns\": \"x\"}");
    CHECK_OK(agent_cand_apply(&t, u, 1, &skipped, err));
    cJSON_Delete(u);
    CHECK_EQ(skipped, 2);
    agent_cand_fini(&t);

    /* Limits through an update: rows past the limit are skipped. */
    agent_cand_init(&t);
    cJSON *big = cJSON_CreateObject();
    cJSON *rows = cJSON_AddArrayToObject(big, "rows");
    char name[32];
    for (int i = 0; i < AGENT_CAND_MAX_ROWS + 6; i++) {
        cJSON *r = cJSON_CreateObject();
        snprintf(name, sizeof name, "item %d", i);
        cJSON_AddStringToObject(r, "name", name);
        cJSON *cells = cJSON_AddArrayToObject(r, "cells");
        for (int c = 0; c < 30; c++) {
            cJSON *cell = cJSON_CreateObject();
            snprintf(name, sizeof name, "col %d", c);
            cJSON_AddStringToObject(cell, "column", name);
            cJSON_AddStringToObject(cell, "value", "yes");
            cJSON_AddItemToArray(cells, cell);
        }
        cJSON_AddItemToArray(rows, r);
    }
    CHECK_OK(agent_cand_apply(&t, big, 2, &skipped, err));
    cJSON_Delete(big);
    CHECK_EQ(t.n_rows, AGENT_CAND_MAX_ROWS);
    CHECK_EQ(t.n_cols, AGENT_CAND_MAX_COLS);
    CHECK_EQ(skipped, 6 + AGENT_CAND_MAX_ROWS * (30 - AGENT_CAND_MAX_COLS));
    CHECK_EQ(agent_cand_row_yes(&t, AGENT_CAND_MAX_ROWS - 1), AGENT_CAND_MAX_COLS);
    agent_cand_fini(&t);
}

static const char oom_update[] =
    "{\"new_columns\": [{\"name\": \"price\", \"description\": \"under $500\"}], \"rows\": "
    "[{\"name\": \"A\", \"note\": \"n\", \"cells\": [{\"column\": \"price\", \"value\": \"yes\", "
    "\"evidence\": \"$4\"}, {\"column\": \"brand\", \"value\": \"X\"}]}, {\"name\": \"B\", "
    "\"status\": \"rejected\"}]}";

static void apply_oom(void)
{
    cJSON *u = parse(oom_update);
    CHECK(u);
    agent_cand_table t;
    agent_cand_init(&t);
    base_alloc_fail_after(0);
    CHECK_OK(agent_cand_apply(&t, u, 1, NULL, NULL));
    unsigned long total = base_alloc_fail_after(0);
    agent_cand_fini(&t);
    CHECK(total > 5);
    int failures = 0;
    for (unsigned long k = 1; k <= total; k++) {
        agent_cand_init(&t);
        char err[BASE_ERRBUF_SIZE] = "";
        base_alloc_fail_after(k);
        base_err e = agent_cand_apply(&t, u, 1, NULL, err);
        base_alloc_fail_after(0);
        CHECK_MSG(e == BASE_OK || e == BASE_ENOMEM, "allocation %lu: error %d", k, (int)e);
        if (e == BASE_ENOMEM) {
            failures++;
            CHECK(strstr(err, "memory"));
        }
        /* Consistent either way: every row has its cells, renders work. */
        for (int r = 0; r < t.n_rows; r++)
            CHECK(t.rows[r].cells && t.rows[r].name);
        char *md = agent_cand_text(&t, 0);
        base_free(md);
        agent_cand_fini(&t);
    }
    CHECK_EQ(failures, (int)total);
    cJSON_Delete(u);
}

static void text(void)
{
    agent_cand_table t;
    agent_cand_init(&t);
    char *md = agent_cand_text(&t, 3);
    CHECK_STR(md, "");
    base_free(md);
    cJSON *u = parse(
        "{\"new_columns\": [{\"name\": \"price\", \"description\": \"under $500\"}, {\"name\": "
        "\"size\", \"description\": \"80 inch or more\"}], \"rows\": [{\"name\": \"Alpha | Pro\", "
        "\"note\": \"a|b\", \"cells\": [   {\"column\": \"price\", \"value\": \"no\", "
        "\"evidence\": \"$649\"}]},  {\"name\": \"Beta\", \"cells\": [{\"column\": \"price\", "
        "\"value\": \"yes\"},   {\"column\": \"size\", \"value\": \"yes\", \"evidence\": \""
        "A very long quote from the product page that goes on and on about the screen size and "
        "everything else\"}, {\"column\": \"rating\", \"value\": \"4.7\"}]},  {\"name\": "
        "\"Gamma\"}]}");
    CHECK_OK(agent_cand_apply(&t, u, 2, NULL, NULL));
    cJSON_Delete(u);
    md = agent_cand_text(&t, 2);
    CHECK(md);
    printf("%s", md);
    CHECK(strstr(md, "Constraints:\n- price: under $500\n- size: 80 inch or more\n"));
    CHECK(strstr(md, "Attributes:\n- rating\n"));
    CHECK(strstr(md, "| # | candidate | status | yes | no | price | size | rating | note |"));
    /* Beta (2 yes) first, Gamma second; Alpha (a "no") cut by k = 2. */
    const char *beta = strstr(md, "| 1 | Beta | candidate | 2 | 0 | yes | yes (\"A very long");
    CHECK(beta);
    CHECK(strstr(beta, "\xE2\x80\xA6\") | 4.7 |")); /* evidence cut with an ellipsis */
    CHECK(strstr(md, "| 2 | Gamma | candidate | 0 | 0 | unknown | unknown | ? |"));
    CHECK(!strstr(md, "Alpha"));
    base_free(md);
    md = agent_cand_text(&t, 0);
    CHECK(strstr(md, "| 3 | Alpha \\| Pro | candidate | 0 | 1 | no (\"$649\") |"));
    CHECK(strstr(md, "| a\\|b |\n"));
    base_free(md);
    agent_cand_fini(&t);
}

static void json(void)
{
    agent_cand_table t;
    agent_cand_init(&t);
    cJSON *u = parse("{\"new_columns\": [{\"name\": \"price\", \"description\": \"under $500\"}], "
                     "\"rows\": [{\"name\": \"A\", \"status\": \"rejected\", \"note\": \"dear\", "
                     "\"cells\": [{\"column\": \"price\", \"value\": \"no\", \"evidence\": "
                     "\"$9\"}, {\"column\": \"brand\", \"value\": \"Acme\"}]}]}");
    CHECK_OK(agent_cand_apply(&t, u, 6, NULL, NULL));
    cJSON_Delete(u);
    cJSON *j = agent_cand_json(&t);
    CHECK(j);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    CHECK(s);
    CHECK_STR(
        s,
        "{\"columns\":[{\"name\":\"price\",\"description\":\"under "
        "$500\",\"constraint\":true},{\"name\":\"brand\",\"description\":null,\"constraint\":false}"
        "],\"rows\":[{\"name\":\"A\",\"status\":\"rejected\",\"note\":\"dear\",\"yes\":0,\"no\":1,"
        "\"first_step\":6,\"cells\":[{\"value\":\"no\",\"text\":null,\"evidence\":\"$9\",\"step\":"
        "6},{\"value\":\"unknown\",\"text\":\"Acme\",\"evidence\":null,\"step\":6}]}]}");
    cJSON_free(s);
    agent_cand_fini(&t);
    j = agent_cand_json(&t);
    s = cJSON_PrintUnformatted(j);
    CHECK_STR(s, "{\"columns\":[],\"rows\":[]}");
    cJSON_free(s);
    cJSON_Delete(j);
}

/* Constraint-heavy finding tasks: the table is worth keeping. */
static const char *const heavy[] = {
    "Find a projector under $500 with an 80-inch screen and at least 4 stars",
    "Which laptop under 1,000 euros has the longest battery life and weighs less than 1.5 kg?",
    "Pick a hotel in Lisbon for 2 nights that has free parking and a rating of 8 or higher",
    "Recommend the cheapest flight from Boston to Denver on May 3",
    "Find a 3-bedroom apartment in Porto under \xE2\x82\xAC" "1200 a month with a balcony",
    "Compare the headphones on the site and list the ones rated 4.5 or above with free shipping",
    "Search for a used car with fewer than 60000 miles, priced below $15,000",
    "I need a restaurant near the station that is open on Sunday and has vegan options",
    "Look for the lightest tent that sleeps 4 people",
    "Book a table for 4 people on Friday at a place rated 4+ stars",
    "What is the best-reviewed 27 inch monitor with a 144 Hz refresh rate?",
    "Choose a phone with at least 128 GB of storage and 5G support",
    "Find a non-stop flight to Lisbon under $400",
    "Book a pet-friendly hotel in Porto for 2 nights",
    "Find a vegan brownie recipe rated 4 stars or more",
    NULL};

/* Plain procedures and single lookups: no table. */
static const char *const plain[] = {
    "Log in as alice and open the settings page",
    "Add the blue mug to the cart and check out",
    "Go to the contact page and send a message saying hello",
    "Download the invoice for order 12345",
    "Open the second result and read its title",
    "Fill in the shipping form with my address and submit it",
    "Sign up for the newsletter with the email test@example.com",
    "Search for 'wireless mouse' and open the first result",
    "Find the contact email on the about page",
    "Find a laptop under $500",
    "Find my latest order and open its invoice",
    "Click the menu button under Settings and turn on dark mode",
    "Log in and set the price filter to under $50 and the rating to 4 stars",
    "Find a non-stop flight",
    "",
    NULL};

static void wants(void)
{
    for (int i = 0; heavy[i]; i++)
        CHECK_MSG(agent_cand_task_wants(heavy[i]) == 1, "wants a table: %s", heavy[i]);
    for (int i = 0; plain[i]; i++)
        CHECK_MSG(agent_cand_task_wants(plain[i]) == 0, "wants no table: %s", plain[i]);
    CHECK_EQ(agent_cand_task_wants(NULL), 0);
    /* A huge task is read in bounded time and memory (tokens capped). */
    char *huge = base_malloc(1u << 20);
    CHECK(huge);
    for (size_t i = 0; i + 1 < (1u << 20); i++)
        huge[i] = (char)("find with 5 gb "[i % 15]);
    huge[(1u << 20) - 1] = '\0';
    CHECK_EQ(agent_cand_task_wants(huge), 1);
    base_free(huge);
}

static const check_case cases[] = {{"mode", mode},       {"names", names}, {"limits", limits},
                                   {"ranking", ranking}, {"apply", apply}, {"apply_oom", apply_oom},
                                   {"text", text},       {"json", json},   {"wants", wants},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
