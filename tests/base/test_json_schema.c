/* tests/base/test_json_schema.c: base/json_schema.c — the keywords added for
 * schemas users write (--answer-schema), the open-object mode, and
 * base_json_schema_valid, which refuses what the checker cannot enforce.
 *
 * keywords: anyOf, allOf, const, enum of non-strings, exclusive bounds,
 *   multipleOf, pattern, uniqueItems, min/maxProperties, minLength in
 *   characters, each accepting a good value and refusing a bad one with the
 *   path named.
 * objects: fovea's own schemas stay closed (an unknown key is refused, as
 *   the tool registry relies on); open_objects accepts it; an explicit
 *   additionalProperties false/true/schema wins either way.
 * valid: a schema of the kind users write passes; $ref, not, if/then, a bad
 *   type, a pattern that does not compile, a negative count, tuple items,
 *   an empty anyOf, nesting past 32 levels and a non-object are refused,
 *   each naming the place and the keyword; annotations are accepted.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/json_schema.h"

/* Checks text against schema text; returns the error (0 = accepted) and the
 * message in err. open: JSON Schema's open objects. */
static base_err chk(const char *schema, const char *value, int open, char *err)
{
    cJSON *s = cJSON_Parse(schema);
    cJSON *v = cJSON_Parse(value);
    if (!s || !v) {
        cJSON_Delete(s);
        cJSON_Delete(v);
        snprintf(err, BASE_ERRBUF_SIZE, "bad test JSON: %s / %s", schema, value);
        return BASE_EPROTO;
    }
    base_json_schema_opts o = {NULL, NULL, BASE_JSON_SCHEMA_TEXT_MAX, open};
    err[0] = '\0';
    base_err e = base_json_schema_check("answer", s, v, &o, err);
    cJSON_Delete(s);
    cJSON_Delete(v);
    return e;
}

#define OK(schema, value)                                                                          \
    do {                                                                                           \
        char e_[BASE_ERRBUF_SIZE];                                                                 \
        CHECK_MSG(chk(schema, value, 1, e_) == BASE_OK, "%s refused %s: %s", schema, value, e_); \
    } while (0)
#define BAD(schema, value, words)                                                                  \
    do {                                                                                           \
        char e_[BASE_ERRBUF_SIZE];                                                                 \
        CHECK_MSG(chk(schema, value, 1, e_) == BASE_EINVAL && strstr(e_, words),                  \
                  "%s on %s: '%s' (wanted '%s')", schema, value, e_, words);                       \
    } while (0)

static void keywords(void)
{
    const char *any = "{\"anyOf\": [{\"type\": \"number\"}, {\"type\": \"string\", "
                      "\"pattern\": \"^[0-9]+$\"}]}";
    OK(any, "12.5");
    OK(any, "\"125\"");
    BAD(any, "\"12a\"", "must match the pattern ^[0-9]+$");
    BAD(any, "true", "must be a number");
    const char *all = "{\"allOf\": [{\"type\": \"integer\"}, {\"minimum\": 3}]}";
    OK(all, "4");
    BAD(all, "2", "must be at least 3");
    BAD("{\"const\": \"GBP\"}", "\"EUR\"", "must be \"GBP\"");
    OK("{\"const\": {\"a\": [1, null]}}", "{\"a\": [1, null]}");
    OK("{\"enum\": [true, null, 3]}", "null");
    BAD("{\"enum\": [true, null, 3]}", "false", "must be one of: true, null, 3");
    OK("{\"type\": \"number\", \"exclusiveMinimum\": 0}", "0.01");
    BAD("{\"type\": \"number\", \"exclusiveMinimum\": 0}", "0", "must be more than 0");
    BAD("{\"type\": \"number\", \"exclusiveMaximum\": 5}", "5", "must be less than 5");
    OK("{\"type\": \"number\", \"multipleOf\": 0.01}", "12.5");
    OK("{\"type\": \"number\", \"multipleOf\": 0.01}", "19.99");
    BAD("{\"type\": \"number\", \"multipleOf\": 0.01}", "12.505", "multiple of 0.01");
    OK("{\"type\": \"string\", \"pattern\": \"^978-\"}", "\"978-1-4028-9462-6\"");
    BAD("{\"type\": \"array\", \"uniqueItems\": true}", "[1, {\"a\": 2}, {\"a\": 2}]",
        "the same item twice ([1] and [2])");
    OK("{\"type\": \"array\", \"uniqueItems\": true}", "[1, 2, \"1\"]");
    BAD("{\"type\": \"object\", \"minProperties\": 2}", "{\"a\": 1}", "at least 2 members");
    BAD("{\"type\": \"object\", \"maxProperties\": 1}", "{\"a\": 1, \"b\": 2}",
        "more than 1 members");
    /* Characters, not bytes: "£12" is 3 characters in 4 bytes. */
    OK("{\"type\": \"string\", \"minLength\": 3}", "\"\xc2\xa3\x31\x32\"");
    BAD("{\"type\": \"string\", \"minLength\": 4}", "\"\xc2\xa3\x31\x32\"",
        "at least 4 characters");
    BAD("{\"type\": \"string\", \"minLength\": 1}", "\"\"", "must not be empty");
    /* Paths name where the miss is. */
    BAD("{\"type\": \"object\", \"properties\": {\"items\": {\"type\": \"array\", \"items\": "
        "{\"type\": \"object\", \"properties\": {\"price\": {\"type\": \"number\"}}}}}}",
        "{\"items\": [{\"price\": 1}, {\"price\": \"2\"}]}", "'items[1].price' must be a number");
}

static void objects(void)
{
    const char *s = "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}";
    char e[BASE_ERRBUF_SIZE];
    /* fovea's own schemas: closed. */
    CHECK_EQ(chk(s, "{\"a\": \"x\", \"b\": 1}", 0, e), BASE_EINVAL);
    CHECK_MSG(strstr(e, "argument 'b' is not known (a)") != NULL, "%s", e);
    /* A user's schema: open, as JSON Schema says. */
    CHECK_EQ(chk(s, "{\"a\": \"x\", \"b\": 1}", 1, e), BASE_OK);
    /* additionalProperties decides in both modes. */
    const char *closed = "{\"type\": \"object\", \"properties\": {\"a\": {}}, "
                         "\"additionalProperties\": false}";
    CHECK_EQ(chk(closed, "{\"b\": 1}", 1, e), BASE_EINVAL);
    CHECK(strstr(e, "'b' is not known") != NULL);
    CHECK_EQ(chk("{\"type\": \"object\", \"additionalProperties\": true}", "{\"b\": 1}", 0, e),
             BASE_OK);
    const char *typed = "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"number\"}}";
    CHECK_EQ(chk(typed, "{\"b\": 1, \"c\": 2.5}", 0, e), BASE_OK);
    CHECK_EQ(chk(typed, "{\"b\": \"1\"}", 1, e), BASE_EINVAL);
    CHECK_MSG(strstr(e, "'b' must be a number") != NULL, "%s", e);
    /* required without properties, in a user's schema. */
    CHECK_EQ(chk("{\"required\": [\"title\"]}", "{\"name\": \"x\"}", 1, e), BASE_EINVAL);
    CHECK_MSG(strstr(e, "'title' is required") != NULL, "%s", e);
}

/* base_json_schema_valid on schema text: 0 accepted, else err has words. */
static void refused(const char *schema, const char *words)
{
    cJSON *s = cJSON_Parse(schema);
    CHECK_MSG(s != NULL, "bad test JSON: %s", schema);
    char e[BASE_ERRBUF_SIZE] = "";
    CHECK_MSG(base_json_schema_valid(s, e) == BASE_EINVAL && strstr(e, words),
              "%s: '%s' (wanted '%s')", schema, e, words);
    cJSON_Delete(s);
}

static void valid(void)
{
    const char *good =
        "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"title\": \"Book\", "
        "\"type\": \"object\", \"properties\": {\"title\": {\"type\": \"string\", \"minLength\": "
        "1, \"description\": \"as on the page\"}, \"price\": {\"type\": \"number\", "
        "\"exclusiveMinimum\": 0}, \"currency\": {\"enum\": [\"GBP\", \"EUR\"]}, \"isbn\": "
        "{\"type\": \"string\", \"pattern\": \"^97[89]-\", \"format\": \"isbn\"}, \"tags\": "
        "{\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"uniqueItems\": true}, "
        "\"discount\": {\"type\": [\"number\", \"null\"]}, \"seller\": {\"anyOf\": [{\"type\": "
        "\"string\"}, {\"type\": \"object\", \"additionalProperties\": false, \"properties\": "
        "{\"name\": {\"type\": \"string\"}}}]}}, \"required\": [\"title\", \"price\"], "
        "\"additionalProperties\": false}";
    cJSON *s = cJSON_Parse(good);
    char e[BASE_ERRBUF_SIZE] = "";
    CHECK_MSG(base_json_schema_valid(s, e) == BASE_OK, "%s", e);
    cJSON_Delete(s);
    refused("{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#/$defs/x\"}}}",
            "schema.properties.a: '$ref' is not a keyword");
    refused("{\"not\": {\"type\": \"string\"}}", "'not' is not a keyword");
    refused("{\"if\": {}, \"then\": {}}", "'if' is not a keyword");
    refused("{\"type\": \"text\"}", "'type' must be one of string");
    refused("{\"type\": [\"string\", 3]}", "'type' lists something");
    refused("{\"type\": \"string\", \"pattern\": \"(unclosed\"}", "'pattern' (unclosed");
    refused("{\"type\": \"string\", \"minLength\": -1}", "'minLength' must be a whole number");
    refused("{\"type\": \"array\", \"items\": [{\"type\": \"string\"}]}", "tuples");
    refused("{\"anyOf\": []}", "'anyOf' must be a non-empty list");
    refused("{\"required\": \"title\"}", "'required' must be a list of names");
    refused("{\"type\": \"number\", \"multipleOf\": 0}", "'multipleOf' must be a number above 0");
    refused("[{\"type\": \"string\"}]", "a schema must be a JSON object");
    /* 40 levels of items: past the checker's bound. */
    char deep[2048] = "";
    size_t k = 0;
    for (int i = 0; i < 40; i++)
        k += (size_t)snprintf(deep + k, sizeof deep - k, "{\"items\": ");
    k += (size_t)snprintf(deep + k, sizeof deep - k, "{}");
    for (int i = 0; i < 40; i++)
        k += (size_t)snprintf(deep + k, sizeof deep - k, "}");
    refused(deep, "nested deeper than 32 levels");
}

static const check_case cases[] = {
    {"keywords", keywords}, {"objects", objects}, {"valid", valid}, {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
