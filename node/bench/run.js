'use strict';
// make bench: child_process.spawnSync, child_process.spawn (awaited) and
// spawnkit, starting /bin/true from a small parent and from parents with
// 512 MiB and 2 GiB resident.  Each size runs in its own process
// (bench/worker.js); methods are interleaved there.  Prints a table and
// writes build/bench-results.json.  The x16 rows run 2 x calls with 16 in
// flight and report calls/s (their ratio is of calls/s).
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// Fewer calls where fork() is slow, so each size takes about as long.
const CONFIGS = [
  { resident: 0, rounds: 7, calls: 100 },
  { resident: 512, rounds: 7, calls: 30 },
  { resident: 2048, rounds: 7, calls: 10 },
];

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1], n: s.length };
}

const f = (x, d = 2) => x.toFixed(d).padStart(9);
const results = [];
console.log(`spawnkit node bench: /bin/true, kernel ${os.release()}, node ${process.version}, ${os.cpus().length} CPUs`);
console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const c of CONFIGS) {
  const out = cp.execFileSync(process.execPath, [path.join(__dirname, 'worker.js'),
    '--resident', String(c.resident), '--rounds', String(c.rounds), '--calls', String(c.calls)],
  { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
  const r = JSON.parse(out.toString());
  results.push(r);
  console.log(`\nparent resident ${r.rssMiB} MiB (asked ${c.resident} MiB), backend ${r.backend}, ` +
    `${c.rounds} rounds x ${c.calls} calls per method, interleaved`);
  console.log(`${'method'.padEnd(26)}${'calls/s'.padStart(9)}${'min ms'.padStart(9)}${'med ms'.padStart(9)}` +
    `${'max ms'.padStart(9)}${'rate spread'.padStart(14)}${'vs spawn'.padStart(10)}`);
  const base = stats(r.lat['child_process.spawn']).median;
  for (const name of Object.keys(r.lat)) {
    const l = stats(r.lat[name]);
    const rate = stats(r.rate[name]);
    console.log(`${name.padEnd(26)}${f(rate.median, 0)}${f(l.min)}${f(l.median)}${f(l.max)}` +
      `${`${rate.min.toFixed(0)}-${rate.max.toFixed(0)}`.padStart(14)}${f(base / l.median, 1)}x`);
  }
  const base16 = stats(r.rate16['child_process.spawn x16']).median;
  for (const name of Object.keys(r.rate16)) {
    const rate = stats(r.rate16[name]);
    console.log(`${name.padEnd(26)}${f(rate.median, 0)}${'(in flight: calls/s only)'.padStart(36)}` +
      `${`${rate.min.toFixed(0)}-${rate.max.toFixed(0)}`.padStart(14)}${f(rate.median / base16, 1)}x`);
  }
}
const dest = path.join(__dirname, '..', 'build', 'bench-results.json');
fs.mkdirSync(path.dirname(dest), { recursive: true });
fs.writeFileSync(dest, JSON.stringify({ date: new Date().toISOString(), kernel: os.release(), node: process.version, results }, null, 1));
console.log(`\nraw latencies: ${path.relative(process.cwd(), dest)}`);
