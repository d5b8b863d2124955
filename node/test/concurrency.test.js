'use strict';
// Many calls in flight at once: every one gets its own output and status,
// and nothing is left behind (fds, zombies).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const sk = require('..');
const { openFds, nativeTest } = require('./helpers');

function childrenOfSelf() {
  const out = [];
  for (const task of fs.readdirSync('/proc/self/task')) {
    const s = fs.readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim();
    if (s) out.push(...s.split(' '));
  }
  return out;
}

test('500 concurrent runs', async () => {
  await sk.run('sh', ['-c', 'true']); // the cached template holds one fd
  const before = openFds();
  const N = 500;
  const calls = [];
  for (let i = 0; i < N; i++) {
    // Mixed: exit codes, both streams, and a little stdin.
    calls.push(sk.run('sh', ['-c', 'read x; echo "$1:$x"; echo "e$1" >&2; exit $(($1 % 7))', 'sh', String(i)],
      { input: `in${i}\n` }));
  }
  const results = await Promise.all(calls);
  results.forEach((r, i) => {
    assert.equal(r.stdout, `${i}:in${i}\n`);
    assert.equal(r.stderr, `e${i}\n`);
    assert.equal(r.code, i % 7);
  });
  assert.equal(new Set(results.map((r) => r.pid)).size, N);
  assert.deepEqual(childrenOfSelf(), [], 'every child reaped');
  assert.equal(openFds(), before, 'no fd leaked');
});

nativeTest('500 concurrent Template.spawn with exit observed by pidfd', async () => {
  const tmpl = new sk.Template('/bin/true');
  const N = 500;
  const codes = await Promise.all(Array.from({ length: N }, () => new Promise((resolve, reject) => {
    const c = tmpl.spawn([], { stdio: 'ignore' });
    c.on('error', reject);
    c.on('close', (code) => resolve(code));
  })));
  tmpl.close();
  assert.deepEqual(codes, new Array(N).fill(0));
  assert.deepEqual(childrenOfSelf(), []);
});
