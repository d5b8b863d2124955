/* SPDX-License-Identifier: MIT */
/*
 * template_run: make a template once, start the program N times, report
 * each exit status.  Usage: template_run N /abs/path/to/prog [args...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <spawnkit/spawnkit.h>

extern char **environ;

int main(int argc, char **argv)
{
	struct spawnkit_template *t;
	int i, n, ret;

	if (argc < 3) {
		fprintf(stderr, "usage: %s N /abs/path/prog [args...]\n", argv[0]);
		return 2;
	}
	n = atoi(argv[1]);
	ret = spawnkit_template_create(argv[2], 0, &t);
	if (ret < 0) {
		fprintf(stderr, "template %s: %s\n", argv[2], strerror(-ret));
		return 1;
	}
	printf("backend: %s\n", spawnkit_backend_name(spawnkit_template_backend(t)));
	for (i = 0; i < n; i++) {
		int status;
		pid_t pid = spawnkit_spawn(t, argv + 2, environ, NULL, 0, 0, NULL);

		if (pid < 0) {
			fprintf(stderr, "spawn: %s\n", strerror(-pid));
			break;
		}
		waitpid(pid, &status, 0);
		printf("run %d: pid %d exit %d\n", i, pid, WEXITSTATUS(status));
	}
	spawnkit_template_destroy(t);
	return 0;
}
