/* tests/agent/plan/test_answer.c: agent/plan/answer.c — the final answer's
 * checks and answer.json, without a browser or a model (the runs that use
 * them are in tests/tools/test_cmd_agent.c).
 *
 * load: a schema file that cannot be read is BASE_EIO naming it; one that
 *   is not JSON is BASE_EINVAL with the byte offset; one that is JSON but
 *   not a schema fovea can enforce ($ref) is BASE_EINVAL naming the keyword;
 *   a good one loads.
 * check: an object answer that validates is accepted as is; the same object
 *   written as a string of JSON (fenced or not) is accepted as that JSON; a
 *   string schema keeps a string answer a string ("12" stays "12"); a type
 *   miss names the path; an answer with a null or a placeholder field is
 *   partial (seed 003: "any null = retry") unless the schema allows null or
 *   lists the value there; without a schema, seed 003's meaningful-output
 *   check still refuses "", "null", "{}" and boilerplate, and passes text.
 * prompt: the schema prompt carries the schema as compact JSON.
 * write: answer.json holds the value pretty-printed with a secret masked;
 *   a folder that cannot be written is lost output (base_out_lost).
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan/answer.h"
#include "base/alloc.h"
#include "base/fs.h"

#define OUT FOVEA_BINARY_DIR "/tests/agent/plan/out_answer"

#define BOOK                                                                                       \
    "{\"type\": \"object\", \"properties\": {\"title\": {\"type\": \"string\", \"minLength\": "    \
    "1}, \"price\": {\"type\": \"number\"}, \"discount\": {\"type\": [\"number\", \"null\"]}, "    \
    "\"format\": {\"enum\": [\"paperback\", \"hardback\", \"n/a\"]}}, \"required\": [\"title\", " \
    "\"price\"]}"

static void put(const char *path, const char *text)
{
    CHECK_OK(base_write_file(path, (const uint8_t *)text, strlen(text), NULL));
}

static void load(void)
{
    CHECK_EQ(system("mkdir -p '" OUT "'"), 0);
    cJSON *s = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(agent_answer_schema_load(OUT "/missing.json", &s, err), BASE_EIO);
    CHECK_MSG(strstr(err, "missing.json") != NULL, "%s", err);
    CHECK(s == NULL);
    base_errclear(err); /* first error wins: a fresh buffer per call */
    put(OUT "/notjson.json", "{\"type\": \"object\",\n \"properties\": {\"a\": }}");
    CHECK_EQ(agent_answer_schema_load(OUT "/notjson.json", &s, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "is not JSON (at byte 40)") != NULL, "%s", err);
    base_errclear(err);
    put(OUT "/ref.json", "{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#/x\"}}}");
    CHECK_EQ(agent_answer_schema_load(OUT "/ref.json", &s, err), BASE_EINVAL);
    CHECK_MSG(strstr(err, "not a JSON Schema fovea can check") &&
                  strstr(err, "schema.properties.a: '$ref'"),
              "%s", err);
    CHECK(s == NULL);
    base_errclear(err);
    put(OUT "/book.json", BOOK);
    CHECK_OK(agent_answer_schema_load(OUT "/book.json", &s, err));
    CHECK(cJSON_IsObject(s));
    cJSON_Delete(s);
}

/* agent_answer_check of answer text (JSON) against schema text (NULL =
 * none); the accepted value's compact JSON in got, or the reason. */
static base_err check(const char *schema, const char *answer, char *got, size_t n)
{
    cJSON *s = schema ? cJSON_Parse(schema) : NULL;
    cJSON *a = cJSON_Parse(answer);
    cJSON *v = NULL;
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e = (schema && !s) || !a ? BASE_EPROTO : agent_answer_check(s, a, &v, why);
    char *t = v ? cJSON_PrintUnformatted(v) : NULL;
    snprintf(got, n, "%s", e ? why : t ? t : "(no value)");
    cJSON_free(t);
    cJSON_Delete(v);
    cJSON_Delete(a);
    cJSON_Delete(s);
    return e;
}

#define ACCEPT(schema, answer, want)                                                               \
    do {                                                                                           \
        char g_[BASE_ERRBUF_SIZE];                                                                 \
        CHECK_MSG(check(schema, answer, g_, sizeof g_) == BASE_OK && strcmp(g_, want) == 0,       \
                  "%s: got '%s', wanted '%s'", answer, g_, want);                                  \
    } while (0)
#define REFUSE(schema, answer, words)                                                              \
    do {                                                                                           \
        char g_[BASE_ERRBUF_SIZE];                                                                 \
        CHECK_MSG(check(schema, answer, g_, sizeof g_) == BASE_EINVAL && strstr(g_, words),       \
                  "%s: got '%s', wanted '%s'", answer, g_, words);                                 \
    } while (0)

static void check_answers(void)
{
    ACCEPT(BOOK, "{\"title\": \"The Quiet Harbour\", \"price\": 12.5}",
           "{\"title\":\"The Quiet Harbour\",\"price\":12.5}");
    /* Objects are open, as JSON Schema says: an extra field is kept. */
    ACCEPT(BOOK, "{\"title\": \"T\", \"price\": 1, \"isbn\": \"978-1\"}",
           "{\"title\":\"T\",\"price\":1,\"isbn\":\"978-1\"}");
    /* Written as a string of JSON, fenced or not. */
    ACCEPT(BOOK, "\"{\\\"title\\\": \\\"T\\\", \\\"price\\\": 12.5}\"",
           "{\"title\":\"T\",\"price\":12.5}");
    ACCEPT(BOOK, "\"```json\\n{\\\"title\\\": \\\"T\\\", \\\"price\\\": 2}\\n```\\n\"",
           "{\"title\":\"T\",\"price\":2}");
    /* A string schema keeps its string. */
    ACCEPT("{\"type\": \"string\"}", "\"12\"", "\"12\"");
    ACCEPT("{\"type\": \"number\"}", "\"12\"", "12");
    /* Misses name the path, in the string's JSON when it was JSON. */
    REFUSE(BOOK, "{\"title\": \"T\", \"price\": \"12.50\"}",
           "the answer does not match the answer schema: answer: 'price' must be a number");
    REFUSE(BOOK, "\"{\\\"title\\\": \\\"T\\\"}\"", "'price' is required");
    REFUSE(BOOK, "\"The price is 12.50\"", "arguments must be a JSON object");
    /* Partial values (seed 003), unless the schema allows them there. */
    REFUSE("{\"type\": \"object\", \"properties\": {\"price\": {}}}",
           "{\"title\": \"T\", \"price\": null}", "the answer is partial: 'price' is null");
    REFUSE(BOOK, "{\"title\": \"T\", \"price\": 3, \"seller\": \"N/A\"}",
           "'seller' is the placeholder \"N/A\"");
    REFUSE(BOOK, "{\"title\": \"T\", \"price\": 3, \"tags\": [\"a\", \"\"]}",
           "'tags[1]' is the placeholder");
    ACCEPT(BOOK, "{\"title\": \"T\", \"price\": 3, \"discount\": null, \"format\": \"n/a\"}",
           "{\"title\":\"T\",\"price\":3,\"discount\":null,\"format\":\"n/a\"}");
    /* Meaningful output (seed 003), with or without a schema. */
    REFUSE("{\"type\": \"object\"}", "{\"a\": null, \"b\": \"\"}",
           "no meaningful content (a JSON value with only empty fields)");
    REFUSE(NULL, "\"\"", "no meaningful content (empty)");
    REFUSE(NULL, "\"null\"", "no meaningful content");
    REFUSE(NULL, "\"{}\"", "no meaningful content (a JSON value with only empty fields)");
    REFUSE(NULL, "\"Loading...\\nAccept all\"", "only boilerplate");
    REFUSE(NULL, "null", "there is no answer");
    ACCEPT(NULL, "\"The Quiet Harbour costs £12.50.\"", "\"The Quiet Harbour costs £12.50.\"");
    /* Without a schema a partial JSON answer is not judged field by field:
     * the text has content. */
    ACCEPT(NULL, "{\"price\": 12.5, \"seller\": null}", "{\"price\":12.5,\"seller\":null}");
}

static void prompt(void)
{
    cJSON *s = cJSON_Parse(BOOK);
    char *p = agent_answer_schema_prompt(s);
    CHECK(p && strstr(p, "ANSWER SCHEMA") == p);
    CHECK_MSG(p && strstr(p, "{\"type\":\"object\",\"properties\":{\"title\":"), "%s", p);
    base_free(p);
    CHECK(agent_answer_schema_prompt(NULL) == NULL);
    cJSON_Delete(s);
}

static void write_file(void)
{
    CHECK_EQ(system("rm -rf '" OUT "/w' && mkdir -p '" OUT "/w'"), 0);
    agent_secrets *sec = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_OK(agent_secrets_create(&sec, err));
    CHECK_OK(agent_secrets_add(sec, "hunter2-Secret"));
    cJSON *v = cJSON_Parse("{\"title\": \"The Quiet Harbour\", \"price\": 12.5, \"note\": "
                           "\"typed hunter2-Secret\"}");
    CHECK_OK(agent_answer_write(OUT "/w", v, sec, err));
    uint8_t *text = NULL;
    size_t n = 0;
    CHECK_OK(base_read_file(OUT "/w/answer.json", &text, &n, 1 << 20, err));
    cJSON *back = text ? cJSON_ParseWithLength((const char *)text, n) : NULL;
    CHECK(back && cJSON_GetObjectItem(back, "price")->valuedouble == 12.5);
    CHECK_MSG(text && !strstr((char *)text, "hunter2") && strstr((char *)text, "********"),
              "%s", text ? (char *)text : "");
    CHECK(text && n > 1 && text[n - 1] == '\n');
    CHECK(text && strchr((char *)text, '\t') != NULL); /* pretty-printed for people */
    cJSON_Delete(back);
    base_free(text);
    /* No folder: nothing written, not an error. */
    CHECK_OK(agent_answer_write(NULL, v, sec, err));
    /* A folder that cannot be written: lost output. */
    base_out_lost_reset();
    CHECK_EQ(agent_answer_write(OUT "/w/no/such/dir", v, sec, err), BASE_EIO);
    char lost[512] = "";
    CHECK(base_out_lost_get(lost, sizeof lost));
    CHECK_MSG(strstr(lost, "answer.json") != NULL, "%s", lost);
    base_out_lost_reset();
    cJSON_Delete(v);
    agent_secrets_destroy(sec);
}

static const check_case cases[] = {{"load", load},
                                   {"check", check_answers},
                                   {"prompt", prompt},
                                   {"write", write_file},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
