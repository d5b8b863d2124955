'use strict';
// The example in examples/ (shown in docs/node.md) keeps working.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const example = path.join(__dirname, '..', 'examples', 'tool-call.js');

test('examples/tool-call.js: head and tail of a long output, status line', () => {
  const r = spawnSync(process.execPath, [example, 'seq', '1', '5000']);
  assert.equal(r.status, 0);
  const out = r.stdout.toString();
  assert.ok(out.startsWith('1\n2\n3\n'));
  assert.ok(out.endsWith('4999\n5000\n\n[... 15701 bytes dropped in the middle ...]\n'));
  assert.equal(r.stderr.toString(), '[seq: exit 0, 23893 bytes of output]\n');
});

test('examples/tool-call.js: a missing command', () => {
  const r = spawnSync(process.execPath, [example, 'no-such-command-spawnkit']);
  assert.equal(r.status, 127);
  assert.equal(r.stderr.toString(), 'ENOENT: spawn no-such-command-spawnkit ENOENT\n');
});
