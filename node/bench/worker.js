'use strict';
// One benchmark process: make `--resident MiB` of really touched memory,
// then time /bin/true started by each method, interleaved round by round
// (the order rotates each round), every call's exit status checked.
// Prints one JSON object on stdout.
const cp = require('node:child_process');
const fs = require('node:fs');
const sk = require('..');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const residentMiB = arg('resident', 0);
const rounds = arg('rounds', 5);
const calls = arg('calls', 50);
const TARGET = '/bin/true';

function rssMiB() {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(m[1]) / 1024;
}

// Buffers live outside the V8 heap; filling every page makes it resident
// (the kernel would otherwise share one zero page).
const keep = [];
const CHUNK = 64 * 2 ** 20;
const total = residentMiB * 2 ** 20;
for (let done = 0; done < total; done += CHUNK) {
  const b = Buffer.allocUnsafe(Math.min(CHUNK, total - done));
  b.fill(0xa5);
  keep.push(b);
}
const rssBefore = rssMiB();
if (rssBefore < residentMiB) {
  console.error(`bench: wanted ${residentMiB} MiB resident, have ${rssBefore.toFixed(0)} MiB`);
  process.exit(2);
}

function fail(method, what) {
  console.error(`bench: ${method}: a call failed: ${what}`);
  process.exit(3);
}

const tmpl = new sk.Template(TARGET);

const methods = {
  'child_process.spawnSync': async () => {
    const r = cp.spawnSync(TARGET);
    if (r.error || r.status !== 0) fail('spawnSync', r.error ?? r.status);
  },
  'child_process.spawn': () => new Promise((resolve) => {
    const c = cp.spawn(TARGET);
    c.on('error', (e) => fail('spawn', e));
    c.on('close', (code) => (code === 0 ? resolve() : fail('spawn', code)));
  }),
  // Same stdio as child_process.spawn's default: three pipes.
  'spawnkit Template.spawn': () => new Promise((resolve) => {
    const c = tmpl.spawn([], { stdio: 'pipe' });
    c.on('error', (e) => fail('Template.spawn', e));
    c.on('close', (code) => (code === 0 ? resolve() : fail('Template.spawn', code)));
  }),
  // The agent-facing helper: PATH-free absolute path, cached template,
  // stdin /dev/null, captured output.
  'spawnkit run()': async () => {
    const r = await sk.run(TARGET);
    if (r.code !== 0) fail('run', r.code);
  },
};

// The same calls with 16 in flight (an agent's parallel tool calls): only
// throughput is meaningful there, latency includes the queueing.
const INFLIGHT = 16;
const concurrent = {
  'child_process.spawn x16': methods['child_process.spawn'],
  'spawnkit run() x16': methods['spawnkit run()'],
};

async function pool(fn, n) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await fn();
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
}

async function main() {
  const names = Object.keys(methods);
  for (const name of names) await methods[name](); // warm up each path once
  const lat = Object.fromEntries(names.map((n) => [n, []]));
  const rate = Object.fromEntries(names.map((n) => [n, []]));
  const rate16 = {};
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const fn = methods[name];
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) {
        const s = process.hrtime.bigint();
        await fn();
        lat[name].push(Number(process.hrtime.bigint() - s) / 1e6);
      }
      rate[name].push(calls / (Number(process.hrtime.bigint() - t0) / 1e9));
    }
    for (const name of Object.keys(concurrent)) {
      const n = calls * 2;
      const t0 = process.hrtime.bigint();
      await pool(concurrent[name], n);
      (rate16[name] ??= []).push(n / (Number(process.hrtime.bigint() - t0) / 1e9));
    }
  }
  tmpl.close();
  console.log(JSON.stringify({
    residentMiB, rssMiB: Math.round(rssBefore), rssAfterMiB: Math.round(rssMiB()),
    rounds, calls, inflight: INFLIGHT, backend: new sk.Template(TARGET).backend, lat, rate, rate16,
  }));
}

main();
