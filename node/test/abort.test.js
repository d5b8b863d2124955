'use strict';
// AbortSignal: an abort kills the tree and rejects / emits AbortError.
const test = require('node:test');
const assert = require('node:assert/strict');
const sk = require('..');
const { collect, processState, waitFor, nativeTest } = require('./helpers');

test('run() rejects with AbortError and the tree is killed', async () => {
  const ac = new AbortController();
  const p = sk.run('sh', ['-c', 'sleep 30 & echo $!; wait'], { timeout: 600 });
  const p2 = sk.run('sh', ['-c', 'sleep 30 & echo $!; wait'], { signal: ac.signal });
  setTimeout(() => ac.abort(), 200);
  const err = await p2.then(() => null, (e) => e);
  assert.ok(err, 'must reject');
  assert.equal(err.name, 'AbortError');
  assert.equal(err.code, 'ABORT_ERR');
  assert.equal(err.signal, 'SIGKILL');
  const pid = Number(err.stdout.trim());
  assert.ok(pid > 0);
  assert.ok(await waitFor(() => processState(pid) !== 'alive'));
  // The other call, without the signal, ran on until its own timeout.
  const other = await p;
  assert.equal(other.timedOut, true);
});

test('an already aborted signal rejects without starting anything', async () => {
  const ac = new AbortController();
  ac.abort(new Error('stop'));
  const err = await sk.run('true', [], { signal: ac.signal }).catch((e) => e);
  assert.equal(err.name, 'AbortError');
  assert.equal(err.cause.message, 'stop');
  assert.equal(err.pid, undefined);
});

nativeTest('Template.spawn with a signal: error AbortError, then close with the kill signal', async () => {
  const tmpl = new sk.Template('sleep');
  const child = tmpl.spawn(['30'], { signal: AbortSignal.timeout(150) });
  const r = await collect(child);
  tmpl.close();
  assert.equal(r.error.name, 'AbortError');
  assert.equal(r.signal, 'SIGTERM');
  assert.deepEqual([...r.events].sort(), ['close', 'error', 'exit']);
  assert.equal(r.events.at(-1), 'close');
});

test('abort after the child finished changes nothing', async () => {
  const ac = new AbortController();
  const r = await sk.run('echo', ['done'], { signal: ac.signal });
  ac.abort();
  assert.equal(r.stdout, 'done\n');
  assert.equal(r.code, 0);
});
