'use strict';
// Option checking and conversion shared by Template.spawn and the helpers.
const { inspect } = require('node:util');
const { STDIO } = require('./stdio-codes');
const { signalNumber } = require('./signals');

function invalidArg(name, value, reason) {
  // util.inspect, as Node's own ERR_INVALID_ARG_VALUE: Received 'a\x00b'
  const err = new TypeError(`The argument '${name}' ${reason}. Received ${inspect(value)}`);
  err.code = 'ERR_INVALID_ARG_VALUE';
  return err;
}

function checkString(name, s) {
  if (typeof s !== 'string') {
    const err = new TypeError(`The "${name}" argument must be of type string. Received ${typeof s}`);
    err.code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  }
  if (s.includes('\u0000')) throw invalidArg(name, s, 'must be a string without null bytes');
  return s;
}

// A program name: a string without NUL bytes, and not empty (what
// child_process says for '': ERR_INVALID_ARG_VALUE, a TypeError).
function checkFile(name, s) {
  checkString(name, s);
  if (s.length === 0) throw invalidArg(name, s, 'cannot be empty');
  return s;
}

function checkArgs(args) {
  if (args === undefined || args === null) return [];
  if (!Array.isArray(args)) {
    const err = new TypeError('The "args" argument must be an instance of Array');
    err.code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  }
  return args.map((a, i) => checkString(`args[${i}]`, String(a)));
}

// { KEY: value } -> ['KEY=value', ...]; undefined values are left out as
// child_process does.
function envPairs(env) {
  const out = [];
  for (const key of Object.keys(env)) {
    const value = env[key];
    if (value === undefined) continue;
    out.push(checkString(`options.env['${key}']`, `${key}=${value}`));
  }
  return out;
}

function stdioSlot(value, i, defaults) {
  if (value === undefined || value === null) value = defaults[i];
  if (value === 'pipe' || value === 'overlapped') return STDIO.PIPE;
  if (value === 'ignore') return STDIO.IGNORE;
  if (value === 'inherit') return STDIO.INHERIT;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (value && typeof value === 'object' && typeof value.fd === 'number') return value.fd;
  throw invalidArg(`options.stdio[${i}]`, value, 'is invalid');
}

// Default: stdin /dev/null (a tool call must not wait on our stdin),
// stdout and stderr piped.
const DEFAULT_STDIO = ['ignore', 'pipe', 'pipe'];

function stdioSpec(stdio) {
  if (stdio === undefined) return DEFAULT_STDIO.map((v, i) => stdioSlot(v, i, DEFAULT_STDIO));
  if (typeof stdio === 'string') return [0, 1, 2].map((i) => stdioSlot(stdio, i, DEFAULT_STDIO));
  if (!Array.isArray(stdio)) throw invalidArg('options.stdio', stdio, 'is invalid');
  if (stdio.length > 3) {
    const err = new TypeError('spawnkit: only stdio[0..2] can be set (all fds above 2 are closed in the child)');
    err.code = 'ERR_INVALID_ARG_VALUE';
    throw err;
  }
  return [0, 1, 2].map((i) => stdioSlot(stdio[i], i, DEFAULT_STDIO));
}

// Options of child_process.spawn that a template cannot honour: refuse
// them loudly instead of silently ignoring them.
const UNSUPPORTED = ['shell', 'uid', 'gid', 'detached', 'serialization'];

// allow: names of UNSUPPORTED the caller takes (run() takes 'detached').
function checkSpawnOptions(opts, { allow = [] } = {}) {
  if (opts === null || typeof opts !== 'object') {
    const err = new TypeError('The "options" argument must be of type object');
    err.code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  }
  for (const k of UNSUPPORTED) {
    if (allow.includes(k)) continue;
    if (opts[k] !== undefined && opts[k] !== false) {
      const err = new TypeError(`spawnkit: option '${k}' is not supported`);
      err.code = 'ERR_INVALID_ARG_VALUE';
      throw err;
    }
  }
  if (opts.cwd !== undefined && opts.cwd !== null) {
    if (opts.cwd instanceof URL) opts = { ...opts, cwd: require('node:url').fileURLToPath(opts.cwd) };
    checkString('options.cwd', opts.cwd);
  }
  if (opts.timeout !== undefined && !(Number.isFinite(opts.timeout) && opts.timeout >= 0)) {
    throw invalidArg('options.timeout', opts.timeout, 'must be a non-negative number');
  }
  if (opts.killSignal !== undefined) signalNumber(opts.killSignal); // throws ERR_UNKNOWN_SIGNAL
  if (opts.killGraceMs !== undefined && !Number.isFinite(opts.killGraceMs)) {
    throw invalidArg('options.killGraceMs', opts.killGraceMs, 'must be a number');
  }
  if (opts.signal !== undefined && !(opts.signal instanceof AbortSignal)) {
    const err = new TypeError('The "options.signal" property must be an instance of AbortSignal');
    err.code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  }
  return opts;
}

// The start of run() and execFile(), in lib/run.js and lib/fallback.js
// alike: a bad file or args throws (as child_process.execFile does); bad
// options and an already aborted signal reject.  Returns { args, opts }
// (opts checked and normalised by lib/run_options.js), or { early } with
// the rejected promise to return.
function prepareRun(file, args, options) {
  // Required here: lib/run_options.js builds on this module.
  const { runOptions } = require('./run_options');
  const { AbortError } = require('./errors');
  checkFile('file', file);
  args = checkArgs(args);
  let opts;
  try {
    opts = runOptions(options ?? {});
  } catch (err) {
    return { early: Promise.reject(err) };
  }
  if (opts.signal?.aborted) {
    return { early: Promise.reject(new AbortError(undefined, { cause: opts.signal.reason })) };
  }
  return { args, opts };
}

// run()'s abort, in lib/run.js and lib/fallback.js alike: stop() once the
// signal aborts.  error() is the AbortError then (null before); unwatch()
// when the run ended.
function watchAbort(signal, stop) {
  if (!signal) return { error: () => null, unwatch() {} };
  const { AbortError } = require('./errors');
  let error = null;
  const onAbort = () => {
    error = new AbortError(undefined, { cause: signal.reason });
    stop();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return { error: () => error, unwatch: () => signal.removeEventListener('abort', onAbort) };
}

module.exports = { checkString, checkFile, checkArgs, envPairs, stdioSpec, checkSpawnOptions, prepareRun, watchAbort };
