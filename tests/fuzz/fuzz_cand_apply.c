/* tests/fuzz/fuzz_cand_apply.c: a model's candidate-table update
 * (agent_cand_apply, agent/plan/candidates.h) on arbitrary bytes. The input is
 * parsed as JSON and applied twice, the second time onto the table the
 * first made (a model repeating itself must merge, not grow the table).
 * Whatever the update says, the table keeps its promises: within its row
 * and column limits, every name non-empty, unique by the matching rule and
 * found again by row_get / column_get, every text at most
 * AGENT_CAND_TEXT_MAX bytes of valid UTF-8 on one line, every cell's step
 * one of the two applied, agent_cand_top a ranking of distinct rows, and
 * the markdown and JSON renderings built. Input capped at 256 KiB. */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan/candidates.h"
#include "base/alloc.h"
#include "base/utf8.h"

static void check_text(const char *s, int may_be_null)
{
    if (!s) {
        if (!may_be_null)
            abort();
        return;
    }
    size_t n = strlen(s);
    if (n == 0 || n > AGENT_CAND_TEXT_MAX || base_utf8_check(s, n) != n || strchr(s, '\n'))
        abort();
}

static void check_table(agent_cand_table *t)
{
    if (t->n_rows < 0 || t->n_rows > AGENT_CAND_MAX_ROWS || t->n_cols < 0 ||
        t->n_cols > AGENT_CAND_MAX_COLS)
        abort();
    for (int c = 0; c < t->n_cols; c++) {
        check_text(t->cols[c].name, 0);
        check_text(t->cols[c].description, 1);
        if (agent_cand_column_get(t, t->cols[c].name, NULL, 0, NULL) != c)
            abort(); /* two columns with one name, or a name that does not match
                        itself */
    }
    for (int r = 0; r < t->n_rows; r++) {
        const agent_cand_row *row = &t->rows[r];
        check_text(row->name, 0);
        check_text(row->note, 1);
        if (row->status != AGENT_CAND_CANDIDATE && row->status != AGENT_CAND_TO_EXPLORE &&
            row->status != AGENT_CAND_REJECTED)
            abort();
        if (agent_cand_row_get(t, row->name, 0, NULL) != r)
            abort();
        for (int c = 0; c < t->n_cols; c++) {
            const agent_cand_cell *cell = &row->cells[c];
            check_text(cell->text, 1);
            check_text(cell->evidence, 1);
            if (cell->step != -1 && cell->step != 1 && cell->step != 2)
                abort();
        }
        if (agent_cand_row_yes(t, r) + agent_cand_row_no(t, r) > t->n_cols)
            abort();
    }
    int top[AGENT_CAND_MAX_ROWS];
    int n = agent_cand_top(t, AGENT_CAND_MAX_ROWS, top);
    if (n != t->n_rows)
        abort();
    unsigned char seen[AGENT_CAND_MAX_ROWS] = {0};
    for (int i = 0; i < n; i++) {
        if (top[i] < 0 || top[i] >= t->n_rows || seen[top[i]]++)
            abort();
        /* A row with a "no" never ranks above one without. */
        if (i > 0 && agent_cand_row_no(t, top[i - 1]) > 0 && agent_cand_row_no(t, top[i]) == 0 &&
            (t->rows[top[i - 1]].status == AGENT_CAND_REJECTED) ==
                (t->rows[top[i]].status == AGENT_CAND_REJECTED))
            abort();
    }
    base_free(agent_cand_text(t, AGENT_CAND_TOP_K));
    base_free(agent_cand_text(t, 0));
    cJSON_Delete(agent_cand_json(t));
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    cJSON *u = cJSON_ParseWithLength((const char *)d, n);
    agent_cand_table t;
    agent_cand_init(&t);
    int skipped = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_cand_apply(&t, u, 1, &skipped, err);
    if (e != BASE_OK && (cJSON_IsObject(u) || e != BASE_EINVAL || !err[0]))
        abort(); /* only a non-object is refused, with a message */
    if (e == BASE_OK) {
        check_table(&t);
        int rows = t.n_rows, cols = t.n_cols;
        if (agent_cand_apply(&t, u, 2, &skipped, err) != BASE_OK)
            abort();
        if (t.n_rows != rows || t.n_cols != cols)
            abort(); /* the same update again adds nothing */
        check_table(&t);
    }
    agent_cand_fini(&t);
    cJSON_Delete(u);
    return 0;
}
