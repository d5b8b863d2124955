'use strict';
// Command name -> absolute path, as execvp/`command -v` would find it, but
// in the parent: a template is made from an absolute path.  Uses the C
// library's spawnkit_pathsearch when the addon was built with it.
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

// Returns an absolute path or throws a Node-style spawn error.
function resolveCommand(file, args, env, cwd) {
  const base = cwd ?? process.cwd();
  if (file.includes('/')) return path.resolve(base, file);
  if (file === '') throw spawnError(-2, file, args);
  const pathEnv = env && env.PATH !== undefined ? String(env.PATH) : DEFAULT_PATH;
  let found;
  if (native?.pathsearchNative && !pathEnv.split(':').some((d) => d === '' || d[0] !== '/')) {
    found = native.pathsearch(file, pathEnv);
    // The library says ENOENT where only a directory of that name exists;
    // execvp (and so child_process) says EACCES: ask the slow path then.
    if (found === -2) found = searchInJs(file, pathEnv, base);
  } else {
    // Relative PATH entries name directories under the child's cwd.
    found = searchInJs(file, pathEnv, base);
  }
  if (typeof found === 'number') throw spawnError(found, file, args);
  return found;
}

module.exports = { resolveCommand, searchInJs };
