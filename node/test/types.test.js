'use strict';
// index.d.ts must describe the API: tsc --strict compiles a typical use
// (test/types/usage.ts) and must reject the misuse marked there.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

test('TypeScript declarations compile under --strict', () => {
  const root = path.join(__dirname, '..');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { cwd: root }).toString();
  assert.equal(out, '');
});

test('every runtime export is declared', () => {
  const fs = require('node:fs');
  const dts = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8');
  for (const name of Object.keys(require('..'))) {
    assert.match(dts, new RegExp(`export (declare )?(class|function|const) ${name}\\b`), name);
  }
});
