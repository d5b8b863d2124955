'use strict';
// maxBuffer keeps the head and the tail of each stream and counts the rest.
const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const sk = require('..');

const full = cp.execFileSync('seq', ['1', '200000'], { maxBuffer: 1 << 24 }).toString();

test('head and tail kept, dropped bytes counted', async () => {
  const r = await sk.run('seq', ['1', '200000'], { maxBuffer: 1000 });
  assert.equal(r.code, 0);
  assert.equal(r.stdout.length, 1000);
  assert.equal(r.stdout, full.slice(0, 500) + full.slice(-500));
  assert.equal(r.stdoutBytes, full.length);
  assert.equal(r.stdoutDropped, full.length - 1000);
  assert.ok(r.stdout.startsWith('1\n2\n3\n'));
  assert.ok(r.stdout.endsWith('199999\n200000\n'));
});

test('output under the limit is complete and nothing is dropped', async () => {
  const r = await sk.run('seq', ['1', '200000'], { maxBuffer: full.length });
  assert.equal(r.stdout, full);
  assert.equal(r.stdoutDropped, 0);
});

test('each stream has its own limit', async () => {
  const r = await sk.run('sh', ['-c', 'seq 1 1000; seq 1 1000 >&2'], { maxBuffer: 10 });
  const seq = cp.execFileSync('seq', ['1', '1000']).toString();
  assert.equal(r.stdout, seq.slice(0, 5) + seq.slice(-5));
  assert.equal(r.stderr, seq.slice(0, 5) + seq.slice(-5));
  assert.equal(r.stdoutBytes, r.stderrBytes);
  assert.equal(r.stdoutDropped, r.stdoutBytes - 10);
});

test('the child is not killed by the limit: it runs to its end', async () => {
  const r = await sk.run('sh', ['-c', 'seq 1 100000; echo tail-marker; exit 4'], { maxBuffer: 64 });
  assert.equal(r.code, 4);
  assert.ok(r.stdout.endsWith('tail-marker\n'));
});

test('maxBuffer 0 keeps nothing; Infinity keeps all; buffer encoding', async () => {
  const zero = await sk.run('echo', ['abc'], { maxBuffer: 0 });
  assert.equal(zero.stdout, '');
  assert.equal(zero.stdoutDropped, 4);
  const all = await sk.run('seq', ['1', '200000'], { maxBuffer: Infinity, encoding: 'buffer' });
  assert.ok(Buffer.isBuffer(all.stdout));
  assert.equal(all.stdout.toString(), full);
});

test('execFile rejects a bad maxBuffer', async () => {
  await assert.rejects(sk.execFile('true', [], { maxBuffer: -1 }), { code: 'ERR_OUT_OF_RANGE' });
});
