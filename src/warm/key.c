/* SPDX-License-Identifier: MIT */
/*
 * key.c - which warm interpreter may serve a call.
 *
 * One warm interpreter serves only calls whose start-up it has already done:
 * the same interpreter file (realpath and identity), the same argv[0] (it
 * decides sys.executable, and PATH does too when argv[0] has no "/"), the
 * same flags before the script, and the same values of the variables
 * CPython reads while starting (PYTHON*, _PYTHON*, LC_*, LANG, LANGUAGE,
 * HOME, VIRTUAL_ENV, TZ).  Every other variable is per call.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "warm/warm_int.h"

/* Variables whose effect happens at start-up or exit: such calls run cold. */
static const char *const cold_vars[] = {
	"PYTHONINSPECT", "PYTHONVERBOSE", "PYTHONPROFILEIMPORTTIME",
	"PYTHONFAULTHANDLER", "PYTHONTRACEMALLOC", "PYTHONDEVMODE",
	"PYTHONMALLOCSTATS", "PYTHONDUMPREFS", "PYTHONSHOWREFCOUNT",
	"PYTHONPERFSUPPORT", "PYTHONDEBUG", NULL
};

static int name_is(const char *e, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(e, name, n) && e[n] == '=';
}

static int startup_var(const char *e, int want_path)
{
	static const char *const exact[] = { "LANG", "LANGUAGE", "HOME", "VIRTUAL_ENV", "TZ", NULL };
	int i;

	if (!strncmp(e, "PYTHON", 6) || !strncmp(e, "_PYTHON", 7) || !strncmp(e, "LC_", 3))
		return 1;
	for (i = 0; exact[i]; i++)
		if (name_is(e, exact[i]))
			return 1;
	return want_path && name_is(e, "PATH");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 0, or SPAWNKIT_WARM_ENV: an entry the warm child could not reproduce. */
static int check_env(char *const envp[], size_t n)
{
	char **sorted;
	size_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		const char *e = envp[i], *eq = strchr(e, '=');
		int j;

		if (!eq || eq == e)
			return SPAWNKIT_WARM_ENV;
		for (j = 0; cold_vars[j]; j++)
			if (name_is(e, cold_vars[j]) && eq[1])
				return SPAWNKIT_WARM_ENV;
		if (name_is(e, "PYTHONPATH")) {
			const char *p = eq + 1;

			/* relative entries are resolved against the start-up cwd */
			while (*p) {
				if (*p != '/' && *p != ':')
					return SPAWNKIT_WARM_ENV;
				p = strchr(p, ':');
				if (!p)
					break;
				p++;
			}
		}
	}
	/* duplicate names: os.environ and the C environ would disagree */
	sorted = malloc((n + 1) * sizeof(*sorted));
	if (!sorted)
		return SPAWNKIT_WARM_ENV;
	memcpy(sorted, envp, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	for (i = 1; i < n && !ret; i++) {
		size_t a = strcspn(sorted[i - 1], "="), b = strcspn(sorted[i], "=");

		if (a == b && !strncmp(sorted[i - 1], sorted[i], a))
			ret = SPAWNKIT_WARM_ENV;
	}
	free(sorted);
	return ret;
}

struct kbuf {
	char *p;
	size_t len, cap;
	int oom;
};

static void put(struct kbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 1024) + n;
		char *np = realloc(b->p, cap);

		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len++] = '\0';
}

static void puts_(struct kbuf *b, const char *s)
{
	put(b, s, strlen(s));
}

int warm_key_build(const char *path, char *const argv[], char *const envp[],
		   const struct warm_call *c, struct warm_key *k, char **realpath_out)
{
	struct kbuf b = { 0 };
	struct stat st;
	char rp[PATH_MAX], id[128];
	const char **env;
	size_t n = 0, i, m = 0;
	int ret, want_path = !strchr(argv[0], '/'), i2;
	uint64_t h = 1469598103934665603ULL;

	memset(k, 0, sizeof(*k));
	if (stat(path, &st) || !realpath(path, rp))
		return SPAWNKIT_WARM_NOT_PYTHON;
	while (envp[n])
		n++;
	ret = check_env(envp, n);
	if (ret)
		return ret;
	if (argv[0][0] != '/' && !want_path)
		return SPAWNKIT_WARM_ARGS;	/* "./python": sys.executable needs the cwd */
	snprintf(id, sizeof(id), "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	puts_(&b, rp);
	puts_(&b, id);
	puts_(&b, argv[0]);
	for (i2 = 0; i2 < c->nflags; i2++)
		puts_(&b, c->flags[i2]);
	puts_(&b, c->preload ? c->preload : "");
	put(&b, "\1", 1);			/* flags end, env starts */
	env = malloc((n + 1) * sizeof(*env));
	if (!env) {
		free(b.p);
		return SPAWNKIT_WARM_ENV;
	}
	for (i = 0; i < n; i++)
		if (startup_var(envp[i], want_path))
			env[m++] = envp[i];
	qsort(env, m, sizeof(*env), cmp_str);
	for (i = 0; i < m; i++)
		puts_(&b, env[i]);
	free(env);
	if (b.oom) {
		free(b.p);
		return SPAWNKIT_WARM_ENV;
	}
	for (i = 0; i < b.len; i++)
		h = (h ^ (unsigned char)b.p[i]) * 1099511628211ULL;
	k->buf = b.p;
	k->len = b.len;
	k->hash = h;
	if (realpath_out) {
		*realpath_out = strdup(rp);
		if (!*realpath_out) {
			warm_key_free(k);
			return SPAWNKIT_WARM_ENV;
		}
	}
	return 0;
}

void warm_key_free(struct warm_key *k)
{
	free(k->buf);
	k->buf = NULL;
	k->len = 0;
}

char **warm_key_env(const struct warm_key *k)
{
	const char *p = memchr(k->buf, '\1', k->len), *end = k->buf + k->len;
	size_t n = 0;
	char **out;

	if (!p)
		return NULL;
	p += 2;				/* "\1\0" */
	for (const char *q = p; q < end; q += strlen(q) + 1)
		n++;
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return NULL;
	n = 0;
	for (const char *q = p; q < end; q += strlen(q) + 1)
		out[n++] = (char *)q;
	return out;
}
