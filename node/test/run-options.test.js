'use strict';
// run()'s options (issue 11): limits, umask and nice take effect in the child,
// a cgroup that is not a writable cgroup2 directory is a clear error, a
// directory on PATH is EACCES as child_process says, and every bad value is
// refused before anything starts, with a Node-style code.
const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const sk = require('..');
const { makeTmpDir, nativeTest } = require('./helpers');

nativeTest('rlimits and umask take effect in the child', async () => {
  const r = await sk.run('sh', ['-c', 'ulimit -Sn; ulimit -Hn; ulimit -c; umask'], {
    rlimits: { nofile: [100, 200], core: 0 },
    umask: 0o027,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '100\n200\n0\n0027\n');
  // Infinity is RLIM_INFINITY
  const inf = await sk.run('sh', ['-c', 'ulimit -Sc'], { rlimits: { core: [Infinity, Infinity] } });
  // (only if our own hard limit allows it; else the limit is refused)
  if (inf.code === 0) assert.equal(inf.stdout, 'unlimited\n');
});

nativeTest('a file the child creates has the umask\'s mode', async (t) => {
  const dir = makeTmpDir(t);
  const file = path.join(dir, 'made');
  await sk.run('sh', ['-c', `: > '${file}'`], { umask: 0o077 });
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});

nativeTest('nice raises the nice value of the child and of what it starts, clamped at 19', async () => {
  const ours = require('node:os').getPriority();
  const r = await sk.run('sh', ['-c', 'nice; sh -c nice'], { nice: 3 });
  assert.equal(r.code, 0, r.stderr);
  const want = Math.min(19, ours + 3);
  assert.notEqual(want, ours, 'room above our value to see the change');
  assert.equal(r.stdout, `${want}\n${want}\n`);
  assert.equal((await sk.run('nice', [], { nice: 39 })).stdout, '19\n');
  assert.equal((await sk.run('nice', [], { nice: 0 })).stdout, `${ours}\n`);
  assert.equal(require('node:os').getPriority(), ours);
});

// the "policy" line of each /proc/PID/sched in out
const policies = (out) => [...out.matchAll(/^policy\s*:\s*(\d+)/gm)].map((m) => Number(m[1]));

nativeTest('schedPolicy is the child\'s and what it starts\', its nice value kept, ours untouched', {
  skip: !fs.existsSync('/proc/self/sched') && 'no /proc/PID/sched',
}, async () => {
  const os = require('node:os');
  const probe = ['-c', 'cat /proc/$$/sched; sh -c \'cat /proc/$$/sched\'; nice'];
  const want = Math.min(19, os.getPriority() + 2);
  for (const [name, num] of [['idle', 5], ['batch', 3], ['other', 0]]) {
    const r = await sk.run('sh', probe, { schedPolicy: name, nice: 2 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(policies(r.stdout), [num, num], name);
    assert.equal(r.stdout.trim().split('\n').at(-1), String(want), name);
    const f = await sk.execFile('sh', probe, { schedPolicy: name });
    assert.deepEqual(policies(f.stdout), [num, num], `execFile ${name}`);
  }
  assert.deepEqual(policies((await sk.run('sh', probe, { schedPolicy: null })).stdout), [0, 0]);
  assert.equal(fs.readFileSync('/proc/self/sched', 'utf8').match(/^policy\s*:\s*(\d+)/m)[1], '0');
});

nativeTest('cgroup: anything but a writable cgroup2 directory is a clear error', async (t) => {
  const dir = makeTmpDir(t);
  for (const [cg, code] of [[dir, 'EINVAL'], [path.join(dir, 'missing'), 'ENOENT']]) {
    const err = await sk.run('true', [], { cgroup: cg }).catch((e) => e);
    assert.ok(err instanceof Error, `${cg}: must reject`);
    assert.equal(err.code, code);
    assert.equal(err.path, cg);
    assert.match(err.message, /options\.cgroup .* is not a writable cgroup2 directory/);
  }
});

test('a directory on PATH with the program\'s name is EACCES, as child_process says', async (t) => {
  const dir = makeTmpDir(t);
  fs.mkdirSync(path.join(dir, 'tool'));
  const env = { PATH: dir };
  const ours = await sk.run('tool', ['x'], { env }).catch((e) => e);
  const theirs = await new Promise((resolve) => {
    cp.execFile('tool', ['x'], { env }, (e) => resolve(e));
  });
  assert.equal(theirs.code, 'EACCES');
  for (const key of ['code', 'errno', 'syscall', 'path', 'spawnargs']) {
    assert.deepEqual(ours[key], theirs[key], key);
  }
  assert.equal(ours.message, 'spawn tool EACCES');
});

test('a missing program is ENOENT with the shape child_process gives', async () => {
  const err = await sk.run('no-such-spawnkit-program', ['a']).catch((e) => e);
  assert.equal(err.code, 'ENOENT');
  assert.equal(err.errno, -2);
  assert.equal(err.syscall, 'spawn no-such-spawnkit-program');
  assert.equal(err.path, 'no-such-spawnkit-program');
  assert.deepEqual(err.spawnargs, ['a']);
});

// [options, code]: each refused before anything starts.
const BAD = [
  [{ newSession: 'yes' }, 'ERR_INVALID_ARG_TYPE'],
  [{ detached: 1 }, 'ERR_INVALID_ARG_TYPE'],
  [{ newSession: true, detached: false }, 'ERR_INVALID_ARG_VALUE'],
  [{ waitDelay: -1 }, 'ERR_OUT_OF_RANGE'],
  [{ waitDelay: NaN }, 'ERR_OUT_OF_RANGE'],
  [{ waitDelay: Infinity }, 'ERR_OUT_OF_RANGE'],
  [{ waitDelay: '1s' }, 'ERR_INVALID_ARG_TYPE'],
  [{ noOutputTimeout: 0 }, 'ERR_OUT_OF_RANGE'],
  [{ noOutputTimeout: -5 }, 'ERR_OUT_OF_RANGE'],
  [{ noOutputTimeout: '5' }, 'ERR_INVALID_ARG_TYPE'],
  [{ timeout: -1 }, 'ERR_INVALID_ARG_VALUE'],
  [{ timeout: 'soon' }, 'ERR_INVALID_ARG_VALUE'],
  [{ maxBuffer: -1 }, 'ERR_OUT_OF_RANGE'],
  [{ maxBuffer: 1.5 }, 'ERR_OUT_OF_RANGE'],
  [{ marker: 'yes' }, 'ERR_INVALID_ARG_TYPE'],
  [{ encoding: 'klingon' }, 'ERR_UNKNOWN_ENCODING'],
  [{ onStdout: 'print' }, 'ERR_INVALID_ARG_TYPE'],
  [{ onStderr: {} }, 'ERR_INVALID_ARG_TYPE'],
  [{ input: 42 }, 'ERR_INVALID_ARG_TYPE'],
  [{ stdin: 'pipe' }, 'ERR_INVALID_ARG_VALUE'],
  [{ rlimits: [] }, 'ERR_INVALID_ARG_TYPE'],
  [{ rlimits: 'nofile=10' }, 'ERR_INVALID_ARG_TYPE'],
  [{ rlimits: { files: 10 } }, 'ERR_INVALID_ARG_VALUE'],
  [{ rlimits: { nofile: -1 } }, 'ERR_OUT_OF_RANGE'],
  [{ rlimits: { nofile: 1.5 } }, 'ERR_OUT_OF_RANGE'],
  [{ rlimits: { nofile: '10' } }, 'ERR_INVALID_ARG_TYPE'],
  [{ rlimits: { nofile: [10] } }, 'ERR_INVALID_ARG_VALUE'],
  [{ rlimits: { nofile: [20, 10] } }, 'ERR_OUT_OF_RANGE'],
  [{ umask: 0o1000 }, 'ERR_OUT_OF_RANGE'],
  [{ umask: -1 }, 'ERR_OUT_OF_RANGE'],
  [{ umask: '022' }, 'ERR_INVALID_ARG_TYPE'],
  [{ nice: 40 }, 'ERR_OUT_OF_RANGE'],
  [{ nice: -40 }, 'ERR_OUT_OF_RANGE'],
  [{ nice: 1.5 }, 'ERR_OUT_OF_RANGE'],
  [{ nice: '5' }, 'ERR_INVALID_ARG_TYPE'],
  [{ schedPolicy: 'fifo' }, 'ERR_INVALID_ARG_VALUE'],
  [{ schedPolicy: 'IDLE' }, 'ERR_INVALID_ARG_VALUE'],
  [{ schedPolicy: 'constructor' }, 'ERR_INVALID_ARG_VALUE'],
  [{ schedPolicy: 5 }, 'ERR_INVALID_ARG_TYPE'],
  [{ schedPolicy: true }, 'ERR_INVALID_ARG_TYPE'],
  [{ cgroup: 5 }, 'ERR_INVALID_ARG_TYPE'],
  [{ cgroup: '' }, 'ERR_INVALID_ARG_VALUE'],
  [{ cgroup: '/sys/fs/cgroup\u0000x' }, 'ERR_INVALID_ARG_VALUE'],
  [{ warm: 'yes' }, 'ERR_INVALID_ARG_TYPE'],
  [{ preload: 'json' }, 'ERR_INVALID_ARG_TYPE'],
  [{ signal: 'abort' }, 'ERR_INVALID_ARG_TYPE'],
  [{ killSignal: 'SIGNOPE' }, 'ERR_UNKNOWN_SIGNAL'],
  [{ pty: 1 }, 'ERR_INVALID_ARG_TYPE'],
  [{ pty: true, ptySize: '24x80' }, 'ERR_INVALID_ARG_TYPE'],
  [{ pty: true, ptySize: [24] }, 'ERR_INVALID_ARG_VALUE'],
  [{ pty: true, ptySize: [0, 80] }, 'ERR_OUT_OF_RANGE'],
  [{ pty: true, ptySize: [24, 70000] }, 'ERR_OUT_OF_RANGE'],
  [{ pty: true, ptySize: [24, '80'] }, 'ERR_INVALID_ARG_TYPE'],
  [{ ptySize: [24, 80] }, 'ERR_INVALID_ARG_VALUE'],
  [{ pty: true, newSession: false }, 'ERR_INVALID_ARG_VALUE'],
  [{ pty: true, stdin: 'inherit' }, 'ERR_INVALID_ARG_VALUE'],
];

test('every bad option value is refused with a Node-style code, in run() and execFile()', async () => {
  for (const [opts, code] of BAD) {
    const what = JSON.stringify(opts, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
    for (const fn of [sk.run, sk.execFile]) {
      const err = await fn('true', [], opts).then(() => null, (e) => e);
      assert.ok(err, `${what}: accepted`);
      assert.equal(err.code, code, `${what}: ${err.message}`);
      assert.ok(err instanceof TypeError || err instanceof RangeError, `${what}: ${err.constructor.name}`);
      assert.equal(err instanceof RangeError, code === 'ERR_OUT_OF_RANGE', `${what}: ${err.constructor.name}`);
    }
  }
});

test('the fallback refuses what needs the C library, by name', async () => {
  const fb = require('../lib/fallback');
  for (const opts of [{ rlimits: { nofile: 10 } }, { umask: 0o22 }, { nice: 5 }, { schedPolicy: 'idle' },
    { cgroup: '/sys/fs/cgroup' }, { pty: true }]) {
    await assert.rejects(fb.run('true', [], opts), { code: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM' });
  }
  // the shared checks are the same in both
  await assert.rejects(fb.run('true', [], { waitDelay: -1 }), { code: 'ERR_OUT_OF_RANGE' });
});
