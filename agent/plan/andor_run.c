/* agent/plan/andor_run.c: the runner of `fovea run "TASK" --planner andor`
 * (agent/plan/andor_run.h part 2) — steps the AND/OR tree with the model-backed
 * operators, applies a person's edits between steps, and leaves the plan
 * where a person can watch it (OUT/andor.json, rewritten atomically after
 * every step) and where the report finds it (trace.jsonl). */
#include "agent/plan/andor_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/plan/answer.h"
#include "agent/session/secrets.h"
#include "agent/session/session.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/interrupt.h"

#define INTERVENE_LINE_MAX 8192 /* one edit line; a longer one is refused whole */
/* Reads per look between two steps (64 KiB): a writer that never pauses
 * (a chatty pipe on stdin, a file growing without end) must not keep the
 * run from its next step; what is left is read at the next look. */
#define INTERVENE_READS_MAX 16

const char *agent_andor_opkind_name(agent_andor_opkind k)
{
    static const char *const n[] = {"expand",    "repair",      "update", "complete",
                                    "summarize", "constraints", "answer"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

void agent_andor_run_opts_init(agent_andor_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_steps = AGENT_GOAL_MAX_STEPS;
    agent_andor_config_init(&o->tree);
    o->candidates = AGENT_CAND_AUTO;
}

typedef struct andor_run {
    fovea_session *s;
    const agent_andor_run_opts *o;
    agent_andor_run_result *res;
    FILE *out;
    agent_andor_tree *t;
    agent_andor_opctx *ops;
    int iter;              /* the step in progress (its event's iter), -1 before the first */
    long step_tokens;      /* tokens of this step's operator calls */
    /* --intervene */
    int ifd;               /* -1 = none */
    int is_stdin, eof;
    off_t ioff;            /* the file: bytes consumed so far */
    char *ibuf;            /* a partial line waiting for its newline */
    size_t ilen;
    int ioverlong;         /* dropping the rest of an overlong line */
    /* Every line read, so that a file rewritten in place (an editor saving
     * it, `>` instead of `>>`) and read again from its start applies only
     * its new lines: an edit already applied is never applied twice. */
    char **iseen;
    int n_iseen, cap_iseen;
    int irewound;          /* lines read before the file last shrank */
    char json_err[BASE_ERRBUF_SIZE]; /* the last andor.json write failure (said once) */
} andor_run;

/* Writes a trace line (scrubbed) when the run has a trace. */
static void trace_line(andor_run *g, cJSON *j)
{
    if (!j)
        return;
    if (!fovea_session_trace(g->s)) {
        cJSON_Delete(j);
        return;
    }
    /* Fail-closed: whatever it returns, no secret is left in j. */
    agent_secrets_scrub_json(fovea_session_secrets(g->s), j);
    agent_trace_line(fovea_session_trace(g->s), j, NULL);
}

/* ---- OUT/andor.json -------------------------------------------------------- */

/* {"tree", "candidates", "progress", "notes"}: what a person watching the
 * run, and the report of a run that did not end, read. */
static cJSON *state_json(andor_run *g)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON *tree = agent_andor_tree_json(g->t);
    if (!tree || !cJSON_AddItemToObject(j, "tree", tree)) {
        cJSON_Delete(tree);
        cJSON_Delete(j);
        return NULL;
    }
    const agent_cand_table *ct = g->ops ? agent_andor_ops_table(g->ops) : NULL;
    cJSON *cj = ct ? agent_cand_json(ct) : cJSON_CreateNull();
    if (!cj || !cJSON_AddItemToObject(j, "candidates", cj)) {
        cJSON_Delete(cj);
        cJSON_Delete(j);
        return NULL;
    }
    const char *pr = g->ops ? agent_andor_ops_progress(g->ops) : "";
    const char *no = g->ops ? agent_andor_ops_notes(g->ops) : "";
    if (!cJSON_AddStringToObject(j, "progress", pr ? pr : "") ||
        !cJSON_AddStringToObject(j, "notes", no ? no : "")) {
        cJSON_Delete(j);
        return NULL;
    }
    agent_secrets_scrub_json(fovea_session_secrets(g->s), j);
    return j;
}

/* Rewrites OUT/andor.json (atomically: a reader sees the old plan or the
 * new one). A failure is said once and the run goes on: the file is for
 * watching, the trace keeps the record. */
static void write_state(andor_run *g)
{
    if (!g->o->out_dir)
        return;
    cJSON *j = state_json(g);
    char *text = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    char path[1200], err[BASE_ERRBUF_SIZE] = "out of memory formatting andor.json";
    snprintf(path, sizeof path, "%s/andor.json", g->o->out_dir);
    base_err e = text ? base_write_file(path, (const uint8_t *)text, strlen(text), err)
                      : BASE_ENOMEM;
    cJSON_free(text);
    if (e == BASE_EIO)
        base_out_lost(path, err);
    if (e && strcmp(err, g->json_err) != 0) {
        agent_progressf(g->out, "andor: warn: %s\n", err);
        snprintf(g->json_err, sizeof g->json_err, "%s", err);
    }
}

/* ---- operator and tool callbacks ------------------------------------------ */

static void on_call(void *user, const agent_andor_call *c)
{
    andor_run *g = user;
    agent_andor_run_result *res = g->res;
    if ((unsigned)c->kind < AGENT_ANDOR_OPK_COUNT)
        res->calls[c->kind]++;
    res->model_calls += c->attempts;
    res->usage.prompt += c->usage.prompt;
    res->usage.completion += c->usage.completion;
    res->usage.cached += c->usage.cached;
    res->estimate += c->estimate;
    res->model_ms += c->ms;
    g->step_tokens += c->usage.prompt + c->usage.completion;
    char why[300] = "";
    if (!c->ok && c->why)
        agent_secrets_scrub_copy(fovea_session_secrets(g->s), why, sizeof why, c->why);
    agent_progressf(g->out, "  op %s %s tokens in=%ld out=%ld cached=%ld est=%ld attempts=%d %.0f ms %s%s\n",
              agent_andor_opkind_name(c->kind), c->node_id && c->node_id[0] ? c->node_id : "-",
              c->usage.prompt, c->usage.completion, c->usage.cached, c->estimate, c->attempts,
              c->ms, c->ok ? "ok" : "FAILED: ", why);
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return;
    cJSON_AddStringToObject(j, "type", "andor_op");
    cJSON_AddNumberToObject(j, "iter", g->iter);
    cJSON_AddStringToObject(j, "op", agent_andor_opkind_name(c->kind));
    cJSON_AddStringToObject(j, "node", c->node_id ? c->node_id : "");
    cJSON_AddStringToObject(j, "model", c->model ? c->model : "");
    cJSON_AddNumberToObject(j, "prompt_tokens", (double)c->usage.prompt);
    cJSON_AddNumberToObject(j, "completion_tokens", (double)c->usage.completion);
    cJSON_AddNumberToObject(j, "cached_tokens", (double)c->usage.cached);
    cJSON_AddNumberToObject(j, "estimate", (double)c->estimate);
    cJSON_AddNumberToObject(j, "attempts", c->attempts);
    cJSON_AddNumberToObject(j, "ms", c->ms);
    cJSON_AddBoolToObject(j, "ok", c->ok);
    if (!c->ok)
        cJSON_AddStringToObject(j, "why", why);
    trace_line(g, j);
}

static void on_tool(void *user, const tool_result *r)
{
    andor_run *g = user;
    g->res->tool_ms += r->rec.total_ms;
    char msg[300];
    agent_secrets_scrub_copy(fovea_session_secrets(g->s), msg, sizeof msg, r->message);
    agent_progressf(g->out, "  tool %s %s%s%s\n", r->rec.action[0] ? r->rec.action : "?",
              r->success ? "ok" : tool_reason_name(r->reason), msg[0] ? ": " : "", msg);
}

/* ---- --intervene ----------------------------------------------------------- */

static base_err intervene_open(andor_run *g, const char *spec, char *err)
{
    g->ifd = -1;
    if (!spec)
        return BASE_OK;
    if (!spec[0])
        return base_errf(err, BASE_EINVAL, "--intervene: empty path (a file, or - for stdin)");
    if (strcmp(spec, "-") == 0) {
        /* Standard input is read only when poll says it has data, never
         * set non-blocking: it may be the terminal of the shell that
         * started us, which would keep the flag if we died. */
        if (fcntl(STDIN_FILENO, F_GETFL) < 0)
            return base_errf(err, BASE_EINVAL, "--intervene -: standard input: %s",
                             strerror(errno));
        g->ifd = STDIN_FILENO;
        g->is_stdin = 1;
    } else {
        /* The file may not exist yet: it is created empty so a person can
         * append to it (`>>`) while the task runs; what it holds already is
         * read first. O_NONBLOCK: a FIFO would block the open until a
         * writer came (it is then refused as not a regular file). */
        int fd = open(spec, O_RDONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
        struct stat st;
        if (fd < 0)
            return base_errf(err, BASE_EINVAL, "--intervene %s: %s", spec, strerror(errno));
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            return base_errf(err, BASE_EINVAL, "--intervene %s: not a regular file", spec);
        }
        g->ifd = fd;
    }
    g->ibuf = base_malloc(INTERVENE_LINE_MAX + 1);
    if (!g->ibuf) {
        if (!g->is_stdin)
            close(g->ifd);
        g->ifd = -1;
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    return BASE_OK;
}

static void intervene_close(andor_run *g)
{
    if (g->ifd >= 0 && !g->is_stdin)
        close(g->ifd);
    g->ifd = -1;
    base_free(g->ibuf);
    g->ibuf = NULL;
    for (int i = 0; i < g->n_iseen; i++)
        base_free(g->iseen[i]);
    base_free(g->iseen);
    g->iseen = NULL;
    g->n_iseen = g->cap_iseen = 0;
}

/* 1 when line was read before the file was last rewritten (it is not
 * applied again); otherwise records it and returns 0. A line that cannot
 * be recorded for want of memory is refused (-1): applying it could not
 * be kept from happening twice. */
static int intervene_seen(andor_run *g, const char *line)
{
    /* Standard input is never read twice: nothing to remember (a pipe that
     * never stops would otherwise grow the list without end). */
    if (g->is_stdin)
        return 0;
    for (int i = 0; i < g->irewound; i++)
        if (strcmp(g->iseen[i], line) == 0)
            return 1;
    if (g->n_iseen == g->cap_iseen) {
        int cap = g->cap_iseen ? 2 * g->cap_iseen : 16;
        char **v = base_realloc(g->iseen, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        g->iseen = v;
        g->cap_iseen = cap;
    }
    char *d = base_strdup(line);
    if (!d)
        return -1;
    g->iseen[g->n_iseen++] = d;
    return 0;
}

/* Applies one edit line; returns 1 when the tree changed. */
static int intervene_apply(andor_run *g, const char *line)
{
    char err[BASE_ERRBUF_SIZE] = "";
    const char *op = "";
    int node = -1;
    base_err e = BASE_OK;
    cJSON *j = cJSON_Parse(line);
    if (!cJSON_IsObject(j)) {
        e = base_errf(err, BASE_EINVAL, "not a JSON object");
    } else {
        const cJSON *jo = cJSON_GetObjectItemCaseSensitive(j, "op");
        const cJSON *desc = cJSON_GetObjectItemCaseSensitive(j, "description");
        const cJSON *jn = cJSON_GetObjectItemCaseSensitive(j, "node");
        const cJSON *jp = cJSON_GetObjectItemCaseSensitive(j, "parent");
        const cJSON *pos = cJSON_GetObjectItemCaseSensitive(j, "position");
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(j, "score");
        op = cJSON_IsString(jo) ? jo->valuestring : "";
        const char *d = cJSON_IsString(desc) ? desc->valuestring : NULL;
        if (strcmp(op, "inject") == 0) {
            double score = cJSON_IsNumber(sc) ? sc->valuedouble : 0.5;
            if (!cJSON_IsString(jp))
                e = base_errf(err, BASE_EINVAL, "inject: \"parent\" (a node id) is missing");
            else if (!d)
                e = base_errf(err, BASE_EINVAL, "inject: \"description\" is missing");
            else if (pos && !cJSON_IsNumber(pos))
                e = base_errf(err, BASE_EINVAL, "inject: \"position\" must be a number");
            else if (sc && (!cJSON_IsNumber(sc) || score < 0 || score > 1))
                e = base_errf(err, BASE_EINVAL, "inject: \"score\" must be a number in 0..1");
            else
                e = agent_andor_inject(g->t, jp->valuestring, d,
                                       pos && pos->valuedouble >= 0 && pos->valuedouble < 1e6
                                           ? (int)pos->valuedouble
                                           : -1,
                                       score, &node, err);
        } else if (strcmp(op, "replace") == 0 || strcmp(op, "remove") == 0) {
            if (!cJSON_IsString(jn))
                e = base_errf(err, BASE_EINVAL, "%s: \"node\" (a node id) is missing", op);
            else if (op[2] == 'p' && !d)
                e = base_errf(err, BASE_EINVAL, "replace: \"description\" is missing");
            else if (op[2] == 'p')
                e = agent_andor_replace(g->t, jn->valuestring, d, err);
            else
                e = agent_andor_remove(g->t, jn->valuestring, err);
            if (!e)
                node = agent_andor_find(g->t, jn->valuestring);
        } else {
            e = base_errf(err, BASE_EINVAL, "\"op\" must be inject, replace or remove");
        }
    }
    const agent_andor_node *n = e ? NULL : agent_andor_node_at(g->t, node);
    char shown[200];
    agent_secrets_scrub_copy(fovea_session_secrets(g->s), shown, sizeof shown, line);
    if (e) {
        char why[BASE_ERRBUF_SIZE];
        agent_secrets_scrub_copy(fovea_session_secrets(g->s), why, sizeof why, err);
        agent_progressf(g->out, "andor: intervention refused (%s): %s\n", why, shown);
        snprintf(err, sizeof err, "%s", why);
    } else {
        g->res->interventions++;
        agent_progressf(g->out, "andor: intervention %s %s applied before iteration %d\n", op,
                  n ? n->id : "?", agent_andor_iterations(g->t) + 1);
    }
    cJSON *tl = cJSON_CreateObject();
    if (tl) {
        cJSON_AddStringToObject(tl, "type", "andor_intervene");
        cJSON_AddNumberToObject(tl, "iter", agent_andor_iterations(g->t));
        cJSON_AddStringToObject(tl, "op", op);
        cJSON_AddStringToObject(tl, "node", n ? n->id : "");
        cJSON_AddBoolToObject(tl, "ok", !e);
        if (e)
            cJSON_AddStringToObject(tl, "error", err);
        cJSON_AddStringToObject(tl, "line", line);
        trace_line(g, tl);
    }
    cJSON_Delete(j);
    return !e;
}

/* Splits what arrived into lines and applies each complete one. */
static int intervene_feed(andor_run *g, const char *data, size_t n)
{
    int changed = 0;
    for (size_t i = 0; i < n; i++) {
        char c = data[i];
        if (c != '\n') {
            if (g->ioverlong)
                continue;
            if (g->ilen >= INTERVENE_LINE_MAX) {
                agent_progressf(g->out, "andor: intervention refused: a line longer than %d bytes\n",
                          INTERVENE_LINE_MAX);
                g->ioverlong = 1;
                g->ilen = 0;
                continue;
            }
            g->ibuf[g->ilen++] = c;
            continue;
        }
        if (!g->ioverlong) {
            g->ibuf[g->ilen] = '\0';
            size_t k = g->ilen;
            while (k > 0 && (g->ibuf[k - 1] == '\r' || g->ibuf[k - 1] == ' ' ||
                             g->ibuf[k - 1] == '\t'))
                g->ibuf[--k] = '\0';
            const char *p = g->ibuf;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p && *p != '#') { /* blank lines and # comments are skipped */
                int seen = intervene_seen(g, p);
                char shown[200];
                if (seen != 0)
                    agent_secrets_scrub_copy(fovea_session_secrets(g->s), shown, sizeof shown, p);
                if (seen > 0)
                    agent_progressf(g->out, "andor: intervention skipped (read before the file was "
                                 "rewritten): %s\n", shown);
                else if (seen < 0)
                    agent_progressf(g->out, "andor: intervention refused (out of memory): %s\n", shown);
                else
                    changed |= intervene_apply(g, p);
            }
        }
        g->ilen = 0;
        g->ioverlong = 0;
    }
    return changed;
}

/* Reads what was appended since the last look; returns 1 when an edit was
 * applied. Never waits: a file is read up to its current end, stdin while
 * poll says it has data, either up to INTERVENE_READS_MAX reads. */
static int intervene_poll(andor_run *g)
{
    if (g->ifd < 0 || g->eof)
        return 0;
    int changed = 0;
    char buf[4096];
    if (!g->is_stdin) {
        struct stat st;
        if (fstat(g->ifd, &st) == 0 && st.st_size < g->ioff) {
            agent_progressf(g->out, "andor: the intervention file shrank: reading it again from its "
                         "start (lines read before are not applied again)\n");
            g->ioff = 0;
            g->ilen = 0;
            g->ioverlong = 0;
            g->irewound = g->n_iseen;
        }
    }
    for (int reads = 0; reads < INTERVENE_READS_MAX; reads++) {
        if (g->is_stdin) {
            /* One read per readable poll: it returns what is there. */
            struct pollfd pfd = {g->ifd, POLLIN, 0};
            int pr = poll(&pfd, 1, 0);
            if (pr < 0 && errno == EINTR && !base_interrupted())
                continue;
            if (pr <= 0)
                break;
            if (!(pfd.revents & (POLLIN | POLLHUP))) {
                g->eof = 1; /* POLLERR / POLLNVAL: nothing more will come */
                break;
            }
        }
        ssize_t k = g->is_stdin ? read(g->ifd, buf, sizeof buf)
                                : pread(g->ifd, buf, sizeof buf, g->ioff);
        if (k < 0 && errno == EINTR && !base_interrupted())
            continue;
        if (k <= 0) {
            if (k == 0 && g->is_stdin) {
                g->eof = 1; /* stdin closed: a last line without newline still counts */
                if (g->ilen > 0)
                    changed |= intervene_feed(g, "\n", 1);
            }
            break;
        }
        g->ioff += k;
        changed |= intervene_feed(g, buf, (size_t)k);
    }
    return changed;
}

/* ---- the run --------------------------------------------------------------- */

/* One line for a step: what it popped, what the operators did, what
 * changed. */
static void describe_event(const agent_andor_tree *t, const agent_andor_event *ev, char *buf,
                           size_t cap)
{
    size_t n = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (n < cap) {                                                                             \
            int w_ = snprintf(buf + n, cap - n, __VA_ARGS__);                                      \
            n += w_ > 0 ? (size_t)w_ : 0;                                                          \
        }                                                                                          \
    } while (0)
    buf[0] = '\0';
    if (ev->skipped)
        PUT("skipped");
    static const char *const opn[] = {"expand", "execute", "summarize", "update",
                                      "complete", "repair", "rollback"};
    int first = 1;
    for (int k = 0; k < 7; k++)
        if (ev->ops & (1u << k)) {
            PUT("%s%s", first ? (n ? "; " : "") : "+", opn[k]);
            first = 0;
        }
    int shown =
        ev->n_changes < AGENT_ANDOR_EVENT_CHANGES ? ev->n_changes : AGENT_ANDOR_EVENT_CHANGES;
    for (int i = 0; i < shown; i++) {
        const agent_andor_node *c = agent_andor_node_at(t, ev->changes[i].node);
        PUT("%s%s %s->%s", n ? (i ? ", " : "; ") : "", c ? c->id : "?",
            agent_andor_status_name(ev->changes[i].from),
            agent_andor_status_name(ev->changes[i].to));
    }
    if (ev->n_changes > shown)
        PUT(" (+%d)", ev->n_changes - shown);
    if (ev->pushed || ev->purged)
        PUT("%spushed %d, purged %d", n ? "; " : "", ev->pushed, ev->purged);
    if (ev->stop)
        PUT("%sstop", n ? "; " : "");
    if (!n)
        PUT("nothing changed");
#undef PUT
}

/* How the run ended when an operator asked to stop. */
static void ended_by_stop(andor_run *g, const char *when)
{
    const char *why = NULL;
    agent_goal_end e = agent_andor_ops_stop_reason(g->ops, &why);
    if (base_interrupted() && e != AGENT_GOAL_INTERRUPTED) {
        e = AGENT_GOAL_INTERRUPTED;
        why = NULL;
    }
    g->res->end = e;
    if (e == AGENT_GOAL_INTERRUPTED && (!why || !why[0]))
        snprintf(g->res->reason, sizeof g->res->reason, "interrupted by %s %s",
                 base_signal_name(base_interrupted()), when);
    else
        snprintf(g->res->reason, sizeof g->res->reason, "%s", why && why[0] ? why : when);
}

/* The root succeeded: the final answer from the notes. */
static void final_answer(andor_run *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    g->iter = agent_andor_iterations(g->t);
    agent_andor_op_status st =
        agent_andor_ops_answer(g->ops, g->t, g->res->answer, sizeof g->res->answer, err);
    if (st == AGENT_ANDOR_OP_OK && g->res->answer[0]) {
        g->res->end = AGENT_GOAL_DONE;
        agent_secrets_scrub(fovea_session_secrets(g->s), g->res->answer, sizeof g->res->answer);
        snprintf(g->res->reason, sizeof g->res->reason,
                 "done: the plan's root succeeded after %d iterations", g->res->iterations);
        /* The schema's answer, whole, for the user's program. */
        if (g->o->answer_schema &&
            agent_answer_write(g->o->out_dir, agent_andor_ops_answer_value(g->ops),
                               fovea_session_secrets(g->s), err) != BASE_OK)
            agent_progressf(g->out, "andor: answer: %s\n", err);
    } else if (st == AGENT_ANDOR_OP_STOP) {
        ended_by_stop(g, "while writing the final answer");
        g->res->answer[0] = '\0';
    } else {
        /* The plan is done but no answer could be written: not "done",
         * since the user gets nothing to read. */
        g->res->end = AGENT_GOAL_ERROR;
        g->res->answer[0] = '\0';
        snprintf(g->res->reason, sizeof g->res->reason,
                 "the plan's root succeeded but the final answer failed%s%.900s",
                 err[0] ? ": " : "", err);
    }
}

/* The root's reasoning, for the reason line of a failed plan. */
static void plan_failed(andor_run *g)
{
    const agent_andor_node *root = agent_andor_node_at(g->t, 0);
    g->res->end = AGENT_GOAL_GAVE_UP;
    snprintf(g->res->reason, sizeof g->res->reason,
             "gave_up: the plan failed (root %s after %d iterations)%s%.800s",
             agent_andor_status_name(agent_andor_outcome(g->t)), g->res->iterations,
             root && root->reasoning && root->reasoning[0] ? ": " : "",
             root && root->reasoning ? root->reasoning : "");
    agent_secrets_scrub(fovea_session_secrets(g->s), g->res->reason, sizeof g->res->reason);
}

static base_err run_steps(andor_run *g, char *err)
{
    agent_andor_ops ops;
    memset(&ops, 0, sizeof ops);
    agent_andor_ops_bind(g->ops, &ops);
    for (;;) {
        if (intervene_poll(g))
            write_state(g);
        if (agent_andor_finished(g->t))
            break;
        if (base_interrupted()) {
            g->res->end = AGENT_GOAL_INTERRUPTED;
            snprintf(g->res->reason, sizeof g->res->reason, "interrupted by %s after iteration %d",
                     base_signal_name(base_interrupted()), agent_andor_iterations(g->t));
            return BASE_OK;
        }
        agent_andor_event ev;
        memset(&ev, 0, sizeof ev);
        g->iter = agent_andor_iterations(g->t);
        g->step_tokens = 0;
        double t0 = base_monotime_ms();
        base_err e = agent_andor_step(g->t, &ops, &ev, err);
        double ms = base_monotime_ms() - t0;
        g->res->iterations = agent_andor_iterations(g->t);
        if (e) {
            g->res->end = AGENT_GOAL_ERROR;
            snprintf(g->res->reason, sizeof g->res->reason, "error: %s", err);
            write_state(g);
            return e;
        }
        const agent_andor_node *n = agent_andor_node_at(g->t, ev.node);
        char what[600];
        describe_event(g->t, &ev, what, sizeof what);
        agent_secrets_scrub(fovea_session_secrets(g->s), what, sizeof what);
        agent_progressf(g->out, "iter %d node %s %s [%s, %s]: %s | tokens %ld | %.0f ms\n", ev.iter + 1,
                  n ? n->id : "?", agent_andor_state_name(ev.state),
                  n ? agent_andor_type_name(n->type) : "?",
                  n ? agent_andor_status_name(n->status) : "?", what, g->step_tokens, ms);
        cJSON *ej = agent_andor_event_json(g->t, &ev);
        if (ej) {
            cJSON_AddStringToObject(ej, "type", "andor_event");
            cJSON_AddNumberToObject(ej, "tokens", (double)g->step_tokens);
            cJSON_AddNumberToObject(ej, "ms", ms);
            /* The node's description as it is now: a timeline stays
             * readable after the node is rewritten or deleted. */
            if (n && n->description)
                cJSON_AddStringToObject(ej, "description", n->description);
            trace_line(g, ej);
        }
        write_state(g);
        if (ev.stop) {
            ended_by_stop(g, "after iteration");
            return BASE_OK;
        }
    }
    agent_andor_status out = agent_andor_outcome(g->t);
    if (out == AGENT_ANDOR_SUCCESS) {
        final_answer(g);
    } else if (agent_andor_stack_len(g->t) > 0) {
        /* The stack still holds work: the iteration budget ran out. */
        g->res->end = AGENT_GOAL_STEPS_OUT;
        snprintf(g->res->reason, sizeof g->res->reason,
                 "max_steps: the plan's budget of %d iterations ran out before the root finished",
                 agent_andor_tree_config(g->t)->budget);
    } else {
        plan_failed(g);
    }
    return BASE_OK;
}

/* The end line's extra members: the final tree, table and answer. */
static cJSON *end_extra(andor_run *g)
{
    cJSON *x = cJSON_CreateObject();
    cJSON *st = g->t ? state_json(g) : NULL;
    if (!x || (g->t && !st)) {
        cJSON_Delete(x);
        cJSON_Delete(st);
        return NULL;
    }
    if (st) {
        cJSON_AddStringToObject(st, "answer", g->res->answer);
        cJSON_AddStringToObject(st, "end", agent_goal_end_name(g->res->end));
        cJSON *calls = cJSON_AddObjectToObject(st, "calls");
        for (int k = 0; calls && k < AGENT_ANDOR_OPK_COUNT; k++)
            cJSON_AddNumberToObject(calls, agent_andor_opkind_name((agent_andor_opkind)k),
                                    g->res->calls[k]);
        cJSON_AddNumberToObject(st, "model_calls", g->res->model_calls);
        cJSON_AddNumberToObject(st, "prompt_tokens", (double)g->res->usage.prompt);
        cJSON_AddNumberToObject(st, "completion_tokens", (double)g->res->usage.completion);
        cJSON_AddNumberToObject(st, "estimate", (double)g->res->estimate);
        cJSON_AddNumberToObject(st, "interventions", g->res->interventions);
        agent_secrets_scrub_json(fovea_session_secrets(g->s), st);
        cJSON_AddItemToObject(x, "andor", st);
    }
    return x;
}

base_err agent_andor_run(fovea_session *s, const agent_andor_run_opts *o,
                         agent_andor_run_result *res, char *err)
{
    memset(res, 0, sizeof *res);
    res->end = AGENT_GOAL_ERROR;
    if (!s || !o || !o->goal || !o->goal[0] || !o->llm)
        return base_errf(err, BASE_EINVAL, "agent_andor_run: a session, a goal and a client");
    andor_run g;
    memset(&g, 0, sizeof g);
    g.s = s;
    g.o = o;
    g.res = res;
    g.out = o->progress ? o->progress : stderr;
    g.iter = -1;
    g.ifd = -1;
    double t0 = base_monotime_ms();
    base_err e = intervene_open(&g, o->intervene, err);
    if (!e && o->out_dir && (e = base_mkdirs(o->out_dir, 0, err)) != BASE_OK)
        e = BASE_EIO;
    int traced = 0;
    if (!e && o->trace && o->out_dir) {
        agent_trace *tr = NULL;
        e = agent_trace_open(o->out_dir, o->trace, &tr, err);
        if (!e)
            fovea_session_set_trace(s, tr);
        traced = !e;
    }
    if (!e)
        e = agent_andor_tree_create(o->goal, &o->tree, &g.t, err);
    agent_andor_ops_opts oo;
    memset(&oo, 0, sizeof oo);
    oo.llm = o->llm;
    oo.budget = o->budget;
    oo.candidates = o->candidates;
    oo.max_steps = o->max_steps > 0 ? o->max_steps : AGENT_GOAL_MAX_STEPS;
    oo.step_timeout_ms = o->step_timeout_ms;
    oo.screenshot = o->screenshot;
    oo.answer_schema = o->answer_schema;
    oo.on_call = on_call;
    oo.on_tool = on_tool;
    oo.user = &g;
    if (!e)
        e = agent_andor_ops_create(s, &oo, &g.ops, err);
    if (!e) {
        char url[2048];
        fovea_session_page_url(s, url, sizeof url);
        e = agent_andor_set_url(g.t, url);
        if (e)
            base_errf(err, e, "out of memory");
    }
    if (!e) {
        const agent_andor_config *c = agent_andor_tree_config(g.t);
        agent_progressf(g.out,
                  "andor: planner andor (completion check %s, candidates %s, revisions %d, "
                  "budget %d iterations%s%s)\n",
                  agent_andor_scope_name(c->scope), agent_cand_mode_name(o->candidates),
                  c->max_revisions, c->budget, o->intervene ? ", intervene " : "",
                  o->intervene ? (strcmp(o->intervene, "-") == 0 ? "stdin" : o->intervene) : "");
        write_state(&g);
        agent_andor_op_status st = agent_andor_ops_start(g.ops, g.t, err);
        write_state(&g);
        if (st == AGENT_ANDOR_OP_STOP)
            ended_by_stop(&g, "at the start");
        else
            e = run_steps(&g, err);
    } else {
        snprintf(res->reason, sizeof res->reason, "%s", err);
    }
    if (g.t) {
        res->iterations = agent_andor_iterations(g.t);
        res->nodes = agent_andor_node_count(g.t);
    }
    if (g.ops)
        res->steps = agent_andor_ops_steps(g.ops);
    res->total_ms = base_monotime_ms() - t0;
    if (g.t)
        write_state(&g);
    agent_progressf(g.out, "andor: %s after %d iterations, %d nodes, %d tool calls, %d model calls, "
              "%d interventions\n",
              agent_goal_end_name(res->end), res->iterations, res->nodes, res->steps,
              res->model_calls, res->interventions);
    if (traced) {
        cJSON *x = end_extra(&g);
        int ok = res->end == AGENT_GOAL_DONE;
        const char *sig = res->end == AGENT_GOAL_INTERRUPTED && base_interrupted()
                              ? base_signal_name(base_interrupted())
                              : NULL;
        agent_trace *tr = fovea_session_trace(s);
        fovea_session_set_trace(s, NULL);
        agent_trace_close_extra(tr, ok, ok ? 0 : res->steps, res->total_ms, res->reason, sig, x);
    }
    agent_andor_ops_destroy(g.ops);
    agent_andor_tree_destroy(g.t);
    intervene_close(&g);
    return e;
}
