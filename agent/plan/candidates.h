/* agent/plan/candidates.h: the candidate x constraint table (seed 001 §3.4,
 * Figure 12) — structured memory for information-seeking tasks ("a
 * projector under $500 with an 80-inch screen, 4+ stars").
 *
 * Rows are candidate entities met while browsing; columns are the task's
 * constraints (extracted from the task at the start) and attributes worth
 * keeping (price, rating...). The schema grows: a column named by a later
 * update is added then. A cell is yes / no / unknown (constraint columns)
 * or a value (attribute columns), with its evidence (a short quote) and the
 * step that saw it. A row's status is candidate, to_explore or rejected,
 * with a note. Rows rank by constraints satisfied (yes), then fewest
 * failed (no), then first seen; a row with a "no" on any constraint never
 * ranks above one without. The top K go to node expansion and repair.
 *
 * Names of rows and columns match case- and space-insensitively, so "Lisbon"
 * and " lisbon " are one row. Limits keep a runaway model from growing the
 * table without end: AGENT_CAND_MAX_ROWS, AGENT_CAND_MAX_COLS, and texts
 * are cut at AGENT_CAND_TEXT_MAX bytes (on a UTF-8 boundary).
 *
 * Pure data: no I/O, no model. A table belongs to one thread: every function
 * that takes one runs there (the names, the parsers and agent_cand_task_wants
 * touch no table and run on any thread). The table is the caller's struct
 * (agent_cand_init / agent_cand_fini) and owns every string in it; functions
 * that take text copy it. Failures are a base_err (or -1) with err saying why.
 */
#ifndef FOVEA_AGENT_PLAN_CANDIDATES_H
#define FOVEA_AGENT_PLAN_CANDIDATES_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

#define AGENT_CAND_MAX_ROWS 64
#define AGENT_CAND_MAX_COLS 24
#define AGENT_CAND_TEXT_MAX 240
#define AGENT_CAND_TOP_K 3

/* --candidates: when the table is kept. */
typedef enum agent_cand_mode {
    AGENT_CAND_AUTO = 0, /* kept when the task reads as constraint-heavy (agent_cand_task_wants) */
    AGENT_CAND_ON,
    AGENT_CAND_OFF
} agent_cand_mode;

/* "auto", "on", "off". A static string. Pure; any thread. */
const char *agent_cand_mode_name(agent_cand_mode m);
/* Parses "auto" | "on" | "off". Errors: BASE_EINVAL. Pure. */
base_err agent_cand_mode_parse(const char *text, agent_cand_mode *out, char *err);

/* The `auto` decision from the task's words alone (no model call): 1 when the
 * task asks to find or pick items against two or more constraints (prices and
 * limits, ratings, "at least"/"under"/"with", comparatives, lists of required
 * features), 0 for a plain procedure ("log in and open settings"). Pure. */
int agent_cand_task_wants(const char *task);

typedef enum agent_cand_value {
    AGENT_CAND_UNKNOWN = 0,
    AGENT_CAND_YES,
    AGENT_CAND_NO
} agent_cand_value;

typedef enum agent_cand_row_status {
    AGENT_CAND_CANDIDATE = 0,
    AGENT_CAND_TO_EXPLORE,
    AGENT_CAND_REJECTED
} agent_cand_row_status;

typedef struct agent_cand_cell {
    agent_cand_value value;  /* constraint columns */
    char *text;              /* attribute columns: the value; NULL when not set */
    char *evidence;          /* a short quote from the page, or NULL */
    int step;                /* the step that set it, -1 when never */
} agent_cand_cell;

typedef struct agent_cand_column {
    char *name;
    char *description;       /* what satisfies it ("price under $500"), may be NULL */
    int constraint;          /* 1: a constraint (yes/no/unknown); 0: an attribute */
} agent_cand_column;

typedef struct agent_cand_row {
    char *name;
    agent_cand_row_status status;
    char *note;              /* may be NULL */
    agent_cand_cell *cells;  /* one per column */
    int first_step;
} agent_cand_row;

typedef struct agent_cand_table {
    agent_cand_column *cols;
    int n_cols;
    agent_cand_row *rows;
    int n_rows;
} agent_cand_table;

/* An empty table in t (the caller's). Cannot fail. */
void agent_cand_init(agent_cand_table *t);
/* Frees everything the table holds and leaves t empty. NULL: no-op. */
void agent_cand_fini(agent_cand_table *t);

/* The column with this name, added when new (description copied; an existing
 * column keeps its kind and gets the description when it had none). Returns
 * its index, or -1 with err set: BASE_EINVAL (empty name), BASE_ETOOBIG
 * (AGENT_CAND_MAX_COLS reached), BASE_ENOMEM. */
int agent_cand_column_get(agent_cand_table *t, const char *name, const char *description,
                          int constraint, char *err);
/* The row with this name, added (status candidate) when new. Returns its
 * index or -1 (err: EINVAL, ETOOBIG, ENOMEM). */
int agent_cand_row_get(agent_cand_table *t, const char *name, int step, char *err);
/* Sets one cell (texts copied; value for a constraint column, text for an
 * attribute). Errors: BASE_EINVAL (indices), BASE_ENOMEM. */
base_err agent_cand_set(agent_cand_table *t, int row, int col, agent_cand_value value,
                        const char *text, const char *evidence, int step, char *err);
/* A row's status and note (note copied; NULL keeps the old one). Errors:
 * BASE_EINVAL, BASE_ENOMEM. */
base_err agent_cand_status(agent_cand_table *t, int row, agent_cand_row_status status,
                           const char *note, char *err);

/* Constraints a row satisfies (yes) and fails (no); 0 for a row out of
 * range. Pure. */
int agent_cand_row_yes(const agent_cand_table *t, int row);
int agent_cand_row_no(const agent_cand_table *t, int row);
/* The indices of the best k rows (see the file comment) into out (k entries);
 * rejected rows come after every other row, so they take a place only when
 * fewer than k other rows exist (the model then sees what not to revisit).
 * Returns how many were written. Pure. */
int agent_cand_top(const agent_cand_table *t, int k, int *out);

/* Applies a model's table update: {"new_columns": [{"name", "description",
 * "constraint": bool}], "rows": [{"name", "status":
 * "candidate"|"to_explore"|"rejected", "note", "cells": [{"column", "value":
 * "yes"|"no"|"unknown"|TEXT, "evidence"}]}]}. A cell naming an unknown column
 * adds it (an attribute unless its value is yes/no). Invalid parts (a row
 * without a name, a bad status, a cell that is not an object) are skipped and
 * counted in *skipped (may be NULL); limits are enforced as in the functions
 * above. u borrowed. Errors: BASE_EINVAL (u not an object), BASE_ENOMEM. */
base_err agent_cand_apply(agent_cand_table *t, const cJSON *u, int step, int *skipped, char *err);

/* The table as a markdown table for a prompt (the top k rows when k > 0, else
 * all), with the columns' descriptions above it; "" when the table has no
 * rows. The caller's (base_free); NULL on allocation failure. Pure. */
char *agent_cand_text(const agent_cand_table *t, int k);
/* {"columns": [{"name", "description", "constraint"}], "rows": [{"name",
 * "status", "note", "yes", "no", "first_step", "cells": [{"value", "text",
 * "evidence", "step"}]}]} for the report and andor.json. The caller's
 * (cJSON_Delete); NULL on allocation failure. */
cJSON *agent_cand_json(const agent_cand_table *t);

#endif
