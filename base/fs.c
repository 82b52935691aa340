/* base/fs.c: mkdir -p, whole-file read, atomic whole-file write. */
/* realpath is an XSI function in glibc's headers. */
#define _XOPEN_SOURCE 700
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"

base_err base_mkdirs(const char *path, int parent_only, char *err)
{
    char buf[1024];
    /* A trailing '/' makes the loop below create the last component too. */
    if (snprintf(buf, sizeof buf, parent_only ? "%s" : "%s/", path) >= (int)sizeof buf)
        return base_errf(err, BASE_EINVAL, "path too long: %.100s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return base_errf(err, BASE_EIO, "mkdir %s: %s", buf, strerror(errno));
        *p = '/';
    }
    return BASE_OK;
}

/* fsync of the directory holding path, so that a rename is durable too. */
static void sync_dir(const char *path)
{
    char dir[1024];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* The atomic write with the file mode the new file gets (before the
 * rename, so that no reader ever sees a wider mode than intended). */
static base_err write_mode(const char *path, const uint8_t *data, size_t n, mode_t mode,
                           char *err)
{
    if (!path || (!data && n))
        return base_errf(err, BASE_EINVAL, "write: no path or data");
    size_t plen = strlen(path);
    char *tmp = base_malloc(plen + 16);
    if (!tmp)
        return base_errf(err, BASE_ENOMEM, "write %s: out of memory", path);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    /* The temporary sits next to the target so that rename() stays within
     * one filesystem and is atomic. */
    int fd = mkstemp(tmp);
    if (fd < 0) {
        base_err e = base_errf(err, BASE_EIO, "write %s: %s", path, strerror(errno));
        base_free(tmp);
        return e;
    }
    size_t off = 0;
    while (off < n) {
        ssize_t k = write(fd, data + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            goto fail;
        off += (size_t)k;
    }
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0)
        goto fail;
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        goto fail;
    base_free(tmp);
    sync_dir(path);
    return BASE_OK;
fail:;
    base_err e = base_errf(err, BASE_EIO, "write %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    base_free(tmp);
    return e;
}

base_err base_dir_writable(const char *dir, char *err)
{
    if (!dir || !dir[0])
        return base_errf(err, BASE_EINVAL, "no output folder");
    base_err e = base_mkdirs(dir, 0, err);
    if (e)
        return e;
    char probe[1100];
    if (snprintf(probe, sizeof probe, "%s/.fovea-probe.XXXXXX", dir) >= (int)sizeof probe)
        return base_errf(err, BASE_EINVAL, "path too long: %.100s", dir);
    int fd = mkstemp(probe);
    if (fd < 0)
        return base_errf(err, BASE_EIO, "cannot write in %s: %s", dir, strerror(errno));
    close(fd);
    unlink(probe);
    return BASE_OK;
}

static pthread_mutex_t lost_mu = PTHREAD_MUTEX_INITIALIZER;
static char lost_what[1024];
static int lost_set;

void base_out_lost(const char *path, const char *why)
{
    pthread_mutex_lock(&lost_mu);
    if (!lost_set) {
        /* base_write_file's own message names the path already: once is
         * enough ("write P: File too large" -> "File too large"). */
        const char *p = path ? path : "?";
        size_t pl = strlen(p);
        if (why && strncmp(why, "write ", 6) == 0 && strncmp(why + 6, p, pl) == 0 &&
            strncmp(why + 6 + pl, ": ", 2) == 0)
            why += 8 + pl;
        snprintf(lost_what, sizeof lost_what, "%.700s: %.300s", p, why ? why : "write failed");
        lost_set = 1;
    }
    pthread_mutex_unlock(&lost_mu);
}

int base_out_lost_get(char *buf, size_t n)
{
    pthread_mutex_lock(&lost_mu);
    int set = lost_set;
    if (set && buf && n)
        snprintf(buf, n, "%s", lost_what);
    pthread_mutex_unlock(&lost_mu);
    return set;
}

void base_out_lost_reset(void)
{
    pthread_mutex_lock(&lost_mu);
    lost_set = 0;
    lost_what[0] = '\0';
    pthread_mutex_unlock(&lost_mu);
}

base_err base_open_out(const char *path, int how, int *fd, char *err)
{
    if (!path || !path[0] || !fd)
        return base_errf(err, BASE_EINVAL, "open: no path");
    /* O_NONBLOCK: a FIFO at path fails at once instead of waiting for a
     * reader (regular files ignore the flag). */
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
                (how == BASE_OUT_APPEND ? O_APPEND : O_TRUNC);
    int f = open(path, flags, 0644);
    if (f < 0 && errno == ELOOP && how == BASE_OUT_APPEND)
        return base_errf(err, BASE_EIO, "%s is a symbolic link: refusing to write through it",
                         path);
    if (f < 0 && errno == ELOOP) {
        /* A link where a new file goes: the link goes, its target stays, and
         * the file is created anew (O_EXCL: a link planted again in between
         * fails the open rather than being followed). */
        if (unlink(path) != 0)
            return base_errf(err, BASE_EIO, "%s is a symbolic link that cannot be removed: %s",
                             path, strerror(errno));
        f = open(path, flags | O_EXCL, 0644);
    }
    if (f >= 0) {
        /* A FIFO or a device at path would block or write elsewhere. */
        struct stat st;
        if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(f);
            return base_errf(err, BASE_EIO, "%s is not a regular file", path);
        }
    }
    if (f < 0)
        return base_errf(err, BASE_EIO, "cannot write %s: %s", path, strerror(errno));
    *fd = f;
    return BASE_OK;
}

base_err base_write_file(const char *path, const uint8_t *data, size_t n, char *err)
{
    return write_mode(path, data, n, 0644, err);
}

base_err base_path_resolve(const char *path, char **out, char *err)
{
    if (!path || !path[0] || !out)
        return base_errf(err, BASE_EINVAL, "resolve: no path");
    char *real = realpath(path, NULL);
    char *r = NULL;
    if (real) {
        r = base_strdup(real);
        free(real); /* realpath allocates with malloc */
    } else if (errno == ENOENT) {
        /* Missing file: the path itself, or a dangling symlink's target
         * (one level, relative to the link's directory), which is where a
         * write through the link must go. */
        struct stat st;
        char link[1024];
        ssize_t k = -1;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            k = readlink(path, link, sizeof link - 1);
        if (k > 0) {
            link[k] = '\0';
            const char *slash = strrchr(path, '/');
            if (link[0] == '/' || !slash) {
                r = base_strdup(link);
            } else {
                size_t dl = (size_t)(slash - path) + 1;
                r = base_malloc(dl + (size_t)k + 1);
                if (r) {
                    memcpy(r, path, dl);
                    memcpy(r + dl, link, (size_t)k + 1);
                }
            }
        } else {
            r = base_strdup(path);
        }
    } else {
        return base_errf(err, BASE_EIO, "resolve %s: %s", path, strerror(errno));
    }
    if (!r)
        return base_errf(err, BASE_ENOMEM, "resolve %s: out of memory", path);
    *out = r;
    return BASE_OK;
}

base_err base_write_file_keep(const char *path, const uint8_t *data, size_t n, char *err)
{
    char *target = NULL;
    base_err e = base_path_resolve(path, &target, err);
    if (e)
        return e;
    struct stat st;
    mode_t mode = stat(target, &st) == 0 ? (st.st_mode & 07777) : 0644;
    e = write_mode(target, data, n, mode, err);
    base_free(target);
    return e;
}

base_err base_read_file(const char *path, uint8_t **out, size_t *n, size_t max, char *err)
{
    if (!path || !out || !n)
        return base_errf(err, BASE_EINVAL, "read: no path or output");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return base_errf(err, errno == ENOENT ? BASE_ENOTFOUND : BASE_EIO, "read %s: %s", path,
                         strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        base_err e = base_errf(err, BASE_EIO, "read %s: %s", path, strerror(errno));
        close(fd);
        return e;
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)max) {
        close(fd);
        return base_errf(err, BASE_ETOOBIG, "read %s: %lld bytes exceed the %zu byte cap", path,
                         (long long)st.st_size, max);
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = base_malloc(len + 1);
    if (!buf) {
        close(fd);
        return base_errf(err, BASE_ENOMEM, "read %s: out of memory", path);
    }
    size_t off = 0;
    while (off < len) {
        ssize_t k = read(fd, buf + off, len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            base_err e = base_errf(err, BASE_EIO, "read %s: %s", path, strerror(errno));
            close(fd);
            base_free(buf);
            return e;
        }
        if (k == 0)
            break; /* the file shrank under us; return what is there */
        off += (size_t)k;
    }
    close(fd);
    buf[off] = 0;
    *out = buf;
    *n = off;
    return BASE_OK;
}

base_err base_path_in_dir(const char *dir, const char *path, char *real, size_t real_n,
                          char *err)
{
    char d[PATH_MAX], f[PATH_MAX];
    if (!dir || !realpath(dir, d))
        return base_errf(err, BASE_ENOTFOUND, "the folder cannot be resolved");
    if (!path || !path[0] || !realpath(path, f))
        return base_errf(err, BASE_ENOTFOUND, "'%.200s' does not exist", path ? path : "");
    size_t dn = strlen(d);
    /* A whole component: "/up" must not admit "/up-other/x". */
    int inside = strncmp(f, d, dn) == 0 && (f[dn] == '/' || (dn == 1 && d[0] == '/'));
    if (!inside)
        return base_errf(err, BASE_EINVAL, "'%.200s' is outside the folder", path);
    struct stat st;
    if (stat(f, &st) != 0 || !S_ISREG(st.st_mode))
        return base_errf(err, BASE_EINVAL, "'%.200s' is not a regular file", path);
    size_t fn = strlen(f);
    if (fn + 1 > real_n)
        return base_errf(err, BASE_ETOOBIG, "'%.200s': path too long", path);
    memcpy(real, f, fn + 1);
    return BASE_OK;
}
