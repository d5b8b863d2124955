'use strict';
// spawnkit/register against stock child_process: every scenario of
// test/register/scenarios.js (written from Node's documentation) is run
// once by stock Node and once under `node -r register.js`; the
// observations must be equal, the documented behaviour must hold, and
// register must have started each scenario as its `route` says (through
// spawnkit, or handed to stock for the stated reason).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { scenarios, cleanup } = require('../compat/scenarios');
const { nativeTest } = require('./helpers');

const FALLBACK = require('..').backend() === 'fallback';

const observe = path.join(__dirname, '..', 'compat', 'observe.js');
const register = path.join(__dirname, '..', 'register.js');
cleanup(); // this process only reads the checks

function runObserve(extra) {
  const out = execFileSync(process.execPath, [...extra, observe],
    { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120_000 });
  return JSON.parse(out);
}

const stock = runObserve([]);
const routed = runObserve(['-r', register]);

for (const [name, sc] of Object.entries(scenarios)) {
  test(name, () => {
    assert.ok(stock[name] && routed[name], 'scenario ran in both runs');
    assert.equal(stock[name].obs.scenarioThrew, undefined, stock[name].obs.scenarioThrew);
    sc.check(stock[name].obs);
    assert.deepEqual(routed[name].obs, stock[name].obs);
    // In the portable fallback (no addon, no pidfds) every start is stock:
    // the same behaviour, routed through nothing.
    if (FALLBACK) assert.notEqual(routed[name].route, 'routed');
    else assert.equal(routed[name].route, sc.route);
  });
}

nativeTest('register routes every scenario it can honour', () => {
  const names = Object.keys(scenarios);
  const n = names.filter((k) => routed[k].route === 'routed').length;
  assert.ok(n >= names.length - 5, `${n} of ${names.length} routed`);
});

test('no deprecation warning from register under --pending-deprecation', () => {
  const r = require('node:child_process').spawnSync(process.execPath, ['--pending-deprecation', '--throw-deprecation',
    '-r', register, '-e', "require('node:child_process').execFileSync('true'); console.log('ok')"], { encoding: 'utf8' });
  assert.deepEqual([r.status, r.stdout, r.stderr], [0, 'ok\n', '']);
});

test('unref(): the parent exits while a detached child runs on', () => {
  for (const pre of [[], ['-r', register]]) {
    const code = `const c = require('node:child_process').spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
      c.unref(); console.log(c.pid);`;
    const t0 = Date.now();
    const pid = Number(execFileSync(process.execPath, [...pre, '-e', code], { encoding: 'utf8', timeout: 20_000 }));
    const took = Date.now() - t0;
    let alive = true;
    try {
      process.kill(-pid, 'SIGKILL'); // its own process group
    } catch {
      alive = false;
    }
    assert.ok(alive, `${pre.join(' ') || 'stock'}: the child was still running`);
    assert.ok(took < 15_000, `${pre.join(' ') || 'stock'}: the parent took ${took} ms`);
  }
});

test('AsyncLocalStorage survives garbage collection until the exit', () => {
  // The addon's async resource must be held until the exit callback: the
  // store lives on it (napi_async_init alone holds it weakly).
  const code = `
    const { AsyncLocalStorage } = require('node:async_hooks');
    const als = new AsyncLocalStorage();
    als.run({ id: 7 }, () => {
      const c = require('node:child_process').spawn('sleep', ['0.3'], { stdio: 'ignore' });
      c.on('exit', () => console.log(JSON.stringify(als.getStore() ?? null)));
    });
    const t = setInterval(() => global.gc(), 20);
    setTimeout(() => clearInterval(t), 600);`;
  for (const pre of [[], ['-r', register]]) {
    const out = execFileSync(process.execPath, ['--expose-gc', ...pre, '-e', code], { encoding: 'utf8' });
    assert.equal(out, '{"id":7}\n', pre.join(' ') || 'stock');
  }
});

nativeTest('registerStats() counts and copies', () => {
  const code = `
    const sk = require(${JSON.stringify(path.join(__dirname, '..'))});
    const cp = require('node:child_process');
    const a = sk.registerStats();
    cp.spawnSync('true');
    cp.spawnSync('true', { uid: process.getuid() });
    const b = sk.registerStats();
    b.reasons.x = 1;
    console.log(JSON.stringify([a, b, sk.registerStats()]));`;
  const [a, b, c] = JSON.parse(execFileSync(process.execPath, ['-r', register, '-e', code], { encoding: 'utf8' }));
  assert.deepEqual(a, { routed: 0, fallback: 0, reasons: {} });
  assert.deepEqual(c, { routed: 1, fallback: 1, reasons: { uid: 1 } });
  assert.equal(b.routed, 1);
});

nativeTest('import "spawnkit/register" from an ES module, after child_process was loaded', () => {
  const code = `
    import cp from 'node:child_process';
    import ${JSON.stringify(register)};
    import { createRequire } from 'node:module';
    const sk = createRequire(import.meta.url)(${JSON.stringify(path.join(__dirname, '..'))});
    const c = cp.spawn('echo', ['esm']);
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.on('close', (code) => {
      const sync = String(cp.execFileSync('echo', ['s']));
      console.log(JSON.stringify({ out, code, stats: sk.registerStats(), sync, ok: c instanceof cp.ChildProcess }));
    });`;
  const r = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }));
  assert.deepEqual(r, { out: 'esm\n', code: 0, stats: { routed: 2, fallback: 0, reasons: {} }, sync: 's\n', ok: true });
});

test('without a usable addon register still installs and every start is stock, counted', () => {
  // A stand-in for ../lib/native that has no drop-in functions, as on a
  // platform where only a portable fallback loads.
  const code = `
    const Module = require('node:module');
    const native = require.resolve(${JSON.stringify(path.join(__dirname, '..', 'lib', 'native.js'))});
    require.cache[native] = Object.assign(new Module(native), { loaded: true, exports: {} });
    require(${JSON.stringify(register)});
    const cp = require('node:child_process');
    const stats = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'register', 'stats.js'))});
    const out = String(cp.execFileSync('echo', ['still works']));
    cp.execFile('echo', ['async'], (err, so) => console.log(JSON.stringify({ out, so, s: stats.registerStats() })));`;
  const r = JSON.parse(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' }));
  assert.deepEqual(r, { out: 'still works\n', so: 'async\n', s: { routed: 0, fallback: 2, reasons: { 'no-addon': 2 } } });
});
