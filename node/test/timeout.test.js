'use strict';
// Timeouts kill the whole tree, and grandchildren that hold the output
// pipes (even after their parent exited) cannot keep a call hanging.
const test = require('node:test');
const assert = require('node:assert/strict');
const sk = require('..');
const { collect, processState, waitFor, nativeTest } = require('./helpers');

function pidsOf(stdout) {
  return stdout.trim().split(/\s+/).filter(Boolean).map(Number);
}

async function assertAllDead(pids) {
  // Killed processes re-parented to init become zombies until init reaps
  // them: either way they no longer run.
  const ok = await waitFor(() => pids.every((p) => processState(p) !== 'alive'), 3000);
  assert.ok(ok, `still running: ${pids.filter((p) => processState(p) === 'alive')}`);
}

test('timeout kills a child that runs too long', async () => {
  const t0 = Date.now();
  const r = await sk.run('sleep', ['30'], { timeout: 200 });
  assert.equal(r.timedOut, true);
  assert.equal(r.code, null);
  assert.equal(r.signal, 'SIGKILL');
  assert.ok(Date.now() - t0 < 5000);
});

test('timeout kills grandchildren still running under the child', async () => {
  const r = await sk.run('sh', ['-c', 'sleep 30 & echo $!; sh -c "sleep 30 & echo \\$!; wait" & wait'], { timeout: 500 });
  assert.equal(r.timedOut, true);
  const pids = pidsOf(r.stdout);
  assert.equal(pids.length, 2, r.stdout);
  await assertAllDead(pids);
});

test('a grandchild holding stdout after its parent exited does not hang the call', async () => {
  const t0 = Date.now();
  // sh exits at once; the background sleep keeps the stdout pipe open.
  const r = await sk.run('sh', ['-c', 'sleep 30 & echo $!; echo parent-done'], { timeout: 400 });
  const elapsed = Date.now() - t0;
  assert.equal(r.code, 0, 'the child itself exited normally');
  assert.equal(r.timedOut, true);
  assert.match(r.stdout, /parent-done/);
  assert.ok(elapsed >= 350 && elapsed < 5000, `took ${elapsed} ms`);
  await assertAllDead(pidsOf(r.stdout.replace('parent-done', '')));
});

test('run() kills with SIGKILL: a grandchild ignoring SIGTERM dies all the same', async () => {
  const t0 = Date.now();
  const r = await sk.run('sh', ['-c', "sh -c 'trap \"\" TERM; echo $$; exec sleep 30' & wait"], { timeout: 200 });
  const pids = pidsOf(r.stdout);
  assert.equal(r.timedOut, true);
  assert.equal(pids.length, 1);
  assert.ok(Date.now() - t0 < 5000);
  await assertAllDead(pids);
});

test('a deep tree is killed to the last process', async () => {
  const r = await sk.run('sh', ['-c', 'sh -c "sh -c \\"sleep 30 & echo \\\\\\$!; wait\\" & wait" & wait'], { timeout: 500 });
  const pids = pidsOf(r.stdout);
  assert.equal(pids.length, 1, r.stdout);
  await assertAllDead(pids);
});

// Documented change (README): run() is one spawnkit_run call, which always
// ends a run by killing the whole tree with SIGKILL, so the Template.spawn
// options that chose otherwise are refused rather than ignored.
test('run() refuses killSignal other than SIGKILL, killTree: false, killGraceMs', async () => {
  const bad = [{ killSignal: 'SIGTERM' }, { killTree: false }, { killGraceMs: 200 }, { inheritFds: true }];
  for (const o of bad) {
    await assert.rejects(sk.run('true', [], o), { code: 'ERR_INVALID_ARG_VALUE' }, JSON.stringify(o));
  }
  // the values that say what run() does anyway are accepted
  const r = await sk.run('true', [], { killSignal: 'SIGKILL', killTree: true });
  assert.equal(r.code, 0);
});

nativeTest('Template.spawn timeout with SIGTERM and the tree', async () => {
  const tmpl = new sk.Template('sh');
  const child = tmpl.spawn(['-c', 'sleep 30 & echo $!; wait'], { timeout: 300 });
  const r = await collect(child);
  tmpl.close();
  assert.equal(child.timedOut, true);
  assert.equal(r.signal, 'SIGTERM');
  await assertAllDead(pidsOf(r.stdout));
});

nativeTest('killTree() on a running child returns how many processes it signalled', async () => {
  const tmpl = new sk.Template('sh');
  const child = tmpl.spawn(['-c', 'sleep 30 & sleep 30 & echo ready; wait']);
  await new Promise((res) => child.stdout.once('data', res));
  const n = child.killTree('SIGKILL');
  const r = await collect(child);
  tmpl.close();
  assert.equal(n, 3);
  assert.equal(r.signal, 'SIGKILL');
});

test('the event loop keeps running while a child runs', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  await sk.run('sleep', ['0.3']);
  clearInterval(timer);
  // 30 possible; a blocked loop would give 0 or 1.
  assert.ok(ticks >= 5, `only ${ticks} ticks in 300 ms`);
});
