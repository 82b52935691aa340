/* tests/agent/session/test_tool_brief.c: the tool list a model is offered
 * (agent/session/tool_brief.c, issue 22 "a third of the tokens").
 *
 * narrower: every brief tool is a registry tool by its exact name, its
 *   schema names only properties the registry schema knows, requires what
 *   the registry requires, and every value it allows for a property (a
 *   sample per type, each enum value) passes the registry's own check
 *   (tool_args_check): the brief list never offers what a call may not do.
 * split: brief + more_tools' list = the registry's list for every permit
 *   set, without overlap; a tool that needs a permit is in neither without
 *   it; more_tools is last in the brief list.
 * wire: both lists pass the chat-template rules after the normalizer
 *   (model_wire_tools + wire_check), and the brief list on the wire is under
 *   a sixth of the full list's bytes (the token goal's main term).
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "agent/session/tool.h"
#include "base/alloc.h"
#include "model/normalize.h"
#include "wire_check.h"

static const cJSON *fn_of(const cJSON *item)
{
    return cJSON_GetObjectItemCaseSensitive(item, "function");
}

static const char *name_of(const cJSON *item)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(fn_of(item), "name");
    return cJSON_IsString(n) ? n->valuestring : "";
}

static int in_list(const cJSON *arr, const char *name)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, arr)
    {
        if (strcmp(name_of(f), name) == 0)
            return 1;
    }
    return 0;
}

/* A value of schema s's type: the given enum value, else one per type (a
 * key name for send_keys' chords). */
static cJSON *sample(const cJSON *s, int enum_i)
{
    if (s && s->string && strcmp(s->string, "keys") == 0)
        return cJSON_CreateString("Enter");
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
    if (cJSON_IsArray(en))
        return cJSON_Duplicate(cJSON_GetArrayItem(en, enum_i), 1);
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(s, "type");
    const char *t = cJSON_IsString(ty) ? ty->valuestring : "";
    if (strcmp(t, "boolean") == 0)
        return cJSON_CreateTrue();
    if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0)
        return cJSON_CreateNumber(1);
    return cJSON_CreateString("Search");
}

static void narrower(void)
{
    int n = tool_brief_count();
    CHECK(n >= 8);
    CHECK(tool_brief_name(n) == NULL);
    for (int i = 0; i < n; i++) {
        const char *name = tool_brief_name(i);
        const tool_def *t = tool_find(name);
        CHECK_MSG(t && strcmp(t->name, name) == 0, "%s is not a registry tool", name);
        if (!t)
            continue;
        cJSON *bs = cJSON_Parse(tool_brief_schema(name));
        cJSON *fs = cJSON_Parse(t->schema);
        CHECK_MSG(bs && fs, "%s: schema is not JSON", name);
        const cJSON *bp = cJSON_GetObjectItemCaseSensitive(bs, "properties");
        const cJSON *fp = cJSON_GetObjectItemCaseSensitive(fs, "properties");
        const cJSON *freq = cJSON_GetObjectItemCaseSensitive(fs, "required");
        const cJSON *breq = cJSON_GetObjectItemCaseSensitive(bs, "required");
        const cJSON *r;
        cJSON_ArrayForEach(r, freq)
        {
            int found = 0;
            const cJSON *q;
            cJSON_ArrayForEach(q, breq) found |= strcmp(q->valuestring, r->valuestring) == 0;
            CHECK_MSG(found, "%s: the registry requires '%s', the brief schema does not", name,
                      r->valuestring);
        }
        /* The required arguments' samples, then each property's on top. */
        cJSON *base = cJSON_CreateObject();
        cJSON_ArrayForEach(r, breq)
        {
            cJSON_AddItemToObject(base, r->valuestring,
                                  sample(cJSON_GetObjectItemCaseSensitive(bp, r->valuestring), 0));
        }
        const cJSON *p;
        cJSON_ArrayForEach(p, bp)
        {
            CHECK_MSG(cJSON_GetObjectItemCaseSensitive(fp, p->string) != NULL,
                      "%s: brief property '%s' is not the registry's", name, p->string);
            const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "enum");
            int k = cJSON_IsArray(en) ? cJSON_GetArraySize(en) : 1;
            for (int e = 0; e < k; e++) {
                cJSON *a = cJSON_Duplicate(base, 1);
                cJSON_DeleteItemFromObjectCaseSensitive(a, p->string);
                cJSON_AddItemToObject(a, p->string, sample(p, e));
                char err[BASE_ERRBUF_SIZE] = "";
                base_err ae = tool_args_check(t, a, err);
                char *txt = cJSON_PrintUnformatted(a);
                CHECK_MSG(ae == BASE_OK, "%s %s: the registry refuses it: %s", name, txt, err);
                cJSON_free(txt);
                cJSON_Delete(a);
            }
        }
        cJSON_Delete(base);
        cJSON_Delete(bs);
        cJSON_Delete(fs);
    }
    CHECK(tool_brief_schema("hover") == NULL);
    CHECK(tool_brief_schema(NULL) == NULL);
}

static void split(void)
{
    const unsigned sets[] = {0, TOOL_PERMIT_SCRIPTS, TOOL_PERMIT_UPLOAD,
                             TOOL_PERMIT_SCRIPTS | TOOL_PERMIT_UPLOAD};
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        cJSON *all = tool_functions_json(sets[s]);
        cJSON *b = tool_functions_brief_json(sets[s]);
        cJSON *m = tool_functions_more_json(sets[s]);
        CHECK(all && b && m);
        if (!all || !b || !m)
            return;
        int nb = cJSON_GetArraySize(b);
        CHECK_STR(name_of(cJSON_GetArrayItem(b, nb - 1)), TOOL_MORE_TOOLS);
        CHECK_EQ(nb - 1 + cJSON_GetArraySize(m), cJSON_GetArraySize(all));
        const cJSON *f;
        cJSON_ArrayForEach(f, all)
        {
            int ib = in_list(b, name_of(f)), im = in_list(m, name_of(f));
            CHECK_MSG(ib + im == 1, "permits %u: %s is in %d of the two lists", sets[s],
                      name_of(f), ib + im);
        }
        /* The extra tools come with the registry's full schema. */
        cJSON_ArrayForEach(f, m)
        {
            const tool_def *t = tool_find(name_of(f));
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(fn_of(f), "description");
            CHECK(t && cJSON_IsString(d) && strcmp(d->valuestring, t->description) == 0);
        }
        int scripts = in_list(m, "evaluate_script") || in_list(b, "evaluate_script");
        int upload = in_list(m, "upload_file") || in_list(b, "upload_file");
        CHECK_EQ(scripts, (sets[s] & TOOL_PERMIT_SCRIPTS) != 0);
        CHECK_EQ(upload, (sets[s] & TOOL_PERMIT_UPLOAD) != 0);
        cJSON_Delete(all);
        cJSON_Delete(b);
        cJSON_Delete(m);
    }
}

/* The wire form's bytes of a tools array (after the normalizer), checked
 * against the template rules; -1 when they break one. */
static long wire_bytes(const cJSON *tools, char *why, size_t n)
{
    cJSON *w = NULL;
    char err[BASE_ERRBUF_SIZE];
    if (model_wire_tools(tools, &w, err) != BASE_OK) {
        snprintf(why, n, "%s", err);
        return -1;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON *msgs = cJSON_AddArrayToObject(root, "messages");
    cJSON *u = cJSON_CreateObject();
    cJSON_AddStringToObject(u, "role", "user");
    cJSON_AddStringToObject(u, "content", "hi");
    cJSON_AddItemToArray(msgs, u);
    cJSON_AddItemToObject(root, "tools", w);
    long bytes = -1;
    if (wire_check(root, why, n) == 0) {
        char *s = cJSON_PrintUnformatted(w);
        bytes = s ? (long)strlen(s) : -1;
        cJSON_free(s);
    }
    cJSON_Delete(root);
    return bytes;
}

static void wire(void)
{
    cJSON *all = tool_functions_json(0);
    cJSON *b = tool_functions_brief_json(0);
    cJSON *m = tool_functions_more_json(0);
    char why[256] = "";
    long ball = wire_bytes(all, why, sizeof why);
    CHECK_MSG(ball > 0, "full list: %s", why);
    long bb = wire_bytes(b, why, sizeof why);
    CHECK_MSG(bb > 0, "brief list: %s", why);
    long bm = wire_bytes(m, why, sizeof why);
    CHECK_MSG(bm > 0, "more list: %s", why);
    fprintf(stderr, "wire bytes: full %ld, brief %ld, more %ld\n", ball, bb, bm);
    CHECK_MSG(bb * 6 < ball, "brief %ld bytes against the full %ld", bb, ball);
    cJSON_Delete(all);
    cJSON_Delete(b);
    cJSON_Delete(m);
}

static const check_case cases[] = {
    {"narrower", narrower}, {"split", split}, {"wire", wire}, {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
