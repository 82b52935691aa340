/* tools/cmd_tools.c: `fovea tools` — the tool registry as a person or a
 * model sees it: one line per tool (name, what it does, the permit it needs,
 * its arguments), or with --json the registry's OpenAI "tools" array (the
 * same schemas that check task-file steps): only the tools the given
 * permits allow, each with the permit it needs ("permission", which the
 * agent does not send). With --model, the brief list the agent's Worker is
 * offered (agent/session/tool_brief.c; more_tools adds the rest). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/tool.h"
#include "tools/cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: fovea tools [--json [--model]] [--allow-scripts] [--upload-dir DIR] [NAME]\n\n"
               "Lists the tools task files and models call, one line each with the permit it\n"
               "needs and its arguments (* = required); NAME prints one tool's JSON Schema\n"
               "(docs/tools.md, docs/security.md).\n\n"
               "  --json            the registry's OpenAI \"tools\" array, each with the\n"
               "                    permit it needs (\"permission\"; default: one line per\n"
               "                    tool)\n"
               "  --model           with --json: what the agent's Worker is offered instead,\n"
               "                    the brief list (short descriptions, narrow schemas) and\n"
               "                    more_tools, whose call adds the rest (docs/models.md)\n"
               "  --allow-scripts   with --json: include the tools that run page JavaScript\n"
               "                    (evaluate_script, run_script, add_init_script; default:\n"
               "                    left out, as a run without --allow-scripts offers them)\n"
               "  --upload-dir DIR  with --json: include upload_file (default: left out, as\n"
               "                    a run without --upload-dir offers it)\n");
}

/* "target*, verb, expect_effect" (* = required). */
static void arg_list(const tool_def *t, char *buf, size_t n)
{
    buf[0] = '\0';
    cJSON *s = cJSON_Parse(t->schema);
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
    size_t k = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        int required = 0;
        const cJSON *r;
        cJSON_ArrayForEach(r, req) required |= cJSON_IsString(r) && strcmp(r->valuestring, p->string) == 0;
        if (k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s%s", k ? ", " : "", p->string,
                                  required ? "*" : "");
    }
    cJSON_Delete(s);
}

int cli_cmd_tools(int argc, char **argv)
{
    int json = 0, model = 0;
    unsigned permits = 0;
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--model") == 0)
            model = 1;
        else if (strcmp(argv[i], "--allow-scripts") == 0)
            permits |= TOOL_PERMIT_SCRIPTS;
        else if (strcmp(argv[i], "--upload-dir") == 0 && i + 1 < argc && ++i)
            permits |= TOOL_PERMIT_UPLOAD;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] != '-' && !name)
            name = argv[i];
        else {
            usage(stderr);
            return 2;
        }
    }
    if (name) {
        const tool_def *t = tool_find(name);
        if (!t) {
            fprintf(stderr, "fovea tools: no tool called '%s'\n", name);
            return 2;
        }
        cJSON *s = cJSON_Parse(t->schema);
        char *txt = s ? cJSON_Print(s) : NULL;
        printf("%s: %s\n%s\n", t->name, t->description, txt ? txt : t->schema);
        cJSON_free(txt);
        cJSON_Delete(s);
        return 0;
    }
    if (json) {
        cJSON *fns = model ? tool_functions_brief_json(permits) : tool_functions_json(permits);
        /* Which permit each needs, for the reader (the agent leaves it out). */
        cJSON *fn = NULL;
        cJSON_ArrayForEach(fn, fns)
        {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(fn, "function");
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(f, "name");
            const tool_def *t = cJSON_IsString(nm) ? tool_find(nm->valuestring) : NULL;
            if (!cJSON_AddStringToObject(fn, "permission", tool_permit_name(t))) {
                cJSON_Delete(fns);
                fns = NULL;
                break;
            }
        }
        char *txt = fns ? cJSON_Print(fns) : NULL;
        cJSON_Delete(fns);
        if (!txt) {
            fprintf(stderr, "fovea tools: out of memory\n");
            return 1;
        }
        printf("%s\n", txt);
        cJSON_free(txt);
        return 0;
    }
    for (int i = 0; i < tool_count(); i++) {
        const tool_def *t = tool_at(i);
        char args[400];
        arg_list(t, args, sizeof args);
        printf("%-24s %s\n%-24s   needs: %s; args: %s\n", t->name, t->description, "",
               tool_permit_name(t), args[0] ? args : "-");
    }
    printf("\nEvery tool also takes timeout_ms, retries, critical, note and save_as.\n"
           "In a task file a step is {\"action\": TOOL, ...args}; click, type, select and\n"
           "dialog are the task words for click_at, type_at, select_option, handle_dialog.\n");
    return 0;
}
