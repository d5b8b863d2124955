'use strict';
// require('spawnkit/register'), node -r spawnkit/register, or
// import 'spawnkit/register': child_process.spawn, exec, execFile,
// spawnSync, execSync and execFileSync start their children through
// spawnkit; what it cannot honour exactly runs stock.  Counts:
// require('spawnkit').registerStats().
require('./lib/register').install();
