'use strict';
// Issue 12 in the Node binding: empty program names as child_process says
// them (#9), a directory on PATH (#4), a bounded template cache (#2), and
// templates remade after a credential change (#6).
const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const spawnkit = require('..');
const { TemplateCache } = require('../lib/cache');
const native = require('../lib/native');
const { makeTmpDir, writeScript, nativeTest } = require('./helpers');

const INDEX = path.join(__dirname, '..', 'index.js');

function childProcessError(fn) {
  try {
    fn();
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message };
  }
  return null;
}

test('an empty program name is ERR_INVALID_ARG_VALUE, as child_process', async () => {
  const want = childProcessError(() => cp.spawn(''));
  assert.equal(want.code, 'ERR_INVALID_ARG_VALUE');
  assert.deepEqual(childProcessError(() => spawnkit.run('')), want);
  await assert.rejects(spawnkit.execFile(''), want);
  const t = childProcessError(() => new spawnkit.Template(''));
  assert.equal(t.code, 'ERR_INVALID_ARG_VALUE');
  assert.equal(t.name, 'TypeError');
});

test('a directory of that name on PATH: EACCES, as child_process', async (t) => {
  const dir = makeTmpDir(t);
  fs.mkdirSync(path.join(dir, 'prog'));
  const env = { PATH: dir };
  const want = await new Promise((resolve) => {
    cp.spawn('prog', [], { env }).on('error', (e) => resolve(e.code));
  });
  assert.equal(want, 'EACCES');
  await assert.rejects(spawnkit.run('prog', [], { env }), { code: 'EACCES' });
});

function tools(dir, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const p = path.join(dir, `t${i}`);
    fs.symlinkSync('/bin/true', p);
    out.push(p);
  }
  return out;
}

nativeTest('the cache keeps the least recently used out, and shrinks at once', (t) => {
  const [a, b, c, d] = tools(makeTmpDir(t), 4);
  const cache = new TemplateCache({ maxSize: 3 });
  const ta = cache.get(a);
  const tb = cache.get(b);
  cache.get(c);
  assert.equal(cache.get(a), ta);
  cache.get(d);
  assert.ok(!cache.has(b) && tb._h === null, 'b evicted and closed');
  assert.ok(cache.has(a) && cache.has(c) && cache.has(d));
  assert.equal(cache.size, 3);
  cache.configure({ maxSize: 1 });
  assert.equal(cache.size, 1);
  assert.ok(cache.has(d) && ta._h === null);
  cache.clear();
  assert.equal(cache.size, 0);
});

nativeTest('idle templates are closed', (t) => {
  const [a, b] = tools(makeTmpDir(t), 2);
  let now = 1000;
  const cache = new TemplateCache({ idleMs: 10000, clock: () => now });
  const ta = cache.get(a);
  now += 5000;
  const tb = cache.get(b);
  now += 6000; // a idle 11 s, b 6 s
  assert.equal(cache.get(b), tb);
  assert.ok(!cache.has(a) && ta._h === null);
  now += 11000;
  assert.notEqual(cache.get(a), ta);
  assert.ok(tb._h === null && cache.size === 1);
  cache.clear();
});

test('the bound comes from RLIMIT_NOFILE, as in the library and Python', () => {
  assert.equal(new TemplateCache().maxSize, native.templateCacheMax());
  assert.equal(new TemplateCache().idleMs, native.templateCacheIdleSec * 1000);
  const h = fs.readFileSync(path.join(__dirname, '..', '..', 'include', 'spawnkit', 'spawnkit.h'), 'utf8');
  assert.equal(native.STALE_RETRIES, Number(h.match(/^#define SPAWNKIT_STALE_RETRIES\s+(\d+)/m)[1]));
  assert.equal(spawnkit.templateCacheMaxSize(), native.templateCacheMax());
  const out = cp.execFileSync('/bin/sh', ['-c', 'ulimit -n 256 && exec "$0" -p "$1"', process.execPath,
    `require(${JSON.stringify(INDEX)}).templateCacheMaxSize()`]);
  assert.equal(Number(out), 32);
  assert.throws(() => new TemplateCache({ maxSize: 0 }), RangeError);
});

test('300 distinct programs under ulimit -n 256: no EMFILE, fds bounded', (t) => {
  const dir = makeTmpDir(t);
  const script = `
    const fs = require('fs'), path = require('path');
    const sk = require(${JSON.stringify(INDEX)});
    (async () => {
      const base = fs.readdirSync('/proc/self/fd').length;
      for (let i = 0; i < 300; i++) {
        const p = path.join(${JSON.stringify(dir)}, 'tool' + i);
        fs.copyFileSync('/bin/true', p);
        fs.chmodSync(p, 0o755);
        const r = await sk.run(p);
        if (r.code !== 0) throw new Error('tool' + i + ' ' + r.code);
      }
      const n = fs.readdirSync('/proc/self/fd').length;
      console.log(base, n, sk.templateCacheSize(), sk.templateCacheMaxSize());
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const file = path.join(dir, 'many.js');
  fs.writeFileSync(file, script);
  const out = cp.execFileSync('/bin/sh', ['-c', 'ulimit -n 256 && exec "$0" "$1"', process.execPath, file],
    { encoding: 'utf8' });
  const [base, n, cached, cap] = out.trim().split(' ').map(Number);
  assert.equal(cap, 32);
  assert.ok(cached <= cap, `${cached} cached`);
  assert.ok(n <= base + cap + 4, `fds ${base} -> ${n}`);
});

test('the global cache stays bounded through run()', async (t) => {
  const paths = tools(makeTmpDir(t), 12);
  spawnkit.configureTemplateCache({ maxSize: 5 });
  t.after(() => {
    spawnkit.configureTemplateCache();
    spawnkit.clearTemplateCache();
  });
  for (const p of paths) assert.equal((await spawnkit.run(p)).code, 0);
  assert.ok(spawnkit.templateCacheSize() <= 5);
});

test('cached templates are remade after the process drops privileges', { skip: process.getuid() !== 0 && 'needs root' }, () => {
  const script = `
    const sk = require(${JSON.stringify(INDEX)});
    (async () => {
      if ((await sk.run('/bin/true')).code !== 0) throw new Error('first');
      if ((await sk.run('sh', ['-c', 'exit 3'])).code !== 3) throw new Error('first sh');
      process.setgroups([]);
      process.setgid(65534);
      process.setuid(65534);
      for (let i = 0; i < 3; i++) {
        if ((await sk.run('/bin/true')).code !== 0) throw new Error('after');
        if ((await sk.run('sh', ['-c', 'exit 3'])).code !== 3) throw new Error('after sh');
      }
      console.log((await sk.run('id', ['-u'])).stdout.trim());
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const out = cp.execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: '/' });
  assert.equal(out.trim(), '65534');
});

test('a lost exit status is an ECHILD error, never a made-up code', async () => {
  const { SpawnkitChild } = require('../lib/child');
  // What the addon reports when spawnkit_pidfd_wait says -ECHILD.
  const c = new SpawnkitChild('x', ['x']);
  c.pid = 4242;
  const seen = [];
  c.on('error', (e) => seen.push(['error', e.code, e.syscall]));
  c.on('exit', (code, sig) => seen.push(['exit', code, sig]));
  c._onExit(-10, 0);
  assert.deepEqual(seen, [['error', 'ECHILD', 'waitid'], ['exit', null, null]]);
  assert.equal(c.statusError.code, 'ECHILD');
  // Nobody listening for 'error': a process warning, not a crash.
  const d = new SpawnkitChild('y', ['y']);
  d.pid = 4243;
  const warned = new Promise((resolve) => process.once('warning', resolve));
  d._onExit(-10, 0);
  const w = await warned;
  assert.equal(w.code, 'SPAWNKIT_EXIT_STATUS_LOST');
  assert.equal(d.exitCode, null);
});
