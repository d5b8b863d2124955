'use strict';
// Make `mib` MiB of really touched memory in this process and keep it:
// Buffers outside the V8 heap, every page written (the kernel would
// otherwise share one zero page).  Returns the resident size in MiB.
const fs = require('node:fs');

const keep = [];
const CHUNK = 64 * 2 ** 20;

function rssMiB() {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(m[1]) / 1024;
}

function makeResident(mib) {
  const total = mib * 2 ** 20;
  for (let done = 0; done < total; done += CHUNK) {
    const b = Buffer.allocUnsafe(Math.min(CHUNK, total - done));
    b.fill(0xa5);
    keep.push(b);
  }
  const rss = rssMiB();
  if (rss < mib) throw new Error(`wanted ${mib} MiB resident, have ${rss.toFixed(0)} MiB`);
  return rss;
}

module.exports = { makeResident, rssMiB };
