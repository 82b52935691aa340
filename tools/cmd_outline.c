/* tools/cmd_outline.c: `fovea outline URL` — prints what the model reads
 * of a page (agent/session/outline.h, the get_outline tool): landmark regions,
 * headings, lines with [n]<tag>name</tag> elements (n = the vision mark
 * [Vn]), within the page-text budget. --steps 2 reads the page twice, as
 * the agent's second step would: unchanged regions collapse to one line.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/tool.h"
#include "tools/cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: fovea outline URL [--site DIR] [options]\n\n"
               "Prints the page as the model reads it (the get_outline tool).\n\n"
               "  --json           the tool's whole answer as JSON (text and counts)\n"
               "  --mode M         outline (default) or flat (no regions, no collapsing)\n"
               "  --max-chars N    the page-text budget (default 24000 first view, 8000 "
               "same page)\n"
               "  --steps N        read N times (1..10): later reads collapse unchanged "
               "regions\n"
               "  --focus REGION   print one region in full (\"MAIN\", \"NAV:Primary\", "
               "\"#2\")\n"
               "  --headings       print the table of contents instead\n");
    fputs(cli_browser_opts_help, f);
}

int cli_cmd_outline(int argc, char **argv)
{
    cli_browser_opts bo;
    cli_browser_opts_init(&bo);
    int json = 0, steps = 1, max_chars = 0, headings = 0;
    const char *mode = NULL, *focus = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_browser_opt(&bo, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--headings") == 0) {
            headings = 1;
        } else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
            mode = argv[++i];
            if (strcmp(mode, "flat") != 0 && strcmp(mode, "outline") != 0) {
                fprintf(stderr, "fovea outline: --mode must be outline or flat, got '%s'\n", mode);
                return 2;
            }
        } else if (strcmp(argv[i], "--max-chars") == 0 && i + 1 < argc) {
            if (cli_parse_int("--max-chars", argv[++i], 200, 1000000, &max_chars) < 0)
                return 2;
        } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            if (cli_parse_int("--steps", argv[++i], 1, 10, &steps) < 0)
                return 2;
        } else if (strcmp(argv[i], "--focus") == 0 && i + 1 < argc) {
            focus = argv[++i];
        } else if (argv[i][0] != '-' && !bo.url) {
            bo.url = argv[i];
        } else {
            fprintf(stderr, "fovea outline: unknown option or missing value: %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!bo.url && !bo.site && !bo.cdp) {
        usage(stderr);
        return 2;
    }
    cli_session cs;
    if (cli_session_open(&cs, &bo))
        return 1;
    fovea_session_opts so;
    fovea_session_opts_init(&so);
    so.overlays = AGENT_OVERLAYS_NONE;
    so.humanize = 0;
    fovea_session *s = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (fovea_session_create(cs.page, &so, &s, err) != BASE_OK) {
        fprintf(stderr, "fovea outline: %s\n", err);
        cli_session_close(&cs);
        return 1;
    }
    cJSON *args = cJSON_CreateObject();
    int ok = args != NULL;
    if (ok && mode)
        ok = cJSON_AddStringToObject(args, "mode", mode) != NULL;
    if (ok && max_chars)
        ok = cJSON_AddNumberToObject(args, "max_chars", max_chars) != NULL;
    if (ok && focus)
        ok = cJSON_AddStringToObject(args, "region", focus) != NULL;
    if (!ok) {
        fprintf(stderr, "fovea outline: out of memory\n");
        cJSON_Delete(args);
        fovea_session_destroy(s);
        cli_session_close(&cs);
        return 1;
    }
    if (focus && mode)
        cJSON_DeleteItemFromObjectCaseSensitive(args, "mode");
    const char *tool = headings ? "list_headings" : focus ? "focus_region" : "get_outline";
    if (headings) {
        cJSON_Delete(args);
        args = cJSON_CreateObject();
    }
    int rc = 0;
    for (int k = 0; k < (focus || headings ? 1 : steps) && rc == 0; k++) {
        tool_result r;
        if (!tool_call_json(s, tool, args, &r)) {
            fprintf(stderr, "fovea outline: %s: %s\n", tool_reason_name(r.reason), r.message);
            rc = 1;
        } else if (json) {
            char *t = cJSON_Print(r.data);
            printf("%s\n", t ? t : "null");
            cJSON_free(t);
        } else {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.data, "value");
            if (steps > 1)
                printf("--- step %d ---\n", k + 1);
            fputs(cJSON_IsString(v) ? v->valuestring : "", stdout);
            fprintf(stderr, "fovea outline: %s\n", r.message);
        }
        tool_result_fini(&r);
    }
    cJSON_Delete(args);
    fovea_session_destroy(s);
    cli_session_close(&cs);
    return rc;
}
