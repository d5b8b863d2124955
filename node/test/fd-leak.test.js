'use strict';
// No inherited secrets: a child sees fds 0..2 only, even when the parent
// holds fds without O_CLOEXEC; and the parent does not leak fds either.
const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const path = require('node:path');
const sk = require('..');
const { openFds, makeTmpDir, nativeTest } = require('./helpers');

// Runs in a node process started by a shell that opened fd 40 without
// O_CLOEXEC: it lists what a spawnkit child and a child_process child see.
const PROBE = `
const fs = require('fs');
fs.fstatSync(40); // really open here, without O_CLOEXEC (Node marks only low fds)
const sk = require(${JSON.stringify(path.join(__dirname, '..'))});
const cp = require('child_process');
// A shell lists its open fds; the directory fd of the glob itself is
// closed again by the time each entry is tested.
const list = 'for f in /proc/$$/fd/*; do [ -e "$f" ] && printf "%s " "\${f##*/}"; done; echo';
(async () => {
  const a = await sk.run('sh', ['-c', list]);
  const b = cp.execFileSync('sh', ['-c', list]).toString();
  process.stdout.write(JSON.stringify({ spawnkit: a.stdout.trim(), child_process: b.trim() }));
})();
`;

function runProbe(script) {
  const out = cp.execFileSync('bash', ['-c', 'exec 40</dev/null; exec "$0" -e "$1"', process.execPath, script]);
  return JSON.parse(out.toString());
}

nativeTest('the child has only fds 0, 1, 2', async () => {
  const r = runProbe(PROBE);
  assert.equal(r.spawnkit, '0 1 2');
  // The probe is only meaningful if an fd could leak: child_process's
  // child does get fd 40.
  assert.match(r.child_process, /\b40\b/);
});

nativeTest('inheritFds keeps them (the ABI flag reaches the library)', async () => {
  const probe = PROBE.replace("sk.run('sh', ['-c', list])", "new Promise((res) => { const c = new sk.Template('sh').spawn(['-c', list], { inheritFds: true }); let o = ''; c.stdout.on('data', (d) => o += d); c.on('close', () => res({ stdout: o })); })");
  assert.match(runProbe(probe).spawnkit, /^0 1 2 .*\b40\b/);
});

test('no fds leak in the parent: successes, failures, timeouts, aborts', async (t) => {
  const dir = makeTmpDir(t);
  // Templates are cached (each pins its executable with one fd): make them
  // before counting.
  for (const c of ['echo', 'cat', 'true', 'sleep']) await sk.run(c, c === 'sleep' ? ['0'] : []);
  const before = openFds();
  for (let i = 0; i < 20; i++) {
    await sk.run('echo', ['x']);
    await sk.run('cat', [], { input: 'y' });
    await sk.run('no-such-command-spawnkit').catch(() => {});
    await sk.run('true', [], { cwd: path.join(dir, 'missing') }).catch(() => {});
    await sk.run('true', [], { cwd: '/etc/passwd' }).catch(() => {});
    await sk.run('sleep', ['5'], { timeout: 20 });
    await sk.run('sleep', ['5'], { signal: AbortSignal.timeout(20) }).catch(() => {});
  }
  assert.equal(openFds(), before);
});
