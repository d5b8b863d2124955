/* SPDX-License-Identifier: MIT */
/*
 * pathsearch.c - resolve a command name over $PATH in one batch.
 *
 * Every shell and agent runtime does this before it can start a tool: try
 * dir/name for each PATH entry and take the first executable regular file.
 * The batch has two entries per candidate:
 *   faccessat2(AT_FDCWD, cand, X_OK, AT_EACCESS)   error: skip to the next
 *                                                  candidate
 *   statx(AT_FDCWD, cand, 0, STATX_TYPE, &stx)     zero: end the batch
 * so it ends at the first executable candidate, and the caller only has to
 * check the type (a directory is "executable" too: then the search goes on
 * from the next candidate in a second batch, and ends in EACCES rather than
 * ENOENT if no later candidate wins, as execvp's does).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch/batch_int.h"
#include "common/sys.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define PER_BATCH (BATCH_MAX_ENTRIES / 2)

static long run_batch(const struct batch_entry *e, int64_t *res, unsigned int n)
{
	long ret = spawnkit_batch(e, res, n, 0);

	/* A forced io_uring backend cannot run faccessat2: this is a
	 * library-internal search, so use the loop that always exists. */
	if (ret == -EOPNOTSUPP)
		ret = spawnkit_batch_run(SPAWNKIT_BATCH_EMULATOR, e, res, n, 0);
	return ret;
}

/* Search cands[0..n) (NUL-separated strings); index of the winner or -errno. */
static int search(char **cands, unsigned int n, int *saw_eacces)
{
	struct batch_entry e[2 * PER_BATCH];
	int64_t res[2 * PER_BATCH];
	struct statx stx;
	unsigned int first = 0, c, m;
	long last;

	while (first < n) {
		m = n - first < PER_BATCH ? n - first : PER_BATCH;
		for (c = 0; c < m; c++) {
			e[2 * c] = BATCH_CALL4(SYS_faccessat2, AT_FDCWD, cands[first + c],
					       X_OK, AT_EACCESS);
			spawnkit_batch_jump(&e[2 * c], BATCH_ON_ERROR, 1);
			e[2 * c + 1] = BATCH_CALL5(SYS_statx, AT_FDCWD, cands[first + c], 0,
						   STATX_TYPE | STATX_MODE, &stx);
			spawnkit_batch_jump(&e[2 * c + 1], BATCH_ON_ZERO, BATCH_JUMP_END);
		}
		last = run_batch(e, res, 2 * m);
		if (last < 0)
			return (int)last;
		for (c = 0; c <= (unsigned int)last / 2; c++)
			if (res[2 * c] == -EACCES)
				*saw_eacces = 1;
		if ((last & 1) && res[last] == 0) {
			c = (unsigned int)last / 2;
			if (S_ISREG(stx.stx_mode))
				return (int)(first + c);
			/* a directory (or other non-regular file): go on after
			 * it, and say EACCES if nothing better comes, as
			 * execvp does (its execve of a directory fails so) */
			*saw_eacces = 1;
			first += c + 1;
			continue;
		}
		first += m;
	}
	return -ENOENT;
}

SK_EXPORT int spawnkit_pathsearch(const char *name, const char *path_env, char *out,
				  size_t outlen)
{
	size_t nlen, plen, len;
	char **cands = NULL, *buf = NULL, *w;
	const char *p, *colon;
	unsigned int n = 0, max;
	int saw_eacces = 0, ret;

	if (!name || !*name || !out)
		return -EINVAL;
	nlen = strlen(name);
	if (strchr(name, '/')) {
		char *one[1] = { (char *)name };

		if (nlen >= PATH_MAX)
			return -ENAMETOOLONG;
		ret = search(one, 1, &saw_eacces);
		if (ret < 0)
			return ret == -ENOENT && saw_eacces ? -EACCES : ret;
		if (nlen + 1 > outlen)
			return -ENAMETOOLONG;
		memcpy(out, name, nlen + 1);
		return (int)nlen;
	}
	if (!path_env)
		path_env = getenv("PATH");
	if (!path_env)
		path_env = DEFAULT_PATH;
	plen = strlen(path_env);
	max = 1;
	for (p = path_env; *p; p++)
		max += *p == ':';
	/* Every candidate is at most "dir" + "/" + name + NUL, with an empty
	 * dir standing for "." (two bytes more than the dir itself). */
	cands = malloc(max * sizeof(*cands));
	buf = malloc(plen + max * (nlen + 3));
	if (!cands || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	w = buf;
	for (p = path_env;; p = colon + 1) {
		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		if (len + 1 + nlen < PATH_MAX) {	/* longer ones cannot exist */
			cands[n++] = w;
			if (len == 0) {
				*w++ = '.';
			} else {
				memcpy(w, p, len);
				w += len;
			}
			*w++ = '/';
			memcpy(w, name, nlen + 1);
			w += nlen + 1;
		}
		if (!colon)
			break;
	}
	ret = search(cands, n, &saw_eacces);
	if (ret >= 0) {
		len = strlen(cands[ret]);
		if (len + 1 > outlen) {
			ret = -ENAMETOOLONG;
		} else {
			memcpy(out, cands[ret], len + 1);
			ret = (int)len;
		}
	} else if (ret == -ENOENT && saw_eacces) {
		ret = -EACCES;
	}
out:
	free(cands);
	free(buf);
	return ret;
}
