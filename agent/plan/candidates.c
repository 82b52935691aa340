/* agent/plan/candidates.c: the candidate x constraint table (agent/plan/candidates.h).
 *
 * Everything the model writes into the table passes through one text
 * cleaner (clean_dup): invalid UTF-8 becomes U+FFFD, spaces fold to one,
 * invisible characters vanish, and the result is cut at AGENT_CAND_TEXT_MAX
 * bytes on a character boundary. So the table's strings are always short,
 * one line and valid UTF-8, whatever the model sent, and the markdown and
 * JSON renderers need no second pass beyond escaping '|'.
 *
 * Rows keep room for AGENT_CAND_MAX_COLS cells from their creation: a column
 * added later then never has to grow every row (a half-grown table after a
 * failed allocation would break the one-cell-per-column promise of the
 * header), at a cost of a few KiB for a full table.
 *
 * Names match through name_eq, which skips spaces, underscores and invisible
 * characters and compares ASCII letters without case: models write the same
 * column as "screen size", "Screen_Size" and " screen  size ".
 *
 * agent_cand_task_wants is a word-level heuristic, documented at the
 * function: it must be cheap, deterministic and explainable, since it runs
 * before any model call and decides whether the run pays for the table.
 */
#define _POSIX_C_SOURCE 200809L

#include "agent/plan/candidates.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/text.h"
#include "base/utf8.h"

const char *agent_cand_mode_name(agent_cand_mode m)
{
    switch (m) {
    case AGENT_CAND_AUTO:
        return "auto";
    case AGENT_CAND_ON:
        return "on";
    case AGENT_CAND_OFF:
        return "off";
    }
    return "?";
}

base_err agent_cand_mode_parse(const char *text, agent_cand_mode *out, char *err)
{
    static const agent_cand_mode modes[] = {AGENT_CAND_AUTO, AGENT_CAND_ON, AGENT_CAND_OFF};
    for (size_t i = 0; text && i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(text, agent_cand_mode_name(modes[i])) == 0) {
            *out = modes[i];
            return BASE_OK;
        }
    }
    return base_errf(err, BASE_EINVAL, "--candidates must be auto, on or off (not '%.40s')",
                     text ? text : "");
}

/* ---- text --------------------------------------------------------------- */

/* A cleaned copy of s (see the file comment), or NULL for NULL / a text
 * that cleans to nothing. *oom is set when an allocation failed. Invalid
 * UTF-8 is replaced first, so the page kit's normalisation (base_text_norm:
 * spaces folded, invisible characters dropped, the cut on a character
 * boundary) only ever sees valid characters. */
static char *clean_dup(const char *s, int *oom)
{
    if (!s)
        return NULL;
    size_t len = strlen(s);
    char *valid = base_malloc(BASE_UTF8_REPAIR_CAP(len));
    if (!valid) {
        *oom = 1;
        return NULL;
    }
    base_utf8_repair(s, len, valid, BASE_UTF8_REPAIR_CAP(len));
    char buf[AGENT_CAND_TEXT_MAX + 1];
    size_t n = base_text_norm(valid, buf, sizeof buf, 0);
    base_free(valid);
    if (n == 0)
        return NULL;
    char *d = base_strndup(buf, n);
    if (!d)
        *oom = 1;
    return d;
}

/* The next character of a name that counts for matching: spaces,
 * underscores and invisible characters skipped, ASCII letters lower-cased.
 * Returns the byte (or 0 at the end) and advances *p past it. */
static int name_next(const char **p)
{
    for (;;) {
        const unsigned char *s = (const unsigned char *)*p;
        if (!*s)
            return 0;
        if (*s == '_') {
            (*p)++;
            continue;
        }
        if (*s >= 0x80 || isspace(*s)) {
            size_t len = 0;
            base_text_class k = base_text_char_class(*p, &len);
            if (k != BASE_TEXT_OTHER) {
                *p += len;
                continue;
            }
        }
        (*p)++;
        return (*s < 0x80) ? tolower(*s) : *s;
    }
}

static int name_eq(const char *a, const char *b)
{
    for (;;) {
        int x = name_next(&a), y = name_next(&b);
        if (x != y)
            return 0;
        if (x == 0)
            return 1;
    }
}

/* ---- the table ---------------------------------------------------------- */

void agent_cand_init(agent_cand_table *t)
{
    memset(t, 0, sizeof *t);
}

static void cell_fini(agent_cand_cell *c)
{
    base_free(c->text);
    base_free(c->evidence);
}

void agent_cand_fini(agent_cand_table *t)
{
    if (!t)
        return;
    for (int r = 0; r < t->n_rows; r++) {
        agent_cand_row *row = &t->rows[r];
        for (int c = 0; c < t->n_cols; c++)
            cell_fini(&row->cells[c]);
        base_free(row->cells);
        base_free(row->name);
        base_free(row->note);
    }
    for (int c = 0; c < t->n_cols; c++) {
        base_free(t->cols[c].name);
        base_free(t->cols[c].description);
    }
    base_free(t->rows);
    base_free(t->cols);
    agent_cand_init(t);
}

/* agent_cand_column_get with the error's code (the update tells a limit,
 * which skips a part, from a failed allocation, which stops it). */
static base_err column_get(agent_cand_table *t, const char *name, const char *description,
                           int constraint, int *idx, char *err)
{
    int oom = 0;
    char *n = clean_dup(name, &oom);
    if (!n) {
        if (oom)
            return base_errf(err, BASE_ENOMEM, "out of memory adding a column");
        return base_errf(err, BASE_EINVAL, "a column needs a name");
    }
    for (int c = 0; c < t->n_cols; c++) {
        if (!name_eq(t->cols[c].name, n))
            continue;
        base_free(n);
        if (!t->cols[c].description && description) {
            t->cols[c].description = clean_dup(description, &oom);
            if (oom)
                return base_errf(err, BASE_ENOMEM, "out of memory describing a column");
        }
        *idx = c;
        return BASE_OK;
    }
    if (t->n_cols >= AGENT_CAND_MAX_COLS) {
        base_err r =
            base_errf(err, BASE_ETOOBIG, "the table has its %d columns already: '%.40s' not added",
                      AGENT_CAND_MAX_COLS, n);
        base_free(n);
        return r;
    }
    char *d = clean_dup(description, &oom);
    agent_cand_column *cols =
        oom ? NULL : base_realloc(t->cols, (size_t)(t->n_cols + 1) * sizeof *cols);
    if (!cols) {
        base_free(n);
        base_free(d);
        return base_errf(err, BASE_ENOMEM, "out of memory adding a column");
    }
    t->cols = cols;
    agent_cand_column *col = &cols[t->n_cols];
    col->name = n;
    col->description = d;
    col->constraint = constraint ? 1 : 0;
    /* Rows hold AGENT_CAND_MAX_COLS cells already (see the file comment). */
    for (int r = 0; r < t->n_rows; r++) {
        agent_cand_cell *cell = &t->rows[r].cells[t->n_cols];
        memset(cell, 0, sizeof *cell);
        cell->step = -1;
    }
    *idx = t->n_cols++;
    return BASE_OK;
}

int agent_cand_column_get(agent_cand_table *t, const char *name, const char *description,
                          int constraint, char *err)
{
    int idx = -1;
    if (!t) {
        base_errf(err, BASE_EINVAL, "no table");
        return -1;
    }
    return column_get(t, name, description, constraint, &idx, err) == BASE_OK ? idx : -1;
}

/* agent_cand_row_get with the error's code. */
static base_err row_get(agent_cand_table *t, const char *name, int step, int *idx, char *err)
{
    int oom = 0;
    char *n = clean_dup(name, &oom);
    if (!n) {
        if (oom)
            return base_errf(err, BASE_ENOMEM, "out of memory adding a row");
        return base_errf(err, BASE_EINVAL, "a candidate needs a name");
    }
    for (int r = 0; r < t->n_rows; r++) {
        if (name_eq(t->rows[r].name, n)) {
            base_free(n);
            *idx = r;
            return BASE_OK;
        }
    }
    if (t->n_rows >= AGENT_CAND_MAX_ROWS) {
        base_err e =
            base_errf(err, BASE_ETOOBIG, "the table has its %d rows already: '%.40s' not added",
                      AGENT_CAND_MAX_ROWS, n);
        base_free(n);
        return e;
    }
    agent_cand_cell *cells = base_calloc(AGENT_CAND_MAX_COLS, sizeof *cells);
    agent_cand_row *rows =
        cells ? base_realloc(t->rows, (size_t)(t->n_rows + 1) * sizeof *rows) : NULL;
    if (!rows) {
        base_free(cells);
        base_free(n);
        return base_errf(err, BASE_ENOMEM, "out of memory adding a row");
    }
    t->rows = rows;
    for (int c = 0; c < AGENT_CAND_MAX_COLS; c++)
        cells[c].step = -1;
    agent_cand_row *row = &rows[t->n_rows];
    memset(row, 0, sizeof *row);
    row->name = n;
    row->status = AGENT_CAND_CANDIDATE;
    row->cells = cells;
    row->first_step = step;
    *idx = t->n_rows++;
    return BASE_OK;
}

int agent_cand_row_get(agent_cand_table *t, const char *name, int step, char *err)
{
    int idx = -1;
    if (!t) {
        base_errf(err, BASE_EINVAL, "no table");
        return -1;
    }
    return row_get(t, name, step, &idx, err) == BASE_OK ? idx : -1;
}

base_err agent_cand_set(agent_cand_table *t, int row, int col, agent_cand_value value,
                        const char *text, const char *evidence, int step, char *err)
{
    if (row < 0 || row >= t->n_rows || col < 0 || col >= t->n_cols)
        return base_errf(err, BASE_EINVAL, "no cell at row %d, column %d", row, col);
    if (value != AGENT_CAND_YES && value != AGENT_CAND_NO)
        value = AGENT_CAND_UNKNOWN;
    int oom = 0;
    char *tx = clean_dup(text, &oom);
    char *ev = oom ? NULL : clean_dup(evidence, &oom);
    if (oom) {
        base_free(tx);
        return base_errf(err, BASE_ENOMEM, "out of memory setting a cell");
    }
    /* A cell is replaced whole: evidence for the old value would mislead. */
    agent_cand_cell *c = &t->rows[row].cells[col];
    cell_fini(c);
    c->value = value;
    c->text = tx;
    c->evidence = ev;
    c->step = step;
    return BASE_OK;
}

base_err agent_cand_status(agent_cand_table *t, int row, agent_cand_row_status status,
                           const char *note, char *err)
{
    if (row < 0 || row >= t->n_rows)
        return base_errf(err, BASE_EINVAL, "no row %d", row);
    if (status != AGENT_CAND_CANDIDATE && status != AGENT_CAND_TO_EXPLORE &&
        status != AGENT_CAND_REJECTED)
        return base_errf(err, BASE_EINVAL, "bad row status %d", (int)status);
    if (note) {
        int oom = 0;
        char *n = clean_dup(note, &oom);
        if (oom)
            return base_errf(err, BASE_ENOMEM, "out of memory setting a note");
        base_free(t->rows[row].note);
        t->rows[row].note = n;
    }
    t->rows[row].status = status;
    return BASE_OK;
}

/* Only constraint columns count: an attribute that happens to hold "yes"
 * (a feature written as a value) says nothing about the task's
 * constraints. */
static int row_count(const agent_cand_table *t, int row, agent_cand_value v)
{
    if (row < 0 || row >= t->n_rows)
        return 0;
    int n = 0;
    for (int c = 0; c < t->n_cols; c++)
        if (t->cols[c].constraint && t->rows[row].cells[c].value == v)
            n++;
    return n;
}

int agent_cand_row_yes(const agent_cand_table *t, int row)
{
    return row_count(t, row, AGENT_CAND_YES);
}

int agent_cand_row_no(const agent_cand_table *t, int row)
{
    return row_count(t, row, AGENT_CAND_NO);
}

/* 1 when row a ranks before row b (see the header's ranking). */
static int ranks_before(const agent_cand_table *t, int a, int b)
{
    /* The model ruled rejected rows out: last, whatever they satisfy. */
    int ra = t->rows[a].status == AGENT_CAND_REJECTED;
    int rb = t->rows[b].status == AGENT_CAND_REJECTED;
    if (ra != rb)
        return rb;
    /* A known failure outweighs any number of successes: a row failing a
     * constraint cannot be the answer, one with unknowns still can. */
    int na = agent_cand_row_no(t, a), nb = agent_cand_row_no(t, b);
    if ((na > 0) != (nb > 0))
        return nb > 0;
    int ya = agent_cand_row_yes(t, a), yb = agent_cand_row_yes(t, b);
    if (ya != yb)
        return ya > yb;
    if (na != nb)
        return na < nb;
    /* Then first seen, and creation order: stable, so the rows the model
     * sees do not shuffle between calls when nothing changed. */
    if (t->rows[a].first_step != t->rows[b].first_step)
        return t->rows[a].first_step < t->rows[b].first_step;
    return a < b;
}

int agent_cand_top(const agent_cand_table *t, int k, int *out)
{
    if (!t || k <= 0 || !out)
        return 0;
    /* Selection by insertion into out: k and the row count are small. */
    int n = 0;
    for (int r = 0; r < t->n_rows; r++) {
        /* out stays sorted: find r's place; below the k-th it is dropped,
         * else the tail shifts (losing the k-th when out is full). */
        int pos = n;
        while (pos > 0 && ranks_before(t, r, out[pos - 1]))
            pos--;
        if (pos >= k)
            continue;
        int last = n < k ? n : k - 1;
        for (int i = last; i > pos; i--)
            out[i] = out[i - 1];
        out[pos] = r;
        if (n < k)
            n++;
    }
    return n;
}

/* ---- the model's update ------------------------------------------------- */

static const char *const status_names[] = {"candidate", "to_explore", "rejected"};

/* Statuses match like names: "To Explore" is to_explore. */
static int status_parse(const char *s, agent_cand_row_status *out)
{
    for (int i = 0; i < 3; i++) {
        if (name_eq(s, status_names[i])) {
            *out = (agent_cand_row_status)i;
            return 1;
        }
    }
    return 0;
}

/* "yes"/"no"/"unknown" (any case, spaces) or a boolean: 1 and *v set; else
 * 0 (a value text). */
static int value_parse(const cJSON *j, agent_cand_value *v)
{
    if (cJSON_IsBool(j)) {
        *v = cJSON_IsTrue(j) ? AGENT_CAND_YES : AGENT_CAND_NO;
        return 1;
    }
    if (!cJSON_IsString(j))
        return 0;
    static const struct {
        const char *word;
        agent_cand_value v;
    } words[] = {{"yes", AGENT_CAND_YES}, {"no", AGENT_CAND_NO}, {"unknown", AGENT_CAND_UNKNOWN}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (name_eq(j->valuestring, words[i].word)) {
            *v = words[i].v;
            return 1;
        }
    }
    return 0;
}

/* An optional string member: its text, NULL when absent; a member of
 * another type counts one skipped part. */
static const char *opt_str(const cJSON *o, const char *key, int *skipped)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!j || cJSON_IsNull(j))
        return NULL;
    if (!cJSON_IsString(j)) {
        (*skipped)++;
        return NULL;
    }
    return j->valuestring;
}

/* An optional array member; NULL when absent, counted when not an array. */
static const cJSON *opt_array(const cJSON *o, const char *key, int *skipped)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!j || cJSON_IsNull(j))
        return NULL;
    if (!cJSON_IsArray(j)) {
        (*skipped)++;
        return NULL;
    }
    return j;
}

/* A failed table call: ENOMEM stops the update (1), anything else (a
 * limit, an empty name) skips the part (0, counted). */
static int stop_on(base_err e, int *skipped)
{
    if (e == BASE_ENOMEM)
        return 1;
    (*skipped)++;
    return 0;
}

static base_err apply_cell(agent_cand_table *t, int row, const cJSON *cell, int step, int *skipped,
                           char *err)
{
    if (!cJSON_IsObject(cell)) {
        (*skipped)++;
        return BASE_OK;
    }
    const char *column = opt_str(cell, "column", skipped);
    const cJSON *vj = cJSON_GetObjectItemCaseSensitive(cell, "value");
    agent_cand_value v = AGENT_CAND_UNKNOWN;
    int is_value = value_parse(vj, &v);
    char num[64];
    const char *text = NULL;
    if (!is_value) {
        if (cJSON_IsString(vj)) {
            text = vj->valuestring;
        } else if (cJSON_IsNumber(vj)) {
            /* %.15g keeps integers exact and reals readable ("4.5"). */
            snprintf(num, sizeof num, "%.15g", vj->valuedouble);
            text = num;
        } else if (vj && !cJSON_IsNull(vj)) {
            (*skipped)++; /* an object or array is no cell value */
            return BASE_OK;
        }
    }
    if (!column || (!is_value && !text)) {
        (*skipped)++;
        return BASE_OK;
    }
    char e[BASE_ERRBUF_SIZE] = "";
    /* A new column is a constraint when the model judged it yes/no. */
    int col = -1;
    base_err r = column_get(t, column, NULL, is_value && v != AGENT_CAND_UNKNOWN, &col, e);
    if (r != BASE_OK) {
        if (stop_on(r, skipped))
            return base_errf(err, BASE_ENOMEM, "%s", e);
        return BASE_OK;
    }
    if (is_value && !t->cols[col].constraint)
        text = v == AGENT_CAND_YES ? "yes" : v == AGENT_CAND_NO ? "no" : NULL;
    if (!is_value)
        v = AGENT_CAND_UNKNOWN;
    const char *evidence = opt_str(cell, "evidence", skipped);
    if (agent_cand_set(t, row, col, v, text, evidence, step, e) != BASE_OK)
        return base_errf(err, BASE_ENOMEM, "%s", e);
    return BASE_OK;
}

static base_err apply_row(agent_cand_table *t, const cJSON *rj, int step, int *skipped, char *err)
{
    if (!cJSON_IsObject(rj)) {
        (*skipped)++;
        return BASE_OK;
    }
    const char *name = opt_str(rj, "name", skipped);
    char e[BASE_ERRBUF_SIZE] = "";
    if (!name) {
        (*skipped)++;
        return BASE_OK;
    }
    int row = -1;
    base_err r = row_get(t, name, step, &row, e);
    if (r != BASE_OK) {
        if (stop_on(r, skipped))
            return base_errf(err, BASE_ENOMEM, "%s", e);
        return BASE_OK;
    }
    agent_cand_row_status st = t->rows[row].status;
    const char *status = opt_str(rj, "status", skipped);
    if (status && !status_parse(status, &st))
        (*skipped)++; /* the status alone is dropped, the cells still count */
    const char *note = opt_str(rj, "note", skipped);
    if (agent_cand_status(t, row, st, note, e) != BASE_OK)
        return base_errf(err, BASE_ENOMEM, "%s", e);
    const cJSON *cells = opt_array(rj, "cells", skipped);
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cells)
    {
        r = apply_cell(t, row, c, step, skipped, err);
        if (r != BASE_OK)
            return r;
    }
    return BASE_OK;
}

base_err agent_cand_apply(agent_cand_table *t, const cJSON *u, int step, int *skipped, char *err)
{
    int local = 0;
    int *sk = skipped ? skipped : &local;
    *sk = 0;
    if (!t || !cJSON_IsObject(u))
        return base_errf(err, BASE_EINVAL, "a table update must be a JSON object");
    char e[BASE_ERRBUF_SIZE] = "";
    const cJSON *cols = opt_array(u, "new_columns", sk);
    const cJSON *cj = NULL;
    cJSON_ArrayForEach(cj, cols)
    {
        if (!cJSON_IsObject(cj)) {
            (*sk)++;
            continue;
        }
        const char *name = opt_str(cj, "name", sk);
        const char *desc = opt_str(cj, "description", sk);
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(cj, "constraint");
        if (kind && !cJSON_IsBool(kind)) {
            (*sk)++;
            kind = NULL;
        }
        /* Columns the model declares are constraints unless it says not. */
        int constraint = kind ? cJSON_IsTrue(kind) : 1;
        if (!name) {
            (*sk)++;
            continue;
        }
        int idx = -1;
        base_err r = column_get(t, name, desc, constraint, &idx, e);
        if (r != BASE_OK && stop_on(r, sk))
            return base_errf(err, BASE_ENOMEM, "%s", e);
    }
    const cJSON *rows = opt_array(u, "rows", sk);
    const cJSON *rj = NULL;
    cJSON_ArrayForEach(rj, rows)
    {
        base_err r = apply_row(t, rj, step, sk, err);
        if (r != BASE_OK)
            return r;
    }
    return BASE_OK;
}

/* ---- rendering ---------------------------------------------------------- */

/* Appends s with '|' escaped (a markdown cell), cut after max bytes on a
 * character boundary with an ellipsis. */
static base_err md_cell(base_buf *b, const char *s, size_t max)
{
    size_t n = strlen(s), i = 0;
    while (i < n) {
        size_t len = base_utf8_seq_len(s + i, n - i);
        if (len == 0)
            len = 1;
        if (i + len > max)
            return base_buf_append_str(b, "\xE2\x80\xA6");
        base_err r = s[i] == '|' ? base_buf_append_str(b, "\\|") : base_buf_append(b, s + i, len);
        if (r != BASE_OK)
            return r;
        i += len;
    }
    return BASE_OK;
}

static const char *value_name(agent_cand_value v)
{
    return v == AGENT_CAND_YES ? "yes" : v == AGENT_CAND_NO ? "no" : "unknown";
}

/* Evidence quoted in a prompt is cut shorter than stored: the model needs
 * its gist, the table's JSON keeps it whole. */
#define MD_EVIDENCE_MAX 80

/* The table for a prompt: what each column means once above it (not in
 * every cell), then one line per row with its yes/no counts up front so
 * the model needs not count cells to compare rows. */
static base_err md_table(base_buf *b, const agent_cand_table *t, const int *rows, int n)
{
    base_err r = BASE_OK;
    int any_c = 0, any_a = 0;
    for (int c = 0; c < t->n_cols; c++) {
        if (t->cols[c].constraint)
            any_c = 1;
        else
            any_a = 1;
    }
    for (int pass = 0; pass < 2 && r == BASE_OK; pass++) {
        int want = pass == 0;
        if (!(want ? any_c : any_a))
            continue;
        r = base_buf_append_str(b, want ? "Constraints:\n" : "Attributes:\n");
        for (int c = 0; c < t->n_cols && r == BASE_OK; c++) {
            if (t->cols[c].constraint != want)
                continue;
            r = base_buf_printf(b, "- %s%s%s\n", t->cols[c].name,
                                t->cols[c].description ? ": " : "",
                                t->cols[c].description ? t->cols[c].description : "");
        }
    }
    if (r == BASE_OK && (any_c || any_a))
        r = base_buf_append_str(b, "\n");
    if (r == BASE_OK)
        r = base_buf_append_str(b, "| # | candidate | status | yes | no |");
    for (int c = 0; c < t->n_cols && r == BASE_OK; c++) {
        r = base_buf_append_str(b, " ");
        if (r == BASE_OK)
            r = md_cell(b, t->cols[c].name, AGENT_CAND_TEXT_MAX);
        if (r == BASE_OK)
            r = base_buf_append_str(b, " |");
    }
    if (r == BASE_OK)
        r = base_buf_append_str(b, " note |\n|---|---|---|---|---|");
    for (int c = 0; c < t->n_cols && r == BASE_OK; c++)
        r = base_buf_append_str(b, "---|");
    if (r == BASE_OK)
        r = base_buf_append_str(b, "---|\n");
    for (int i = 0; i < n && r == BASE_OK; i++) {
        const agent_cand_row *row = &t->rows[rows[i]];
        r = base_buf_printf(b, "| %d | ", i + 1);
        if (r == BASE_OK)
            r = md_cell(b, row->name, AGENT_CAND_TEXT_MAX);
        if (r == BASE_OK)
            r = base_buf_printf(b, " | %s | %d | %d |", status_names[row->status],
                                agent_cand_row_yes(t, rows[i]), agent_cand_row_no(t, rows[i]));
        for (int c = 0; c < t->n_cols && r == BASE_OK; c++) {
            const agent_cand_cell *cell = &row->cells[c];
            r = base_buf_append_str(b, " ");
            if (r == BASE_OK && t->cols[c].constraint)
                r = base_buf_append_str(b, value_name(cell->value));
            if (r == BASE_OK && cell->text) {
                if (t->cols[c].constraint)
                    r = base_buf_append_str(b, " ");
                if (r == BASE_OK)
                    r = md_cell(b, cell->text, AGENT_CAND_TEXT_MAX);
            } else if (r == BASE_OK && !t->cols[c].constraint) {
                r = base_buf_append_str(b, "?");
            }
            if (r == BASE_OK && cell->evidence) {
                r = base_buf_append_str(b, " (\"");
                if (r == BASE_OK)
                    r = md_cell(b, cell->evidence, MD_EVIDENCE_MAX);
                if (r == BASE_OK)
                    r = base_buf_append_str(b, "\")");
            }
            if (r == BASE_OK)
                r = base_buf_append_str(b, " |");
        }
        if (r == BASE_OK)
            r = base_buf_append_str(b, " ");
        if (r == BASE_OK && row->note)
            r = md_cell(b, row->note, AGENT_CAND_TEXT_MAX);
        if (r == BASE_OK)
            r = base_buf_append_str(b, " |\n");
    }
    return r;
}

char *agent_cand_text(const agent_cand_table *t, int k)
{
    base_buf b;
    /* The largest table: 64 rows x 24 cells of a few hundred bytes. */
    base_buf_init(&b, 4u << 20);
    if (!t || t->n_rows == 0)
        return base_strdup("");
    int n = k > 0 ? (k < t->n_rows ? k : t->n_rows) : t->n_rows;
    int *rows = base_malloc((size_t)n * sizeof *rows);
    if (!rows)
        return NULL;
    n = agent_cand_top(t, n, rows);
    base_err r = md_table(&b, t, rows, n);
    base_free(rows);
    if (r != BASE_OK) {
        base_buf_fini(&b);
        return NULL;
    }
    return base_buf_steal(&b, NULL);
}

/* null, not "", for an absent text: the report tells "never seen" from an
 * empty value. */
static int add_str_or_null(cJSON *o, const char *key, const char *s)
{
    return (s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key)) != NULL;
}

cJSON *agent_cand_json(const agent_cand_table *t)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *cols = root ? cJSON_AddArrayToObject(root, "columns") : NULL;
    cJSON *rows = cols ? cJSON_AddArrayToObject(root, "rows") : NULL;
    if (!rows)
        goto fail;
    for (int c = 0; t && c < t->n_cols; c++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(cols, o)) {
            cJSON_Delete(o);
            goto fail;
        }
        if (!cJSON_AddStringToObject(o, "name", t->cols[c].name) ||
            !add_str_or_null(o, "description", t->cols[c].description) ||
            !cJSON_AddBoolToObject(o, "constraint", t->cols[c].constraint))
            goto fail;
    }
    for (int r = 0; t && r < t->n_rows; r++) {
        const agent_cand_row *row = &t->rows[r];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(rows, o)) {
            cJSON_Delete(o);
            goto fail;
        }
        cJSON *cells = NULL;
        if (!cJSON_AddStringToObject(o, "name", row->name) ||
            !cJSON_AddStringToObject(o, "status", status_names[row->status]) ||
            !add_str_or_null(o, "note", row->note) ||
            !cJSON_AddNumberToObject(o, "yes", agent_cand_row_yes(t, r)) ||
            !cJSON_AddNumberToObject(o, "no", agent_cand_row_no(t, r)) ||
            !cJSON_AddNumberToObject(o, "first_step", row->first_step) ||
            !(cells = cJSON_AddArrayToObject(o, "cells")))
            goto fail;
        for (int c = 0; c < t->n_cols; c++) {
            const agent_cand_cell *cell = &row->cells[c];
            cJSON *co = cJSON_CreateObject();
            if (!co || !cJSON_AddItemToArray(cells, co)) {
                cJSON_Delete(co);
                goto fail;
            }
            if (!cJSON_AddStringToObject(co, "value", value_name(cell->value)) ||
                !add_str_or_null(co, "text", cell->text) ||
                !add_str_or_null(co, "evidence", cell->evidence) ||
                !cJSON_AddNumberToObject(co, "step", cell->step))
                goto fail;
        }
    }
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* ---- the auto decision -------------------------------------------------- */

/* agent_cand_task_wants reads the task as lower-case word tokens (numbers
 * with their inner ',' and '.', and the symbols $ € £ + % as tokens of
 * their own) and asks two things:
 *   - does it ask to find or pick something (find, search, which, choose,
 *     compare, recommend, book, buy...)?
 *   - how many separate constraint clauses does it state? A clause is a
 *     run of adjacent tokens that hit one of: a money amount, a bound on a
 *     number ("under 500", "at least 4", "4+", "or more"), a number with a
 *     unit ("80 inch", "16 GB", "2 nights"), a rating word, a required
 *     feature ("with", "that has", "must", "including"), a superlative
 *     ("cheapest", "longest"), a date ("May 3", "Friday"), a qualifier
 *     ("non-stop", "gluten-free", "vegan": tw_qualifier). Punctuation
 *     between two hits always separates clauses.
 * Two clauses and an intent to find or pick: the table pays for itself.
 * "under $500" is one clause (adjacent hits merge), so a single price limit
 * alone does not turn the table on. */

#define TW_MAX_TOKENS 256
#define TW_TOKEN_MAX 24

typedef struct tw_tokens {
    char tok[TW_MAX_TOKENS][TW_TOKEN_MAX];
    unsigned char brk[TW_MAX_TOKENS]; /* punctuation (, ; : ( ...) before the token */
    int n;
} tw_tokens;

/* Numbers keep their inner ',' and '.' ("1,000", "1.5" are one token);
 * currency signs become tokens (the euro sign as "eur", the pound sign as "$": any
 * currency marks money); other punctuation separates tokens and marks a clause
 * break. Tokens are capped in number and length, so a huge task costs a
 * bounded time. */
static void tw_split(const char *s, tw_tokens *t)
{
    t->n = 0;
    const unsigned char *p = (const unsigned char *)s;
    int brk = 0;
    while (*p && t->n < TW_MAX_TOKENS) {
        char *out = t->tok[t->n];
        size_t len = 0;
        t->brk[t->n] = (unsigned char)brk;
        if (isalnum(*p)) {
            int digits = isdigit(*p) != 0;
            /* A hyphen between letters stays inside the word: "non-stop",
             * "gluten-free" are one qualifier (tw_qualifier). */
            while (*p && (isalnum(*p) || (digits && (*p == ',' || *p == '.') && isdigit(p[1])) ||
                          (!digits && *p == '-' && isalpha(p[1]) && len > 0))) {
                if (len + 1 < TW_TOKEN_MAX)
                    out[len++] = (char)tolower(*p);
                p++;
            }
        } else if (*p == '$' || *p == '+' || *p == '%') {
            out[len++] = (char)*p++;
        } else if (p[0] == 0xE2 && p[1] == 0x82 && p[2] == 0xAC) { /* € */
            memcpy(out, "eur", 3);
            len = 3;
            p += 3;
        } else if (p[0] == 0xC2 && p[1] == 0xA3) { /* £ */
            out[len++] = '$';                      /* a currency sign like any other */
            p += 2;
        } else {
            if (strchr(",;:()[]!?/", *p) || (*p == '.' && !isdigit(p[1])))
                brk = 1;
            p++;
            continue;
        }
        brk = 0;
        out[len] = '\0';
        t->n++;
    }
}

static int tw_in(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(w, *list) == 0)
            return 1;
    return 0;
}

static int tw_is_num(const char *w)
{
    return isdigit((unsigned char)w[0]) != 0;
}

/* A number token, possibly with a unit glued on ("16gb", "7pm"): the
 * digits lead. */
static int tw_num_then_unit(const char *w)
{
    if (!tw_is_num(w))
        return 0;
    while (isdigit((unsigned char)*w) || *w == '.' || *w == ',')
        w++;
    return *w != '\0';
}

static const char *const tw_intent[] = {
    "find",     "search",  "look",      "looking", "which", "what",     "choose",
    "pick",     "select",  "recommend", "compare", "list",  "identify", "shortlist",
    "locate",   "suggest", "buy",       "book",    "order", "rent",     "reserve",
    "purchase", "get",     "need",      "want",    NULL};
static const char *const tw_currency[] = {"$",      "eur", "euro",   "euros", "usd", "dollars",
                                          "dollar", "gbp", "pounds", "bucks", NULL};
static const char *const tw_money_words[] = {"price",      "prices",      "priced",    "cost",
                                             "costs",      "costing",     "budget",    "cheap",
                                             "affordable", "inexpensive", "expensive", NULL};
static const char *const tw_bound_before[] = {"under",   "below", "over", "above", "within",
                                              "beneath", "max",   "min",  NULL};
static const char *const tw_bound_two[][2] = {
    {"less", "than"},   {"fewer", "than"}, {"more", "than"}, {"at", "least"},
    {"at", "most"},     {"up", "to"},      {"no", "more"},   {"greater", "than"},
    {"higher", "than"}, {"lower", "than"}};
static const char *const tw_bound_after[] = {"more",    "less",  "higher", "lower", "better",
                                             "above",   "below", "newer",  "older", "fewer",
                                             "greater", "plus",  NULL};
static const char *const tw_rating[] = {"star",   "stars",   "rating",   "ratings", "rated",
                                        "review", "reviews", "reviewed", "score",   NULL};
static const char *const tw_feature[] = {
    "with",     "without", "must",       "including", "includes", "include", "featuring",
    "supports", "support", "compatible", "maximum",   "minimum",  "between", NULL};
static const char *const tw_feature_two[][2] = {
    {"that", "has"}, {"that", "have"}, {"which", "has"},   {"which", "have"}, {"that", "is"},
    {"that", "are"}, {"that", "can"},  {"that", "offers"}, {"that", "offer"}};
static const char *const tw_super[] = {
    "cheapest", "lowest",  "highest", "best",     "newest",   "latest",   "oldest",   "closest",
    "nearest",  "largest", "biggest", "smallest", "fastest",  "lightest", "heaviest", "longest",
    "shortest", "most",    "least",   "fewest",   "greatest", "earliest", "quietest", NULL};
static const char *const tw_units[] = {
    "inch",   "inches",   "in",      "gb",     "tb",    "mb",      "mp",    "ghz",   "hz",
    "km",     "kg",       "g",       "lb",     "lbs",   "mi",      "miles", "mile",  "hours",
    "hour",   "h",        "minutes", "mins",   "min",   "nights",  "night", "days",  "day",
    "weeks",  "bedrooms", "bedroom", "bed",    "beds",  "rooms",   "room",  "seats", "seater",
    "people", "persons",  "guests",  "adults", "years", "year",    "yr",    "mah",   "w",
    "watts",  "mm",       "cm",      "m",      "ml",    "l",       "oz",    "fps",   "core",
    "cores",  "sq",       "ft",      "pm",     "am",    "percent", "%",     "k",     "x",
    "stops",  "stop",     "pages",   "pieces", "pack",  NULL};
static const char *const tw_months[] = {
    "january", "february", "march",    "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "jan",   "feb", "mar",  "apr",  "jun",    "jul",
    "aug",     "sep",      "sept",     "oct",   "nov", "dec",  NULL};
static const char *const tw_days[] = {"monday",  "tuesday",  "wednesday", "thursday",
                                      "friday",  "saturday", "sunday",    "weekend",
                                      "tonight", "tomorrow", NULL};

static int tw_two(const tw_tokens *t, int i, const char *const (*list)[2], size_t n)
{
    if (i + 1 >= t->n)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (strcmp(t->tok[i], list[k][0]) == 0 && strcmp(t->tok[i + 1], list[k][1]) == 0)
            return 1;
    return 0;
}

/* A number among tokens [from, to). */
static int tw_num_near(const tw_tokens *t, int from, int to)
{
    for (int i = from < 0 ? 0 : from; i < to && i < t->n; i++)
        if (tw_is_num(t->tok[i]))
            return 1;
    return 0;
}

/* Qualifiers that are a constraint on their own ("a non-stop flight", "a
 * vegan recipe"): a hyphenated word that negates or limits ("non-stop",
 * "all-inclusive", "gluten-free", "pet-friendly", "water-resistant"), or one
 * of a few adjectives that shops and booking sites filter by. */
static const char *const tw_qual_words[] = {
    "nonstop",    "direct",      "refundable", "vegan",     "vegetarian", "organic", "wireless",
    "waterproof", "unlocked",    "refurbished", "handmade", "kosher",     "halal",   NULL};
static const char *const tw_qual_first[] = {"non",  "no",   "all",  "anti",
                                            "self", "full", "dual", "multi", NULL};
static const char *const tw_qual_last[] = {
    "free",       "friendly",  "proof",     "resistant", "inclusive", "included",
    "cancelling", "canceling", "certified", "only",      NULL};

static int tw_qualifier(const char *w)
{
    if (tw_in(w, tw_qual_words))
        return 1;
    const char *dash = strchr(w, '-');
    if (!dash)
        return 0;
    char first[TW_TOKEN_MAX];
    size_t n = (size_t)(dash - w);
    memcpy(first, w, n);
    first[n] = '\0';
    const char *last = strrchr(w, '-') + 1;
    return tw_in(first, tw_qual_first) || tw_in(last, tw_qual_last);
}

/* The span [*a, *b] of a constraint hit starting at token i, or 0. */
static int tw_hit(const tw_tokens *t, int i, int *a, int *b)
{
    const char *w = t->tok[i];
    const char *next = i + 1 < t->n ? t->tok[i + 1] : "";
    *a = *b = i;
    /* Money: "$ 500", "500 euros"; a number with a unit: "80 inch". */
    if (tw_in(w, tw_currency) && strcmp(w, "$") == 0 && tw_is_num(next)) {
        *b = i + 1;
        return 1;
    }
    if (tw_is_num(w) && (tw_in(next, tw_currency) || tw_in(next, tw_units))) {
        *b = i + 1;
        return 1;
    }
    /* Single words: "16gb", price words, ratings, required features,
     * superlatives. */
    if (tw_num_then_unit(w) || tw_in(w, tw_money_words) || tw_in(w, tw_rating) ||
        tw_in(w, tw_feature) || tw_in(w, tw_super) || tw_qualifier(w))
        return 1;
    /* Bounds count only next to a number: "under 500" is a constraint,
     * "the link under Settings" is not. */
    if (tw_in(w, tw_bound_before) && tw_num_near(t, i + 1, i + 4)) {
        *b = i + 1;
        return 1;
    }
    if (tw_two(t, i, tw_bound_two, sizeof tw_bound_two / sizeof tw_bound_two[0]) &&
        tw_num_near(t, i + 2, i + 5)) {
        *b = i + 2;
        return 1;
    }
    /* "4 or more", "8 or better", "4+" */
    if (strcmp(w, "or") == 0 && tw_in(next, tw_bound_after) && tw_num_near(t, i - 2, i)) {
        *b = i + 1;
        return 1;
    }
    if (strcmp(w, "+") == 0 && i > 0 && tw_is_num(t->tok[i - 1])) {
        *a = i - 1;
        return 1;
    }
    if (tw_two(t, i, tw_feature_two, sizeof tw_feature_two / sizeof tw_feature_two[0])) {
        *b = i + 1;
        return 1;
    }
    /* Dates: a month next to a number ("may" alone is a verb); days. */
    if (tw_in(w, tw_months) && (tw_is_num(next) || (i > 0 && tw_is_num(t->tok[i - 1])))) {
        *b = i + 1;
        return 1;
    }
    return tw_in(w, tw_days);
}

int agent_cand_task_wants(const char *task)
{
    if (!task)
        return 0;
    tw_tokens *t = base_malloc(sizeof *t);
    if (!t)
        return 0; /* without memory the run is in trouble anyway: no table */
    tw_split(task, t);
    int intent = 0, clauses = 0, end = -2;
    for (int i = 0; i < t->n; i++) {
        if (tw_in(t->tok[i], tw_intent))
            intent = 1;
        int a = 0, b = 0;
        if (!tw_hit(t, i, &a, &b))
            continue;
        int split = 0;
        for (int k = end + 1; k <= a && k >= 0 && !split; k++)
            split = t->brk[k];
        if (a > end + 1 || split)
            clauses++; /* apart from the previous hit, or punctuation between */
        if (b > end)
            end = b;
    }
    base_free(t);
    return intent && clauses >= 2;
}
