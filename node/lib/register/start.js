'use strict';
// From normalized child_process options to a started child: the executable
// found as libuv's child would find it (the child's PATH, relative to its
// cwd), a cached template per absolute path (made again once if the file
// was replaced), and the addon's compat start.  Returns the addon's result,
// a negative errno Node's own code turns into its usual error, or
// { fallback: reason } for what only stock can reproduce.
const fs = require('node:fs');
const path = require('node:path');
const { addon: native } = require('./addon');
const { resolveCommand } = require('../resolve');
const { errnoName } = require('../errors');

const ENOENT = -2;
const EACCES = -13;
const ENOEXEC = -8;
const ESTALE = -116;
const EOPNOTSUPP = -95;
const DEFAULT_PATH = '/usr/bin:/bin'; // libuv's _PATH_DEFPATH
const CACHE_MAX = 64; // templates hold an fd each

const cache = new Map();

function envPath(envPairs) {
  for (let i = envPairs.length - 1; i >= 0; i--) {
    const e = envPairs[i];
    if (e.startsWith('PATH=')) return e.slice(5);
  }
  return undefined;
}

// The directory the child would start in, checked first: libuv's child
// changes directory before it execs, so a bad cwd is what stock reports
// even when the file is missing too.
function checkCwd(cwd) {
  if (cwd === undefined || cwd === null || cwd === '') return 0;
  try {
    if (!fs.statSync(cwd).isDirectory()) return -20; // ENOTDIR
  } catch (err) {
    return typeof err.errno === 'number' ? err.errno : ENOENT;
  }
  return 0;
}

// The binding's own PATH search (lib/resolve.js), given the child's PATH.
function resolve(file, envPairs, cwd) {
  const base = cwd ? path.resolve(cwd) : process.cwd();
  try {
    return resolveCommand(file, [], { PATH: envPath(envPairs) ?? DEFAULT_PATH }, base);
  } catch (err) {
    return typeof err.errno === 'number' ? err.errno : ENOENT;
  }
}

function template(abs) {
  let t = cache.get(abs);
  if (t !== undefined) return t;
  t = native.templateCreate(abs);
  if (typeof t === 'number') return t;
  if (cache.size >= CACHE_MAX) {
    const oldest = cache.keys().next().value;
    native.templateDestroy(cache.get(oldest));
    cache.delete(oldest);
  }
  cache.set(abs, t);
  return t;
}

function drop(abs) {
  const t = cache.get(abs);
  if (t !== undefined) native.templateDestroy(t);
  cache.delete(abs);
}

// run(tmpl) calls the addon; the rest is shared by the async and sync paths.
function start(options, run) {
  const cwd = options.cwd || undefined;
  let err = checkCwd(cwd);
  if (err) return err;
  const abs = resolve(options.file, options.envPairs ?? [], cwd);
  if (typeof abs === 'number') return abs;
  for (let attempt = 0; ; attempt++) {
    const t = template(abs);
    if (typeof t === 'number') {
      // What an execve of the path would say, as stock would.
      if (t === ENOENT || t === EACCES) return t;
      if (t === -21 /* EISDIR */) return EACCES;
      return { fallback: `template-${errnoName(t)}` };
    }
    const res = run(t);
    if (typeof res !== 'number') return res;
    err = res;
    if (err === ESTALE && attempt === 0) {
      drop(abs);
      continue;
    }
    if (err === ENOENT || err === ESTALE) drop(abs);
    // No #! line: glibc and libuv run it with /bin/sh; leave that to stock.
    if (err === ENOEXEC) return { fallback: 'ENOEXEC' };
    // detached where no session step is possible (an fd-made kernel
    // template on a patched kernel from before the SETSID action).
    if (err === EOPNOTSUPP) return { fallback: 'detached' };
    return err === ESTALE ? ENOENT : err;
  }
}

function clearCache() {
  for (const abs of [...cache.keys()]) drop(abs);
}

module.exports = { start, clearCache, resolve };
