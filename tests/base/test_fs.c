/* tests/base/test_fs.c: the output helpers of base/fs.c a run's files go
 * through (issue 23).
 *
 * open_out_link: a symbolic link planted where an output file goes is never
 *   written through: BASE_OUT_TRUNC replaces the link with a new file (the
 *   link's target keeps its bytes), BASE_OUT_APPEND refuses it; a FIFO is
 *   refused at once instead of blocking.
 * dir_writable: a folder that cannot hold files (its path runs through a
 *   regular file; root ignores permission bits, so that is the portable
 *   case) is named with the reason; a good one is created and left empty.
 * out_lost: the first loss is kept, later ones do not replace it.
 */
#include "check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"

#define DIR FOVEA_BINARY_DIR "/tests/base/out_fs"

static char *slurp(const char *path)
{
    uint8_t *d = NULL;
    size_t n = 0;
    return base_read_file(path, &d, &n, 1 << 20, NULL) == BASE_OK ? (char *)d : NULL;
}

static void put(const char *path, const char *text)
{
    CHECK_OK(base_write_file(path, (const uint8_t *)text, strlen(text), NULL));
}

static void open_out_link(void)
{
    CHECK_EQ(system("rm -rf '" DIR "' && mkdir -p '" DIR "'"), 0);
    put(DIR "/victim.txt", "precious");
    CHECK_EQ(symlink(DIR "/victim.txt", DIR "/trace.jsonl"), 0);
    char err[BASE_ERRBUF_SIZE] = "";
    int fd = -1;
    /* Append: refused, naming the link. */
    CHECK_EQ(base_open_out(DIR "/trace.jsonl", BASE_OUT_APPEND, &fd, err), BASE_EIO);
    CHECK_MSG(strstr(err, "symbolic link") != NULL, "%s", err);
    CHECK_EQ(fd, -1);
    /* Truncate: a new file where the link was; the target is untouched. */
    CHECK_OK(base_open_out(DIR "/trace.jsonl", BASE_OUT_TRUNC, &fd, err));
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, "line\n", 5), 5);
    close(fd);
    struct stat st;
    CHECK_EQ(lstat(DIR "/trace.jsonl", &st), 0);
    CHECK(S_ISREG(st.st_mode));
    char *v = slurp(DIR "/victim.txt");
    CHECK_STR(v ? v : "", "precious");
    base_free(v);
    char *t = slurp(DIR "/trace.jsonl");
    CHECK_STR(t ? t : "", "line\n");
    base_free(t);
    /* Append to a real file appends. */
    CHECK_OK(base_open_out(DIR "/trace.jsonl", BASE_OUT_APPEND, &fd, err));
    CHECK_EQ(write(fd, "more\n", 5), 5);
    close(fd);
    t = slurp(DIR "/trace.jsonl");
    CHECK_STR(t ? t : "", "line\nmore\n");
    base_free(t);
    /* A FIFO does not block the writer. */
    CHECK_EQ(mkfifo(DIR "/fifo.jsonl", 0644), 0);
    CHECK(base_open_out(DIR "/fifo.jsonl", BASE_OUT_APPEND, &fd, err) != BASE_OK);
    /* A dangling link is not followed to create its target either. */
    CHECK_EQ(symlink(DIR "/created-by-link.txt", DIR "/steps.jsonl"), 0);
    CHECK_OK(base_open_out(DIR "/steps.jsonl", BASE_OUT_TRUNC, &fd, err));
    close(fd);
    CHECK(access(DIR "/created-by-link.txt", F_OK) != 0);
}

static void dir_writable(void)
{
    CHECK_EQ(system("rm -rf '" DIR "w' && mkdir -p '" DIR "w' && touch '" DIR "w/file'"), 0);
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK(base_dir_writable(DIR "w/file/out", err) != BASE_OK);
    CHECK_MSG(strstr(err, DIR "w/file") != NULL && strstr(err, "Not a directory") != NULL, "%s",
              err);
    CHECK_OK(base_dir_writable(DIR "w/new/out", err));
    struct stat st;
    CHECK_EQ(stat(DIR "w/new/out", &st), 0);
    CHECK_EQ(system("test -z \"$(ls -A '" DIR "w/new/out')\""), 0);
}

static void out_lost(void)
{
    base_out_lost_reset();
    char buf[256] = "";
    CHECK_EQ(base_out_lost_get(buf, sizeof buf), 0);
    base_out_lost("/o/trace.jsonl", "File too large");
    base_out_lost("/o/report.html", "No space left on device");
    CHECK_EQ(base_out_lost_get(buf, sizeof buf), 1);
    CHECK_STR(buf, "/o/trace.jsonl: File too large");
    base_out_lost_reset();
    CHECK_EQ(base_out_lost_get(NULL, 0), 0);
}

static const check_case cases[] = {{"open_out_link", open_out_link},
                                   {"dir_writable", dir_writable},
                                   {"out_lost", out_lost},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}
