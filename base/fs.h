/* base/fs.h: file-system helpers: mkdir -p, whole-file read, atomic write. */
#ifndef FOVEA_BASE_FS_H
#define FOVEA_BASE_FS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Creates dir and its missing parents (mkdir -p, mode 0755); an existing
 * directory is fine. With parent_only, only the parents of path are created
 * (for a file about to be written). Borrows path. Any thread. Errors:
 * BASE_EINVAL (path over 1023 bytes), BASE_EIO (a mkdir failed; err names the
 * directory and the reason). */
base_err base_mkdirs(const char *path, int parent_only, char *err);

/* Writes n bytes to path atomically: a temporary file in the same directory is
 * written, fsync'ed and renamed over path (and the directory fsync'ed), so
 * readers and a crash mid-write see the old file or the new one, never a
 * partial one. Borrows path and data. Any thread. Errors: BASE_EINVAL,
 * BASE_ENOMEM, BASE_EIO (message names the path and errno text). */
base_err base_write_file(const char *path, const uint8_t *data, size_t n, char *err);

/* The file a write to path must replace: path with symbolic links resolved
 * (realpath), or, when the file does not exist yet, the target of a dangling
 * symlink at path, or path itself. *out is the caller's (base_free). Any
 * thread. Errors: BASE_EINVAL, BASE_EIO (a component is unreadable, a loop...),
 * BASE_ENOMEM. */
base_err base_path_resolve(const char *path, char **out, char *err);

/* As base_write_file, but for a file the user owns and may have arranged: a
 * symlink at path is written through (its target is replaced, the link stays)
 * and an existing file keeps its permission bits (0600 stays 0600; new files
 * get 0644). Any thread. Errors: as base_write_file and base_path_resolve. */
base_err base_write_file_keep(const char *path, const uint8_t *data, size_t n, char *err);

/* How base_open_out opens a file. */
enum {
    BASE_OUT_TRUNC = 0,  /* a new, empty file (an old one is replaced) */
    BASE_OUT_APPEND = 1, /* appended to (created when missing) */
};

/* Opens an output file for writing without following a symbolic link at
 * path (O_NOFOLLOW, O_CLOEXEC, mode 0644): a link someone planted where the
 * file goes is never written through. With BASE_OUT_TRUNC a link (or any
 * non-regular file) at path is removed and a new file created in its place
 * (O_EXCL), so the link's target is left as it was; with BASE_OUT_APPEND a
 * link is refused, as its target is not this run's file. *fd is the caller's
 * (close). Any thread. Errors: BASE_EINVAL (no path), BASE_EIO (the open
 * failed, or a link with BASE_OUT_APPEND; err names the path and the reason);
 * *fd untouched on failure. */
base_err base_open_out(const char *path, int how, int *fd, char *err);

/* Checks that files can be created in dir before any work starts: creates
 * dir (base_mkdirs) and a temporary file in it, which is removed again.
 * Borrows dir. Any thread. Errors: BASE_EINVAL (path too long), BASE_EIO
 * (err names the folder and the reason: "permission denied", "read-only file
 * system", "not a directory"). */
base_err base_dir_writable(const char *dir, char *err);

/* Lost output. A run that could not write one of its output files (a full
 * disk, a file-size limit, a folder made read-only) must not end as if
 * nothing happened: the writers note the first loss here, skip later writes
 * (one line, not one per record), and the command ends with its own exit
 * status (BASE_EXIT_OUTPUT_LOST) and a line naming the file and the error.
 * One process-wide record, like the stop signal of base/interrupt.h: output
 * belongs to the process, not to one handle. */
#define BASE_EXIT_OUTPUT_LOST 3

/* Notes that path could not be written (why: the error text). Only the first
 * note is kept. Borrows both. Any thread (locked). Errors: none. */
void base_out_lost(const char *path, const char *why);

/* 1 when output was lost, with "PATH: WHY" written to buf (n bytes, may be
 * 0 / NULL); 0 otherwise. Any thread. Errors: none. */
int base_out_lost_get(char *buf, size_t n);

/* Test helper: forgets the loss. Any thread. */
void base_out_lost_reset(void);

/* Reads a whole file of at most max bytes into a new buffer (*out, freed with
 * base_free; NUL-terminated one byte past *n, so text can be used as a string).
 * Any thread. Errors: BASE_EINVAL, BASE_ENOTFOUND (no such file), BASE_EIO
 * (open/read failure), BASE_ETOOBIG (larger than max), BASE_ENOMEM. Out-params
 * untouched on failure. */
base_err base_read_file(const char *path, uint8_t **out, size_t *n, size_t max, char *err);

/* Whether path names a regular file inside the folder dir: both are resolved
 * (realpath: every symlink and ".." followed) and the file's real path must
 * start with the folder's real path as a whole component ("/up" does not
 * admit "/up-other/x"). The resolved path goes to real (real_n bytes), so the
 * caller uses what was checked. Borrows both. Any thread. Errors: BASE_EINVAL
 * (outside the folder, or not a regular file), BASE_ENOTFOUND (path or dir
 * does not resolve), BASE_ETOOBIG (real_n too small); err (optional) says
 * which in one line naming path, never its contents. Out-params untouched on
 * failure. Used for uploads (fovea mcp --upload-dir; the tool layer can call
 * it for fovea run's). */
base_err base_path_in_dir(const char *dir, const char *path, char *real, size_t real_n,
                          char *err);

#endif
