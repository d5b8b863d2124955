'use strict';
// One trial of the Node agent benchmark (bench/agent_tools/node_agent.py):
// hold `--resident` MiB, then run the planned agent-tools calls (a JSON
// file from node_agent.py: argv, cwd, expected stdout and status) through
// child_process.execFile with `--in-flight` calls outstanding, as an agent
// runtime's tool runner does, checking every result.  Measured: each call's
// latency (execFile to its callback), the time execFile itself holds the
// event loop (the synchronous start), and the loop's delay sampled
// throughout (perf_hooks.monitorEventLoopDelay), each as p50/p90/p99/max.
// Run with or without `-r spawnkit/register`; prints one JSON object.
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { performance, monitorEventLoopDelay } = require('node:perf_hooks');
const path = require('node:path');
const { makeResident } = require('./resident');
const { LoopTrace } = require('./loop-trace');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}
const resident = Number(arg('resident', '0'));
const inFlight = Number(arg('in-flight', '16'));
// --child-nice N: each tool's nice value set to N right after its start
// (a diagnostic: how much of the loop's delay is the tools' competition
// for the CPU rather than anything the start does).  Off by default.
const childNice = arg('child-nice', null);
// --wrap 'PROGRAM ARG...': every tool started as PROGRAM ARG... TOOL ARGS
// (a diagnostic: bench/agent_tools/sched_variants.py sets the tools'
// scheduling attributes through a wrapper that execs the tool).
const wrap = arg('wrap', null)?.split(' ').filter(Boolean) ?? [];
// --trace: split the loop's delays and the starts into on-CPU, run-queue
// and blocked time (loop-trace.js).  Off by default: it samples the loop.
const tracer = process.argv.includes('--trace') ? new LoopTrace() : null;
// --trivial: a diagnostic.  Every tool is replaced by `cat` of a file that
// holds its expected output (exit status 0): the same starts and the same
// bytes through the same pipes, next to no CPU in the children.  What is
// left of the loop's delay is then the harness's own work and the start.
const trivial = process.argv.includes('--trivial');
const plan = JSON.parse(fs.readFileSync(arg('plan'), 'utf8'));
let calls = plan.calls.map((c) => ({ ...c, stdout: Buffer.from(c.stdout, 'base64') }));
let trivialDir = null;
if (trivial) {
  trivialDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-trivial-'));
  process.on('exit', () => fs.rmSync(trivialDir, { recursive: true, force: true }));
  const files = new Map();
  calls = calls.map((c) => {
    const key = c.stdout.toString('base64');
    if (!files.has(key)) {
      const f = path.join(trivialDir, `out${files.size}`);
      fs.writeFileSync(f, c.stdout);
      files.set(key, f);
    }
    return { ...c, argv: ['/bin/cat', files.get(key)], returncode: 0 };
  });
}

function sortedLines(buf) {
  const lines = buf.toString('latin1').split(/(?<=\n)/);
  return Buffer.from(lines.sort().join(''), 'latin1');
}

// null if the result is the expected one, else what is wrong (as
// workload.Call.check says it).
function check(c, status, stdout, stderr) {
  if (status !== c.returncode) return `exit status ${status}, expected ${c.returncode}`;
  if (stderr.length) return `unexpected stderr ${stderr.subarray(0, 200)}`;
  const got = c.unordered ? sortedLines(stdout) : stdout;
  if (!got.equals(c.stdout)) return `stdout ${stdout.length} bytes, expected ${c.stdout.length}`;
  return null;
}

const latency = []; // ms, execFile to callback, per call
const startHold = []; // ms, execFile's own return: the loop held by the start

function one(c) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const argv = [...wrap, ...c.argv];
    const start = () => cp.execFile(argv[0], argv.slice(1), { cwd: c.cwd, encoding: 'buffer', maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const tc = performance.now();
        latency.push(tc - t0);
        try {
          return finish(err, stdout, stderr);
        } finally {
          tracer?.done(tc);
        }
      });
    // the result checked (--trace times this: the harness's own work per completion)
    const finish = (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(`${c.argv.join(' ')}: ${err.message}`));
      const bad = check(c, err ? err.code : 0, stdout, stderr);
      return bad ? reject(new Error(`${c.argv.join(' ')} (cwd ${c.cwd}): ${bad}`)) : resolve();
    };
    const child = tracer ? tracer.hold(start) : start();
    startHold.push(performance.now() - t0);
    if (childNice !== null && child.pid) {
      try {
        os.setPriority(child.pid, Number(childNice));
      } catch {
        // gone already: nothing left to compete with
      }
    }
  });
}

// p50/p90/p99/max of ms values (nearest rank).
function quantiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return { p50: at(50), p90: at(90), p99: at(99), max: s[s.length - 1] };
}

async function runAll(list) {
  let next = 0;
  const lane = async () => {
    while (next < list.length) await one(list[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, list.length) }, lane));
}

(async () => {
  const rss = makeResident(resident);
  // Warm-up, untimed: every distinct call once (templates, page cache).
  const seen = new Set();
  await runAll(calls.filter((c) => {
    const k = JSON.stringify([c.argv, c.cwd]);
    return seen.has(k) ? false : seen.add(k);
  }));
  latency.length = 0;
  startHold.length = 0;
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  tracer?.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await runAll(calls);
  const wall = (performance.now() - t0) / 1000;
  h.disable();
  tracer?.stop();
  const cpu = process.cpuUsage(cpu0);
  let stats = null;
  let registerOptions = null;
  try {
    stats = require('..').registerStats();
    registerOptions = require('..').registerOptions();
  } catch {
    // addon not built: a stock-only run
  }
  process.stdout.write(JSON.stringify({
    rssMiB: Math.round(rss), calls: calls.length, wall_s: wall, calls_per_s: calls.length / wall,
    p50_ms: h.percentile(50) / 1e6, p99_ms: h.percentile(99) / 1e6, max_ms: h.max / 1e6,
    loop_ms: { p50: h.percentile(50) / 1e6, p90: h.percentile(90) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 },
    call_ms: quantiles(latency), start_hold_ms: quantiles(startHold),
    parent_cpu_ms_per_call: (cpu.user + cpu.system) / 1000 / calls.length, stats, register_options: registerOptions,
    trace: tracer ? tracer.summary() : null,
  }));
})().catch((e) => {
  console.error(`agent-worker: FAILED: ${e.message}`);
  process.exit(1);
});
