/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int samples_add(struct samples *s, double us, int round, int iter)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 256;
		double *u = realloc(s->us, (size_t)cap * sizeof(*u));
		unsigned char *r;
		int *it;

		if (!u)
			return -ENOMEM;
		s->us = u;
		r = realloc(s->round, (size_t)cap);
		if (!r)
			return -ENOMEM;
		s->round = r;
		it = realloc(s->iter, (size_t)cap * sizeof(*it));
		if (!it)
			return -ENOMEM;
		s->iter = it;
		s->cap = cap;
	}
	s->us[s->n] = us;
	s->round[s->n] = (unsigned char)round;
	s->iter[s->n] = iter;
	s->n++;
	return 0;
}

void samples_free(struct samples *s)
{
	free(s->us);
	free(s->round);
	free(s->iter);
	memset(s, 0, sizeof(*s));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n), sorting v in place; NAN if n == 0. */
static double median_of(double *v, int n)
{
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void stats_compute(const struct samples *s, int nr_rounds, struct stats *out)
{
	double *v = malloc((size_t)(s->n ? s->n : 1) * sizeof(*v));
	double sum = 0, sq = 0;
	int i, r;

	memset(out, 0, sizeof(*out));
	out->n = s->n;
	if (!v || !s->n) {
		free(v);
		out->min = out->median = out->max = out->mean = out->sd = NAN;
		return;
	}
	for (i = 0; i < s->n; i++)
		sum += s->us[i];
	out->mean = sum / s->n;
	for (i = 0; i < s->n; i++)
		sq += (s->us[i] - out->mean) * (s->us[i] - out->mean);
	out->sd = s->n > 1 ? sqrt(sq / (s->n - 1)) : 0;

	if (nr_rounds > STATS_MAX_ROUNDS)
		nr_rounds = STATS_MAX_ROUNDS;
	out->nr_rounds = nr_rounds;
	out->round_lo = INFINITY;
	out->round_hi = -INFINITY;
	for (r = 0; r < nr_rounds; r++) {
		int k = 0;

		for (i = 0; i < s->n; i++)
			if (s->round[i] == r)
				v[k++] = s->us[i];
		out->round_median[r] = median_of(v, k);
		if (k && out->round_median[r] < out->round_lo)
			out->round_lo = out->round_median[r];
		if (k && out->round_median[r] > out->round_hi)
			out->round_hi = out->round_median[r];
	}

	memcpy(v, s->us, (size_t)s->n * sizeof(*v));
	out->median = median_of(v, s->n);
	out->min = v[0];
	out->max = v[s->n - 1];
	free(v);
}

double stats_paired_ratio(const struct samples *a, const struct samples *b, int *pairs)
{
	double *q = malloc((size_t)(a->n ? a->n : 1) * sizeof(*q)), m;
	int i = 0, j = 0, k = 0;

	*pairs = 0;
	if (!q)
		return NAN;
	while (i < a->n && j < b->n) {
		if (a->iter[i] < b->iter[j])
			i++;
		else if (a->iter[i] > b->iter[j])
			j++;
		else
			q[k++] = a->us[i++] / b->us[j++];
	}
	m = median_of(q, k);
	free(q);
	*pairs = k;
	return m;
}
