/* SPDX-License-Identifier: MIT */
/*
 * pathsearch - print where a command name resolves over $PATH, as
 * `command -v NAME` does for an executable, in one batch per name.
 *
 *   pathsearch [-p PATH] NAME...
 *
 * Exit status 0 if every NAME was found, 1 otherwise (nothing printed for a
 * name not found, like `command -v`), 2 on a usage error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spawnkit/batch.h>

int main(int argc, char **argv)
{
	const char *path = NULL;
	char out[PATH_MAX];
	int opt, i, status = 0;

	while ((opt = getopt(argc, argv, "p:")) != -1) {
		if (opt != 'p') {
			fputs("usage: pathsearch [-p PATH] NAME...\n", stderr);
			return 2;
		}
		path = optarg;
	}
	if (optind == argc) {
		fputs("usage: pathsearch [-p PATH] NAME...\n", stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		int ret = spawnkit_pathsearch(argv[i], path, out, sizeof(out));

		if (ret >= 0) {
			puts(out);
		} else {
			if (ret != -ENOENT && ret != -EACCES)
				fprintf(stderr, "pathsearch: %s: %s\n", argv[i],
					strerror(-ret));
			status = 1;
		}
	}
	return status;
}
