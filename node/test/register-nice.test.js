'use strict';
// register's childNice (lib/register/options.js): the children of spawn,
// exec and execFile start that many nice values above their parent, those
// of the sync calls at the parent's; the value comes from
// SPAWNKIT_REGISTER_CHILD_NICE or registerOptions(), and a bad one is an
// error.  Each case runs a Node process of its own under `-r register.js`
// and reads the nice values its children print (nice(1)).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { nativeTest } = require('./helpers');

const register = path.join(__dirname, '..', 'register.js');
const spawnkit = path.join(__dirname, '..');
const ENV = 'SPAWNKIT_REGISTER_CHILD_NICE';

// What every case's process reports: its own nice value, then its
// children's, each start kind in turn (a grandchild through sh for exec).
const PROBE = `
const cp = require('node:child_process');
const os = require('node:os');
const sk = require(${JSON.stringify(spawnkit)});
const out = (c) => new Promise((res, rej) => {
  let s = '';
  c.stdout.on('data', (d) => { s += d; });
  c.on('close', (code) => (code === 0 ? res(Number(s)) : rej(new Error('exit ' + code))));
});
const cb = (f) => new Promise((res, rej) => f((e, o) => (e ? rej(e) : res(Number(o)))));
async function probe() {
  return {
    parent: os.getPriority(),
    spawn: await out(cp.spawn('nice')),
    execFile: await cb((k) => cp.execFile('nice', k)),
    exec: await cb((k) => cp.exec('sh -c nice', k)),
    execFileSync: Number(cp.execFileSync('nice')),
    spawnSync: Number(cp.spawnSync('nice').stdout),
    execSync: Number(cp.execSync('nice')),
  };
}
`;

// Run code (which prints JSON) under register with env's extra variables;
// pre: a command prefix (nice -n N) for the Node process.
function runNode(code, env = {}, pre = []) {
  const argv = [...pre, process.execPath, '-r', register, '-e', PROBE + code];
  const full = { ...process.env, ...env };
  if (!(ENV in env)) delete full[ENV];
  return spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: full, timeout: 60_000 });
}

function probeWith(env, pre) {
  const r = runNode('probe().then((p) => console.log(JSON.stringify([p, sk.registerStats()])));', env, pre);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const ASYNC = ['spawn', 'execFile', 'exec'];
const SYNC = ['execFileSync', 'spawnSync', 'execSync'];

test('by default every child runs at its parent\'s nice value', () => {
  const [p] = probeWith({});
  for (const k of [...ASYNC, ...SYNC]) assert.equal(p[k], p.parent, k);
});

nativeTest('SPAWNKIT_REGISTER_CHILD_NICE=5: async children (and theirs) +5, sync ones and the parent unchanged', () => {
  const [p, stats] = probeWith({ [ENV]: '5' });
  const want = Math.min(19, p.parent + 5);
  assert.notEqual(want, p.parent, 'room above the parent\'s value to see the change');
  for (const k of ASYNC) assert.equal(p[k], want, k);
  for (const k of SYNC) assert.equal(p[k], p.parent, k);
  assert.deepEqual([stats.routed, stats.fallback], [6, 0]);
});

nativeTest('the increment is clamped at 19, as nice -n does', () => {
  const [p] = probeWith({ [ENV]: '19' }, ['nice', '-n', '3']);
  assert.ok(p.parent >= 3);
  for (const k of ASYNC) assert.equal(p[k], 19, k);
  for (const k of SYNC) assert.equal(p[k], p.parent, k);
});

nativeTest('registerOptions({childNice}) applies to the starts made after it', () => {
  const r = runNode(`(async () => {
    const before = sk.registerOptions();
    const a = await probe();
    const set = sk.registerOptions({ childNice: 4 });
    const b = await probe();
    sk.registerOptions({ childNice: 0 });
    const c = await probe();
    console.log(JSON.stringify({ before, set, a, b, c }));
  })();`);
  assert.equal(r.status, 0, r.stderr);
  const { before, set, a, b, c } = JSON.parse(r.stdout);
  const rest = { childPolicy: null, childSliceMs: 0, loopSliceMs: 0 };
  assert.deepEqual([before, set], [{ childNice: 0, ...rest }, { childNice: 4, ...rest }]);
  assert.equal(a.execFile, a.parent);
  assert.equal(b.execFile, Math.min(19, b.parent + 4));
  assert.equal(b.execFileSync, b.parent);
  assert.equal(c.execFile, c.parent);
});

test('a bad SPAWNKIT_REGISTER_CHILD_NICE stops the start with a RangeError naming it', () => {
  for (const bad of ['x', '20', '-1', '1.5', ' 3']) {
    const r = runNode('console.log("ran")', { [ENV]: bad });
    assert.notEqual(r.status, 0, bad);
    assert.equal(r.stdout, '', bad);
    assert.match(r.stderr, /RangeError.*SPAWNKIT_REGISTER_CHILD_NICE.*0\.\.19/, bad);
    assert.match(r.stderr, /ERR_OUT_OF_RANGE/, bad);
  }
  assert.equal(runNode('console.log("ran")', { [ENV]: '' }).stdout, 'ran\n');
});

test('registerOptions() refuses bad values and keeps the setting', () => {
  const { registerOptions } = require('..');
  const before = registerOptions();
  for (const [v, code] of [[20, 'ERR_OUT_OF_RANGE'], [-1, 'ERR_OUT_OF_RANGE'], [1.5, 'ERR_OUT_OF_RANGE'],
    [NaN, 'ERR_OUT_OF_RANGE'], ['3', 'ERR_INVALID_ARG_TYPE'], [null, 'ERR_INVALID_ARG_TYPE']]) {
    assert.throws(() => registerOptions({ childNice: v }), { code }, String(v));
  }
  assert.throws(() => registerOptions(7), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.deepEqual(registerOptions({}), before);
});
