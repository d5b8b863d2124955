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
 * from the next candidate in a second batch).
 *
 * The errors are execvp's: EACCES when some candidate exists but cannot be
 * run (not executable, or not a regular file: execve says EACCES for a
 * directory), else ENOENT.  Relative PATH entries (an empty one is ".")
 * name directories under the child's working directory, which the caller
 * may give (spawnkit_pathsearch_cwd) when it differs from ours.
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
			/* a directory (or a device, a fifo): execve would
			 * fail with EACCES; go on after it */
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
	return spawnkit_pathsearch_cwd(name, path_env, NULL, out, outlen);
}

SK_EXPORT int spawnkit_pathsearch_cwd(const char *name, const char *path_env,
				      const char *cwd, char *out, size_t outlen)
{
	size_t nlen, plen, len, clen = 0;
	char **cands = NULL, *buf = NULL, *w;
	const char *p, *colon;
	unsigned int n = 0, max;
	int saw_eacces = 0, ret;

	if (!name || !*name || !out)
		return -EINVAL;
	if (cwd && !*cwd)
		cwd = NULL;
	if (cwd)
		clen = strlen(cwd);
	nlen = strlen(name);
	if (strchr(name, '/')) {
		char *one[1] = { (char *)name };

		if (cwd && name[0] != '/') {	/* under the child's cwd */
			if (clen + 1 + nlen >= PATH_MAX)
				return -ENAMETOOLONG;
			buf = malloc(clen + 1 + nlen + 1);
			if (!buf)
				return -ENOMEM;
			memcpy(buf, cwd, clen);
			buf[clen] = '/';
			memcpy(buf + clen + 1, name, nlen + 1);
			one[0] = buf;
			nlen += clen + 1;
		}
		if (nlen >= PATH_MAX) {
			ret = -ENAMETOOLONG;
		} else {
			ret = search(one, 1, &saw_eacces);
			if (ret == -ENOENT && saw_eacces)
				ret = -EACCES;
		}
		if (ret >= 0 && nlen + 1 > outlen)
			ret = -ENAMETOOLONG;
		if (ret >= 0) {
			memcpy(out, one[0], nlen + 1);
			ret = (int)nlen;
		}
		free(buf);
		return ret;
	}
	if (!path_env)
		path_env = getenv("PATH");
	if (!path_env)
		path_env = DEFAULT_PATH;
	plen = strlen(path_env);
	max = 1;
	for (p = path_env; *p; p++)
		max += *p == ':';
	/* Every candidate is at most "cwd/" + "dir" + "/" + name + NUL, with
	 * an empty dir standing for "." (two bytes more than the dir itself). */
	cands = malloc(max * sizeof(*cands));
	buf = malloc(plen + max * (clen + 1 + nlen + 3));
	if (!cands || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	w = buf;
	for (p = path_env;; p = colon + 1) {
		int rel;

		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		rel = cwd && (len == 0 || *p != '/');
		/* longer ones cannot exist */
		if ((rel ? clen + 1 : 0) + (len ? len : 1) + 1 + nlen < PATH_MAX) {
			cands[n++] = w;
			if (rel) {
				memcpy(w, cwd, clen);
				w += clen;
				*w++ = '/';
			}
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
