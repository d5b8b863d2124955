'use strict';
// A template pins one file: when a new file is renamed over the path (a
// package upgrade) or the file changes, spawn fails with ESTALE; the cached
// path-based helpers make a new template and go on transparently.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const sk = require('..');
const { collect, makeTmpDir, writeScript, nativeTest } = require('./helpers');

function replaceByRename(dir, name, body) {
  const tmp = writeScript(dir, `${name}.new`, body);
  fs.renameSync(tmp, path.join(dir, name));
}

nativeTest('Template.spawn reports ESTALE after a rename-over', async (t) => {
  const dir = makeTmpDir(t);
  const tool = writeScript(dir, 'tool', '#!/bin/sh\necho v1\n');
  const tmpl = new sk.Template(tool);
  t.after(() => tmpl.close());
  assert.equal((await collect(tmpl.spawn())).stdout, 'v1\n');
  replaceByRename(dir, 'tool', '#!/bin/sh\necho v2\n');
  const r = await collect(tmpl.spawn(['a']));
  assert.equal(r.error.code, 'ESTALE');
  assert.equal(r.error.errno, -116);
  assert.equal(r.error.syscall, `spawn ${tool}`);
  assert.deepEqual(r.error.spawnargs, ['a']);
  assert.deepEqual(r.events, ['error', 'close']);
  // A new template sees the new file.
  const fresh = new sk.Template(tool);
  t.after(() => fresh.close());
  assert.equal((await collect(fresh.spawn())).stdout, 'v2\n');
});

test('run() recreates a stale template transparently', async (t) => {
  const dir = makeTmpDir(t);
  const tool = writeScript(dir, 'tool', '#!/bin/sh\necho v1\n');
  assert.equal((await sk.run(tool)).stdout, 'v1\n');
  const cached = sk.templateCacheSize();
  replaceByRename(dir, 'tool', '#!/bin/sh\necho v2\n');
  assert.equal((await sk.run(tool)).stdout, 'v2\n');
  assert.equal(sk.templateCacheSize(), cached, 'the stale template was replaced, not added to');
  replaceByRename(dir, 'tool', '#!/bin/sh\necho v3\n');
  assert.equal((await sk.execFile(tool)).stdout, 'v3\n');
});

test('run() through PATH recreates too', async (t) => {
  const dir = makeTmpDir(t);
  writeScript(dir, 'mytool', '#!/bin/sh\necho one\n');
  const env = { PATH: `${dir}:/usr/bin:/bin` };
  assert.equal((await sk.run('mytool', [], { env })).stdout, 'one\n');
  replaceByRename(dir, 'mytool', '#!/bin/sh\necho two\n');
  assert.equal((await sk.run('mytool', [], { env })).stdout, 'two\n');
});

nativeTest('a file changed in place (new mtime) is stale as well', async (t) => {
  const dir = makeTmpDir(t);
  const tool = writeScript(dir, 'tool', '#!/bin/sh\necho same\n');
  const tmpl = new sk.Template(tool);
  t.after(() => tmpl.close());
  assert.equal((await collect(tmpl.spawn())).stdout, 'same\n');
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(tool, later, later);
  assert.equal((await collect(tmpl.spawn())).error?.code, 'ESTALE');
  assert.equal((await sk.run(tool)).stdout, 'same\n');
});

nativeTest('a removed file: ENOENT, and the cache forgets it', async (t) => {
  const dir = makeTmpDir(t);
  const tool = writeScript(dir, 'tool', '#!/bin/sh\necho here\n');
  assert.equal((await sk.run(tool)).stdout, 'here\n');
  const n = sk.templateCacheSize();
  fs.unlinkSync(tool);
  await assert.rejects(sk.run(tool), { code: 'ENOENT', syscall: `spawn ${tool}`, path: tool });
  assert.equal(sk.templateCacheSize(), n - 1);
});
