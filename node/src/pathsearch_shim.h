/* SPDX-License-Identifier: MIT */
/*
 * pathsearch_shim.h - command lookup through the library when it has it.
 *
 * node/Makefile defines SPAWNKIT_HAVE_PATHSEARCH=1 when libspawnkit.a
 * exports spawnkit_pathsearch_cwd (include/spawnkit/batch.h); otherwise
 * lib/resolve.js searches PATH in JavaScript, with the same rules.
 */
#ifndef SPAWNKIT_NODE_PATHSEARCH_SHIM_H
#define SPAWNKIT_NODE_PATHSEARCH_SHIM_H

#include <errno.h>
#include <stddef.h>

#if SPAWNKIT_HAVE_PATHSEARCH
#include <spawnkit/batch.h>
#define PATHSEARCH_NATIVE 1
static inline int pathsearch_shim(const char *name, const char *path,
				  const char *cwd, char *out, size_t outlen)
{
	return spawnkit_pathsearch_cwd(name, path, cwd, out, outlen);
}
#else
#define PATHSEARCH_NATIVE 0
static inline int pathsearch_shim(const char *name, const char *path,
				  const char *cwd, char *out, size_t outlen)
{
	(void)name; (void)path; (void)cwd; (void)out; (void)outlen;
	return -ENOSYS;
}
#endif

#endif
