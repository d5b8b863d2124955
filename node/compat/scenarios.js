'use strict';
// Scenarios written from Node's child_process documentation.  Each returns
// a plain observation (events in order, output, exit values, error fields);
// observe.js runs them all, once with stock child_process and once under
// spawnkit/register, and register.test.js requires the two to be equal.
// `check` states what the documentation promises, so a scenario that
// observes nothing useful fails on its own; `route` is how register must
// start it ('routed', or the fallback reason).
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { once } = require('node:events');
const assert = require('node:assert/strict');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sk-register-'));
const script = (name, text, mode = 0o755) => {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, text, { mode });
  return p;
};

// Error fields a caller can see (no stack, no pid: those differ by run).
function errShape(e) {
  if (!e) return null;
  const out = { name: e.name, message: e.message, ctor: e.constructor.name };
  for (const k of ['code', 'errno', 'syscall', 'path', 'spawnargs', 'killed', 'signal', 'cmd', 'status']) {
    if (k in e) out[k] = e[k];
  }
  for (const k of ['stdout', 'stderr']) if (k in e) out[k] = String(e[k]);
  return out;
}

// Wait for 'close', recording the lifecycle events in order and the output.
function watch(child) {
  const events = [];
  const out = [];
  const err = [];
  const extra = [];
  let error = null;
  child.stdout?.on('data', (d) => out.push(d));
  child.stderr?.on('data', (d) => err.push(d));
  for (let i = 3; i < (child.stdio?.length ?? 0); i++) {
    const s = child.stdio[i];
    extra[i] = [];
    s?.on('data', (d) => extra[i].push(d));
  }
  child.on('spawn', () => events.push('spawn'));
  child.on('error', (e) => { error = e; events.push('error'); });
  child.on('exit', (code, signal) => events.push(`exit:${code}:${signal}`));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      events.push(`close:${code}:${signal}`);
      resolve({
        events, error: errShape(error),
        stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(),
        extra: extra.map((x) => (x ? Buffer.concat(x).toString() : null)),
        exitCode: child.exitCode, signalCode: child.signalCode, killed: child.killed,
        pidType: typeof child.pid, isChildProcess: child instanceof cp.ChildProcess,
        stdioNull: child.stdio.map((s) => s === null),
      });
    });
  });
}

function syncShape(r) {
  return {
    keys: Object.keys(r), status: r.status, signal: r.signal,
    error: errShape(r.error), pidType: typeof r.pid,
    output: r.output && r.output.map((o) => (o === null ? null : String(o))),
    stdout: r.stdout === null ? null : String(r.stdout), stderr: r.stderr === null ? null : String(r.stderr),
  };
}

function thrown(fn) {
  try {
    const v = fn();
    return { returned: Buffer.isBuffer(v) ? `buffer:${v}` : v };
  } catch (e) {
    return { threw: errShape(e) };
  }
}

function execP(fnName, ...args) {
  return new Promise((resolve) => {
    const child = cp[fnName](...args, (err, stdout, stderr) => resolve({
      err: errShape(err), stdout: Buffer.isBuffer(stdout) ? `buffer:${stdout}` : stdout,
      stderr: Buffer.isBuffer(stderr) ? `buffer:${stderr}` : stderr,
      isChildProcess: child instanceof cp.ChildProcess,
    }));
  });
}

const noShebang = script('noshebang', 'echo no-shebang "$@"\n');
const notExec = script('notexec.sh', '#!/bin/sh\necho x\n', 0o644);
const badInterp = script('badinterp.sh', '#!/no/such/interpreter-sk\necho x\n');
const aFile = script('plain.txt', 'line one\nline two\n', 0o644);
const big = 'x'.repeat(1 << 20);

const scenarios = {
  'spawn: events, output, exit code': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c', 'echo out; echo err >&2; exit 3'])),
    check: (o) => {
      assert.deepEqual(o.events, ['spawn', 'exit:3:null', 'close:3:null']);
      assert.equal(o.stdout, 'out\n');
      assert.equal(o.stderr, 'err\n');
    },
  },
  'spawn: spawnfile and spawnargs': {
    route: 'routed',
    run: async () => {
      const c = cp.spawn('echo', ['a', 'b']);
      const keys = Object.keys(c).sort(); // what an inspector sees at once
      const r = await watch(c);
      return { ...r, spawnfile: c.spawnfile, spawnargs: c.spawnargs, keys };
    },
    check: (o) => {
      assert.deepEqual(o.spawnargs, ['echo', 'a', 'b']);
      assert.ok(o.keys.includes('pid') && !o.keys.includes('emit'));
    },
  },
  'spawn: ENOENT is an error event with Node\'s fields': {
    route: 'routed',
    run: () => watch(cp.spawn('no-such-command-sk', ['x'])),
    check: (o) => {
      assert.deepEqual(o.events, ['error', 'close:-2:null']);
      assert.equal(o.error.code, 'ENOENT');
      assert.equal(o.error.message, 'spawn no-such-command-sk ENOENT');
      assert.deepEqual(o.error.spawnargs, ['x']);
    },
  },
  'spawn: a #! interpreter that is missing is an ENOENT error event': {
    route: 'routed',
    // (c.pid right after spawn() differs: register learns of this failure
    // after the start, stock before; by 'error' it is undefined in both.)
    run: async () => {
      const c = cp.spawn(badInterp, ['x']);
      const o = await watch(c);
      return { ...o, pidAfter: typeof c.pid };
    },
    check: (o) => {
      assert.deepEqual(o.events, ['error', 'close:-2:null']);
      assert.equal(o.error.code, 'ENOENT');
      assert.equal(o.pidAfter, 'undefined');
    },
  },
  'spawn: \'spawn\' precedes the first output of a child that writes at once': {
    route: 'routed',
    run: async () => {
      const order = [];
      const c = cp.spawn('echo', ['now']);
      c.on('spawn', () => order.push('spawn'));
      c.stdout.on('data', () => order.push('data'));
      await watch(c);
      return order;
    },
    check: (o) => assert.deepEqual(o, ['spawn', 'data']),
  },
  'spawn: a file without execute permission is EACCES': {
    route: 'routed',
    run: () => watch(cp.spawn(notExec)),
    check: (o) => assert.equal(o.error.code, 'EACCES'),
  },
  'spawn: a directory is EACCES': {
    route: 'routed',
    run: () => watch(cp.spawn(tmp)),
    check: (o) => assert.equal(o.error.code, 'EACCES'),
  },
  'spawn: missing cwd is an ENOENT error event': {
    route: 'routed',
    run: () => watch(cp.spawn('ls', [], { cwd: path.join(tmp, 'missing') })),
    check: (o) => assert.equal(o.error.code, 'ENOENT'),
  },
  'spawn: cwd that is a file throws ENOTDIR': {
    route: 'routed',
    run: () => thrown(() => cp.spawn('ls', [], { cwd: aFile })),
    check: (o) => assert.equal(o.threw.code, 'ENOTDIR'),
  },
  'spawn and spawnSync: an argument over the kernel\'s limit is E2BIG': {
    route: 'routed',
    run: () => {
      const big = 'x'.repeat(200000); // above MAX_ARG_STRLEN (128 KiB)
      return [thrown(() => cp.spawn('echo', [big])), syncShape(cp.spawnSync('echo', [big]))];
    },
    check: (o) => {
      assert.equal(o[0].threw.message, 'spawn E2BIG');
      assert.equal(o[1].error.code, 'E2BIG');
    },
  },
  'spawn: cwd, also as a URL': {
    route: 'routed',
    run: async () => [await watch(cp.spawn('pwd', [], { cwd: tmp })),
      await watch(cp.spawn('pwd', [], { cwd: new URL(`file://${tmp}`) }))],
    check: (o) => assert.deepEqual([o[0].stdout, o[1].stdout], ['<tmp>\n', '<tmp>\n']),
  },
  'spawn: env replaces the environment; PATH missing means /usr/bin:/bin': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c', 'echo "$FOO|$BAR|$PATH"'], { env: { FOO: 'foo', BAR: undefined } })),
    check: (o) => assert.match(o.stdout, /^foo\|\|/),
  },
  'spawn: PATH from options.env is searched': {
    route: 'routed',
    run: () => {
      script('sk-only-here', '#!/bin/sh\necho found-in-path\n');
      return watch(cp.spawn('sk-only-here', [], { env: { PATH: `/nonexistent:${tmp}` } }));
    },
    check: (o) => assert.equal(o.stdout, 'found-in-path\n'),
  },
  'spawn: argv0': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c', 'echo $0'], { argv0: 'custom-zero' })),
    check: (o) => assert.equal(o.stdout, 'custom-zero\n'),
  },
  'spawn: shell true and a named shell': {
    route: 'routed',
    run: async () => [await watch(cp.spawn('echo a | tr a b', { shell: true })),
      await watch(cp.spawn('echo $0', { shell: '/bin/bash' }))],
    check: (o) => {
      assert.equal(o[0].stdout, 'b\n');
      assert.equal(o[1].stdout, '/bin/bash\n');
    },
  },
  'spawn: stdin pipe': {
    route: 'routed',
    run: () => {
      const c = cp.spawn('cat');
      c.stdin.end('to cat\n');
      return watch(c);
    },
    check: (o) => assert.equal(o.stdout, 'to cat\n'),
  },
  'spawn: 1 MiB through stdout': {
    route: 'routed',
    run: () => {
      const c = cp.spawn('cat');
      c.stdin.end(big);
      return watch(c).then((r) => ({ ...r, stdout: r.stdout.length }));
    },
    check: (o) => assert.equal(o.stdout, 1 << 20),
  },
  'spawn: stdio fd 3 and 4 pipes': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c', 'echo three >&3; echo four >&4'],
      { stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'] })),
    check: (o) => assert.deepEqual(o.extra.slice(3), ['three\n', 'four\n']),
  },
  'spawn: what the child\'s stdio is (sockets, /dev/null)': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c',
      'for f in 0 1 2 3; do readlink /proc/$$/fd/$f; done | sed "s/[0-9]//g"; grep flags /proc/$$/fdinfo/2'],
    { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] })),
    check: (o) => assert.match(o.stdout, /^\/dev\/null\nsocket:\[\]\n\/dev\/null\nsocket:\[\]\n/),
  },
  'spawn: a file fd as stdin, inherit for stderr': {
    route: 'routed',
    run: async () => {
      const fd = fs.openSync(aFile, 'r');
      const r = await watch(cp.spawn('cat', [], { stdio: [fd, 'pipe', 'inherit'] }));
      fs.closeSync(fd);
      return r;
    },
    check: (o) => {
      assert.equal(o.stdout, 'line one\nline two\n');
      assert.deepEqual(o.stdioNull, [true, false, true]);
    },
  },
  'spawn: a stream as stdout': {
    route: 'routed',
    run: async () => {
      const out = path.join(tmp, 'stream-out');
      const ws = fs.createWriteStream(out);
      await once(ws, 'open');
      const r = await watch(cp.spawn('echo', ['via stream'], { stdio: ['ignore', ws, 'pipe'] }));
      ws.close();
      await once(ws, 'close');
      return { ...r, file: fs.readFileSync(out, 'utf8') };
    },
    check: (o) => assert.equal(o.file, 'via stream\n'),
  },
  'spawn: one child\'s stdout as another\'s stdin (a stream handle)': {
    route: 'routed',
    run: async () => {
      // `sleep` first: b must read before a writes, which EAGAINs on a
      // non-blocking stdin.
      const a = cp.spawn('sh', ['-c', 'sleep 0.2; echo through a socket']);
      const b = cp.spawn('tr', ['a-z', 'A-Z'], { stdio: [a.stdout, 'pipe', 'pipe'] });
      // a's stdout now belongs to b: a emits 'exit', and no 'close'.
      const [ea, rb] = await Promise.all([once(a, 'exit'), watch(b)]);
      a.stdout.destroy();
      return { a: ea, b: rb };
    },
    check: (o) => assert.equal(o.b.stdout, 'THROUGH A SOCKET\n'),
  },
  'spawn: kill() sends SIGTERM, killed is set, kill after exit is false': {
    route: 'routed',
    run: async () => {
      const c = cp.spawn('sleep', ['10']);
      await once(c, 'spawn');
      const first = c.kill();
      const r = await watch(c);
      return { ...r, first, after: c.kill() };
    },
    check: (o) => {
      assert.equal(o.first, true);
      assert.equal(o.after, false);
      assert.deepEqual(o.events, ['exit:null:SIGTERM', 'close:null:SIGTERM']);
    },
  },
  'spawn: kill(SIGKILL), kill(0) and an unknown signal': {
    route: 'routed',
    run: async () => {
      const c = cp.spawn('sleep', ['10']);
      const zero = c.kill(0);
      const bad = thrown(() => c.kill('SIGNOPE'));
      c.kill('SIGKILL');
      return { ...(await watch(c)), zero, bad };
    },
    check: (o) => {
      assert.equal(o.zero, true);
      assert.equal(o.bad.threw.code, 'ERR_UNKNOWN_SIGNAL');
      assert.equal(o.signalCode, 'SIGKILL');
    },
  },
  'spawn: a child that kills itself': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c', 'kill -9 $$'])),
    check: (o) => assert.deepEqual(o.events, ['spawn', 'exit:null:SIGKILL', 'close:null:SIGKILL']),
  },
  'spawn: timeout with the default and a chosen killSignal': {
    route: 'routed',
    run: async () => [await watch(cp.spawn('sleep', ['10'], { timeout: 50 })),
      await watch(cp.spawn('sleep', ['10'], { timeout: 50, killSignal: 'SIGKILL' }))],
    check: (o) => {
      assert.equal(o[0].signalCode, 'SIGTERM');
      assert.equal(o[1].signalCode, 'SIGKILL');
      assert.equal(o[0].killed, true);
    },
  },
  'spawn: AbortSignal, aborted later and already aborted': {
    route: 'routed',
    run: async () => {
      const ac = new AbortController();
      const c = cp.spawn('sleep', ['10'], { signal: ac.signal });
      setTimeout(() => ac.abort(), 30);
      const a = await watch(c);
      const b = await watch(cp.spawn('sleep', ['10'], { signal: AbortSignal.abort() }));
      return [a, b];
    },
    check: (o) => {
      assert.equal(o[0].error.code, 'ABORT_ERR');
      assert.deepEqual(o[0].events, ['spawn', 'error', 'exit:null:SIGTERM', 'close:null:SIGTERM']);
    },
  },
  'spawn: close waits for a grandchild that holds stdout': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c', '(sleep 0.3; echo late) & echo early'])),
    check: (o) => assert.equal(o.stdout, 'early\nlate\n'),
  },
  'spawn: a script without #! runs under /bin/sh': {
    route: 'ENOEXEC',
    run: () => watch(cp.spawn(noShebang, ['arg'])),
    check: (o) => assert.equal(o.stdout, 'no-shebang arg\n'),
  },
  'spawn: detached starts a new session': {
    route: 'routed',
    run: () => watch(cp.spawn('sh', ['-c', 'test "$(ps -o sid= -p $$ | tr -d " ")" = "$$" && echo leader'],
      { detached: true })),
    check: (o) => assert.equal(o.stdout, 'leader\n'),
  },
  'spawn: uid and gid go to stock': {
    route: 'uid',
    run: () => watch(cp.spawn('id', ['-u'], { uid: process.getuid(), gid: process.getgid() })),
    check: (o) => assert.equal(o.stdout, `${process.getuid()}\n`),
  },
  'spawn: windowsHide and windowsVerbatimArguments change nothing on Linux': {
    route: 'routed',
    run: () => watch(cp.spawn('echo', ['x'], { windowsHide: true, windowsVerbatimArguments: true })),
    check: (o) => assert.equal(o.stdout, 'x\n'),
  },
  'spawn: bad arguments throw as stock does': {
    route: 'none',
    run: () => [thrown(() => cp.spawn('')), thrown(() => cp.spawn('echo', 'notarray')),
      thrown(() => cp.spawn('echo', [], { timeout: -1 })), thrown(() => cp.spawn('echo', ['a\0b'])),
      thrown(() => cp.spawn('echo', [], { stdio: 'bogus' }))],
    check: (o) => assert.ok(o.every((x) => x.threw)),
  },
  'AsyncLocalStorage: the store reaches exit, data, close and execFile callbacks': {
    route: 'routed',
    run: () => new Promise((resolve) => {
      const { AsyncLocalStorage } = require('node:async_hooks');
      const als = new AsyncLocalStorage();
      const seen = {};
      let left = 2;
      const done = () => (--left === 0 ? resolve(seen) : undefined);
      als.run({ id: 42 }, () => {
        const c = cp.spawn('echo', ['x']);
        c.on('exit', () => { seen.exit = als.getStore() ?? null; });
        c.stdout.on('data', () => { seen.data = als.getStore() ?? null; });
        c.on('close', () => {
          seen.close = als.getStore() ?? null;
          done();
        });
        cp.execFile('echo', ['y'], () => {
          seen.execFile = als.getStore() ?? null;
          done();
        });
      });
    }),
    check: (o) => assert.deepEqual(o, { exit: { id: 42 }, data: { id: 42 }, close: { id: 42 }, execFile: { id: 42 } }),
  },
  'fork: stays stock (ipc)': {
    route: 'ipc',
    run: async () => {
      const child = script('child.js', "process.on('message', (m) => { process.send(m + '!'); process.exit(0); });\n");
      const c = cp.fork(child);
      c.send('hi');
      const [msg] = await once(c, 'message');
      return { msg, ...(await watch(c)) };
    },
    check: (o) => assert.equal(o.msg, 'hi!'),
  },
  'exec: stdout, stderr and a failing command': {
    route: 'routed',
    run: async () => [await execP('exec', 'echo out; echo err >&2'),
      await execP('exec', 'echo partial; exit 2')],
    check: (o) => {
      assert.equal(o[0].stdout, 'out\n');
      assert.equal(o[1].err.code, 2);
      assert.equal(o[1].err.message, 'Command failed: echo partial; exit 2\n');
    },
  },
  'exec: maxBuffer exceeded': {
    route: 'routed',
    run: () => execP('exec', 'head -c 5000 /dev/zero | tr "\\0" a', { maxBuffer: 1000 }),
    check: (o) => {
      assert.equal(o.err.code, 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER');
      assert.equal(o.stdout.length, 1000);
    },
  },
  'exec: timeout kills with killSignal': {
    route: 'routed',
    run: () => execP('exec', 'sleep 10', { timeout: 50, killSignal: 'SIGINT' }),
    check: (o) => {
      assert.equal(o.err.killed, true);
      assert.equal(o.err.signal, 'SIGINT');
    },
  },
  'execFile: buffer encoding, ENOENT, cwd': {
    route: 'routed',
    run: async () => [await execP('execFile', 'cat', [aFile], { encoding: 'buffer' }),
      await execP('execFile', 'no-such-command-sk', ['a']),
      await execP('execFile', 'pwd', { cwd: '/' })],
    check: (o) => {
      assert.equal(o[0].stdout, 'buffer:line one\nline two\n');
      assert.equal(o[1].err.code, 'ENOENT');
      assert.equal(o[2].stdout, '/\n');
    },
  },
  'execFile: AbortSignal': {
    route: 'routed',
    run: () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 30);
      return execP('execFile', 'sleep', ['10'], { signal: ac.signal });
    },
    check: (o) => assert.equal(o.err.code, 'ABORT_ERR'),
  },
  'spawnSync: output, input, encoding': {
    route: 'routed',
    run: () => [syncShape(cp.spawnSync('sh', ['-c', 'cat; echo e >&2; exit 4'], { input: 'in' })),
      syncShape(cp.spawnSync('echo', ['x'], { encoding: 'utf8' })),
      syncShape(cp.spawnSync('cat', { input: new Uint16Array([0x6968]) }))],
    check: (o) => {
      assert.equal(o[0].status, 4);
      assert.deepEqual(o[0].output, [null, 'in', 'e\n']);
      assert.equal(o[2].stdout, 'hi');
    },
  },
  'spawnSync: ENOENT, EACCES, bad cwd': {
    route: 'routed',
    run: () => [syncShape(cp.spawnSync('no-such-command-sk', ['a'])), syncShape(cp.spawnSync(notExec)),
      syncShape(cp.spawnSync('ls', { cwd: path.join(tmp, 'missing') }))],
    check: (o) => {
      assert.equal(o[0].error.code, 'ENOENT');
      assert.equal(o[0].error.syscall, 'spawnSync no-such-command-sk');
      assert.equal(o[1].error.code, 'EACCES');
    },
  },
  'spawnSync: timeout, killSignal': {
    route: 'routed',
    run: () => [syncShape(cp.spawnSync('sleep', ['10'], { timeout: 50 })),
      // Generous: 'before' must be out before the timeout on a loaded machine.
      syncShape(cp.spawnSync('sh', ['-c', 'echo before; sleep 10'], { timeout: 1500, killSignal: 'SIGKILL' }))],
    check: (o) => {
      assert.equal(o[0].error.code, 'ETIMEDOUT');
      assert.equal(o[0].signal, 'SIGTERM');
      assert.equal(o[1].signal, 'SIGKILL');
      assert.equal(o[1].stdout, 'before\n');
    },
  },
  'spawnSync: waits for a grandchild holding stdout, up to the timeout': {
    route: 'routed',
    run: () => [syncShape(cp.spawnSync('sh', ['-c', '(sleep 0.3; echo late) & echo early'], { timeout: 5000 })),
      syncShape(cp.spawnSync('sh', ['-c', '(sleep 4; echo late) & echo early'], { timeout: 1500 }))],
    check: (o) => {
      assert.equal(o[0].stdout, 'early\nlate\n');
      assert.deepEqual([o[1].error.code, o[1].status, o[1].stdout], ['ETIMEDOUT', 0, 'early\n']);
    },
  },
  'spawnSync: maxBuffer is ENOBUFS': {
    route: 'routed',
    run: () => {
      const r = cp.spawnSync('sh', ['-c', 'echo 12345678901234567890; sleep 10'], { maxBuffer: 10 });
      return syncShape(r);
    },
    check: (o) => {
      assert.equal(o.error.code, 'ENOBUFS');
      assert.equal(o.signal, 'SIGTERM');
    },
  },
  'spawnSync: maxBuffer counts every pipe together; fd 3 output': {
    route: 'routed',
    run: () => [syncShape(cp.spawnSync('sh', ['-c', 'printf 123456; printf 123456 >&2; sleep 10'], { maxBuffer: 10 })),
      syncShape(cp.spawnSync('sh', ['-c', 'echo three >&3'], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] }))],
    check: (o) => {
      assert.equal(o[0].error.code, 'ENOBUFS');
      assert.deepEqual(o[1].output, [null, '', '', 'three\n']);
    },
  },
  'spawnSync: stdio inherit and ignore, exit by signal': {
    route: 'routed',
    run: () => [syncShape(cp.spawnSync('true', { stdio: 'inherit' })),
      syncShape(cp.spawnSync('sh', ['-c', 'kill -TERM $$'], { stdio: ['ignore', 'pipe', 'ignore'] }))],
    check: (o) => {
      assert.deepEqual(o[0].output, [null, null, null]);
      assert.equal(o[1].signal, 'SIGTERM');
    },
  },
  'spawnSync: detached starts a new session': {
    route: 'routed',
    run: () => syncShape(cp.spawnSync('sh', ['-c', 'test "$(ps -o sid= -p $$ | tr -d " ")" = "$$" && echo leader'],
      { detached: true })),
    check: (o) => assert.equal(o.stdout, 'leader\n'),
  },
  'spawn: detached, then kill the process group': {
    route: 'routed',
    run: async () => {
      const c = cp.spawn('sh', ['-c', 'sleep 30 & echo started; wait'], { detached: true });
      await once(c.stdout, 'data');
      process.kill(-c.pid, 'SIGTERM');
      return watch(c);
    },
    check: (o) => assert.equal(o.signalCode, 'SIGTERM'),
  },
  'execSync: output, failure, input, shell': {
    route: 'routed',
    run: () => [thrown(() => cp.execSync('echo hi')), thrown(() => cp.execSync('echo e >&2; exit 5', { stdio: 'pipe' })),
      thrown(() => cp.execSync('cat', { input: 'piped', encoding: 'utf8' })),
      thrown(() => cp.execSync('echo $0', { shell: '/bin/bash', encoding: 'utf8' }))],
    check: (o) => {
      assert.equal(o[0].returned, 'buffer:hi\n');
      assert.equal(o[1].threw.status, 5);
      assert.equal(o[2].returned, 'piped');
    },
  },
  'execFileSync: output, ENOENT, timeout, maxBuffer': {
    route: 'routed',
    run: () => [thrown(() => cp.execFileSync('echo', ['a'], { encoding: 'utf8' })),
      thrown(() => cp.execFileSync('no-such-command-sk')),
      thrown(() => cp.execFileSync('sleep', ['10'], { timeout: 50 })),
      thrown(() => cp.execFileSync('sh', ['-c', 'head -c 100 /dev/zero; sleep 10'], { maxBuffer: 10 }))],
    check: (o) => {
      assert.equal(o[0].returned, 'a\n');
      assert.equal(o[1].threw.code, 'ENOENT');
      assert.equal(o[2].threw.code, 'ETIMEDOUT');
      assert.equal(o[3].threw.code, 'ENOBUFS');
    },
  },
};

function cleanup() {
  fs.rmSync(tmp, { recursive: true, force: true });
}

module.exports = { scenarios, cleanup, tmp };
