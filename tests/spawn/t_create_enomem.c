/* SPDX-License-Identifier: MIT */
/*
 * A template made while the process cannot map memory (RLIMIT_AS just
 * above what it has mapped): -ENOMEM, or success, but never -EACCES, which
 * would say the file is not executable.  The user backend maps the file to
 * check it can be mapped; that mmap's ENOMEM used to come back as EACCES.
 */
#include <sys/resource.h>
#include "util.h"

/* Short of address space: -ENOMEM or made, never -EACCES; then made. */
TEST(short_of_memory_is_enomem_never_eacces)
{
	const char *probe = probe_path();
	struct spawnkit_template *t = NULL;
	struct rlimit old, lim;
	int i, ret, enomem = 0;

	getrlimit(RLIMIT_AS, &old);
	for (i = 0; i < 20; i++) {
		lim = old;
		lim.rlim_cur = (rlim_t)vm_size_kb() * 1024;
		if (setrlimit(RLIMIT_AS, &lim))
			TEST_SKIP("cannot lower RLIMIT_AS");
		t = NULL;
		ret = spawnkit_template_create(probe, 0, &t);
		setrlimit(RLIMIT_AS, &old);
		CHECK(ret == 0 || ret == -ENOMEM);
		enomem += ret == -ENOMEM;
		spawnkit_template_destroy(t);
	}
	/* and with room again it works, in the same process */
	ret = spawnkit_template_create(probe, 0, &t);
	CHECK_EQ(ret, 0);
	spawnkit_template_destroy(t);
	printf("%d of 20 creations under the limit gave ENOMEM\n", enomem);
}

TEST_HARNESS_MAIN
