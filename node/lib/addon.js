'use strict';
// Find and load the compiled addon: build/spawnkit.node (built by `make`,
// or at `npm install` with the system compiler), else the linux-x64 prebuilt
// shipped in the package (prebuilds/).  { addon: null, loadError } where
// neither loads (macOS, another architecture, no compiler).
const path = require('node:path');

const candidates = [
  path.join(__dirname, '..', 'build', 'spawnkit.node'),
  path.join(__dirname, '..', 'prebuilds', `${process.platform}-${process.arch}`, 'spawnkit.node'),
];

let addon = null;
const errors = [];
for (const file of candidates) {
  try {
    addon = require(file);
    break;
  } catch (err) {
    errors.push(`${file}: ${err.message.split('\n')[0]}`);
  }
}

module.exports = { addon, loadError: addon ? null : errors.join('; '), candidates };
