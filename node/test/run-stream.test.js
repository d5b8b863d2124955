'use strict';
// Streaming (issue 11): onStdout/onStderr see every chunk as it comes while
// run() still captures head and tail; stdin and output are pumped together
// (no deadlock whatever their sizes) in bounded memory; the event loop runs
// on meanwhile (the run is on libuv's thread pool).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const sk = require('..');
const { processState, waitFor, nativeTest } = require('./helpers');

test('onStdout and onStderr get every chunk, in order, and the capture is kept', async () => {
  const out = [];
  const err = [];
  const r = await sk.run('sh', ['-c', 'seq 1 20000; echo oops >&2'], {
    onStdout: (c) => out.push(c),
    onStderr: (c) => err.push(c),
  });
  const seq = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('');
  assert.equal(out.join(''), seq);
  assert.equal(err.join(''), 'oops\n');
  assert.ok(out.every((c) => typeof c === 'string'));
  assert.equal(r.stdout, seq);
  assert.equal(r.stdoutBytes, seq.length);
});

test('chunks are Buffers with encoding: \'buffer\'; a character split between chunks arrives whole in text mode', async () => {
  const bufs = [];
  await sk.run('printf', ['abc'], { encoding: 'buffer', onStdout: (c) => bufs.push(c) });
  assert.ok(bufs.every(Buffer.isBuffer));
  assert.equal(Buffer.concat(bufs).toString(), 'abc');
  // "é" is two bytes; the second comes 200 ms after the first
  const text = [];
  await sk.run('sh', ['-c', "printf '\\303'; sleep 0.2; printf '\\251\\n'"], { onStdout: (c) => text.push(c) });
  assert.equal(text.join(''), 'é\n');
  assert.ok(!text.join('').includes('\ufffd'));
});

test('a callback that throws stops the run and the call fails with its error', async () => {
  const t0 = Date.now();
  const err = await sk.run('sh', ['-c', 'echo first; exec sleep 100'], {
    onStdout: () => { throw new Error('no thanks'); },
  }).catch((e) => e);
  assert.equal(err.message, 'no thanks');
  assert.equal(err.result.signal, 'SIGKILL');
  assert.equal(err.result.stdout, 'first\n');
  assert.ok(Date.now() - t0 < 10000);
});

test('1 MiB of stdin and 100 MB of output: no deadlock, memory bounded', async () => {
  const input = Buffer.alloc(1 << 20, 'x');
  let seen = 0;
  let peak = 0;
  global.gc?.();
  const before = process.memoryUsage().rss;
  const sample = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  // writes all its output before it reads any input: a pump that fed stdin
  // first (or read stdout only after) would deadlock here
  const r = await sk.run('sh', ['-c', 'head -c 100000000 /dev/zero; wc -c'], {
    input,
    encoding: 'buffer',
    onStdout: (c) => { seen += c.length; },
    timeout: 120000,
  });
  clearInterval(sample);
  peak = Math.max(peak, process.memoryUsage().rss);
  assert.equal(r.timedOut, false);
  assert.equal(r.code, 0);
  const count = `${input.length}\n`;
  assert.equal(seen, 100000000 + count.length);
  assert.equal(r.stdoutBytes, seen);
  assert.equal(r.stdoutHead.length + r.stdoutTail.length, 1 << 20, 'the default cap: 1 MiB kept');
  assert.equal(r.stdoutDropped, seen - (1 << 20));
  assert.ok(r.stdout.subarray(-count.length).equals(Buffer.from(count)), 'the tail ends with wc\'s count');
  // 100 MB went through; the process grew by far less (1 MiB kept, a
  // bounded queue of 64 KiB chunks, garbage the GC has not taken yet)
  const growth = (peak - before) / (1 << 20);
  assert.ok(growth < 96, `RSS grew by ${growth.toFixed(1)} MiB`);
});

test('the event loop is not blocked during a run', async () => {
  let fired = 0;
  const timer = setInterval(() => fired++, 20);
  const t0 = Date.now();
  await sk.run('sleep', ['0.3']);
  clearInterval(timer);
  assert.ok(Date.now() - t0 >= 250);
  // ~15 possible; a blocked loop would give 0 or 1
  assert.ok(fired >= 5, `only ${fired} timer ticks during the run`);
});

test('long runs do not hold libuv\'s thread pool (fs goes on; more than 4 overlap)', async () => {
  const t0 = Date.now();
  const runs = Promise.all([1, 2, 3, 4, 5, 6].map(() => sk.run('sleep', ['0.6'])));
  // the pool has 4 threads: runs on it would hold every one of them
  await fs.promises.readFile(__filename);
  const fsMs = Date.now() - t0;
  await runs;
  const took = Date.now() - t0;
  assert.ok(fsMs < 500, `a file read waited ${fsMs} ms behind the runs`);
  assert.ok(took < 1150, `six 0.6 s runs took ${took} ms (four at a time would be 1.2 s)`);
});

nativeTest('a Worker terminated mid-run stops the run and kills its child', async () => {
  const w = new Worker(`
    const sk = require(${JSON.stringify(path.join(__dirname, '..'))});
    const { parentPort } = require('node:worker_threads');
    sk.run('sh', ['-c', 'echo $$; exec sleep 100'], { onStdout: (c) => parentPort.postMessage(c) });
  `, { eval: true });
  const pid = Number(await new Promise((res) => w.once('message', res)));
  const t0 = Date.now();
  await w.terminate();
  assert.ok(Date.now() - t0 < 5000, `terminate took ${Date.now() - t0} ms`);
  assert.ok(await waitFor(() => processState(pid) !== 'alive', 5000), `child ${pid} still runs`);
});

nativeTest('the template cache closing a template mid-run: the run keeps it until it ends', async (t) => {
  t.after(() => sk.configureTemplateCache());
  sk.configureTemplateCache({ maxSize: 1 });
  const runs = [];
  for (let i = 0; i < 10; i++) {
    // each start evicts the other path's template while its runs go on
    runs.push(sk.run(i % 2 ? 'sleep' : '/bin/sleep', ['0.2']), sk.run('sh', ['-c', 'echo $0']));
  }
  const during = sk.run('sleep', ['0.3']);
  sk.clearTemplateCache();
  for (const r of [...await Promise.all(runs), await during]) assert.equal(r.code, 0);
  assert.equal((await sk.run('echo', ['after'])).stdout, 'after\n');
});
