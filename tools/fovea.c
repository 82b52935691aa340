/* tools/fovea.c: the `fovea` command line.
 *
 * Each subcommand lives in its own tools/cmd_*.c and is listed in the
 * table below. Subcommands get argv after the subcommand name and return a
 * process exit status: 0 success, 1 the operation failed, 2 usage error.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json_alloc.h"
#include "tools/cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"run", cli_cmd_run, "run a task file (JSON steps), or a task in words for a model "
                         "(\"TASK\" --url URL)"},
    {"batch", cli_cmd_batch, "run many task files at once, each on its own browser or pool"},
    {"capture", cli_cmd_capture, "screenshot a URL or a local site into a PNG/JPEG file"},
    {"overlay", cli_cmd_overlay, "draw numbered Set-of-Marks boxes on a page or a screenshot"},
    {"serve", cli_cmd_serve, "serve a folder on loopback (fixture and demo pages)"},
    {"bench", cli_cmd_bench, "measure CDP round trip, capture, decode, and per-step task latency"},
    {"record", cli_cmd_record, "save a snapper test case (shot, page snapshot, box, target)"},
    {"snaptest", cli_cmd_snaptest, "replay recorded snapper cases offline (or --live); accuracy"},
    {"snap", cli_cmd_snap, "grounding service: JSON box+label lines in, element and point out"},
    {"tools", cli_cmd_tools, "list the tools task files and models call, with their arguments"},
    {"outline", cli_cmd_outline, "print a page as the model reads it: regions, headings, [n] elements"},
    {"mcp", cli_cmd_mcp, "MCP server: fovea's tools for any agent (stdio, or HTTP with --port)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: fovea <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n`fovea <command> --help` lists every option of a command with its default;\n"
               "docs/ in the source tree has a page per command.\n"
               "Environment: FOVEA_CHROMIUM (browser binary), FOVEA_TRACE (e.g. all,-motion).\n");
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    base_alloc_keep_large_buffers(); /* frame buffers are reused, not re-faulted */
    base_json_alloc_install();       /* cJSON through base_malloc (failure injection) */
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* Ctrl-C must leave no browser, profile or tab behind; fovea
             * run also finishes its report first. */
            cli_signals_install(commands[i].fn == cli_cmd_run || commands[i].fn == cli_cmd_batch);
            return commands[i].fn(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "fovea: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
