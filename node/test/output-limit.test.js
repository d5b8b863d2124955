'use strict';
// maxBuffer keeps the head and the tail of each stream and counts the rest;
// stdout/stderr mark the cut with the library's marker line (issue 11:
// head and tail joined bare read as if they were the whole output).
const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const sk = require('..');
const { nativeTest } = require('./helpers');

const full = cp.execFileSync('seq', ['1', '200000'], { maxBuffer: 1 << 24 }).toString();

test('head and tail kept, dropped bytes counted', async () => {
  const r = await sk.run('seq', ['1', '200000'], { maxBuffer: 1000, marker: false });
  assert.equal(r.code, 0);
  assert.equal(r.stdout.length, 1000);
  assert.equal(r.stdout, full.slice(0, 500) + full.slice(-500));
  assert.equal(r.stdoutHead, full.slice(0, 500));
  assert.equal(r.stdoutTail, full.slice(-500));
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
  const r = await sk.run('sh', ['-c', 'seq 1 1000; seq 1 1000 >&2'], { maxBuffer: 10, marker: false });
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
  assert.equal(zero.stdoutHead, '');
  assert.equal(zero.stdoutDropped, 4);
  const all = await sk.run('seq', ['1', '200000'], { maxBuffer: Infinity, encoding: 'buffer' });
  assert.ok(Buffer.isBuffer(all.stdout));
  assert.equal(all.stdout.toString(), full);
});

test('execFile rejects a bad maxBuffer', async () => {
  await assert.rejects(sk.execFile('true', [], { maxBuffer: -1 }), { code: 'ERR_OUT_OF_RANGE' });
});

// Documented change: the default puts a marker line where bytes were cut.
// The marker is the C library's (spawnkit_run_output_join): the portable
// fallback, without it, joins head and tail bare (docs/node.md).
nativeTest('text mode: the marker line at a line boundary, the count exact', async () => {
  const r = await sk.run('seq', ['1', '100000'], { maxBuffer: 20 });
  const seq = cp.execFileSync('seq', ['1', '100000'], { maxBuffer: 1 << 24 }).toString();
  const m = /^((?:\d+\n)*)\[\.\.\. (\d+) bytes omitted \.\.\.\]\n((?:\d+\n)*)$/.exec(r.stdout);
  assert.ok(m, JSON.stringify(r.stdout));
  const [, head, n, tail] = m;
  assert.ok(seq.startsWith(head) && seq.endsWith(tail));
  // every byte of the stream is either shown or counted
  assert.equal(head.length + Number(n) + tail.length, seq.length);
  assert.equal(head, '1\n2\n3\n4\n5\n');
  assert.equal(tail, '100000\n');
  assert.equal(r.stdoutDropped, seq.length - 20, 'stdoutDropped: the bytes the capture did not keep');
});

nativeTest('Buffer mode: the marker between the kept bytes, nothing else moved', async () => {
  const r = await sk.run('sh', ['-c', 'printf HEAD; head -c 100000 /dev/zero | tr "\\0" x; printf TAIL'],
    { maxBuffer: 8, encoding: 'buffer' });
  assert.ok(Buffer.isBuffer(r.stdout));
  assert.equal(r.stdout.toString(), 'HEAD[... 100000 bytes omitted ...]TAIL');
  assert.deepEqual([r.stdoutHead.toString(), r.stdoutTail.toString()], ['HEAD', 'TAIL']);
  const bare = await sk.run('sh', ['-c', 'printf HEAD; head -c 100000 /dev/zero | tr "\\0" x; printf TAIL'],
    { maxBuffer: 8, encoding: 'buffer', marker: false });
  assert.equal(bare.stdout.toString(), 'HEADTAIL');
});

nativeTest('text mode: a multi-byte character at the cut never comes out broken', async () => {
  // one long line of "é" (2 bytes each): no newline to cut at, and an odd
  // cap puts both cuts inside a character
  const r = await sk.run('sh', ['-c', 'i=0; while [ $i -lt 2000 ]; do printf "\\303\\251"; i=$((i+1)); done'],
    { maxBuffer: 11 });
  assert.ok(!r.stdout.includes('\ufffd'), JSON.stringify(r.stdout));
  const m = /^(é*)\n\[\.\.\. (\d+) bytes omitted \.\.\.\]\n(é*)$/.exec(r.stdout);
  assert.ok(m, JSON.stringify(r.stdout));
  assert.equal(Buffer.byteLength(m[1]) + Number(m[2]) + Buffer.byteLength(m[3]), 4000);
  assert.ok(m[1].length >= 1 && m[3].length >= 1);
});

test('no marker when nothing was dropped', async () => {
  const r = await sk.run('printf', ['a\nb\n'], { maxBuffer: 4 });
  assert.equal(r.stdout, 'a\nb\n');
  assert.equal(r.stdoutDropped, 0);
});

test('execFile\'s timeout error carries the dropped counts', async () => {
  const err = await sk.execFile('sh', ['-c', 'seq 1 100000; seq 1 100000 >&2; exec sleep 100'],
    { timeout: 500, maxBuffer: 100 }).catch((e) => e);
  assert.equal(err.timedOut, true);
  assert.equal(err.killed, true);
  assert.equal(err.stdoutDropped, 588895 - 100);
  assert.equal(err.stderrDropped, 588895 - 100);
  const seq = cp.execFileSync('seq', ['1', '100000'], { maxBuffer: 1 << 24 }).toString();
  assert.equal(err.stdoutHead, seq.slice(0, 50));
  assert.equal(err.stderrTail, seq.slice(-50));
});
