'use strict';
// How often the event loop loses the CPU inside a start (the synchronous
// part of child_process.execFile), and how much of its run-queue wait
// falls there.  `--calls` starts of `/bin/true` (no output, next to no
// CPU), `--in-flight` outstanding, a new one as each ends; the loop
// thread's schedstat (on-CPU, run-queue ns, switches) is read around each
// start and over the whole run.  Run with or without
// `-r spawnkit/register`; prints one JSON object.  On a busy CPU a new
// child whose wake-up preempts its parent shows up here as starts with a
// switch (see src/spawn/sched_hold.c).
const cp = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { openStat, readStat } = require('./loop-trace');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const calls = arg('calls', 1000);
const inFlight = arg('in-flight', 16);

const fd = openStat();
const stat = () => readStat(fd);

const starts = []; // {wall, runq, switched}
function one() {
  return new Promise((resolve, reject) => {
    const s0 = stat();
    const t0 = performance.now();
    cp.execFile('/bin/true', [], (err) => (err ? reject(err) : resolve()));
    const t1 = performance.now();
    const s1 = stat();
    starts.push({ wall: t1 - t0, runq: s1[1] - s0[1], switched: s1[2] > s0[2] });
  });
}

(async () => {
  let next = 0;
  const lane = async () => {
    while (next++ < calls) await one();
  };
  const s0 = stat();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const wall = performance.now() - t0;
  const s1 = stat();
  const w = starts.map((s) => s.wall).sort((a, b) => a - b);
  const q = (p) => w[Math.min(w.length - 1, Math.ceil((p / 100) * w.length) - 1)];
  const inStarts = starts.reduce((a, s) => a + s.runq, 0);
  let stats = null;
  try {
    stats = require('..').registerStats();
  } catch {
    // no addon: a stock-only run
  }
  process.stdout.write(`${JSON.stringify({
    calls, calls_per_s: calls / (wall / 1000),
    start_ms: { p50: q(50), p90: q(90), p99: q(99) },
    starts_switched_pct: (100 * starts.filter((s) => s.switched).length) / starts.length,
    loop_cpu_ms: s1[0] - s0[0], loop_runq_ms: s1[1] - s0[1], loop_switches: s1[2] - s0[2],
    runq_in_starts_ms: inStarts, runq_in_starts_pct: (100 * inStarts) / Math.max(1e-9, s1[1] - s0[1]),
    stats,
  })}\n`);
})().catch((e) => {
  console.error(`start-switch: FAILED: ${e.message}`);
  process.exit(1);
});
