'use strict';
// { warm: true }: Python calls forked from the library's warm interpreter
// give what a cold start gives; other calls run cold with a counted reason;
// timeouts and exit statuses work as for cold children.
const test = require('node:test');
const { nativeTest } = require('./helpers');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const sk = require('..');

// The real interpreters (not the pyenv shim, a shell script that would run cold).
const PYS = [...new Set(['/usr/bin/python3', process.env.SPAWNKIT_PYTHON].filter(
  (p) => p && fs.existsSync(p)).map((p) => fs.realpathSync(p)))];

test.after(() => sk.warmShutdown());

const CASES = [
  ['-c', 'import sys, os; print(sys.argv, os.getcwd(), os.environ.get("W")); sys.exit(5)', 'x'],
  ['-c', 'import json; raise ValueError(json.dumps([1]))'],
  ['-c', 'import sys; sys.stdout.write("a" * 200000); sys.stderr.write("e\\n")'],
  ['-c', 'import os, sys; print(os.getppid() == int(os.environ["P"]), sorted(sys.modules)[:4])'],
];

for (const py of PYS) {
  nativeTest(`warm equals cold, byte for byte: ${py}`, async () => {
    const env = { ...process.env, W: 'w', P: String(process.pid) };
    for (const args of CASES) {
      const cold = await sk.run(py, args, { env, cwd: '/tmp', encoding: 'buffer' });
      const before = sk.warmStats();
      const warm = await sk.run(py, args, { env, cwd: '/tmp', encoding: 'buffer', warm: true });
      assert.equal(sk.warmStats().warmSpawns, before.warmSpawns + 1, `${args[1]} went cold`);
      assert.equal(warm.code, cold.code);
      assert.equal(warm.signal, cold.signal);
      assert.deepEqual(warm.stdout, cold.stdout);
      assert.deepEqual(warm.stderr, cold.stderr);
    }
  });

  nativeTest(`warm with input on stdin: ${py}`, async () => {
    const args = ['-c', 'import sys; d = sys.stdin.read(); print(len(d), d[:5])'];
    const input = 'hello'.repeat(100000);
    const cold = await sk.run(py, args, { input });
    const warm = await sk.run(py, args, { input, warm: true });
    assert.equal(warm.stdout, cold.stdout);
    assert.equal(warm.stdout, '500000 hello\n');
  });

  nativeTest(`warm timeout kills the tool, the next call is warm: ${py}`, async () => {
    const r = await sk.run(py, ['-c', 'import time; time.sleep(30)'], { timeout: 300, warm: true });
    assert.equal(r.timedOut, true);
    assert.equal(r.signal, 'SIGKILL');
    const before = sk.warmStats();
    const ok = await sk.run(py, ['-c', 'print("after")'], { warm: true });
    assert.equal(ok.stdout, 'after\n');
    assert.equal(sk.warmStats().warmSpawns, before.warmSpawns + 1);
  });
}

nativeTest('preload: visible in sys.modules, a separate interpreter', async () => {
  const py = PYS[0];
  const args = ['-S', '-c', 'import sys; print("decimal" in sys.modules)'];
  const plain = await sk.run(py, args, { warm: true });
  const before = sk.warmStats();
  const pre = await sk.run(py, args, { warm: true, preload: ['decimal'] });
  assert.equal(plain.stdout, 'False\n');
  assert.equal(pre.stdout, 'True\n');
  assert.equal(sk.warmStats().started, before.started + 1);
});

nativeTest('a call that is not Python runs cold, reason counted', async () => {
  const before = sk.warmStats();
  const r = await sk.run('echo', ['hi'], { warm: true });
  assert.equal(r.stdout, 'hi\n');
  const after = sk.warmStats();
  assert.equal((after.reasons['not-python'] ?? 0) - (before.reasons['not-python'] ?? 0), 1);
  assert.equal(after.warmSpawns, before.warmSpawns);
});

nativeTest('at least one interpreter to test', () => {
  assert.ok(PYS.length >= 1, 'no python3 found (scripts/deps/python.apt)');
});
