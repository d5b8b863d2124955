/* SPDX-License-Identifier: MIT */
/*
 * stats.h - summary statistics of one method's latency samples.
 */
#ifndef BENCH_SPAWN_STATS_H
#define BENCH_SPAWN_STATS_H

#define STATS_MAX_ROUNDS 16

/* Samples in microseconds, each tagged with the round it was taken in. */
struct samples {
	double *us;
	unsigned char *round;
	int *iter;		/* iteration each sample was taken in (ascending) */
	int n, cap;
};

struct stats {
	int n;
	double min, median, max, mean, sd;	/* microseconds */
	int nr_rounds;
	double round_median[STATS_MAX_ROUNDS];	/* median of each round */
	double round_lo, round_hi;		/* lowest / highest round median */
};

/* 0, or -ENOMEM. */
int samples_add(struct samples *s, double us, int round, int iter);
void samples_free(struct samples *s);

void stats_compute(const struct samples *s, int nr_rounds, struct stats *out);

/*
 * Median over the iterations in which both ran of a[i] / b[i]: a paired
 * ratio, which a slow drift of the machine's load (other jobs starting and
 * stopping) moves much less than the ratio of two overall medians.  NAN if
 * they never ran in the same iteration.  *pairs gets the count.
 */
double stats_paired_ratio(const struct samples *a, const struct samples *b, int *pairs);

#endif
