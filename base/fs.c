/* base/fs.c: mkdir -p. */
#include "base/fs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
