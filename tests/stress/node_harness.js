'use strict';
// node_harness - the scenario runner of the Node.js stress programs
// (node_*.js), as py_harness.py is for Python.
//
// A program registers scenarios with scenario(name, fn, opts) and calls
// main().  Each scenario runs in a fresh `node prog.js --one NAME` (opts.prefix
// is put before it, e.g. ['prlimit', '--nofile=256']) under its deadline; the
// parent prints the line tests/stress/run.sh counts:
//
//     STRESS <ok|wrong|leak|crash|hang|skip> node/<prog>/<name>: <detail>
//
// fn is async and returns its detail, or throws Wrong / Leak / Skip (any
// other exception is a wrong result too).
const fs = require('node:fs');
const path = require('node:path');
const cp = require('node:child_process');

const SCALE = Math.max(1, Number(process.env.STRESS_SCALE || 1));
const TIMEOUT_SCALE = Math.max(1, Number(process.env.STRESS_TIMEOUT_SCALE || 1));
const ROOT = path.resolve(__dirname, '..', '..');
const BUILD = path.resolve(ROOT, process.env.B || 'build');
const PROBE = path.join(BUILD, 'tests', 'helpers', 'probe');
const sk = require(path.join(ROOT, 'node'));

class Wrong extends Error {}
class Leak extends Error {}
class Skip extends Error {}
const EXIT = { ok: 0, wrong: 10, leak: 11, skip: 12 };

const scenarios = [];
function scenario(name, fn, opts = {}) {
  scenarios.push({ name, fn, timeout: opts.timeout ?? 60, prefix: opts.prefix ?? [] });
}

function expect(cond, why) {
  if (!cond) throw new Wrong(why);
}

const scaled = (n) => n * SCALE;

function fdList() {
  return fs.readdirSync('/proc/self/fd');
}

function pidfds() {
  let n = 0;
  for (const f of fdList()) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${f}`).includes('pidfd')) n++;
    } catch { /* closed meanwhile */ }
  }
  return n;
}

function children() {
  let n = 0;
  for (const t of fs.readdirSync('/proc/self/task')) {
    try {
      n += fs.readFileSync(`/proc/self/task/${t}/children`, 'utf8').split(' ').filter(Boolean).length;
    } catch { /* thread gone */ }
  }
  return n;
}

class Snap {
  constructor() {
    if (global.gc) global.gc(); // scenarios run with --expose-gc: RSS of live data
    this.fds = fdList().length;
    this.pidfds = pidfds();
    this.children = children();
    this.rss = Math.round(process.memoryUsage().rss / 1024);
  }

  check(what, rssSlackKb = 65536) {
    const now = new Snap();
    const d = `${what}: fds ${this.fds}->${now.fds} pidfds ${this.pidfds}->${now.pidfds} ` +
      `children ${this.children}->${now.children} rss ${this.rss}->${now.rss} KiB`;
    if (now.fds > this.fds || now.pidfds > this.pidfds || now.children > this.children ||
        now.rss - this.rss > rssSlackKb) throw new Leak(d);
    return d;
  }
}

// What spawnkit.run did: 'exit N' / 'signal S' / the error's code.
async function skOutcome(file, args, opts) {
  try {
    const r = await sk.run(file, args, opts);
    return r.code !== null ? `exit ${r.code}` : `signal ${r.signal}`;
  } catch (e) {
    return e.code ?? e.name;
  }
}

// The same through child_process.spawn (the reference).
function cpOutcome(file, args, opts = {}) {
  return new Promise((resolve) => {
    let c;
    try {
      c = cp.spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    } catch (e) {
      resolve(e.code ?? e.name);
      return;
    }
    c.stdout?.resume();
    c.stderr?.resume();
    let done = false;
    c.on('error', (e) => { if (!done) { done = true; resolve(e.code ?? e.name); } });
    c.on('close', (code, sig) => {
      if (!done) { done = true; resolve(code !== null ? `exit ${code}` : `signal ${sig}`); }
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function one(name) {
  const s = scenarios.find((x) => x.name === name);
  let verdict = 'ok';
  let detail = '';
  // libuv opens /dev/null and its signal pipe at the first child_process
  // spawn and keeps them: open them before any scenario counts fds, as
  // spawnkit's own first run is made before each count.
  await cpOutcome('true', []);
  try {
    detail = (await s.fn()) ?? '';
  } catch (e) {
    if (e instanceof Wrong) verdict = 'wrong';
    else if (e instanceof Leak) verdict = 'leak';
    else if (e instanceof Skip) verdict = 'skip';
    else {
      verdict = 'wrong';
      console.error(e);
    }
    detail = e.message;
  }
  fs.writeSync(Number(process.env.STRESS_DETAIL_FD), String(detail).replace(/\n/g, ' '));
  process.exit(EXIT[verdict]);
}

function main() {
  const prog = path.basename(process.argv[1], '.js');
  if (process.argv[2] === '--one') {
    one(process.argv[3]);
    return;
  }
  const want = new Set(process.argv.slice(2));
  const verdictOf = Object.fromEntries(Object.entries(EXIT).map(([k, v]) => [v, k]));
  for (const s of scenarios) {
    if (want.size && !want.has(s.name)) continue;
    const deadline = s.timeout * TIMEOUT_SCALE;
    const tmp = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'skstress.'));
    const detailFile = path.join(tmp, 'detail');
    const fd = fs.openSync(detailFile, 'w');
    const argv = [...s.prefix, process.execPath, '--expose-gc', process.argv[1], '--one', s.name];
    const r = cp.spawnSync(argv[0], argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe', fd],
      env: { ...process.env, STRESS_DETAIL_FD: '3' },
      timeout: deadline * 1000,
      killSignal: 'SIGKILL',
      maxBuffer: 64 << 20,
    });
    fs.closeSync(fd);
    let detail = fs.readFileSync(detailFile, 'utf8');
    fs.rmSync(tmp, { recursive: true, force: true });
    let verdict;
    if (r.error && r.error.code === 'ETIMEDOUT') {
      verdict = 'hang';
      detail = `no result after ${deadline} s`;
    } else if (r.signal) {
      verdict = 'crash';
      detail = `${detail ? `${detail}; ` : ''}killed by ${r.signal}`;
    } else {
      verdict = verdictOf[r.status] ?? 'wrong';
      if (!(r.status in verdictOf)) detail = `${detail}; exit ${r.status}`;
    }
    if (verdict !== 'ok') {
      const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').filter(Boolean).slice(-30);
      for (const ln of out) console.log(`    ${ln}`);
    }
    console.log(`STRESS ${verdict} node/${prog}/${s.name}: ${detail}`);
  }
}

module.exports = {
  PROBE, ROOT, SCALE, Leak, Skip, Snap, Wrong, children, cpOutcome, expect, main, scaled,
  scenario, sk, skOutcome, sleep,
};
