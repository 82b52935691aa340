/* tests/model/test_normalize.c: the request normalizer (model/normalize.h)
 * against the strict checker of tests/harness/wire_check.h, on the shapes
 * issue 22 found breaking chat templates: two system messages, user after
 * user, user after tool results, null content, text-only parts, tool
 * messages without a name, batches of tool calls, ids that are not 9
 * alphanumerics, type arrays and oneOf in tool schemas, properties without
 * a description; the two fallbacks; and the checker itself, which must
 * refuse each of those shapes (a checker that cannot fail proves nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json_alloc.h"
#include "check.h"
#include "model/normalize.h"
#include "wire_check.h"

#define PNG_URL "data:image/png;base64,iVBORw0KGgo="

/* What the agent sends today, every rule broken at least once. */
static const char bad_conversation[] =
    "[{\"role\":\"system\",\"content\":\"You operate a browser.\"},"
    " {\"role\":\"system\",\"content\":\"[LEDGER] goal: find the price\"},"
    " {\"role\":\"user\",\"content\":\"TASK: find the price\"},"
    " {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"observation 1\"},"
    "   {\"type\":\"image_url\",\"image_url\":{\"url\":\"" PNG_URL "\"}}]},"
    " {\"role\":\"assistant\",\"content\":null,\"_step\":3,\"tool_calls\":["
    "   {\"id\":\"call_AAA\",\"type\":\"function\",\"function\":{\"name\":\"click_at\","
    "     \"arguments\":\"{\\\"target\\\":\\\"Buy\\\"}\"}},"
    "   {\"id\":\"call_BBB\",\"type\":\"function\",\"function\":{\"name\":\"type_text\","
    "     \"arguments\":{\"text\":\"hi\"}}},"
    "   {\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"read_page\","
    "     \"arguments\":\"{}\"}}]},"
    " {\"role\":\"tool\",\"tool_call_id\":\"call_BBB\",\"content\":\"typed\"},"
    " {\"role\":\"tool\",\"tool_call_id\":\"call_AAA\",\"content\":[{\"type\":\"text\","
    "   \"text\":\"clicked\"}]},"
    " {\"role\":\"tool\",\"tool_call_id\":\"call_2\",\"content\":\"page text\"},"
    " {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"observation 2\"}]},"
    " {\"role\":\"user\",\"content\":\"nudge\"}]";

static const char bad_tools[] =
    "[{\"type\":\"function\",\"function\":{\"name\":\"click_at\",\"parameters\":{"
    "  \"type\":\"object\",\"properties\":{"
    "    \"target\":{\"type\":[\"string\",\"null\"]},"
    "    \"at\":{\"description\":\"where\",\"oneOf\":[{\"type\":\"string\"},"
    "       {\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}}}]},"
    "    \"n\":{\"type\":[\"integer\",\"string\"],\"description\":\"count\"},"
    "    \"list\":{\"type\":\"array\",\"description\":\"l\",\"items\":{\"type\":\"object\","
    "       \"properties\":{\"deep_name\":{\"type\":\"string\"}}}}}}}}]";

static cJSON *parse(const char *s)
{
    cJSON *v = cJSON_Parse(s);
    if (!v)
        fprintf(stderr, "fixture JSON does not parse\n");
    return v;
}

/* {"model", "messages", "tools"} for the checker. */
static cJSON *body_of(cJSON *msgs, cJSON *tools)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "model", "m");
    cJSON_AddItemToObject(b, "messages", msgs);
    if (tools)
        cJSON_AddItemToObject(b, "tools", tools);
    return b;
}

static const char *role_at(const cJSON *msgs, int i)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(msgs, i), "role")->valuestring;
}

static const char *text_at(const cJSON *msgs, int i)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(msgs, i), "content");
    return cJSON_IsString(c) ? c->valuestring : NULL;
}

static void conversation_passes(void)
{
    cJSON *in = parse(bad_conversation);
    CHECK(in);
    char why[400] = "";
    cJSON *raw = body_of(cJSON_Duplicate(in, 1), NULL);
    CHECK_MSG(wire_check(raw, why, sizeof why) != 0, "the raw conversation passed the checker");
    cJSON_Delete(raw);
    cJSON *out = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(model_wire_messages(in, NULL, 0, &out, err), BASE_OK);
    cJSON *b = body_of(out, NULL);
    int rc = wire_check(b, why, sizeof why);
    char *printed = cJSON_Print(out);
    CHECK_MSG(rc == 0, "normalized request breaks a rule: %s\n%s", why, printed);
    /* system, user(task+ledger+obs1 with the image), then three call/result
     * pairs in call order, ack, user(obs2 + nudge). */
    CHECK_EQ(cJSON_GetArraySize(out), 10);
    CHECK_STR(role_at(out, 0), "system");
    CHECK_STR(text_at(out, 0), "You operate a browser.");
    CHECK_STR(role_at(out, 1), "user");
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(out, 1), "content");
    CHECK(cJSON_IsArray(parts));
    char *p1 = cJSON_PrintUnformatted(parts);
    CHECK(strstr(p1, "[LEDGER] goal") && strstr(p1, "TASK: find") && strstr(p1, "observation 1") &&
          strstr(p1, PNG_URL));
    CHECK(strstr(p1, "[LEDGER]") < strstr(p1, "TASK:"));
    free(p1);
    static const char *const names[] = {"click_at", "type_text", "read_page"};
    static const char *const results[] = {"clicked", "typed", "page text"};
    for (int k = 0; k < 3; k++) {
        const cJSON *a = cJSON_GetArrayItem(out, 2 + 2 * k);
        const cJSON *t = cJSON_GetArrayItem(out, 3 + 2 * k);
        const cJSON *tc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "tool_calls"), 0);
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
        CHECK_STR(cJSON_GetObjectItemCaseSensitive(fn, "name")->valuestring, names[k]);
        CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(fn, "arguments")));
        CHECK_STR(cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring, names[k]);
        CHECK_STR(cJSON_GetObjectItemCaseSensitive(t, "content")->valuestring, results[k]);
        CHECK(!cJSON_GetObjectItemCaseSensitive(a, "_step"));
    }
    CHECK_STR(role_at(out, 8), "assistant");
    CHECK_STR(text_at(out, 8), MODEL_WIRE_ACK);
    CHECK_STR(text_at(out, 9), "observation 2\n\nnudge");
    free(printed);
    /* The same input gives the same bytes (prompt caches). */
    cJSON *again = NULL;
    CHECK_EQ(model_wire_messages(in, NULL, 0, &again, err), BASE_OK);
    char *x = cJSON_PrintUnformatted(out), *y = cJSON_PrintUnformatted(again);
    CHECK_STR(x, y);
    free(x);
    free(y);
    cJSON_Delete(again);
    cJSON_Delete(b);
    cJSON_Delete(in);
}

static void ids(void)
{
    char a[10], b[10], c[10];
    model_wire_id("call_7Qx", a);
    model_wire_id("call_7Qx", b);
    model_wire_id("call_7Qy", c);
    CHECK_STR(a, b);
    CHECK(strcmp(a, c) != 0);
    CHECK_EQ(strlen(a), 9);
    for (int i = 0; i < 9; i++)
        CHECK((a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'z') ||
              (a[i] >= 'A' && a[i] <= 'Z'));
    model_wire_id("Ab3dE6gH9", a);
    CHECK_STR(a, "Ab3dE6gH9");
    model_wire_id(NULL, a);
    CHECK_EQ(strlen(a), 9);
}

static void tools_portable(void)
{
    cJSON *t = parse(bad_tools);
    CHECK(t);
    char why[400] = "";
    cJSON *raw = body_of(parse("[{\"role\":\"user\",\"content\":\"x\"}]"), cJSON_Duplicate(t, 1));
    CHECK(wire_check(raw, why, sizeof why) != 0);
    cJSON_Delete(raw);
    cJSON *out = NULL;
    CHECK_EQ(model_wire_tools(t, &out, NULL), BASE_OK);
    cJSON *b = body_of(parse("[{\"role\":\"user\",\"content\":\"x\"}]"), out);
    char *printed = cJSON_PrintUnformatted(out);
    CHECK_MSG(wire_check(b, why, sizeof why) == 0, "%s\n%s", why, printed);
    CHECK(strstr(printed, "\"target\":{\"type\":\"string\",\"description\":\"target\"}"));
    CHECK(strstr(printed, "\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]"));
    CHECK(strstr(printed, "\"description\":\"deep name\""));
    CHECK(strstr(printed, "\"description\":\"click at\""));
    free(printed);
    cJSON_Delete(b);
    cJSON_Delete(t);
}

static void system_in_user(void)
{
    cJSON *in = parse(bad_conversation);
    cJSON *out = NULL;
    CHECK_EQ(model_wire_messages(in, NULL, MODEL_WIRE_SYSTEM_IN_USER, &out, NULL), BASE_OK);
    cJSON *b = body_of(out, NULL);
    char why[400] = "";
    CHECK_MSG(wire_check(b, why, sizeof why) == 0, "%s", why);
    CHECK_STR(role_at(out, 0), "user");
    char *p = cJSON_PrintUnformatted(cJSON_GetArrayItem(out, 0));
    CHECK(strstr(p, "You operate a browser.") && strstr(p, "TASK: find") && strstr(p, PNG_URL));
    CHECK(strstr(p, "You operate a browser.") < strstr(p, "TASK: find"));
    free(p);
    for (int i = 0; i < cJSON_GetArraySize(out); i++)
        CHECK(strcmp(role_at(out, i), "system") != 0);
    cJSON_Delete(b);
    cJSON_Delete(in);
}

static void tools_in_text(void)
{
    cJSON *in = parse(bad_conversation);
    cJSON *t = parse(bad_tools);
    cJSON *out = NULL;
    CHECK_EQ(model_wire_messages(in, t, MODEL_WIRE_TOOLS_IN_TEXT, &out, NULL), BASE_OK);
    cJSON *b = body_of(out, NULL);
    char why[400] = "";
    char *all = cJSON_PrintUnformatted(out);
    CHECK_MSG(wire_check(b, why, sizeof why) == 0, "%s\n%s", why, all);
    CHECK(strstr(text_at(out, 0), "You can use these tools") && strstr(text_at(out, 0), "click_at"));
    CHECK(!strstr(all, "tool_calls") && !strstr(all, "\"role\":\"tool\""));
    CHECK(strstr(all, "{\\\"tool\\\":\\\"click_at\\\",\\\"arguments\\\":{\\\"target\\\":\\\"Buy\\\"}}"));
    CHECK(strstr(all, "Result of the tool type_text: typed"));
    free(all);
    cJSON_Delete(b);
    cJSON_Delete(in);
    cJSON_Delete(t);
}

static void calls_from_text(void)
{
    cJSON *calls = NULL;
    char *rest = NULL;
    CHECK_EQ(model_wire_calls_from_text(
                 "```json\n{\"tool\": \"click_at\", \"arguments\": {\"target\": \"Buy\"}}\n```",
                 &calls, &rest, NULL),
             BASE_OK);
    CHECK(calls && !rest);
    CHECK_EQ(cJSON_GetArraySize(calls), 1);
    const cJSON *c = cJSON_GetArrayItem(calls, 0);
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(c, "function");
    CHECK_STR(cJSON_GetObjectItemCaseSensitive(fn, "name")->valuestring, "click_at");
    CHECK_STR(cJSON_GetObjectItemCaseSensitive(fn, "arguments")->valuestring, "{\"target\":\"Buy\"}");
    CHECK_EQ(strlen(cJSON_GetObjectItemCaseSensitive(c, "id")->valuestring), 9);
    cJSON_Delete(calls);
    CHECK_EQ(model_wire_calls_from_text("I will look. {\"note\": 1} then {\"name\": \"read_page\"}",
                                        &calls, &rest, NULL),
             BASE_OK);
    CHECK(calls && rest);
    CHECK_EQ(cJSON_GetArraySize(calls), 1);
    CHECK_STR(rest, "I will look. {\"note\": 1} then");
    cJSON_Delete(calls);
    base_free(rest);
    CHECK_EQ(model_wire_calls_from_text("no calls {here", &calls, &rest, NULL), BASE_OK);
    CHECK(!calls);
    CHECK_STR(rest, "no calls {here");
    base_free(rest);
}

/* The checker refuses each broken shape on its own. */
static void checker_fails(void)
{
    static const struct {
        const char *msgs;
        const char *tools;
        const char *why;
    } bad[] = {
        {"[{\"role\":\"system\",\"content\":\"a\"},{\"role\":\"system\",\"content\":\"b\"},"
         "{\"role\":\"user\",\"content\":\"u\"}]", NULL, "system message that is not the first"},
        {"[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"b\"}]", NULL,
         "two user messages"},
        {"[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"\","
         "\"tool_calls\":[{\"id\":\"abcdefghi\",\"type\":\"function\",\"function\":{\"name\":\"f\","
         "\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"abcdefghi\",\"name\":\"f\","
         "\"content\":\"r\"},{\"role\":\"user\",\"content\":\"b\"}]", NULL, "right after a tool"},
        {"[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":null}]", NULL,
         "not a string"},
        {"[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}]}]", NULL,
         "text parts"},
        {"[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"\","
         "\"tool_calls\":[{\"id\":\"abcdefghi\",\"type\":\"function\",\"function\":{\"name\":\"f\","
         "\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"abcdefghi\","
         "\"content\":\"r\"}]", NULL, "without the function name"},
        {"[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"\","
         "\"tool_calls\":[{\"id\":\"abcdefghi\",\"type\":\"function\",\"function\":{\"name\":\"f\","
         "\"arguments\":\"{}\"}},{\"id\":\"abcdefghj\",\"type\":\"function\",\"function\":"
         "{\"name\":\"f\",\"arguments\":\"{}\"}}]}]", NULL, "2 tool calls"},
        {"[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"\","
         "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
         "\"arguments\":\"{}\"}}]}]", NULL, "not 9 alphanumerics"},
        {"[{\"role\":\"user\",\"content\":\"a\"}]",
         "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"d\",\"parameters\":"
         "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\"}}}}}]",
         "without a description"},
        {"[{\"role\":\"user\",\"content\":\"a\"}]",
         "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"d\",\"parameters\":"
         "{\"type\":[\"object\",\"null\"]}}}]", "\"type\" array"},
        {"[{\"role\":\"user\",\"content\":\"a\"}]",
         "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"d\",\"parameters\":"
         "{\"oneOf\":[{\"type\":\"object\"}]}}}]", "oneOf"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *b = body_of(parse(bad[i].msgs), bad[i].tools ? parse(bad[i].tools) : NULL);
        char why[400] = "";
        int rc = wire_check(b, why, sizeof why);
        cJSON_Delete(b);
        CHECK_MSG(rc != 0, "case %zu passed the checker", i);
        CHECK_MSG(strstr(why, bad[i].why), "case %zu: \"%s\" lacks \"%s\"", i, why, bad[i].why);
    }
}

static const check_case cases[] = {
    {"conversation_passes", conversation_passes},
    {"ids", ids},
    {"tools_portable", tools_portable},
    {"system_in_user", system_in_user},
    {"tools_in_text", tools_in_text},
    {"calls_from_text", calls_from_text},
    {"checker_fails", checker_fails},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    base_json_alloc_install();
    return check_main(argc, argv, cases);
}
