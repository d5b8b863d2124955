'use strict';
// npm's install step.  In a checkout: build the addon (make).  In an
// installed package: use the linux-x64 prebuilt shipped in prebuilds/ if it
// loads here, else build the addon from libsrc/ with the system compiler,
// else (macOS, no compiler) build nothing: require('spawnkit') then uses
// its portable fallback.  Never fails the install for want of an addon.
//   SPAWNKIT_BUILD_FROM_SOURCE=1  skip the prebuilt and compile
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = path.join(__dirname, '..');
const checkout = fs.existsSync(path.join(here, '..', 'src', 'spawn'))
  && !fs.existsSync(path.join(here, 'libsrc'));
const prebuilt = path.join(here, 'prebuilds', `${process.platform}-${process.arch}`, 'spawnkit.node');

function make(args) {
  const r = spawnSync('make', ['-C', here, ...args], { stdio: 'inherit' });
  return r.status === 0;
}

function loads(file) {
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(file)})`], { stdio: 'ignore' });
  return r.status === 0;
}

if (checkout) {
  process.exit(make(['addon']) ? 0 : 1);
}
if (process.env.SPAWNKIT_BUILD_FROM_SOURCE !== '1' && fs.existsSync(prebuilt) && loads(prebuilt)) {
  console.log(`spawnkit: using the prebuilt addon ${path.relative(here, prebuilt)}`);
  process.exit(0);
}
if (process.platform === 'linux'
    && make(['addon', 'TOP=libsrc', 'URING_CPPFLAGS=', 'LIBS=-lpthread'])) {
  console.log('spawnkit: built the addon with the system compiler');
  process.exit(0);
}
console.log('spawnkit: no addon for this platform; require("spawnkit") uses its portable fallback (backend() === "fallback")');
