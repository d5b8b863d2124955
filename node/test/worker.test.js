'use strict';
// spawnkit inside worker_threads: children run and are reaped on the
// worker's own loop, and ending a worker while a child runs neither
// crashes the process (uv_loop_close with an open poll) nor hangs.
const test = require('node:test');
const { nativeTest } = require('./helpers');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const SK = JSON.stringify(path.join(__dirname, '..'));

function startWorker(code) {
  const w = new Worker(code, { eval: true });
  const first = new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  return { w, first };
}

test('run() inside a worker', async () => {
  const { w, first } = startWorker(`
    const sk = require(${SK});
    sk.run('sh', ['-c', 'echo from-worker; exit 3']).then((r) =>
      require('node:worker_threads').parentPort.postMessage(r));`);
  const r = await first;
  assert.equal(r.stdout, 'from-worker\n');
  assert.equal(r.code, 3);
  await w.terminate();
});

nativeTest('terminating a worker while its child runs', async () => {
  const { w, first } = startWorker(`
    const sk = require(${SK});
    const c = new sk.Template('sleep').spawn(['30']);
    require('node:worker_threads').parentPort.postMessage(c.pid);`);
  const pid = await first;
  assert.ok(pid > 0);
  const code = await w.terminate();
  assert.equal(code, 1);
  // Left running, as child_process leaves its children.
  process.kill(pid, 0);
  process.kill(pid, 'SIGKILL');
});
