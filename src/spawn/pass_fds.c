/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_actions_pass_fds: the actions that hand a child a chosen set of
 * fds at their own numbers, under the rule that without INHERIT_FDS every
 * fd above 2 is closed after the actions.  Runs in the parent only.
 */
#include <stdlib.h>
#include <spawnkit/spawnkit.h>

#include "common/sys.h"

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

SK_EXPORT int spawnkit_actions_pass_fds(struct spawn_template_action *out, unsigned int room,
					const int *fds, unsigned int nfds)
{
	int sorted[SPAWN_TEMPLATE_ACTIONS_MAX];
	unsigned int i, n = 0, w = 0;
	int scratch, lo = 3;

	if (nfds > SPAWN_TEMPLATE_ACTIONS_MAX || (nfds && !fds) || !out)
		return -EINVAL;
	for (i = 0; i < nfds; i++) {
		if (fds[i] < 0)
			return -EINVAL;
		if (fds[i] > 2)
			sorted[n++] = fds[i];
	}
	qsort(sorted, n, sizeof(int), cmp_int);
	/* drop duplicates */
	for (i = 0; i < n; i++)
		if (!w || sorted[w - 1] != sorted[i])
			sorted[w++] = sorted[i];
	n = w;
	if (room < 3 * n + 1)
		return -ENOSPC;
	if (n && sorted[n - 1] >= SPAWN_TEMPLATE_FD_MAX - 1)
		return -EINVAL;
	scratch = n ? sorted[n - 1] + 1 : 3;	/* above every kept fd */
	w = 0;
	/* dup3 into the fd's own number through a scratch number: the new
	 * entry has no O_CLOEXEC, whatever the parent's had */
	for (i = 0; i < n; i++) {
		spawnkit_action_dup2(&out[w++], sorted[i], scratch, 0);
		spawnkit_action_dup2(&out[w++], scratch, sorted[i], 0);
	}
	/* close the gaps between kept fds, and everything above the last
	 * (the scratch number too) */
	for (i = 0; i < n; i++) {
		if (sorted[i] > lo)
			spawnkit_action_close_range(&out[w++], lo, sorted[i] - 1, 0);
		lo = sorted[i] + 1;
	}
	spawnkit_action_close_range(&out[w++], lo, SPAWN_TEMPLATE_FD_MAX, 0);
	return (int)w;
}
