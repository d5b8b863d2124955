'use strict';
// register's childPolicy and loopSliceMs (lib/register/options.js): the
// children of spawn, exec and execFile (and theirs) run with the policy,
// those of the sync calls and the parent with their own; the thread that
// registers gets the slice and no child inherits it; the values come from
// SPAWNKIT_REGISTER_CHILD_POLICY / SPAWNKIT_REGISTER_LOOP_SLICE_MS or
// registerOptions(), and a bad one is an error.  Each case runs a Node
// process of its own under `-r register.js`; what the kernel says of each
// task is read from /proc/PID/sched ("policy", "se.slice").
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { nativeTest } = require('./helpers');

const register = path.join(__dirname, '..', 'register.js');
const spawnkit = path.join(__dirname, '..');
const POLICY = 'SPAWNKIT_REGISTER_CHILD_POLICY';
const SLICE = 'SPAWNKIT_REGISTER_LOOP_SLICE_MS';
const CHILD_SLICE = 'SPAWNKIT_REGISTER_CHILD_SLICE_MS';
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

// "policy" and "se.slice" of /proc/<who>/sched (CONFIG_SCHED_DEBUG).
function schedOf(text) {
  const field = (k) => Number((text.match(new RegExp(`^${k.replace('.', '\\.')}\\s*:\\s*(\\d+)`, 'm')) ?? [])[1]);
  return { policy: field('policy'), slice: field('se.slice') };
}
const hasProcSched = fs.existsSync('/proc/self/sched');
// Ours: this test process sets no slice, so its own is the default.
const DEFAULT_SLICE = hasProcSched ? schedOf(fs.readFileSync('/proc/self/sched', 'utf8')).slice : NaN;

// What every case's process reports: its own (main thread's) policy and
// slice, then each start kind's child's (a grandchild through sh for exec).
const PROBE = `
const cp = require('node:child_process');
const fs = require('node:fs');
const sk = require(${JSON.stringify(spawnkit)});
const schedOf = ${schedOf.toString()};
const CAT = ['cat', ['/proc/self/sched']];
const out = (c) => new Promise((res, rej) => {
  let s = '';
  c.stdout.on('data', (d) => { s += d; });
  c.on('close', (code) => (code === 0 ? res(schedOf(s)) : rej(new Error('exit ' + code))));
});
const cb = (f) => new Promise((res, rej) => f((e, o) => (e ? rej(e) : res(schedOf(o)))));
async function probe() {
  return {
    parent: schedOf(fs.readFileSync('/proc/self/sched', 'utf8')),
    spawn: await out(cp.spawn(...CAT)),
    execFile: await cb((k) => cp.execFile(...CAT, k)),
    exec: await cb((k) => cp.exec('sh -c "cat /proc/self/sched"', k)),
    execFileSync: schedOf(String(cp.execFileSync(...CAT))),
    spawnSync: schedOf(String(cp.spawnSync(...CAT).stdout)),
    execSync: schedOf(String(cp.execSync('cat /proc/self/sched'))),
  };
}
`;

function runNode(code, env = {}) {
  const full = { ...process.env, ...env };
  for (const k of [POLICY, SLICE, CHILD_SLICE, 'SPAWNKIT_REGISTER_CHILD_NICE']) if (!(k in env)) delete full[k];
  return spawnSync(process.execPath, ['-r', register, '-e', PROBE + code],
    { encoding: 'utf8', env: full, timeout: 60_000 });
}

function probeWith(env) {
  const r = runNode('probe().then((p) => console.log(JSON.stringify([p, sk.registerOptions(), sk.registerStats()])));', env);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const ASYNC = ['spawn', 'execFile', 'exec'];
const SYNC = ['execFileSync', 'spawnSync', 'execSync'];
const schedTest = (name, fn) => nativeTest(name, { skip: !hasProcSched && 'no /proc/PID/sched (CONFIG_SCHED_DEBUG)' }, fn);

schedTest('by default every child has its parent\'s policy and the default slice', () => {
  const [p, opts] = probeWith({});
  assert.deepEqual(opts, { childNice: 0, childPolicy: null, childSliceMs: 0, loopSliceMs: 0 });
  assert.deepEqual(p.parent, { policy: SCHED_OTHER, slice: DEFAULT_SLICE });
  for (const k of [...ASYNC, ...SYNC]) assert.deepEqual(p[k], p.parent, k);
});

schedTest('SPAWNKIT_REGISTER_CHILD_POLICY=idle: async children (and theirs) SCHED_IDLE, sync ones and the parent not', () => {
  const [p, opts, stats] = probeWith({ [POLICY]: 'idle' });
  assert.equal(opts.childPolicy, 'idle');
  assert.equal(p.parent.policy, SCHED_OTHER);
  for (const k of ASYNC) assert.equal(p[k].policy, SCHED_IDLE, k);
  for (const k of SYNC) assert.equal(p[k].policy, SCHED_OTHER, k);
  assert.deepEqual([stats.routed, stats.fallback], [6, 0]);
});

schedTest('SPAWNKIT_REGISTER_CHILD_POLICY=batch and =other', () => {
  const [b] = probeWith({ [POLICY]: 'batch' });
  for (const k of ASYNC) assert.equal(b[k].policy, 3, k);
  for (const k of SYNC) assert.equal(b[k].policy, SCHED_OTHER, k);
  const [o, opts] = probeWith({ [POLICY]: 'other' });
  assert.equal(opts.childPolicy, 'other');
  for (const k of [...ASYNC, ...SYNC]) assert.equal(o[k].policy, SCHED_OTHER, k);
});

schedTest('SPAWNKIT_REGISTER_LOOP_SLICE_MS=8: the loop thread\'s slice, no child\'s', () => {
  const [p, opts] = probeWith({ [SLICE]: '8' });
  assert.equal(opts.loopSliceMs, 8);
  assert.deepEqual(p.parent, { policy: SCHED_OTHER, slice: 8_000_000 });
  for (const k of [...ASYNC, ...SYNC]) assert.deepEqual(p[k], { policy: SCHED_OTHER, slice: DEFAULT_SLICE }, k);
  // a fraction of a ms, and both settings together
  const [q, o2] = probeWith({ [SLICE]: '0.5', [POLICY]: 'idle' });
  assert.deepEqual([o2.loopSliceMs, o2.childPolicy], [0.5, 'idle']);
  assert.equal(q.parent.slice, 500_000);
  // (the kernel shows no se.slice for a SCHED_IDLE task)
  for (const k of ASYNC) assert.equal(q[k].policy, SCHED_IDLE, k);
  for (const k of SYNC) assert.deepEqual(q[k], { policy: SCHED_OTHER, slice: DEFAULT_SLICE }, k);
});

schedTest('SPAWNKIT_REGISTER_CHILD_SLICE_MS=8: the async children\'s slice (and theirs), the sync ones\' and the loop\'s not', () => {
  const [p, opts] = probeWith({ [CHILD_SLICE]: '8' });
  assert.equal(opts.childSliceMs, 8);
  assert.deepEqual(p.parent, { policy: SCHED_OTHER, slice: DEFAULT_SLICE });
  for (const k of ASYNC) assert.deepEqual(p[k], { policy: SCHED_OTHER, slice: 8_000_000 }, k);
  for (const k of SYNC) assert.deepEqual(p[k], { policy: SCHED_OTHER, slice: DEFAULT_SLICE }, k);
  // the slice is set before the policy: batch children keep it
  const [q] = probeWith({ [CHILD_SLICE]: '8', [POLICY]: 'batch' });
  for (const k of ASYNC) assert.deepEqual(q[k], { policy: 3, slice: 8_000_000 }, k);
  // idle ones too (the kernel shows no se.slice for them); all three settings
  const [i, o] = probeWith({ [CHILD_SLICE]: '8', [POLICY]: 'idle', [SLICE]: '8' });
  assert.deepEqual(o, { childNice: 0, childPolicy: 'idle', childSliceMs: 8, loopSliceMs: 8 });
  assert.equal(i.parent.slice, 8_000_000);
  for (const k of ASYNC) assert.equal(i[k].policy, SCHED_IDLE, k);
});

schedTest('the slice is the registering thread\'s alone: the process\'s other threads keep theirs', () => {
  const r = runNode(`
    const me = fs.readFileSync('/proc/self/sched', 'utf8');
    const others = fs.readdirSync('/proc/self/task').filter((t) => t !== String(process.pid))
      .map((t) => schedOf(fs.readFileSync('/proc/self/task/' + t + '/sched', 'utf8')).slice);
    console.log(JSON.stringify([schedOf(me).slice, others]));`, { [SLICE]: '20' });
  assert.equal(r.status, 0, r.stderr);
  const [mine, others] = JSON.parse(r.stdout);
  assert.equal(mine, 20_000_000);
  assert.ok(others.length > 0, 'Node has threads of its own');
  for (const s of others) assert.equal(s, DEFAULT_SLICE);
});

schedTest('registerOptions() sets them: the policy for starts after it, the slice at once', () => {
  const r = runNode(`(async () => {
    const before = sk.registerOptions();
    const a = await probe();
    const set = sk.registerOptions({ childPolicy: 'idle', loopSliceMs: 4 });
    const b = await probe();
    const reset = sk.registerOptions({ childPolicy: null, loopSliceMs: 0 });
    const c = await probe();
    console.log(JSON.stringify({ before, set, reset, a, b, c }));
  })();`);
  assert.equal(r.status, 0, r.stderr);
  const { before, set, reset, a, b, c } = JSON.parse(r.stdout);
  assert.deepEqual(before, { childNice: 0, childPolicy: null, childSliceMs: 0, loopSliceMs: 0 });
  assert.deepEqual(set, { childNice: 0, childPolicy: 'idle', childSliceMs: 0, loopSliceMs: 4 });
  assert.deepEqual(reset, before);
  assert.deepEqual([a.parent.slice, a.execFile.policy], [DEFAULT_SLICE, SCHED_OTHER]);
  assert.deepEqual([b.parent.slice, b.execFile.policy, b.execFileSync.policy], [4_000_000, SCHED_IDLE, SCHED_OTHER]);
  assert.deepEqual([c.parent.slice, c.execFile.policy], [DEFAULT_SLICE, SCHED_OTHER]);
});

test('a bad SPAWNKIT_REGISTER_CHILD_POLICY stops the start with an error naming it', () => {
  for (const bad of ['IDLE', 'fifo', 'rr', 'deadline', '5', ' idle', 'idle ']) {
    const r = runNode('console.log("ran")', { [POLICY]: bad });
    assert.notEqual(r.status, 0, bad);
    assert.equal(r.stdout, '', bad);
    assert.match(r.stderr, /SPAWNKIT_REGISTER_CHILD_POLICY.*'other', 'batch', 'idle'/, bad);
    assert.match(r.stderr, /ERR_INVALID_ARG_VALUE/, bad);
  }
  assert.equal(runNode('console.log("ran")', { [POLICY]: '' }).stdout, 'ran\n');
});

test('a bad SPAWNKIT_REGISTER_LOOP_SLICE_MS or _CHILD_SLICE_MS stops the start with a RangeError naming it', () => {
  for (const name of [SLICE, CHILD_SLICE]) {
    for (const bad of ['x', '0.05', '100.5', '101', '-1', '1e3', ' 4', '4ms', '.5']) {
      const r = runNode('console.log("ran")', { [name]: bad });
      assert.notEqual(r.status, 0, bad);
      assert.equal(r.stdout, '', bad);
      assert.match(r.stderr, new RegExp(`RangeError.*${name}.*0\\.1\\.\\.100`), bad);
      assert.match(r.stderr, /ERR_OUT_OF_RANGE/, bad);
    }
    assert.equal(runNode('console.log("ran")', { [name]: '' }).stdout, 'ran\n');
    assert.equal(runNode('console.log("ran")', { [name]: '0' }).stdout, 'ran\n');
  }
});

test('registerOptions() refuses bad values, setting none of a call\'s values', () => {
  const { registerOptions } = require('..');
  const before = registerOptions();
  for (const [opts, code] of [
    [{ childPolicy: 'fifo' }, 'ERR_INVALID_ARG_VALUE'], [{ childPolicy: 'IDLE' }, 'ERR_INVALID_ARG_VALUE'],
    [{ childPolicy: 'toString' }, 'ERR_INVALID_ARG_VALUE'],
    [{ childPolicy: 5 }, 'ERR_INVALID_ARG_TYPE'], [{ childPolicy: true }, 'ERR_INVALID_ARG_TYPE'],
    [{ loopSliceMs: 0.05 }, 'ERR_OUT_OF_RANGE'], [{ loopSliceMs: 101 }, 'ERR_OUT_OF_RANGE'],
    [{ loopSliceMs: -1 }, 'ERR_OUT_OF_RANGE'], [{ loopSliceMs: NaN }, 'ERR_OUT_OF_RANGE'],
    [{ loopSliceMs: Infinity }, 'ERR_OUT_OF_RANGE'],
    [{ loopSliceMs: '4' }, 'ERR_INVALID_ARG_TYPE'], [{ loopSliceMs: null }, 'ERR_INVALID_ARG_TYPE'],
    [{ childSliceMs: 0.05 }, 'ERR_OUT_OF_RANGE'], [{ childSliceMs: 101 }, 'ERR_OUT_OF_RANGE'],
    [{ childSliceMs: '8' }, 'ERR_INVALID_ARG_TYPE'], [{ childPolicy: 'idle', childSliceMs: -1 }, 'ERR_OUT_OF_RANGE'],
    // one good value and one bad: neither is set
    [{ childPolicy: 'idle', loopSliceMs: 500 }, 'ERR_OUT_OF_RANGE'],
    [{ loopSliceMs: 4, childPolicy: 'fifo' }, 'ERR_INVALID_ARG_VALUE'],
    [{ childNice: 3, childPolicy: 7 }, 'ERR_INVALID_ARG_TYPE'],
  ]) {
    assert.throws(() => registerOptions(opts), { code }, JSON.stringify(opts));
    assert.deepEqual(registerOptions(), before, JSON.stringify(opts));
  }
  if (hasProcSched) assert.equal(schedOf(fs.readFileSync('/proc/self/sched', 'utf8')).slice, DEFAULT_SLICE);
});
