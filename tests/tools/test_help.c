/* tests/tools/test_help.c: every option a `fovea` command accepts is listed
 * in that command's --help (issue 26, item 8).
 *
 * The options a command accepts are read from the source of its parser:
 * every C string literal in tools/<file>.c whose whole text is an option
 * ("--max-steps", "-h", or "--name=" for --name=VALUE) is one, since the
 * parsers compare argv against such literals (strcmp, flag tables,
 * cli_parse_int's name). Help text never is a bare option literal: it is a
 * sentence or a column row. So a new
 * `strcmp(a, "--cdp-header")` with no help line fails here, whoever adds it;
 * that is the point. Comments are skipped.
 *
 * Which help lists a file's options: tools/cmd_X.c is `fovea X`, except the
 * few files in the table below (run's two forms, capture and serve in one
 * file, bench and its steps subcommand). The shared parsers
 * (int cli_parse_*_opt in tools/browser_opts.c: the browser options, the pool
 * options) accept the option literals of their own bodies: every command that
 * calls one must list those in its help. A tools/ file with options that maps to no
 * command fails too, naming the file to add to the table.
 *
 * Cases:
 * scanner: the literal scanner finds parser options and skips help
 * sentences, comments and character literals (so the check can fail).
 * word_match: an option matches in help only as a whole word (--out is not
 * found in --out-dir).
 * undocumented_fails: a parser with an option no help lists is reported
 * against the real `fovea run --help` (the check fails when it should).
 * commands: every command in fovea.c's table is in `fovea --help`, and its
 * --help exits 0 with something on stdout.
 * every_option_listed: the real check over every tools/ source file.
 *
 * Unit test (no browser): it runs the built `fovea` binary with --help only.
 */
#include "check.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/fs.h"

#define FOVEA_BIN FOVEA_BINARY_DIR "/tools/fovea"
#define TOOLS_DIR FOVEA_SOURCE_DIR "/tools"
#define MAX_OPTS 256
#define OPT_LEN 48
#define BAD_LEN 160
#define MAX_PARSERS 8

/* The options found in one source file, in order, without repeats. */
typedef struct opt_list {
    int n;
    char name[MAX_OPTS][OPT_LEN];
} opt_list;

/* A parser tools/ commands share (cli_parse_browser_opt(...) and the like)
 * and the options it accepts. */
typedef struct shared_parser {
    char call[72];
    opt_list opts;
} shared_parser;

/* Files whose options another command's help lists; '|' separates the
 * commands whose helps together must list them ("" is `fovea --help`). */
static const struct {
    const char *file;
    const char *commands;
} file_commands[] = {
    {"cmd_agent.c", "run"},             /* `fovea run "TASK" --url URL` */
    {"cmd_capture.c", "capture|serve"}, /* both commands live there */
    {"cmd_bench.c", "bench|bench steps"},
    {"fovea.c", ""},
    {"signals.c", NULL},
};

/* Options the help prints itself by being asked. */
static int exempt(const char *o)
{
    return strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0;
}

/* "-x" or "--word-word": the whole text of an option literal. */
static int is_option(const char *s, size_t n)
{
    if (n == 2 && s[0] == '-' && ((s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z')))
        return 1;
    if (n < 3 || n >= OPT_LEN || s[0] != '-' || s[1] != '-' || !(s[2] >= 'a' && s[2] <= 'z'))
        return 0;
    for (size_t i = 2; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return 0;
    }
    return 1;
}

static void opt_add(opt_list *l, const char *s, size_t n)
{
    for (int i = 0; i < l->n; i++) {
        if (strlen(l->name[i]) == n && memcmp(l->name[i], s, n) == 0)
            return;
    }
    if (l->n < MAX_OPTS) {
        memcpy(l->name[l->n], s, n);
        l->name[l->n][n] = '\0';
        l->n++;
    }
}

/* Collects the option literals of C source src (NUL-terminated). */
static void scan_source(const char *src, opt_list *out)
{
    memset(out, 0, sizeof *out);
    const char *p = src;
    while (*p) {
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
        } else if (*p == '\'' || *p == '"') {
            char q = *p++;
            const char *start = p;
            while (*p && *p != q) {
                if (*p == '\\' && p[1])
                    p++;
                p++;
            }
            size_t n = (size_t)(p - start);
            /* "--name=" (a parser that reads --name=VALUE) is the option --name. */
            if (q == '"' && n > 3 && start[n - 1] == '=')
                n--;
            if (q == '"' && is_option(start, n))
                opt_add(out, start, n);
            if (*p)
                p++;
        } else {
            p++;
        }
    }
}

/* Whether opt occurs in text as a whole word: not part of a longer option
 * (--out in --out-dir) or of a word. */
static int listed(const char *text, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt)) {
        char before = p == text ? ' ' : p[-1];
        char after = p[n];
        int word_before = (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
                          (before >= '0' && before <= '9') || before == '-';
        int word_after = (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
                         (after >= '0' && after <= '9') || after == '-' || after == '_';
        if (!word_before && !word_after)
            return 1;
    }
    return 0;
}

/* Runs `fovea ARGS --help` (args: space-separated words, "" for none) and
 * returns its stdout (caller frees with base_free), or NULL when it could
 * not run, exited non-zero or printed nothing. */
static char *help_of(const char *args)
{
    char *argv[8];
    char words[128], bin[] = FOVEA_BIN, help[] = "--help";
    snprintf(words, sizeof words, "%s", args);
    int argc = 0;
    argv[argc++] = bin;
    for (char *w = words; *w && argc < 6;) {
        argv[argc++] = w;
        char *sp = strchr(w, ' ');
        if (!sp)
            break;
        *sp = '\0';
        w = sp + 1;
    }
    argv[argc++] = help;
    argv[argc] = NULL;
    int fd[2];
    if (pipe(fd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    base_buf b;
    base_buf_init(&b, 1u << 20);
    char chunk[4096];
    ssize_t k;
    while ((k = read(fd[0], chunk, sizeof chunk)) > 0) {
        if (base_buf_append(&b, chunk, (size_t)k) != BASE_OK)
            break;
    }
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || b.len == 0 ||
        base_buf_append(&b, "", 1) != BASE_OK) {
        base_buf_fini(&b);
        return NULL;
    }
    return base_buf_steal(&b, NULL);
}

/* The helps of commands ("a|b c"), one after the other; NULL on failure
 * with the command that failed in bad (BAD_LEN bytes). */
static char *helps_of(const char *commands, char *bad)
{
    base_buf all;
    base_buf_init(&all, 4u << 20);
    char list[128];
    snprintf(list, sizeof list, "%s", commands);
    char *cmd = list;
    for (;;) {
        char *bar = strchr(cmd, '|');
        if (bar)
            *bar = '\0';
        char *h = help_of(cmd);
        if (!h || base_buf_append_str(&all, h) != BASE_OK || base_buf_append(&all, "\n", 1)) {
            snprintf(bad, BAD_LEN, "fovea %s --help", cmd);
            base_free(h);
            base_buf_fini(&all);
            return NULL;
        }
        base_free(h);
        if (!bar)
            break;
        cmd = bar + 1;
    }
    if (base_buf_append(&all, "", 1) != BASE_OK) {
        base_buf_fini(&all);
        return NULL;
    }
    return base_buf_steal(&all, NULL);
}

/* Prints each option of l that help does not list, with where it is
 * accepted; returns how many. */
static int report_missing(const opt_list *l, const char *help, const char *file, const char *cmds)
{
    int missing = 0;
    for (int i = 0; i < l->n; i++) {
        if (exempt(l->name[i]) || listed(help, l->name[i]))
            continue;
        char where[160];
        snprintf(where, sizeof where, "%s", cmds);
        for (char *bar = strchr(where, '|'); bar; bar = strchr(bar, '|'))
            *bar = '/';
        fprintf(stderr, "  tools/%s accepts %s, but `fovea %s --help` does not list it\n", file,
                l->name[i], where);
        missing++;
    }
    return missing;
}

static char *read_source(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TOOLS_DIR, file);
    uint8_t *text = NULL;
    size_t n = 0;
    char err[BASE_ERRBUF_SIZE];
    if (base_read_file(path, &text, &n, 4u << 20, err) != BASE_OK)
        return NULL;
    char *s = base_malloc(n + 1);
    if (s) {
        memcpy(s, text, n);
        s[n] = '\0';
    }
    base_free(text);
    return s;
}

static void scanner(void)
{
    static const char src[] =
        "/* --in-comment is not one */\n"
        "// nor \"--line-comment\"\n"
        "static void usage(FILE *f) { fprintf(f, \"  --documented N   what it does\\n\"); }\n"
        "int parse(const char *a) {\n"
        "    static const char *const flags[] = {\"--flag-a\", \"-q\"};\n"
        "    char c = '\"';\n"
        "    if (strcmp(a, \"--with-value\") == 0) return 1;\n"
        "    if (strncmp(a, \"--eq=\", 5) == 0) return 2;\n"
        "    return cli_parse_int(\"--n\", a, 1, 2, 0) + (c == '-') + (flags[0] != 0);\n"
        "}\n";
    opt_list l;
    scan_source(src, &l);
    CHECK_EQ(l.n, 5);
    CHECK(strcmp(l.name[0], "--flag-a") == 0);
    CHECK(strcmp(l.name[1], "-q") == 0);
    CHECK(strcmp(l.name[2], "--with-value") == 0);
    CHECK(strcmp(l.name[3], "--eq") == 0);
    CHECK(strcmp(l.name[4], "--n") == 0);
}

static void word_match(void)
{
    CHECK(listed("  --out DIR   output folder\n", "--out"));
    CHECK(!listed("  --out-dir DIR   output folder\n", "--out"));
    CHECK(listed("  --cdp URL, --headful as for scripted runs", "--headful"));
    CHECK(listed("(--planner andor)", "--planner"));
    CHECK(!listed("  --no-humanize\n", "--humanize"));
    CHECK(!listed("see fovea-run --json_x", "--json"));
}

static void undocumented_fails(void)
{
    static const char parser[] = "if (strcmp(a, \"--max-steps\") == 0) n = 1;\n"
                                 "else if (strcmp(a, \"--zzz-undocumented\") == 0) z = 1;\n";
    opt_list l;
    scan_source(parser, &l);
    CHECK_EQ(l.n, 2);
    char bad[BAD_LEN] = "";
    char *help = helps_of("run", bad);
    CHECK_MSG(help != NULL, "%s failed", bad);
    fprintf(stderr, "(the next line is expected: the check must name the option)\n");
    int missing = report_missing(&l, help, "(synthetic parser)", "run");
    base_free(help);
    CHECK_EQ(missing, 1);
}

static void commands(void)
{
    char *src = read_source("fovea.c");
    CHECK(src != NULL);
    char bad[BAD_LEN] = "";
    char *top = helps_of("", bad);
    CHECK_MSG(top != NULL, "%s failed", bad);
    int n = 0, failed = 0;
    /* Table rows look like {"run", cli_cmd_run, "..."}. */
    for (const char *p = strstr(src, "{\""); p; p = strstr(p + 2, "{\"")) {
        const char *q = strchr(p + 2, '"');
        if (!q || strncmp(q, "\", cli_cmd_", 11) != 0)
            continue;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(q - p - 2), p + 2);
        n++;
        char line[48];
        snprintf(line, sizeof line, "  %s ", name);
        if (!strstr(top, line)) {
            fprintf(stderr, "  `fovea --help` does not list the command %s\n", name);
            failed++;
        }
        char *h = helps_of(name, bad);
        if (!h) {
            fprintf(stderr, "  %s exits non-zero or prints nothing on stdout\n", bad);
            failed++;
        }
        base_free(h);
    }
    base_free(top);
    base_free(src);
    CHECK(n >= 10);
    CHECK_EQ(failed, 0);
}

/* The commands whose help must list tools/file's options ("" = none known);
 * NULL for files with no options of their own. */
static const char *commands_of(const char *file, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof file_commands / sizeof file_commands[0]; i++) {
        if (strcmp(file, file_commands[i].file) == 0)
            return file_commands[i].commands;
    }
    size_t len = strlen(file);
    if (strncmp(file, "cmd_", 4) == 0 && len > 6) {
        snprintf(buf, n, "%.*s", (int)(len - 6), file + 4);
        return buf;
    }
    snprintf(buf, n, "?");
    return buf;
}

static void every_option_listed(void)
{
    DIR *d = opendir(TOOLS_DIR);
    CHECK_MSG(d != NULL, "cannot open %s", TOOLS_DIR);
    /* The shared option parsers (cli_parse_browser_opt, cli_parse_pool_opt...)
     * and the options each accepts: the literals of its body. */
    static shared_parser parsers[MAX_PARSERS];
    int n_parsers = 0;
    char browser_file[256] = "";
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0)
            continue;
        char *src = read_source(e->d_name);
        for (const char *p = src ? strstr(src, "\nint cli_parse_") : NULL; p && n_parsers < MAX_PARSERS;
             p = strstr(p + 1, "\nint cli_parse_")) {
            const char *name = p + 5, *paren = strchr(name, '(');
            const char *body = strstr(p, "\n{"), *end = body ? strstr(body, "\n}") : NULL;
            if (!paren || !end || paren - name < 6 || paren - name >= 64 ||
                strncmp(paren - 4, "_opt", 4) != 0)
                continue;
            shared_parser *sp = &parsers[n_parsers++];
            snprintf(sp->call, sizeof sp->call, "%.*s(", (int)(paren - name), name);
            char *copy = base_malloc((size_t)(end - body) + 1);
            if (copy) {
                memcpy(copy, body, (size_t)(end - body));
                copy[end - body] = '\0';
                scan_source(copy, &sp->opts);
                base_free(copy);
            }
            snprintf(browser_file, sizeof browser_file, "%s", e->d_name);
        }
        base_free(src);
    }
    rewinddir(d);
    if (n_parsers == 0)
        closedir(d);
    CHECK_MSG(n_parsers > 0, "no tools/ file defines a shared parser cli_parse_*_opt");
    int missing = 0, files = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0)
            continue;
        char *src = read_source(e->d_name);
        if (!src) {
            fprintf(stderr, "  cannot read tools/%s\n", e->d_name);
            missing++;
            continue;
        }
        opt_list l;
        scan_source(src, &l);
        int is_browser = strcmp(e->d_name, browser_file) == 0;
        int uses[MAX_PARSERS];
        for (int k = 0; k < n_parsers; k++)
            uses[k] = !is_browser && strstr(src, parsers[k].call) != NULL;
        base_free(src);
        char buf[64];
        const char *cmds = is_browser ? NULL : commands_of(e->d_name, buf, sizeof buf);
        if (!cmds)
            continue;
        int own = 0;
        for (int i = 0; i < l.n; i++)
            own += !exempt(l.name[i]);
        if (strcmp(cmds, "?") == 0) {
            if (own) {
                fprintf(stderr, "  tools/%s accepts options (%s...) but no command is known for "
                                "it: add it to file_commands in tests/tools/test_help.c\n",
                        e->d_name, l.name[0]);
                missing++;
            }
            continue;
        }
        char bad[BAD_LEN] = "";
        char *help = helps_of(cmds, bad);
        if (!help) {
            fprintf(stderr, "  %s exits non-zero or prints nothing on stdout\n", bad);
            missing++;
            continue;
        }
        files++;
        missing += report_missing(&l, help, e->d_name, cmds);
        for (int k = 0; k < n_parsers; k++) {
            if (uses[k])
                missing += report_missing(&parsers[k].opts, help, browser_file, cmds);
        }
        base_free(help);
    }
    closedir(d);
    CHECK(files >= 10);
    CHECK_MSG(missing == 0, "%d option(s) accepted but not in their command's --help", missing);
}

static const check_case cases[] = {
    {"scanner", scanner},
    {"word_match", word_match},
    {"undocumented_fails", undocumented_fails},
    {"commands", commands},
    {"every_option_listed", every_option_listed},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
