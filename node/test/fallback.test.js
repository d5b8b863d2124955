'use strict';
// The portable fallback (lib/fallback.js): chosen when asked for or where
// there are no pidfds, with run()'s semantics over child_process.  The
// direct tests run in every suite run.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const sk = require('..');
const fb = require('../lib/fallback');
const { processState, waitFor } = require('./helpers');

test('backend() is what this run expects', () => {
  // `make test-fallback` runs the suite forced and under seccomp filters.
  const want = process.env.SPAWNKIT_EXPECT_BACKEND;
  if (want) assert.equal(sk.backend(), want);
  else {
    assert.ok(['user', 'kernel'].includes(sk.backend()), sk.backend());
    assert.equal(sk.fallbackReason, null);
  }
});

test('SPAWNKIT_BACKEND=fallback forces it', () => {
  const out = execFileSync(process.execPath, ['-e', `
    const sk = require(${JSON.stringify(require.resolve('..'))});
    sk.run('echo', ['x']).then((r) => console.log(sk.backend(), JSON.stringify(r.stdout)));
  `], { env: { ...process.env, SPAWNKIT_BACKEND: 'fallback' } }).toString();
  assert.equal(out, 'fallback "x\\n"\n');
});

test('no templates in the fallback', () => {
  assert.throws(() => new fb.Template('/bin/true'), { code: 'ENOSYS' });
});

test('result shape, errors and stdin as run() has them', async () => {
  const r = await fb.run('sh', ['-c', 'echo out; echo err >&2; readlink /proc/self/fd/0; exit 3']);
  assert.equal(r.code, 3);
  assert.equal(r.stdout, 'out\n/dev/null\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.timedOut, false);
  await assert.rejects(fb.run('no-such-program-here'), { code: 'ENOENT', path: 'no-such-program-here' });
  await assert.rejects(fb.execFile('false'), { code: 1 });
  assert.equal((await fb.run('cat', [], { input: 'abc' })).stdout, 'abc');
});

test('a timeout kills the process group; an orphan outside it cannot hang the call', async () => {
  const t0 = Date.now();
  const r = await fb.run('sh', ['-c', 'sleep 60 & echo $!; setsid sleep 60 & echo $!; wait'],
    { timeout: 300 });
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGKILL');
  assert.ok(Date.now() - t0 < 10000);
  const [inGroup, orphan] = r.stdout.trim().split(/\s+/).map(Number);
  assert.ok(await waitFor(() => processState(inGroup) !== 'alive', 5000));
  // Not found by the Node fallback (see lib/fallback.js): ours to end.
  process.kill(orphan, 'SIGKILL');
});

test('maxBuffer keeps head and tail', async () => {
  const r = await fb.run('sh', ['-c', "printf HEAD; head -c 100000 /dev/zero; printf TAIL"],
    { maxBuffer: 8 });
  assert.equal(r.stdout, 'HEADTAIL');
  assert.equal(r.stdoutDropped, 100000);
});

test('an abort kills the tree and rejects with AbortError', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 200);
  await assert.rejects(fb.run('sleep', ['60'], { signal: ac.signal }), { name: 'AbortError' });
});

test('loads without any addon (as on macOS)', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spawnkit-noaddon-'));
  try {
    const root = path.join(__dirname, '..');
    fs.cpSync(path.join(root, 'lib'), path.join(dir, 'lib'), { recursive: true });
    fs.copyFileSync(path.join(root, 'index.js'), path.join(dir, 'index.js'));
    const env = { ...process.env };
    delete env.SPAWNKIT_BACKEND;
    const out = execFileSync(process.execPath, ['-e', `
      const sk = require(${JSON.stringify(dir)});
      sk.run('echo', ['x']).then((r) => console.log(sk.backend(),
        sk.fallbackReason.startsWith('no compiled addon'), JSON.stringify(r.stdout)));
    `], { env }).toString();
    assert.equal(out, 'fallback true "x\\n"\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
