'use strict';
// One ESTALE policy for both bindings: the addon exports the C header's
// SPAWNKIT_STALE_RETRIES (the Python binding binds the same #define).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const native = require('../lib/native');

test('STALE_RETRIES is spawnkit.h\'s SPAWNKIT_STALE_RETRIES', () => {
  const h = fs.readFileSync(path.join(__dirname, '..', '..', 'include', 'spawnkit', 'spawnkit.h'), 'utf8');
  const m = h.match(/^#define SPAWNKIT_STALE_RETRIES\s+(\d+)/m);
  assert.ok(m, 'spawnkit.h defines SPAWNKIT_STALE_RETRIES');
  assert.equal(native.STALE_RETRIES, Number(m[1]));
  assert.ok(native.STALE_RETRIES >= 1);
});
