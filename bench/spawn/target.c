/* SPDX-License-Identifier: MIT */
/*
 * target.c - the program every benchmarked spawn starts.
 *
 * A `true` that proves it ran: it exits with the number given as argv[1]
 * (0..255), so the benchmark can tell "our target ran" from a failed exec
 * (127/126/1) or from some other program that happens to exit 0.  Built
 * twice, -static and dynamic, so that the exec cost is ours to know and not
 * a quirk of busybox or coreutils.
 */
int main(int argc, char **argv)
{
	const char *s;
	int n = 0;

	if (argc != 2)
		return 2;
	for (s = argv[1]; *s; s++) {
		if (*s < '0' || *s > '9')
			return 2;
		n = n * 10 + (*s - '0');
		if (n > 255)
			return 2;
	}
	return n;
}
