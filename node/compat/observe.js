'use strict';
// Runs every scenario of scenarios.js in order and prints one JSON object:
// { name: { obs, route } }.  route (under spawnkit/register only) is what
// register did with the scenario's starts: 'routed', 'none', or the
// fallback reasons seen.  argv[2]: a name filter (substring), optional.
const { scenarios, cleanup, tmp } = require('./scenarios');

let stats = null;
try {
  const sk = require('..');
  if (require('../lib/register').isInstalled()) stats = sk.registerStats;
} catch {
  // stock run without the addon: no route recorded
}

function route(before, after) {
  const fb = Object.keys(after.reasons).filter((r) => after.reasons[r] !== before.reasons[r]);
  if (fb.length) return fb.sort().join(',');
  return after.routed > before.routed ? 'routed' : 'none';
}

(async () => {
  const out = {};
  const filter = process.argv[2] ?? '';
  for (const [name, sc] of Object.entries(scenarios)) {
    if (!name.includes(filter)) continue;
    const before = stats?.();
    let obs;
    try {
      obs = await sc.run();
    } catch (e) {
      obs = { scenarioThrew: String(e && e.stack) };
    }
    out[name] = { obs: JSON.parse(JSON.stringify(obs)), route: stats ? route(before, stats()) : null };
  }
  cleanup();
  // The scratch directory's name differs between the two runs.
  process.stdout.write(JSON.stringify(out).split(tmp).join('<tmp>'));
})();
