/* SPDX-License-Identifier: MIT */
/*
 * resolve.h - which file spawnkit_run() makes its template from: an
 * absolute path, found like execvp finds a program.
 */
#ifndef SPAWNKIT_RUN_RESOLVE_H
#define SPAWNKIT_RUN_RESOLVE_H

#include <stddef.h>
#include <spawnkit/run.h>

/*
 * o->file (or argv[0]): with a '/', that path made absolute against the
 * child's working directory (cwd_fd) or the caller's; without, searched on
 * o->path, else envp's PATH, else the caller's (spawnkit_pathsearch_cwd(3):
 * EACCES when only directories or non-executable files match; relative
 * PATH entries under the child's working directory).
 * 0, or -ENOENT (empty name, not found), -EACCES, -ENAMETOOLONG.
 */
int sk_run_resolve(const struct spawnkit_run_opts *o, char *out, size_t outlen);

#endif
