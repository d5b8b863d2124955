'use strict';
// Promise helpers over cached templates: run() resolves with whatever the
// command did; execFile() rejects like util.promisify(child_process.execFile)
// when it did not exit 0.
//
// A run is one spawnkit_run() call (man 3 spawnkit_run) on a thread of its
// own (src/run_async.c): the session, stdin, head+tail capture, timeouts,
// wait delay and tree kill are the C library's, the same as Python's.
// This file only converts: options to a spec, the C result to run()'s.
const { TemplateCache, REMAKES } = require('./cache');
const { spawnError, systemError, isAsyncSpawnError, syncSpawnError, errnoName } = require('./errors');
const { resolveCommand } = require('./resolve');
const { execFileOver } = require('./exec_file');
const { envPairs, checkString, prepareRun, watchAbort } = require('./options');
const { runResult, OutputStreams } = require('./run_result');
const native = require('./native');
const { SCHED_POLICIES } = require('./run_options');

const ESTALE = -116;
const EACCES = -13;
const ENOENT = -2;
const ECHILD = -10;

// Absolute path -> Template, bounded (lib/cache.js).  A template that went
// stale (the file was replaced, e.g. a package upgrade renamed a new binary
// over it) or refused after a credential change (EACCES: a service dropped
// privileges) is made again, at most REMAKES times per call.
const cache = new TemplateCache();

function clearTemplateCache() {
  cache.clear();
}

function configureTemplateCache(options) {
  cache.configure(options ?? {});
}

// What the cgroup option's failures say: the library refuses anything but a
// writable cgroup2 directory (EINVAL, EACCES, EOPNOTSUPP before Linux 5.7).
function cgroupError(errno, dir, file, args) {
  const code = errnoName(errno);
  const err = new Error(`spawn ${file}: options.cgroup ${JSON.stringify(dir)} is not a writable cgroup2 directory (${code})`);
  Object.assign(err, { errno, code, syscall: `spawn ${file}`, path: dir, spawnargs: args });
  return err;
}

function toSpec(t, file, args, opts) {
  const half = Number.isFinite(opts.maxBuffer) ? Math.floor(opts.maxBuffer / 2) : Infinity;
  const tail = Number.isFinite(opts.maxBuffer) ? opts.maxBuffer - half : 0;
  return {
    tmpl: t._h,
    argv: [checkString('options.argv0', opts.argv0 ?? file), ...args],
    envp: envPairs(opts.env ?? process.env),
    cwd: opts.cwd ?? null,
    input: opts.input ?? null,
    stdinInherit: opts.stdin === 'inherit',
    caps: [half, tail, half, tail],
    timeoutMs: opts.timeout ?? -1,
    noOutputTimeoutMs: opts.noOutputTimeout ?? -1,
    waitDelayMs: opts.waitDelay ?? -1,
    newSession: opts.newSession,
    warm: opts.warm,
    pty: opts.pty,
    ptyRows: opts.ptySize?.[0] ?? 0,
    ptyCols: opts.ptySize?.[1] ?? 0,
    preload: opts.warm ? opts.preload : null,
    rlimits: opts.rlimits,
    umask: opts.umask,
    nice: opts.nice ?? 0,
    schedPolicy: opts.schedPolicy ? SCHED_POLICIES[opts.schedPolicy] : -1,
    cgroup: opts.cgroup,
    // the marker line at a line boundary in text mode; between the
    // bytes as they are for Buffers; marker: false joins them bare
    marker: opts.marker,
    text: opts.encoding !== 'buffer',
  };
}

// What the library's CGROUP action refuses with: EINVAL (not cgroup2),
// EACCES/EPERM/EROFS (not writable), EOPNOTSUPP (before Linux 5.7).
const CGROUP_ERRORS = [-22, -13, -1, -30, -95];

// A start that failed (-errno, nothing ran): the error child_process would
// give.  bare: thrown by child_process before any callback (no cmd, ...).
// atCgroup: the cgroup directory could not be opened.
function startError(errno, file, args, opts, atCgroup = false) {
  if (atCgroup || (opts.cgroup !== null && CGROUP_ERRORS.includes(errno))) {
    return cgroupError(errno, opts.cgroup, file, args);
  }
  if (!isAsyncSpawnError(errno)) {
    const err = syncSpawnError(errno);
    err.bare = true;
    return err;
  }
  return spawnError(errno, file, args);
}

function failed(err, file, args, opts, reject) {
  if (err.bare) {
    // child_process.execFile throws these before any callback exists.
    delete err.bare;
  } else {
    err.cmd = [file, ...args].join(' ');
    err.stdout = opts.encoding === 'buffer' ? Buffer.alloc(0) : '';
    err.stderr = err.stdout;
  }
  reject(err);
}

// One attempt: resolve, take the cached template, run.  A stale template
// (ESTALE, or EACCES after a credential change) is made again.
function start(file, args, opts, resolve, reject, attempt) {
  let abs;
  let t;
  try {
    abs = resolveCommand(file, args, opts.env ?? process.env, opts.cwd);
    try {
      t = cache.get(abs);
    } catch (err) {
      // Report the name the caller used, as child_process does.
      throw spawnError(err.errno ?? ENOENT, file, args);
    }
  } catch (err) {
    failed(err, file, args, opts, reject);
    return;
  }
  const streams = new OutputStreams(opts);
  let handle = null;
  let abort = null;
  const onDone = (res) => {
    handle = null;
    abort?.unwatch();
    const aborted = abort?.error();
    if (res.errno < 0) {
      const e = res.errno;
      if ((e === ESTALE || e === EACCES) && attempt < REMAKES) {
        cache.drop(abs);
        start(file, args, opts, resolve, reject, attempt + 1);
        return;
      }
      if (e === ESTALE || e === ENOENT) cache.drop(abs);
      failed(startError(e, file, args, opts), file, args, opts, reject);
      return;
    }
    streams.end();
    const result = runResult(res, opts);
    if (streams.error) {
      // A callback threw: the run was stopped, the call fails with it.
      reject(Object.assign(streams.error, { result }));
    } else if (aborted) {
      // What the call saw before the abort; code stays 'ABORT_ERR'.
      Object.assign(aborted, result, { code: 'ABORT_ERR', exitCode: result.code });
      reject(aborted);
    } else if (res.code === ECHILD) {
      // Never resolve with an exit code nobody saw.
      const lost = systemError(ECHILD, 'waitid');
      Object.assign(lost, result, { code: lost.code, exitCode: null });
      reject(lost);
    } else {
      resolve(result);
    }
  };
  const stop = () => {
    if (handle) native.runStop(handle);
  };
  streams.onError = stop;
  const spec = toSpec(t, file, args, opts);
  const h = native.runStart(spec, streams.callback(), onDone);
  if (typeof h === 'number') {
    failed(startError(h, file, args, opts, spec.failedAt === 'cgroup'), file, args, opts, reject);
    return;
  }
  handle = h;
  abort = watchAbort(opts.signal, stop);
}

function runInternal(file, args, options) {
  const prep = prepareRun(file, args, options);
  if (prep.early) return prep.early;
  return new Promise((resolve, reject) => start(file, prep.args, prep.opts, resolve, reject, 0));
}

// run(cmd, args, options) -> Promise<RunResult>; rejects only when the
// command could not start (ENOENT, EACCES, ...) or was aborted.
function run(file, args = [], options = {}) {
  return runInternal(file, args, options);
}

// execFile(file, args, options) -> Promise<{stdout, stderr, ...}>; rejects
// with an error like child_process's (code = exit code, killed, signal,
// cmd, stdout, stderr) when the command did not exit 0.
const execFile = execFileOver(runInternal);

// The library's warm-template counters (docs/warm.md), as Python's
// spawnkit.warm_stats() gives them.
function warmStats() {
  const [warmSpawns, coldFallbacks, started, restarted, shutDown, reasons] = native.warmStats();
  return { warmSpawns, coldFallbacks, reasons, started, restarted, shutDown };
}

function warmShutdown() {
  native.warmShutdown();
}

module.exports = {
  run,
  execFile,
  clearTemplateCache,
  configureTemplateCache,
  templateCacheSize: () => cache.size,
  templateCacheMaxSize: () => cache.maxSize,
  _templateCache: cache,
  warmStats,
  warmShutdown,
};
