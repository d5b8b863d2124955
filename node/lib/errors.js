'use strict';
// Error objects shaped like the ones child_process makes, so code written
// for Node's errors (err.code === 'ENOENT', err.errno, err.syscall, err.path)
// works unchanged.
const util = require('node:util');
const { errno: ERRNO } = require('node:os').constants;

// libuv names only the errnos it uses (it has no ESTALE): fall back to the
// kernel's full list.
const byNumber = new Map(Object.entries(ERRNO).map(([name, n]) => [n, name]));

function errnoName(errno) {
  const name = util.getSystemErrorName(errno);
  return name.startsWith('Unknown') ? byNumber.get(-errno) ?? name : name;
}

// errno is negative, as libspawnkit and libuv return it.
function spawnError(errno, file, args) {
  const code = errnoName(errno);
  const err = new Error(`spawn ${file} ${code}`);
  err.errno = errno;
  err.code = code;
  err.syscall = `spawn ${file}`;
  err.path = file;
  err.spawnargs = args;
  return err;
}

function systemError(errno, syscall) {
  const code = errnoName(errno);
  const err = new Error(`${syscall} ${code}`);
  err.errno = errno;
  err.code = code;
  err.syscall = syscall;
  return err;
}

class AbortError extends Error {
  constructor(message = 'The operation was aborted', options = undefined) {
    super(message, options);
    this.code = 'ABORT_ERR';
    this.name = 'AbortError';
  }
}

// child_process reports these start failures through 'error' (they are
// about the executable or resources); any other one it throws at once as
// errnoException(err, 'spawn').  ESTALE and ENOEXEC are ours, and are about
// the executable too.
const ASYNC_SPAWN_ERRORS = new Set(['EACCES', 'EAGAIN', 'EMFILE', 'ENFILE', 'ENOENT', 'ESTALE', 'ENOEXEC']);

function isAsyncSpawnError(errno) {
  return ASYNC_SPAWN_ERRORS.has(errnoName(errno));
}

// What child_process throws for the other ones: 'spawn ENOTDIR'.
function syncSpawnError(errno) {
  return systemError(errno, 'spawn');
}

module.exports = { isAsyncSpawnError, syncSpawnError, spawnError, systemError, errnoName, AbortError };
