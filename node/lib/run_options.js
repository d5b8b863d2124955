'use strict';
// run()'s and execFile()'s options, checked once (lib/run.js and
// lib/fallback.js both use runOptions), with Node-style errors:
// ERR_INVALID_ARG_TYPE for a wrong type, ERR_OUT_OF_RANGE for a number out
// of range, ERR_INVALID_ARG_VALUE for anything else.
const { inspect } = require('node:util');
const { checkSpawnOptions, checkString } = require('./options');
const { signalNumber } = require('./signals');

const DEFAULT_MAX_BUFFER = 1024 * 1024; // the library's SPAWNKIT_RUN_DEFAULT_CAP

// Linux's RLIMIT_* numbers (asm-generic/resource.h: the same on x86-64,
// arm64, riscv), by the names `ulimit` and prlimit(1) use, lower-cased.
const RLIMITS = Object.freeze({
  cpu: 0, fsize: 1, data: 2, stack: 3, core: 4, rss: 5, nproc: 6, nofile: 7,
  memlock: 8, as: 9, locks: 10, sigpending: 11, msgqueue: 12, nice: 13, rtprio: 14, rttime: 15,
});

function typeError(name, want, value) {
  const err = new TypeError(`The "${name}" property must be ${want}. Received ${inspect(value)}`);
  err.code = 'ERR_INVALID_ARG_TYPE';
  return err;
}

function rangeError(name, want, value) {
  const err = new RangeError(`The value of "${name}" is out of range. It must be ${want}. Received ${inspect(value)}`);
  err.code = 'ERR_OUT_OF_RANGE';
  return err;
}

function valueError(name, value, reason) {
  const err = new TypeError(`The property '${name}' ${reason}. Received ${inspect(value)}`);
  err.code = 'ERR_INVALID_ARG_VALUE';
  return err;
}

// A duration in ms: undefined/null (none), else a number in [min, ∞).
function ms(opts, key, { min, positive = false } = { min: 0 }) {
  const v = opts[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number') throw typeError(`options.${key}`, 'of type number', v);
  if (Number.isNaN(v) || v < min || (positive && v === 0) || v === Infinity) {
    throw rangeError(`options.${key}`, positive ? 'a finite number > 0' : `a finite number >= ${min}`, v);
  }
  return v;
}

function bool(opts, key) {
  const v = opts[key];
  if (v !== undefined && typeof v !== 'boolean') throw typeError(`options.${key}`, 'of type boolean', v);
  return v;
}

function fn(opts, key) {
  const v = opts[key];
  if (v !== undefined && v !== null && typeof v !== 'function') throw typeError(`options.${key}`, 'of type function', v);
  return v ?? null;
}

function limitValue(name, v) {
  if (typeof v !== 'number') throw typeError(name, 'of type number', v);
  if (!(v === Infinity || (Number.isInteger(v) && v >= 0))) {
    throw rangeError(name, 'an integer >= 0 or Infinity', v);
  }
  return v;
}

// { nofile: 1024, core: [0, 0], ... } -> [[resource, soft, hard], ...]
// (Infinity: RLIM_INFINITY).
function rlimitList(rlimits) {
  if (rlimits === undefined || rlimits === null) return [];
  if (typeof rlimits !== 'object' || Array.isArray(rlimits)) {
    throw typeError('options.rlimits', 'of type object', rlimits);
  }
  return Object.entries(rlimits).map(([key, v]) => {
    if (!Object.hasOwn(RLIMITS, key)) {
      throw valueError(`options.rlimits.${key}`, key, `is not a resource limit (one of ${Object.keys(RLIMITS).join(', ')})`);
    }
    const name = `options.rlimits.${key}`;
    let soft;
    let hard;
    if (Array.isArray(v)) {
      if (v.length !== 2) throw valueError(name, v, 'must be a number or [soft, hard]');
      soft = limitValue(`${name}[0]`, v[0]);
      hard = limitValue(`${name}[1]`, v[1]);
    } else {
      soft = hard = limitValue(name, v);
    }
    if (soft > hard) throw rangeError(`${name}[0]`, `<= the hard limit (${hard})`, soft);
    return [RLIMITS[key], soft, hard];
  });
}

function umaskValue(v) {
  if (v === undefined || v === null) return -1;
  if (typeof v !== 'number') throw typeError('options.umask', 'of type number', v);
  if (!(Number.isInteger(v) && v >= 0 && v <= 0o777)) throw rangeError('options.umask', 'an integer in 0..0o777', v);
  return v;
}

// An increment of the child's nice value, as nice -n takes it; the range
// is the library's (spawnkit_action_nice(3)).
function niceValue(v) {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number') throw typeError('options.nice', 'of type number', v);
  if (!(Number.isInteger(v) && v >= -39 && v <= 39)) throw rangeError('options.nice', 'an integer in -39..39', v);
  return v;
}

// The scheduling policies the library sets without privilege
// (spawnkit_action_sched_policy(3)), by name, with the kernel's numbers
// (linux/sched.h); it refuses any other (EINVAL) as well.
const SCHED_POLICIES = Object.freeze({ other: 0, batch: 3, idle: 5 });
const SCHED_POLICY_NAMES = `one of ${Object.keys(SCHED_POLICIES).map((k) => `'${k}'`).join(', ')}`;

// A policy name, or null for none (undefined too).
function schedPolicyValue(name, v) {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw typeError(name, 'of type string', v);
  if (!Object.hasOwn(SCHED_POLICIES, v)) throw valueError(name, v, `must be ${SCHED_POLICY_NAMES}`);
  return v;
}

function encodingValue(v) {
  if (v === undefined) return 'utf8';
  if (v === null || v === 'buffer') return 'buffer';
  if (typeof v !== 'string' || !Buffer.isEncoding(v)) {
    const err = new TypeError(`Unknown encoding: ${v}`);
    err.code = 'ERR_UNKNOWN_ENCODING';
    throw err;
  }
  return v;
}

// newSession (default true) and its alias detached; both given must agree.
// A warm start cannot begin a session (spawnkit_warm_spawn(3)): with
// warm: true the default is the caller's session.
function newSessionValue(opts, warm) {
  const ns = bool(opts, 'newSession');
  const det = bool(opts, 'detached');
  if (ns !== undefined && det !== undefined && ns !== det) {
    throw valueError('options.detached', det, `contradicts options.newSession (${ns}); detached is its alias`);
  }
  return ns ?? det ?? !warm;
}

// Options of Template.spawn that run() has no use for: spawnkit_run ends a
// run by killing the whole tree with SIGKILL, then reads the pipes for at
// most 2 s more (docs/run.md); waitDelay is the knob for pipes left open.
function refuseSpawnOnly(opts) {
  if (opts.killSignal !== undefined && signalNumber(opts.killSignal) !== 9) {
    throw valueError('options.killSignal', opts.killSignal,
      'must be SIGKILL for run()/execFile() (the whole tree is killed with SIGKILL; Template.spawn takes other signals)');
  }
  if (opts.killTree !== undefined && opts.killTree !== true) {
    throw valueError('options.killTree', opts.killTree,
      'must be true for run()/execFile() (the tree is always killed; Template.spawn can spare it)');
  }
  if (opts.killGraceMs !== undefined) {
    throw valueError('options.killGraceMs', opts.killGraceMs,
      'is not a run()/execFile() option (use waitDelay; Template.spawn takes killGraceMs)');
  }
  if (opts.inheritFds) {
    throw valueError('options.inheritFds', opts.inheritFds, 'is not a run()/execFile() option (Template.spawn takes it)');
  }
}

function inputValue(v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return Buffer.from(v);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw typeError('options.input', 'of type string or an instance of Buffer or Uint8Array', v);
}

function stdinValue(v, hasInput) {
  if (hasInput) return 'pipe';
  if (v === undefined || v === null || v === 'ignore') return 'ignore';
  if (v === 'inherit') return 'inherit';
  throw valueError('options.stdin', v, "must be 'ignore' or 'inherit'");
}

function preloadValue(v) {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw typeError('options.preload', 'an instance of Array', v);
  v.forEach((m, i) => checkString(`options.preload[${i}]`, m));
  return v.length ? v.join(',') : null;
}

// [rows, cols] of a pty's window, or null (the library's 24 x 80)
function ptySizeValue(v, pty) {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw typeError('options.ptySize', 'an instance of Array', v);
  if (v.length !== 2) throw valueError('options.ptySize', v, 'must be [rows, cols]');
  v.forEach((n, i) => {
    if (typeof n !== 'number') throw typeError(`options.ptySize[${i}]`, 'of type number', n);
    if (!(Number.isInteger(n) && n >= 1 && n <= 65535)) throw rangeError(`options.ptySize[${i}]`, 'an integer in 1..65535', n);
  });
  if (!pty) throw valueError('options.ptySize', v, 'needs pty: true');
  return v;
}

// pty: true puts stdin, stdout and stderr on one new terminal that is the
// child's controlling one, in a new session: stdin cannot be ours, nor the
// session the caller's.
function checkPty(opts, pty, newSession) {
  if (!pty) return;
  if (!newSession) throw valueError('options.newSession', false, 'must be true with pty: true (the terminal is a new session\'s)');
  if (opts.stdin === 'inherit') throw valueError('options.stdin', 'inherit', 'cannot be used with pty: true (stdin is the terminal)');
}

function maxBufferValue(v) {
  const maxBuffer = v ?? DEFAULT_MAX_BUFFER;
  if (!(maxBuffer === Infinity || (Number.isInteger(maxBuffer) && maxBuffer >= 0))) {
    const err = new RangeError(`The "options.maxBuffer" property must be >= 0. Received ${maxBuffer}`);
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
  return maxBuffer;
}

// options -> the checked, normalised form both run() implementations use.
function runOptions(options) {
  const opts = checkSpawnOptions(options, { allow: ['detached'] });
  refuseSpawnOnly(opts);
  const input = inputValue(opts.input);
  const warm = bool(opts, 'warm') ?? false;
  const pty = bool(opts, 'pty') ?? false;
  const newSession = newSessionValue(opts, warm && !pty);
  checkPty(opts, pty, newSession);
  const cgroup = opts.cgroup === undefined || opts.cgroup === null ? null : checkString('options.cgroup', opts.cgroup);
  if (cgroup === '') throw valueError('options.cgroup', cgroup, 'must be a cgroup2 directory');
  return {
    ...opts,
    input,
    maxBuffer: maxBufferValue(opts.maxBuffer),
    encoding: encodingValue(opts.encoding),
    stdin: stdinValue(opts.stdin, input !== undefined),
    newSession,
    pty,
    ptySize: ptySizeValue(opts.ptySize, pty),
    timeout: opts.timeout || null, // 0: none, as child_process
    noOutputTimeout: ms(opts, 'noOutputTimeout', { min: 0, positive: true }),
    waitDelay: ms(opts, 'waitDelay'),
    marker: bool(opts, 'marker') ?? true,
    onStdout: fn(opts, 'onStdout'),
    onStderr: fn(opts, 'onStderr'),
    rlimits: rlimitList(opts.rlimits),
    umask: umaskValue(opts.umask),
    nice: niceValue(opts.nice),
    schedPolicy: schedPolicyValue('options.schedPolicy', opts.schedPolicy),
    cgroup,
    warm,
    preload: preloadValue(opts.preload),
  };
}

module.exports = {
  runOptions, RLIMITS, SCHED_POLICIES, DEFAULT_MAX_BUFFER, typeError, rangeError, valueError, schedPolicyValue,
};
