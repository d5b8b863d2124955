'use strict';
// The Template / SpawnkitChild API itself: construction errors, stdio
// choices, kill, ref/unref, input, closed templates, bad arguments.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const sk = require('..');
const { collect, makeTmpDir, writeScript, nativeTest } = require('./helpers');

nativeTest('a template resolves names in PATH and pins an absolute path', () => {
  const t = new sk.Template('sh');
  assert.ok(path.isAbsolute(t.path));
  assert.equal(fs.realpathSync(t.path), fs.realpathSync('/bin/sh'));
  assert.ok(['user', 'kernel'].includes(t.backend));
  t.close();
  t.close(); // twice is fine
  assert.throws(() => t.backend, { code: 'EBADF' });
  assert.throws(() => t.spawn([]), { code: 'EBADF' });
});

nativeTest('construction errors carry Node-style codes', (t) => {
  const dir = makeTmpDir(t);
  assert.throws(() => new sk.Template('no-such-command-spawnkit'),
    { code: 'ENOENT', errno: -2, syscall: 'spawn no-such-command-spawnkit', path: 'no-such-command-spawnkit' });
  assert.throws(() => new sk.Template(dir), { code: 'EACCES', errno: -13 });
  const plain = writeScript(dir, 'plain', 'data', 0o644);
  assert.throws(() => new sk.Template(plain), { code: 'EACCES' });
  assert.throws(() => new sk.Template('sh', { env: { PATH: dir } }), { code: 'ENOENT' });
  assert.throws(() => new sk.Template('bad\u0000name'), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => new sk.Template(42), { code: 'ERR_INVALID_ARG_TYPE' });
});

nativeTest('bad spawn arguments throw at once, before any child starts', () => {
  const before = fs.readdirSync('/proc/self/fd').length;
  const t = new sk.Template('true');
  assert.throws(() => t.spawn('x'), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => t.spawn(['a\u0000b']), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => t.spawn([], { env: { A: 'x\u0000' } }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => t.spawn([], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => t.spawn([], { stdio: ['bogus'] }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => t.spawn([], { shell: true }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => t.spawn([], { uid: 0 }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => t.spawn([], { timeout: -1 }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => t.spawn([], { signal: 'x' }), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => t.spawn([], { killSignal: 'SIGNOPE' }), { code: 'ERR_UNKNOWN_SIGNAL' });
  assert.throws(() => t.spawn([], { killGraceMs: 'soon' }), { code: 'ERR_INVALID_ARG_VALUE' });
  t.close();
  assert.equal(fs.readdirSync('/proc/self/fd').length, before, 'no pipe left open');
});

nativeTest('stdin is /dev/null by default: cat ends at once', async () => {
  const t = new sk.Template('cat');
  const child = t.spawn();
  assert.equal(child.stdin, null);
  const r = await collect(child);
  t.close();
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
});

nativeTest('stdin pipe, events in order, pid and exitCode', async () => {
  const t = new sk.Template('cat');
  const child = t.spawn([], { stdio: 'pipe' });
  const events = [];
  child.on('spawn', () => events.push('spawn'));
  assert.ok(child.pid > 0);
  child.stdin.end('through the pipe');
  const r = await collect(child);
  t.close();
  assert.equal(r.stdout, 'through the pipe');
  assert.deepEqual([...events, ...r.events], ['spawn', 'exit', 'close']);
  assert.equal(child.exitCode, 0);
  assert.equal(child.signalCode, null);
});

nativeTest("stdio 'ignore' and an fd number", async (t) => {
  const dir = makeTmpDir(t);
  const file = path.join(dir, 'out.txt');
  const fd = fs.openSync(file, 'w');
  const tmpl = new sk.Template('sh');
  const r = await collect(tmpl.spawn(['-c', 'echo to-file; echo to-null >&2'], { stdio: ['ignore', fd, 'ignore'] }));
  fs.closeSync(fd);
  assert.equal(r.code, 0);
  assert.equal(fs.readFileSync(file, 'utf8'), 'to-file\n');
  tmpl.close();
});

nativeTest("stdio [.., 2, 1] swaps the parent's stdout and stderr (DUP2s staged)", () => {
  const { spawnSync } = require('node:child_process');
  const script = `
    const sk = require(${JSON.stringify(path.join(__dirname, '..'))});
    new sk.Template('sh').spawn(['-c', 'echo to-out; echo to-err >&2'], { stdio: ['ignore', 2, 1] });`;
  const r = spawnSync(process.execPath, ['-e', script]);
  assert.equal(r.status, 0);
  assert.equal(r.stdout.toString(), 'to-err\n');
  assert.equal(r.stderr.toString(), 'to-out\n');
  const inherit = spawnSync(process.execPath, ['-e', script.replace("['ignore', 2, 1]", "'inherit'")]);
  assert.equal(inherit.stdout.toString(), 'to-out\n');
  assert.equal(inherit.stderr.toString(), 'to-err\n');
});

nativeTest('kill() uses the pidfd: true while running, false after exit', async () => {
  const t = new sk.Template('sleep');
  const child = t.spawn(['30']);
  assert.equal(child.kill(), true);
  assert.equal(child.killed, true);
  const r = await collect(child);
  assert.equal(r.signal, 'SIGTERM');
  assert.equal(child.kill(), false);
  const c2 = t.spawn(['30']);
  c2.kill('SIGKILL');
  assert.equal((await collect(c2)).signal, 'SIGKILL');
  const c3 = t.spawn(['30']);
  c3.kill(9);
  assert.equal((await collect(c3)).signal, 'SIGKILL');
  t.close();
});

nativeTest('unref() lets the process exit while a child runs', async () => {
  const { execFileSync } = require('node:child_process');
  const script = `
    const sk = require(${JSON.stringify(path.join(__dirname, '..'))});
    const c = new sk.Template('sleep').spawn(['30']);
    c.unref();
    console.log(c.pid);`;
  const t0 = Date.now();
  const pid = Number(execFileSync(process.execPath, ['-e', script]).toString());
  assert.ok(Date.now() - t0 < 10000);
  process.kill(pid, 'SIGKILL');
});

nativeTest('argv0 and cwd', async (t) => {
  const dir = makeTmpDir(t);
  const tmpl = new sk.Template('sh');
  const r = await collect(tmpl.spawn(['-c', 'echo "$0 $(pwd)"'], { argv0: 'custom-name', cwd: dir }));
  tmpl.close();
  assert.equal(r.stdout, `custom-name ${fs.realpathSync(dir)}\n`);
});

nativeTest('run() with input and encoding buffer; execFile rejects on failure', async () => {
  const r = await sk.run('cat', [], { input: Buffer.from([0, 1, 2, 255]), encoding: 'buffer' });
  assert.deepEqual(r.stdout, Buffer.from([0, 1, 2, 255]));
  const err = await sk.execFile('sh', ['-c', 'echo bad >&2; exit 2']).catch((e) => e);
  assert.equal(err.code, 2);
  assert.equal(err.stderr, 'bad\n');
  assert.equal(err.killed, false);
  assert.match(err.message, /^Command failed: sh -c echo bad >&2; exit 2\nbad\n$/);
  const ok = await sk.execFile('echo', ['fine']);
  assert.equal(ok.stdout, 'fine\n');
});

nativeTest('a child that exits while we write a big input does not crash us', async () => {
  const r = await sk.run('true', [], { input: Buffer.alloc(4 << 20) });
  assert.equal(r.code, 0);
});

nativeTest('SPAWNKIT_BACKEND selects the backend at template creation', async (t) => {
  const saved = process.env.SPAWNKIT_BACKEND;
  t.after(() => {
    if (saved === undefined) delete process.env.SPAWNKIT_BACKEND;
    else process.env.SPAWNKIT_BACKEND = saved;
  });
  process.env.SPAWNKIT_BACKEND = 'user';
  const u = new sk.Template('true');
  assert.equal(u.backend, 'user');
  assert.equal((await collect(u.spawn())).code, 0);
  u.close();
  // The kernel backend exists exactly where the library's probe of the
  // calls found them (no sysfs file says so): unforced, the library then
  // picks it, and elsewhere forcing it is ENOSYS.
  delete process.env.SPAWNKIT_BACKEND;
  const kernelFound = sk.backend() === 'kernel';
  process.env.SPAWNKIT_BACKEND = 'kernel';
  if (kernelFound) {
    const k = new sk.Template('true');
    assert.equal(k.backend, 'kernel');
    assert.equal((await collect(k.spawn())).code, 0);
    k.close();
  } else {
    assert.throws(() => new sk.Template('true'), { code: 'ENOSYS' });
  }
  process.env.SPAWNKIT_BACKEND = 'bogus';
  assert.throws(() => new sk.Template('true'), { code: 'EINVAL' });
});
