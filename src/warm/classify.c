/* SPDX-License-Identifier: MIT */
/*
 * classify.c - which argv forms a warm interpreter can run, and which of
 * their arguments are start-up flags (shared by every call of one warm
 * interpreter) rather than per call.
 *
 * CPython's own option parser, restricted: the flags below change nothing
 * that a warm interpreter cannot reproduce per call; every other option
 * (-i, -v, -x, -d, -h, -V, -, --long, -X importtime/dev/faulthandler/
 * tracemalloc/...) sends the call cold, because its effect happens at start
 * or at exit where a warm interpreter has already been or never goes.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "warm/warm_int.h"

/* Flags without an argument that a warm start shares with the call. */
static const char plain_flags[] = "bBEIOPqRsSu";

static int x_option_ok(const char *x)
{
	static const char *const exact[] = {
		"utf8", "utf8=0", "utf8=1", "warn_default_encoding", "no_debug_ranges",
		"frozen_modules=on", "frozen_modules=off", NULL
	};
	static const char *const prefix[] = { "int_max_str_digits=", "pycache_prefix=", NULL };
	int i;

	for (i = 0; exact[i]; i++)
		if (!strcmp(x, exact[i]))
			return 1;
	for (i = 0; prefix[i]; i++)
		if (!strncmp(x, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

static int add_flag(struct warm_call *c, const char *f)
{
	if (c->nflags >= WARM_MAX_FLAGS)
		return SPAWNKIT_WARM_ARGS;
	c->flags[c->nflags++] = f;
	return 0;
}

/* The part of a combined element before position `end` ("-Sc" -> "-S"). */
static int add_prefix(struct warm_call *c, const char *elem, size_t end)
{
	char *b;

	if (end <= 1)
		return 0;
	if (end + 1 > sizeof(c->split[0]) || c->nflags >= WARM_MAX_FLAGS)
		return SPAWNKIT_WARM_ARGS;
	b = c->split[c->nflags];
	memcpy(b, elem, end);
	b[end] = '\0';
	return add_flag(c, b);
}

int warm_classify(char *const argv[], struct warm_call *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	if (!argv || !argv[0])
		return SPAWNKIT_WARM_ARGS;
	for (i = 1; argv[i]; i++) {
		const char *a = argv[i];
		size_t j;

		if (a[0] != '-' || !a[1]) {
			if (a[0] == '-')		/* "-": script from stdin */
				return SPAWNKIT_WARM_ARGS;
			c->mode = WARM_SCRIPT;
			c->payload = a;
			c->rest = i + 1;
			return 0;
		}
		if (a[1] == '-') {
			if (a[2] || !argv[i + 1] || argv[i + 1][0] == '-')
				return SPAWNKIT_WARM_ARGS;	/* --long, or "--" "-x" */
			c->mode = WARM_SCRIPT;		/* "--" is not a start-up flag */
			c->payload = argv[i + 1];
			c->rest = i + 2;
			return 0;
		}
		for (j = 1; a[j]; j++) {
			char o = a[j];

			if (o == 'c' || o == 'm') {
				const char *p = a[j + 1] ? a + j + 1 : argv[i + 1];

				if (!p || add_prefix(c, a, j))
					return SPAWNKIT_WARM_ARGS;
				if (o == 'm' && !*p)
					return SPAWNKIT_WARM_ARGS;
				c->mode = o == 'c' ? WARM_CODE : WARM_MODULE;
				c->payload = p;
				c->rest = a[j + 1] ? i + 1 : i + 2;
				return 0;
			}
			if (o == 'W' || o == 'X') {
				const char *p = a[j + 1] ? a + j + 1 : argv[i + 1];

				if (!p || (o == 'X' && !x_option_ok(p)))
					return SPAWNKIT_WARM_ARGS;
				if (add_flag(c, a))	/* the whole element: "-SWerror" */
					return SPAWNKIT_WARM_ARGS;
				if (!a[j + 1]) {
					if (add_flag(c, argv[++i]))
						return SPAWNKIT_WARM_ARGS;
				}
				break;
			}
			if (!strchr(plain_flags, o))
				return SPAWNKIT_WARM_ARGS;
			if (!a[j + 1] && add_flag(c, a))
				return SPAWNKIT_WARM_ARGS;
		}
	}
	return SPAWNKIT_WARM_ARGS;			/* no script: interactive */
}

/* python, python3 or python3.N (N >= 8) */
int warm_python_name(const char *path)
{
	const char *b = strrchr(path, '/');
	int minor = 0;

	b = b ? b + 1 : path;
	if (strncmp(b, "python", 6))
		return SPAWNKIT_WARM_NOT_PYTHON;
	b += 6;
	if (*b) {
		if (*b++ != '3')
			return SPAWNKIT_WARM_NOT_PYTHON;
		if (*b) {
			if (*b++ != '.' || !*b)
				return SPAWNKIT_WARM_NOT_PYTHON;
			for (; *b; b++) {
				if (*b < '0' || *b > '9')
					return SPAWNKIT_WARM_NOT_PYTHON;
				minor = minor * 10 + (*b - '0');
			}
			if (minor < 8)
				return SPAWNKIT_WARM_NOT_PYTHON;
		}
	}
	return 0;
}

/* The realpath's base name must be a python name and the file an ELF
 * executable (a pyenv shim is a shell script). */
int warm_is_cpython(const char *rp)
{
	unsigned char magic[4];
	int fd, n;

	if (warm_python_name(rp))
		return SPAWNKIT_WARM_NOT_PYTHON;
	fd = open(rp, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SPAWNKIT_WARM_NOT_PYTHON;
	n = (int)read(fd, magic, 4);
	close(fd);
	if (n != 4 || memcmp(magic, "\177ELF", 4))
		return SPAWNKIT_WARM_NOT_PYTHON;
	return 0;
}
