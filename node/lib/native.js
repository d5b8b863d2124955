'use strict';
// The compiled addon (src/*.c, built by `make` or `npm install`).
const path = require('node:path');

const file = path.join(__dirname, '..', 'build', 'spawnkit.node');
try {
  module.exports = require(file);
} catch (err) {
  err.message = `spawnkit: cannot load ${file} (run \`make\` or \`npm install\` in node/): ${err.message}`;
  throw err;
}
