/* base/fs.h: small file-system helpers shared by the CLI and the agent. */
#ifndef FOVEA_BASE_FS_H
#define FOVEA_BASE_FS_H

#include "base/err.h"

/* Purpose: creates dir and its missing parents (mkdir -p, mode 0755); an
 * existing directory is fine. With parent_only, only the parents of path are
 * created (for a file about to be written). Ownership: borrows path.
 * Thread: any. Errors: BASE_EINVAL (path over 1023 bytes), BASE_EIO (a mkdir
 * failed; err names the directory and the reason). */
base_err base_mkdirs(const char *path, int parent_only, char *err);

#endif
