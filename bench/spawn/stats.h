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
int samples_add(struct samples *s, double us, int round);
void samples_free(struct samples *s);

void stats_compute(const struct samples *s, int nr_rounds, struct stats *out);

#endif
