'use strict';
// Command name -> absolute path, as execvp in the child would find it, but
// in the parent: a template is made from an absolute path.  The search is
// the C library's spawnkit_pathsearch_cwd (relative PATH entries under the
// child's cwd; a directory or non-executable file of that name is EACCES,
// as execvp says).  Only with the addon (the fallback lets child_process
// search).
const path = require('node:path');
const native = require('./native');
const { spawnError } = require('./errors');

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

// Returns an absolute path or throws a Node-style spawn error.  An empty
// name never gets here (checkFile: ERR_INVALID_ARG_VALUE, as child_process).
function resolveCommand(file, args, env, cwd) {
  const base = path.resolve(cwd ?? process.cwd());
  if (file.includes('/')) return path.resolve(base, file);
  if (file === '') throw spawnError(-2, file, args);
  // A PATH holding a NUL cannot reach the child (envPairs refuses it):
  // searched up to the NUL, as a C string is.
  const pathEnv = env && env.PATH !== undefined ? String(env.PATH).split('\u0000')[0] : DEFAULT_PATH;
  const found = native.pathsearch(file, pathEnv, base);
  if (typeof found === 'number') throw spawnError(found, file, args);
  return path.resolve(base, found);
}

module.exports = { resolveCommand };
