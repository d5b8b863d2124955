/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <spawnkit/batch.h>

#include "common/sys.h"
#include "run/resolve.h"

/* PATH=... of an environment array, or NULL */
static const char *env_path(char *const *envp)
{
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, "PATH=", 5))
			return *envp + 5;
	return NULL;
}

/* The directory relative names start from: cwd_fd's, or ours. */
static int base_dir(int cwd_fd, char *buf, size_t len)
{
	char proc[32];
	long n;

	if (cwd_fd < 0)
		return getcwd(buf, len) ? 0 : -ENAMETOOLONG;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", cwd_fd);
	n = sk_syscall4(SYS_readlinkat, AT_FDCWD, proc, buf, len - 1);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

static int absolute(int cwd_fd, const char *rel, char *out, size_t outlen)
{
	char base[PATH_MAX];
	int ret;

	if (rel[0] == '/') {
		if (strlen(rel) >= outlen)
			return -ENAMETOOLONG;
		strcpy(out, rel);
		return 0;
	}
	ret = base_dir(cwd_fd, base, sizeof(base));
	if (ret)
		return ret;
	if ((size_t)snprintf(out, outlen, "%s/%s", base, rel) >= outlen)
		return -ENAMETOOLONG;
	return 0;
}

int sk_run_resolve(const struct spawnkit_run_opts *o, char *out, size_t outlen)
{
	const char *file = o->file ? o->file : o->argv[0];
	const char *path = o->path;
	char found[PATH_MAX], cwd[PATH_MAX];
	int ret;

	if (!*file)
		return -ENOENT;		/* as execvp("") */
	if (strchr(file, '/'))
		return absolute(o->cwd_fd, file, out, outlen);
	if (!path)
		path = env_path(o->envp);
	if (o->cwd_fd >= 0) {
		/* relative PATH entries name directories under the child's
		 * working directory, as execvp in the child would take them */
		ret = base_dir(o->cwd_fd, cwd, sizeof(cwd));
		if (ret)
			return ret;
	}
	ret = spawnkit_pathsearch_cwd(file, path, o->cwd_fd >= 0 ? cwd : NULL,
				      found, sizeof(found));
	if (ret < 0)
		return ret;
	/* without cwd_fd a relative entry was searched from our directory */
	return absolute(-1, found, out, outlen);
}
