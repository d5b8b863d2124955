'use strict';
// Behaviour parity with child_process on a table of cases: the same
// command through child_process and through spawnkit must give the same
// stdout, stderr, exit code, signal and error (code, errno, syscall, path,
// message).  Differences that are deliberate (stdin defaults, timeouts)
// are tested elsewhere, not here.
const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const util = require('node:util');
const sk = require('..');
const { collect, errorShape, makeTmpDir, writeScript, nativeTest } = require('./helpers');

const cpExecFile = util.promisify(cp.execFile);

function cases(dir) {
  const noexec = writeScript(dir, 'noexec.sh', '#!/bin/sh\necho no\n', 0o644);
  // A template pins an absolute path, and a #! interpreter is handed the
  // path that was exec'd: $0 is the absolute path even when the caller
  // named the script relatively (c.cp gives child_process the same file).
  const script = writeScript(dir, 'hello.sh', '#!/bin/sh\necho "hello from $0 in $(pwd)"\n');
  require('node:fs').mkdirSync(require('node:path').join(dir, 'subdir'));
  writeScript(dir, 'where.sh', '#!/bin/sh\necho "in $(pwd): $*"\n');
  return [
    { name: 'stdout', file: 'echo', args: ['hello', 'world'] },
    { name: 'stderr', file: 'sh', args: ['-c', 'echo oops >&2'] },
    { name: 'both streams', file: 'sh', args: ['-c', 'for i in 1 2 3; do echo o$i; echo e$i >&2; done'] },
    { name: 'exit code', file: 'sh', args: ['-c', 'echo partial; exit 7'] },
    { name: 'exit 255', file: 'sh', args: ['-c', 'exit 255'] },
    { name: 'killed by SIGTERM', file: 'sh', args: ['-c', 'kill -TERM $$'] },
    { name: 'killed by SIGKILL', file: 'sh', args: ['-c', 'kill -KILL $$'] },
    // Node ignores SIGPIPE; the child must start with it at default.
    { name: 'SIGPIPE is default in the child', file: 'sh', args: ['-c', 'kill -PIPE $$; echo survived'] },
    { name: 'signal mask and ignored set', file: 'grep', args: ['-E', '^Sig(Blk|Ign)', '/proc/self/status'] },
    { name: 'arguments verbatim', file: 'printf', args: ['[%s]\\n', 'a b', '', 'é ü', '$HOME', '*', '"q"'] },
    { name: 'env replaces process.env', file: 'sh', args: ['-c', 'echo "$FOO|$BAR|$PATH"'], opts: { env: { FOO: 'x y', BAR: undefined, PATH: '/usr/bin:/bin' } } },
    { name: 'empty env', file: '/usr/bin/env', args: [], opts: { env: {} } },
    { name: 'cwd', file: 'pwd', args: [], opts: { cwd: '/usr/lib' } },
    { name: 'relative path against cwd', file: './hello.sh', args: ['x'], opts: { cwd: dir }, cp: [script, ['x']] },
    { name: 'script with #!', file: script, args: [] },
    { name: 'relative PATH entry (child cwd)', file: 'where.sh', args: ['a'], opts: { cwd: dir, env: { PATH: '.:/usr/bin:/bin' } } },
    { name: 'large output', file: 'seq', args: ['1', '100000'] },
    { name: 'not found in PATH', file: 'no-such-command-spawnkit', args: ['a'] },
    { name: 'only a directory of that name in PATH', file: 'subdir', args: [], opts: { env: { PATH: `${dir}:/usr/bin:/bin` } } },
    { name: 'absolute path missing', file: '/nonexistent/bin/tool', args: [] },
    { name: 'not executable', file: noexec, args: [] },
    { name: 'a directory', file: '/tmp', args: [] },
    { name: 'cwd missing', file: 'true', args: [], opts: { cwd: '/nonexistent-spawnkit-dir' } },
    { name: 'cwd is a file', file: 'true', args: [], opts: { cwd: '/etc/passwd' } },
  ];
}

async function outcome(fn) {
  try {
    const { stdout, stderr } = await fn();
    return { ok: true, stdout, stderr };
  } catch (e) {
    return { ok: false, error: errorShape(e) };
  }
}

test('execFile parity with child_process.execFile', async (t) => {
  const dir = makeTmpDir(t);
  for (const c of cases(dir)) {
    await t.test(c.name, async () => {
      const [cpFile, cpArgs] = c.cp ?? [c.file, c.args];
      const want = await outcome(() => cpExecFile(cpFile, cpArgs, c.opts ?? {}));
      const got = await outcome(() => sk.execFile(c.file, c.args, c.opts ?? {}));
      assert.deepEqual(got, want);
    });
  }
});

nativeTest('Template.spawn parity with child_process.spawn', async (t) => {
  const dir = makeTmpDir(t);
  for (const c of cases(dir)) {
    await t.test(c.name, async () => {
      const opts = { ...(c.opts ?? {}), stdio: ['ignore', 'pipe', 'pipe'] };
      const [cpFile, cpArgs] = c.cp ?? [c.file, c.args];
      let want;
      try {
        want = await collect(cp.spawn(cpFile, cpArgs, opts));
      } catch (cpThrew) {
        // child_process throws this one at once: so must we.
        const tmpl = new sk.Template(c.file, opts);
        t.after(() => tmpl.close());
        assert.throws(() => tmpl.spawn(c.args, opts), (e) => {
          assert.deepEqual(errorShape(e), errorShape(cpThrew));
          return true;
        });
        return;
      }
      let tmpl;
      try {
        tmpl = new sk.Template(c.file, opts);
      } catch (e) {
        // The template is made before any child exists: a file that cannot
        // be a template fails here with child_process's error for it.
        // (Its spawnargs are empty: no arguments are known yet.)
        assert.equal(want.events.join(), 'error,close');
        assert.deepEqual(errorShape(e), { ...errorShape(want.error), spawnargs: [] });
        return;
      }
      const got = await collect(tmpl.spawn(c.args, opts));
      tmpl.close();
      assert.deepEqual(
        { ...got, error: errorShape(got.error) },
        { ...want, error: errorShape(want.error) });
    });
  }
});
