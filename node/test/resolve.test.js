'use strict';
// Command lookup: the C library's spawnkit_pathsearch, through
// resolveCommand, follows execvp's rules.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const native = require('../lib/native');
const { resolveCommand } = require('../lib/resolve');
const { makeTmpDir, writeScript } = require('./helpers');

function resolvedOrErrno(name, PATH) {
  try {
    return resolveCommand(name, [], { PATH });
  } catch (e) {
    return e.errno;
  }
}

test('PATH search: execvp\'s rules, EACCES for directories and non-executables', (t) => {
  const dir = makeTmpDir(t);
  const a = path.join(dir, 'a');
  const b = path.join(dir, 'b');
  fs.mkdirSync(a);
  fs.mkdirSync(b);
  writeScript(a, 'tool', 'x', 0o644); // not executable: skipped
  writeScript(b, 'tool', '#!/bin/sh\n');
  fs.mkdirSync(path.join(a, 'dironly')); // a directory: skipped
  writeScript(a, 'onlyplain', 'x', 0o644);
  const PATH = `${a}:${b}:/usr/bin:/bin`;
  const cases = { tool: path.join(b, 'tool'), dironly: -13, onlyplain: -13, 'no-such-spawnkit': -2 };
  for (const [name, want] of Object.entries(cases)) {
    // 'dironly' included: a directory of that name is EACCES in the
    // library too, as execvp says (issue 12, #4).
    assert.equal(native.pathsearch(name, PATH), want, `native ${name}`);
    assert.equal(resolvedOrErrno(name, PATH), want, `resolveCommand ${name}`);
  }
  assert.equal(native.pathsearch('sh', PATH), '/usr/bin/sh');
});

test('resolveCommand: names, relative and absolute paths, errors', (t) => {
  const dir = makeTmpDir(t);
  writeScript(dir, 'mine', '#!/bin/sh\n');
  assert.equal(resolveCommand('mine', [], { PATH: dir }), path.join(dir, 'mine'));
  assert.equal(resolveCommand('./mine', [], {}, dir), path.join(dir, 'mine'));
  assert.equal(resolveCommand('/abs/never/checked', [], {}), '/abs/never/checked');
  assert.equal(resolveCommand('mine', [], { PATH: '.' }, dir), path.join(dir, 'mine'));
  assert.throws(() => resolveCommand('mine', ['x'], { PATH: '/nonexistent' }),
    { code: 'ENOENT', syscall: 'spawn mine', path: 'mine', spawnargs: ['x'] });
  assert.throws(() => resolveCommand('', [], {}), { code: 'ENOENT' });
});

test('relative PATH entries are under the child cwd, in the library too', (t) => {
  const dir = makeTmpDir(t);
  fs.mkdirSync(path.join(dir, 'child', 'bin'), { recursive: true });
  writeScript(path.join(dir, 'child', 'bin'), 'tool', '#!/bin/sh\n');
  for (const PATH of ['bin', './bin', '/nonexistent:bin']) {
    const want = path.join(dir, 'child', 'bin', 'tool');
    assert.equal(resolveCommand('tool', [], { PATH }, path.join(dir, 'child')), want, PATH);
    const got = native.pathsearch('tool', PATH, path.join(dir, 'child'));
    assert.equal(path.resolve(got), want, `native ${PATH}`);
    assert.equal(native.pathsearch('tool', PATH, dir), -2, `native ${PATH} elsewhere`);
  }
});
