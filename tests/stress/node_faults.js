'use strict';
// node_faults - the Node.js addon under limits and hostile events, each
// compared with child_process: EMFILE, EAGAIN at RLIMIT_NPROC, a timeout and
// an abort mid-run, the executable replaced or deleted, the uid changed.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const cp = require('node:child_process');
const {
  PROBE, Skip, Snap, children, cpOutcome, expect, main, scenario, sk, skOutcome, sleep,
} = require('./node_harness');

const ARGS = ['--quiet', '--exit', '4'];

// prlimit on this very process (Node has no setrlimit).
function limit(what, value) {
  cp.execFileSync('prlimit', [`--pid=${process.pid}`, `--${what}=${value}`]);
}

function lowestFreeFd() {
  const fd = fs.openSync('/dev/null', 'r');
  fs.closeSync(fd);
  return fd;
}

function dropToNobody() {
  if (process.getuid() !== 0) throw new Skip('needs root to become an unprivileged user');
  try {
    process.setgroups([]);
    process.setgid(65534);
    process.setuid(65534);
  } catch (e) { // root without CAP_SETUID (a container)
    throw new Skip(`cannot change uid here: ${e.code}`);
  }
}

scenario('emfile', async () => {
  await skOutcome(PROBE, ARGS);
  const s = new Snap();
  const old = fs.readFileSync('/proc/self/limits', 'utf8').match(/Max open files\s+(\d+)\s+(\d+)/);
  // A few fds of head room would let libuv's own pipes through: none.
  // Nothing can be started at the limit, so the process that lifts it
  // again is started first and waits for a line on its stdin.
  const lifter = cp.spawn('sh', ['-c', `read x; prlimit --pid=${process.pid} --nofile=${old[1]}:${old[2]}`],
    { stdio: ['pipe', 'ignore', 'inherit'] });
  const lifted = new Promise((resolve) => lifter.on('exit', resolve));
  await sleep(50);
  limit('nofile', `${lowestFreeFd()}:${old[2]}`);
  const got = await skOutcome(PROBE, ARGS);
  const ref = await cpOutcome(PROBE, ARGS);
  lifter.stdin.end('go\n');
  await lifted;
  expect(got === ref && got === 'EMFILE', `spawnkit ${got}, child_process ${ref}`);
  expect(await skOutcome(PROBE, ARGS) === 'exit 4', 'no recovery after the limit');
  return s.check(`at the fd limit: spawnkit ${got}, child_process ${ref}`);
});

scenario('eagain-rlimit-nproc', async () => {
  dropToNobody();
  limit('nproc', '1:1');
  const got = await skOutcome(PROBE, ARGS);
  const ref = await cpOutcome(PROBE, ARGS);
  expect(got === ref && got === 'EAGAIN', `spawnkit ${got}, child_process ${ref}`);
  return `RLIMIT_NPROC reached: spawnkit ${got}, child_process ${ref}`;
});

scenario('timeout-mid-run', async () => {
  await skOutcome('sh', ['-c', ':']);
  const s = new Snap();
  const t0 = Date.now();
  const r = await sk.run('sh', ['-c', 'sleep 30 & sleep 30'], { timeout: 200 });
  const ms = Date.now() - t0;
  expect(r.timedOut && r.signal === 'SIGKILL', `timedOut ${r.timedOut}, signal ${r.signal}`);
  expect(ms < 5000, `returned after ${ms} ms`);
  await sleep(100);
  return s.check(`timed out after ${ms} ms for a 200 ms timeout`);
});

scenario('abort-mid-run', async () => {
  await skOutcome('sleep', ['0']);
  const s = new Snap();
  const res = {};
  for (const [who, fn] of [['spawnkit', (o) => sk.run('sleep', ['20'], o)],
    ['child_process', (o) => new Promise((resolve, reject) => {
      cp.execFile('sleep', ['20'], o, (e) => (e ? reject(e) : resolve()));
    })]]) {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    try {
      await fn({ signal: ac.signal });
      res[who] = 'finished';
    } catch (e) {
      res[who] = e.name;
    }
    await sleep(100);
  }
  expect(res.spawnkit === res.child_process && res.spawnkit === 'AbortError', JSON.stringify(res));
  expect(children() === 0, `${children()} children left`);
  return s.check(`abort mid-run: ${JSON.stringify(res)}`);
});

function tmpProbe() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'skstress.'));
  const p = path.join(d, 'prog');
  fs.copyFileSync(PROBE, p);
  fs.chmodSync(p, 0o755);
  return [d, p];
}

scenario('executable-replaced', async () => {
  const [d, p] = tmpProbe();
  try {
    const first = await skOutcome(p, ARGS);
    fs.writeFileSync(path.join(d, 'new'), '#!/bin/sh\nexit 9\n', { mode: 0o755 });
    fs.renameSync(path.join(d, 'new'), p);
    const got = await skOutcome(p, []);
    const ref = await cpOutcome(p, []);
    expect(first === 'exit 4' && got === ref && got === 'exit 9', `spawnkit ${got}, child_process ${ref}`);
    return `replaced under the cache: spawnkit ${got}, child_process ${ref}`;
  } finally {
    fs.rmSync(d, { recursive: true, force: true });
  }
});

scenario('executable-deleted', async () => {
  const [d, p] = tmpProbe();
  try {
    await skOutcome(p, ARGS);
    fs.unlinkSync(p);
    const got = await skOutcome(p, []);
    const ref = await cpOutcome(p, []);
    expect(got === ref && got === 'ENOENT', `spawnkit ${got}, child_process ${ref}`);
    return `deleted under the cache: spawnkit ${got}, child_process ${ref}`;
  } finally {
    fs.rmSync(d, { recursive: true, force: true });
  }
});

scenario('credentials-changed', async () => {
  expect(await skOutcome(PROBE, ARGS) === 'exit 4', 'before');
  dropToNobody();
  const got = await skOutcome(PROBE, ARGS);
  const ref = await cpOutcome(PROBE, ARGS);
  expect(got === ref && got === 'exit 4', `after dropping to uid 65534: spawnkit ${got}, child_process ${ref}`);
  return `after dropping to uid 65534: spawnkit ${got}, child_process ${ref}`;
});

main();
