/* SPDX-License-Identifier: MIT */
/*
 * self.c - one scenario of each bad verdict, to show the C harness counts
 * them (tests/stress/harness_check.sh): a hang, a crash, a leak, a wrong
 * result, and one that passes.
 */
#include "stress.h"

static int hang(void)
{
	for (;;)
		pause();
	return SV_OK;
}

static int crash(void)
{
	raise(SIGSEGV);
	return SV_OK;
}

static int leak(void)
{
	struct snap s = snap_take();

	if (dup(0) < 0)
		return SV_WRONG;
	return snap_verdict(&s, "one dup", 0);
}

static int wrong(void)
{
	EXPECT(1 + 1 == 3, "1 + 1 is not 3");
	return SV_OK;
}

static int fine(void)
{
	note("nothing to see");
	return SV_OK;
}

static const struct scenario scenarios[] = {
	{ "hang", hang, 1 },
	{ "crash", crash, 10 },
	{ "leak", leak, 10 },
	{ "wrong", wrong, 10 },
	{ "ok", fine, 10 },
	{ NULL, NULL, 0 }
};

int main(int argc, char **argv)
{
	return st_main("self", scenarios, argc, argv);
}
