'use strict';
// Command name -> absolute path, as execvp in the child would find it, but
// in the parent: a template is made from an absolute path.  The C library's
// spawnkit_pathsearch_cwd does the search (relative PATH entries under the
// child's cwd; a directory of that name is EACCES, as execvp says);
// searchInJs has the same rules, for a PATH holding a NUL.
const fs = require('node:fs');
const path = require('node:path');
const native = require('./native');
const { spawnError } = require('./errors');

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

function searchInJs(name, pathEnv, cwd) {
  let sawNonExec = false;
  for (const dir of pathEnv.split(':')) {
    const candidate = path.resolve(cwd, dir || '.', name);
    let st;
    try {
      st = fs.statSync(candidate);
    } catch {
      continue;
    }
    if (!st.isFile()) {
      sawNonExec = true;
      continue;
    }
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      sawNonExec = true;
    }
  }
  return sawNonExec ? -13 /* EACCES */ : -2 /* ENOENT */;
}

// Returns an absolute path or throws a Node-style spawn error.  An empty
// name never gets here (checkFile: ERR_INVALID_ARG_VALUE, as child_process).
function resolveCommand(file, args, env, cwd) {
  const base = path.resolve(cwd ?? process.cwd());
  if (file.includes('/')) return path.resolve(base, file);
  if (file === '') throw spawnError(-2, file, args);
  const pathEnv = env && env.PATH !== undefined ? String(env.PATH) : DEFAULT_PATH;
  let found;
  // native is null where the addon cannot load (lib/backend.js falls back)
  if (native && !pathEnv.includes('\u0000')) {
    found = native.pathsearch(file, pathEnv, base);
    if (typeof found === 'string') found = path.resolve(base, found);
  } else {
    found = searchInJs(file, pathEnv, base);
  }
  if (typeof found === 'number') throw spawnError(found, file, args);
  return found;
}

module.exports = { resolveCommand, searchInJs };
