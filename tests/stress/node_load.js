'use strict';
// node_load - load on the Node.js addon, each compared with child_process:
// many concurrent runs on one event loop, worker threads each running in a
// loop, and hundreds of distinct programs under a small fd limit (the
// template cache); fds, pidfds, children and RSS before and after.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const {
  PROBE, ROOT, SCALE, Snap, cpOutcome, expect, main, scaled, scenario, sk, skOutcome,
} = require('./node_harness');

const WORKERS = SCALE > 2 ? 16 : 4;

async function concurrent(n, outcome) {
  const t0 = process.hrtime.bigint();
  const got = await Promise.all(Array.from({ length: n }, (_, i) =>
    outcome(PROBE, ['--quiet', '--exit', String(i % 200)])));
  const wrong = got.filter((g, i) => g !== `exit ${i % 200}`).length;
  return { wrong, secs: Number(process.hrtime.bigint() - t0) / 1e9 };
}

scenario('concurrent-runs', async () => {
  const n = scaled(100);
  await concurrent(20, skOutcome);
  const s = new Snap();
  const r = await concurrent(n, skOutcome);
  expect(r.wrong === 0, `${r.wrong} of ${n} concurrent runs wrong`);
  const d = s.check(`${n} concurrent run()`);
  const ref = await concurrent(n, cpOutcome);
  expect(ref.wrong === 0, 'child_process itself wrong');
  return `${d}; ${r.secs.toFixed(2)} s (child_process ${ref.secs.toFixed(2)} s)`;
}, { timeout: 300 });

// Each worker: per sequential runs with its own exit codes; posts wrong count.
const WORKER_SRC = `
const { parentPort, workerData } = require('node:worker_threads');
const sk = require(workerData.root + '/node');
(async () => {
  let wrong = 0;
  for (let i = 0; i < workerData.per; i++) {
    const code = (workerData.id * 37 + i) % 200;
    const r = await sk.run(workerData.probe, ['--quiet', '--exit', String(code)]);
    if (r.code !== code) wrong++;
  }
  parentPort.postMessage(wrong);
})();
`;

function workers(n, per) {
  return Promise.all(Array.from({ length: n }, (_, id) => new Promise((resolve, reject) => {
    const w = new Worker(WORKER_SRC, { eval: true, workerData: { id, per, root: ROOT, probe: PROBE } });
    let wrong = null;
    w.on('message', (m) => { wrong = m; });
    w.on('error', reject);
    w.on('exit', () => resolve(wrong ?? per));
  })));
}

scenario('worker-threads-x-runs', async () => {
  const per = scaled(25);
  await workers(WORKERS, 2);
  const s = new Snap();
  const t0 = Date.now();
  const wrong = (await workers(WORKERS, per)).reduce((a, b) => a + b, 0);
  expect(wrong === 0, `${wrong} of ${WORKERS * per} runs wrong`);
  return `${s.check(`${WORKERS} workers x ${per} runs`)}; ${(Date.now() - t0) / 1000} s`;
}, { timeout: 300 });

scenario('distinct-programs-fd-limit', async () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'skstress.'));
  try {
    const fails = [];
    const ref = await cpOutcome(PROBE, ['--quiet']);
    const before = fs.readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 300; i++) {
      // links of a private copy: a link changes the inode's ctime, and the
      // shared probe must not look replaced to anyone else's templates
      const p = path.join(d, `prog${i}`);
      if (i === 0) fs.copyFileSync(PROBE, p);
      else fs.linkSync(path.join(d, 'prog0'), p);
      const got = await skOutcome(p, ['--quiet', '--exit', String(i % 100)]);
      if (got !== `exit ${i % 100}`) fails.push([i, got]);
    }
    let grown;
    try {
      grown = fs.readdirSync('/proc/self/fd').length - before;
    } catch (e) {
      grown = `? (${e.code} listing them)`;
    }
    expect(fails.length === 0, `${fails.length} of 300 failed under ulimit -n 256, first ` +
      `${JSON.stringify(fails[0])} (child_process: ${ref}); fds +${grown}`);
    expect(typeof grown === 'number' && grown <= 128, `the cache holds ${grown} fds after 300 programs (limit 256)`);
    return `300 programs under ulimit -n 256: all ran; fds +${grown}`;
  } finally {
    sk.clearTemplateCache();
    fs.rmSync(d, { recursive: true, force: true });
  }
}, { timeout: 300, prefix: ['prlimit', '--nofile=256:256'] });

main();
