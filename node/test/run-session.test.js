'use strict';
// Sessions (issue 11): run() starts the child in a new session by default,
// so a program that opens /dev/tty to prompt fails at once instead of
// waiting on the caller's terminal; after the child exits, its session is
// killed, so a background job of a successful call does not outlive it.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const sk = require('..');
const { processState, waitFor, nativeTest, makeTmpDir, writeScript } = require('./helpers');

// Run a node script under a real controlling terminal: python's pty.fork()
// gives the child a new session whose terminal is a pty; the parent only
// reads (nothing is ever typed, so a read of the terminal blocks).
const UNDER_PTY = `
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.write(out.decode())
`;

function underTerminal(t, js) {
  const dir = makeTmpDir(t);
  const file = writeScript(dir, 'tty.js', js, 0o644);
  return execFileSync('python3', ['-c', UNDER_PTY, process.execPath, file], { timeout: 60000 }).toString();
}

// Opens /dev/tty (in a subshell: a failed redirection ends only that), then
// reads a line from it, as ssh/git/sudo prompts do.
const PROMPT = '( : </dev/tty ) 2>/dev/null || { echo no-tty; exit 1; }; echo has-tty; read -r x </dev/tty; echo read';

nativeTest('/dev/tty under a real controlling terminal fails fast in the new session', (t) => {
  const out = underTerminal(t, `
    const sk = require(${JSON.stringify(path.join(__dirname, '..'))});
    const argv = ['-c', ${JSON.stringify(PROMPT)}];
    (async () => {
      const t0 = Date.now();
      const r = await sk.run('sh', argv, { timeout: 5000 });
      console.log(['DEFAULT', r.stdout.trim(), r.timedOut, Date.now() - t0 < 4000].join(' '));
      const s = await sk.run('sh', argv, { timeout: 1000, newSession: false });
      console.log(['SAME', s.stdout.trim(), s.timedOut].join(' '));
    })();
  `);
  // no terminal in the new session: ENXIO at once, no wait
  assert.match(out, /DEFAULT no-tty false true/);
  // and the test can fail: in the caller's session the terminal opens and
  // the read blocks until the timeout
  assert.match(out, /SAME has-tty true/);
});

test('a background job of a successful call is dead afterwards', async () => {
  const r = await sk.run('sh', ['-c', 'sleep 100 & echo $!; echo started'], { waitDelay: 300 });
  assert.equal(r.code, 0);
  assert.equal(r.timedOut, false);
  const [pid, word] = r.stdout.trim().split('\n');
  assert.equal(word, 'started');
  assert.ok(Number(pid) > 1);
  assert.ok(await waitFor(() => processState(Number(pid)) !== 'alive', 5000), `job ${pid} still runs`);
});

test('a background job that left the pipes is dead afterwards too', async () => {
  const r = await sk.run('sh', ['-c', 'sleep 100 >/dev/null 2>&1 & echo $!']);
  assert.equal(r.code, 0);
  const pid = Number(r.stdout.trim());
  assert.ok(await waitFor(() => processState(pid) !== 'alive', 5000), `job ${pid} still runs`);
});

test('newSession: the child leads its own session unless opted out (detached is the alias)', async () => {
  const probe = ['-c', 'import os; print(os.getsid(0) == os.getpid())'];
  assert.equal((await sk.run('python3', probe)).stdout, 'True\n');
  assert.equal((await sk.run('python3', probe, { detached: true })).stdout, 'True\n');
  assert.equal((await sk.run('python3', probe, { newSession: false })).stdout, 'False\n');
  assert.equal((await sk.run('python3', probe, { detached: false })).stdout, 'False\n');
});

test('waitDelay: the child\'s own status comes back while a job it left holds stdout', async () => {
  const t0 = Date.now();
  const r = await sk.run('sh', ['-c', 'sleep 100 & echo $!; exit 7'], { waitDelay: 200 });
  assert.equal(r.code, 7);
  assert.equal(r.waitDelayExpired, true);
  assert.equal(r.timedOut, false);
  assert.equal(r.killed, true);
  assert.ok(Date.now() - t0 < 10000);
  const pid = Number(r.stdout.trim());
  assert.ok(await waitFor(() => processState(pid) !== 'alive', 5000), `job ${pid} still runs`);
});

test('noOutputTimeout: killed once no output came for that long, as Python\'s', async () => {
  const r = await sk.run('sh', ['-c', 'echo a; exec sleep 100'], { noOutputTimeout: 300 });
  assert.equal(r.timedOut, true);
  assert.equal(r.noOutputTimedOut, true);
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.stdout, 'a\n');
  // output more often than the limit keeps it away
  const ok = await sk.run('sh', ['-c', 'for i in 1 2 3; do echo $i; sleep 0.2; done'], { noOutputTimeout: 20000 });
  assert.equal(ok.timedOut, false);
  assert.equal(ok.noOutputTimedOut, false);
  assert.equal(ok.stdout, '1\n2\n3\n');
  // execFile rejects, as for a timeout
  await assert.rejects(sk.execFile('sleep', ['100'], { noOutputTimeout: 200 }),
    (e) => e.timedOut === true && e.noOutputTimedOut === true && e.signal === 'SIGKILL');
});

test('an abort stops a run that writes nothing, at once', async () => {
  const t0 = Date.now();
  const err = await sk.run('sleep', ['100'], { signal: AbortSignal.timeout(150) }).catch((e) => e);
  assert.equal(err.name, 'AbortError');
  assert.equal(err.signal, 'SIGKILL');
  assert.equal(err.killed, true);
  assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
});
