'use strict';
// make -C node bench-register: child_process.spawn and spawnSync from a
// parent with `--resident` MiB (default 2048) touched, stock against
// `node -r spawnkit/register`.  Each round runs one stock and one register
// process (order alternating per round); each process times `--calls`
// starts of each function, every output checked.  Prints min, median and
// spread of the per-round medians and the speed-up; exits 1 if a register
// process did not route every call, 4 if a ratio misses --goal (default 30;
// --goal 0 only reports).  The issue's goal: >= 30x at 2 GiB.
const cp = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const resident = arg('resident', 2048);
const rounds = arg('rounds', 5);
const calls = arg('calls', 10);
const goal = arg('goal', 30);

const worker = path.join(__dirname, 'register-worker.js');
const register = path.join(__dirname, '..', 'register.js');
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function runOne(mode) {
  const pre = mode === 'register' ? ['-r', register] : [];
  const out = cp.execFileSync(process.execPath, [...pre, worker, '--resident', String(resident),
    '--calls', String(calls)], { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 });
  return JSON.parse(out);
}

const per = { stock: { spawn: [], spawnSync: [] }, register: { spawn: [], spawnSync: [] } };
let rss = 0;
console.log(`register bench: /bin/echo ok, parent resident ${resident} MiB, ${rounds} rounds x ${calls} calls, ` +
  `node ${process.version}, kernel ${os.release()}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? ['register', 'stock'] : ['stock', 'register'];
  for (const mode of order) {
    const res = runOne(mode);
    rss = res.rssMiB;
    if (mode === 'register' && (res.stats.fallback !== 0 || res.stats.routed < 2 * calls + 2)) {
      console.error(`register bench: not every call was routed: ${JSON.stringify(res.stats)}`);
      process.exit(1);
    }
    for (const fn of ['spawn', 'spawnSync']) per[mode][fn].push(median(res.lat[fn]));
  }
}

let missed = false;
console.log(`resident ${rss} MiB; ms per call, median of each round's median (min-max over rounds)`);
console.log(`${'function'.padEnd(12)}${'stock'.padStart(22)}${'register'.padStart(22)}${'speed-up'.padStart(10)}`);
for (const fn of ['spawn', 'spawnSync']) {
  const cell = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
  const ratio = median(per.stock[fn]) / median(per.register[fn]);
  if (goal > 0 && ratio < goal) missed = true;
  console.log(`${fn.padEnd(12)}${cell(per.stock[fn]).padStart(22)}${cell(per.register[fn]).padStart(22)}` +
    `${`${ratio.toFixed(1)}x`.padStart(10)}`);
}
if (missed) {
  console.log(`goal: >= ${goal}x for both: MISSED`);
  process.exit(4);
}
if (goal > 0) console.log(`goal: >= ${goal}x for both: met`);
