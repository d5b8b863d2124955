'use strict';
// Where the event loop's delay goes (node/bench/agent-worker.js --trace).
//
// The kernel keeps, per thread, the time it ran on a CPU and the time it
// sat runnable in a run queue (/proc/<pid>/task/<tid>/schedstat: on-CPU
// ns, run-queue ns, timeslices).  Sampled on every tick of a 1 ms timer
// on the loop thread, the difference between two ticks splits the gap
// between them into:
//   cpu    the loop thread ran (JavaScript, the start, GC on this thread)
//   runq   it was runnable and waiting for a CPU (other threads, processes)
//   other  it slept or was blocked (epoll_wait's timeout, a lock, I/O)
// A delayed tick (gap well above the 1 ms period) says which of the three
// made it late.  The same split is taken around every start (execFile's
// synchronous return, `hold`) and GC pauses are recorded with their times.
const fs = require('node:fs');
const { performance, PerformanceObserver } = require('node:perf_hooks');

const PERIOD_MS = 1;

function openStat() {
  return fs.openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
}

const buf = Buffer.alloc(96);

// [on-CPU ms, run-queue ms, times switched in] of the loop thread, from
// the kernel (fd: openStat()).
function readStat(fd) {
  const n = fs.readSync(fd, buf, 0, buf.length, 0);
  const f = buf.toString('latin1', 0, n).split(' ');
  return [Number(f[0]) / 1e6, Number(f[1]) / 1e6, Number(f[2])];
}

function quantile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// Sums of a list of {wall, cpu, runq} over the entries with wall >= min.
function split(list, min) {
  const sel = list.filter((e) => e.wall >= min);
  const sum = (k) => sel.reduce((a, e) => a + (e[k] ?? 0), 0);
  const wall = sum('wall');
  const cpu = sum('cpu');
  const runq = sum('runq');
  const r = (x) => Math.round(x * 100) / 100;
  return { n: sel.length, min_ms: r(min), wall_ms: r(wall), cpu_ms: r(cpu), runq_ms: r(runq),
    other_ms: r(wall - cpu - runq), gc_ms: r(sel.reduce((a, e) => a + (e.gc ?? 0), 0)),
    starts_n: sum('starts_n'), starts_ms: r(sum('starts_ms')), dones_n: sum('dones_n'), dones_ms: r(sum('dones_ms')) };
}

class LoopTrace {
  constructor() {
    this.fd = openStat();
    this.ticks = []; // {t, wall, cpu, runq}: the gap ending at t
    this.holds = []; // {t, wall, cpu, runq}: one start each
    this.gcs = []; // {t, dur, kind}
    this.dones = []; // {t, wall}: one completion callback each (t: its end)
    this.timer = null;
    this.obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.gcs.push({ t: e.startTime, dur: e.duration, kind: e.detail?.kind ?? e.kind });
    });
  }

  start() {
    this.holds.length = 0;
    this.window = [process.hrtime.bigint()];
    this.perf0 = performance.now(); // the same moment as window[0]
    this.obs.observe({ entryTypes: ['gc'] });
    let [cpu, runq] = readStat(this.fd);
    let t = performance.now();
    const tick = () => {
      const now = performance.now();
      const [c, q] = readStat(this.fd);
      this.ticks.push({ t: now, wall: now - t, cpu: c - cpu, runq: q - runq });
      t = now;
      cpu = c;
      runq = q;
    };
    this.timer = setInterval(tick, PERIOD_MS);
  }

  stop() {
    this.window.push(process.hrtime.bigint());
    clearInterval(this.timer);
    this.obs.disconnect();
  }

  // fn() timed as a start: wall, and the loop thread's on-CPU and run-queue time.
  hold(fn) {
    const [c0, q0] = readStat(this.fd);
    const t0 = performance.now();
    const r = fn();
    const t1 = performance.now();
    const [c1, q1] = readStat(this.fd);
    this.holds.push({ t: t1, wall: t1 - t0, cpu: c1 - c0, runq: q1 - q0 });
    return r;
  }

  // A completion callback that ran from t0 to now.
  done(t0) {
    const t1 = performance.now();
    this.dones.push({ t: t1, wall: t1 - t0 });
  }

  // Starts and completion callbacks ending inside each tick's gap: how many, how long.
  attributeEvents() {
    const inside = (list, key) => {
      let j = 0;
      for (const k of this.ticks) {
        const lo = k.t - k.wall;
        while (j < list.length && list[j].t < lo) j++;
        let n = 0;
        let ms = 0;
        for (let i = j; i < list.length && list[i].t <= k.t; i++) {
          n++;
          ms += list[i].wall;
        }
        k[`${key}_n`] = n;
        k[`${key}_ms`] = ms;
      }
    };
    inside(this.holds, 'starts');
    inside(this.dones, 'dones');
  }

  // GC pause time inside each tick's gap.
  attributeGc() {
    const gcs = [...this.gcs].sort((a, b) => a.t - b.t);
    let j = 0;
    for (const k of this.ticks) {
      const lo = k.t - k.wall;
      while (j < gcs.length && gcs[j].t + gcs[j].dur < lo) j++;
      let gc = 0;
      for (let i = j; i < gcs.length && gcs[i].t < k.t; i++) {
        gc += Math.max(0, Math.min(k.t, gcs[i].t + gcs[i].dur) - Math.max(lo, gcs[i].t));
      }
      k.gc = gc;
    }
  }

  summary() {
    this.attributeGc();
    this.attributeEvents();
    const gaps = this.ticks.map((k) => k.wall).sort((a, b) => a - b);
    const walls = this.holds.map((h) => h.wall).sort((a, b) => a - b);
    const gcDur = this.gcs.map((g) => g.dur).sort((a, b) => a - b);
    const kinds = {};
    for (const g of this.gcs) kinds[g.kind] = (kinds[g.kind] ?? 0) + 1;
    const p99 = quantile(gaps, 99);
    const mono = (t) => Number(this.window[0]) / 1e9 + (t - this.perf0) / 1e3;
    return {
      // for loop_sched.py: this thread, its siblings, the measured window
      // in CLOCK_MONOTONIC seconds (perf sched record -k CLOCK_MONOTONIC)
      main_tid: process.pid,
      threads: fs.readdirSync('/proc/self/task').map(Number),
      window_s: this.window.map((t) => Number(t) / 1e9),
      // the slowest 1 % of the ticks, as [from, to] in the same clock
      slow_ticks_s: this.ticks.filter((k) => k.wall >= p99).map((k) => [mono(k.t - k.wall), mono(k.t)]),
      ticks: this.ticks.length,
      // delayed ticks: the slowest 1 % (what a p99 is made of), and > 5 ms
      tick_p99_ms: p99,
      tick_top1: split(this.ticks, p99),
      tick_over5: split(this.ticks, 5 + PERIOD_MS),
      all: split(this.ticks, 0),
      // starts: every one, and the slowest 10 %
      hold_all: split(this.holds, 0),
      hold_top10: split(this.holds, quantile(walls, 90)),
      slow: this.ticks.filter((k) => k.wall >= p99).map((k) => Object.fromEntries(
        Object.entries(k).map(([a, b]) => [a, Math.round(b * 100) / 100]))),
      done_all: split(this.dones, 0),
      gc: { n: this.gcs.length, total_ms: gcDur.reduce((a, x) => a + x, 0), max_ms: gcDur[gcDur.length - 1] ?? 0,
        p99_ms: quantile(gcDur, 99), kinds },
    };
  }
}

module.exports = { LoopTrace, openStat, readStat };
