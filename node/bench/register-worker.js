'use strict';
// One process of bench/register.js: `--resident MiB` of touched memory,
// then `--calls` starts of `echo ok` by child_process.spawn (awaited to
// 'close') and by child_process.spawnSync, alternating, each output
// checked.  Run with or without `-r spawnkit/register`: this file does not
// know which, it reports what registerStats() says.  Prints JSON.
const cp = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { makeResident } = require('./resident');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const resident = arg('resident', 0);
const calls = arg('calls', 10);
const FILE = '/bin/echo';

function fail(what) {
  console.error(`register bench: a call failed: ${what}`);
  process.exit(3);
}

function viaSpawn() {
  return new Promise((resolve) => {
    const c = cp.spawn(FILE, ['ok']);
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.on('error', (e) => fail(`spawn: ${e.message}`));
    c.on('close', (code) => (code === 0 && out === 'ok\n' ? resolve() : fail(`spawn: ${code} ${out}`)));
  });
}

function viaSpawnSync() {
  const r = cp.spawnSync(FILE, ['ok']);
  if (r.error || r.status !== 0 || String(r.stdout) !== 'ok\n') fail(`spawnSync: ${r.error ?? r.status}`);
}

(async () => {
  const rss = makeResident(resident);
  const lat = { spawn: [], spawnSync: [] };
  await viaSpawn(); // warm: templates, lazy module loads
  viaSpawnSync();
  for (let i = 0; i < calls; i++) {
    let t = performance.now();
    await viaSpawn();
    lat.spawn.push(performance.now() - t);
    t = performance.now();
    viaSpawnSync();
    lat.spawnSync.push(performance.now() - t);
  }
  let stats = null;
  try {
    stats = require('..').registerStats();
  } catch {
    // the addon is not built: stock only
  }
  process.stdout.write(JSON.stringify({ rssMiB: Math.round(rss), lat, stats }));
})();
