'use strict';
// Promise helpers over cached templates: run() resolves with whatever the
// command did; execFile() rejects like util.promisify(child_process.execFile)
// when it did not exit 0.
const { TemplateCache, REMAKES } = require('./cache');
const { HeadTail } = require('./capture');
const { spawnError, AbortError, isAsyncSpawnError, syncSpawnError } = require('./errors');
const { resolveCommand } = require('./resolve');
const { execFileOver } = require('./exec_file');
const { checkFile, checkArgs, checkSpawnOptions } = require('./options');

const ESTALE = -116;
const EACCES = -13;
const ENOENT = -2;
const DEFAULT_MAX_BUFFER = 1024 * 1024; // child_process.execFile's default

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

function startCached(file, args, opts) {
  const env = opts.env ?? process.env;
  const abs = resolveCommand(file, args, env, opts.cwd);
  for (let attempt = 0; ; attempt++) {
    let t;
    try {
      t = cache.get(abs);
    } catch (err) {
      // Report the name the caller used, as child_process does.
      throw spawnError(err.errno ?? ENOENT, file, args);
    }
    const child = t._start(args, { ...opts, argv0: opts.argv0 ?? file });
    if (typeof child !== 'number') return child;
    if ((child === ESTALE || child === EACCES) && attempt < REMAKES) {
      cache.drop(abs);
      continue;
    }
    if (child === ESTALE || child === ENOENT) cache.drop(abs);
    if (!isAsyncSpawnError(child)) {
      const err = syncSpawnError(child);
      err.bare = true;
      throw err;
    }
    throw spawnError(child, file, args);
  }
}

function captureOptions(options) {
  const opts = checkSpawnOptions(options);
  const maxBuffer = opts.maxBuffer ?? DEFAULT_MAX_BUFFER;
  if (!(maxBuffer === Infinity || (Number.isInteger(maxBuffer) && maxBuffer >= 0))) {
    const err = new RangeError(`The "options.maxBuffer" property must be >= 0. Received ${maxBuffer}`);
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
  const hasInput = opts.input !== undefined;
  return {
    ...opts,
    maxBuffer,
    encoding: opts.encoding ?? 'utf8',
    killSignal: opts.killSignal ?? 'SIGKILL',
    stdio: [hasInput ? 'pipe' : (opts.stdin ?? 'ignore'), 'pipe', 'pipe'],
  };
}

// The shared body: start, capture, wait for 'close'.
function runInternal(file, args, options) {
  checkFile('file', file);
  args = checkArgs(args);
  let opts;
  try {
    opts = captureOptions(options ?? {});
  } catch (err) {
    return Promise.reject(err);
  }
  if (opts.signal?.aborted) {
    return Promise.reject(new AbortError(undefined, { cause: opts.signal.reason }));
  }
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = startCached(file, args, opts);
    } catch (err) {
      if (err.bare) {
        // child_process.execFile throws these before any callback exists.
        delete err.bare;
        reject(err);
        return;
      }
      err.cmd = [file, ...args].join(' ');
      err.stdout = opts.encoding === 'buffer' ? Buffer.alloc(0) : '';
      err.stderr = err.stdout;
      reject(err);
      return;
    }
    const out = new HeadTail(opts.maxBuffer);
    const errs = new HeadTail(opts.maxBuffer);
    let aborted = null;
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => errs.push(c));
    let lost = null;
    child.on('error', (err) => {
      if (err.name === 'AbortError') aborted = err;
      else if (err.syscall === 'waitid') lost = err; // exit status lost
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    child.on('close', (code, signal) => {
      const result = {
        pid: child.pid,
        code,
        signal,
        stdout: out.value(opts.encoding),
        stderr: errs.value(opts.encoding),
        stdoutBytes: out.total,
        stderrBytes: errs.total,
        stdoutDropped: out.dropped,
        stderrDropped: errs.dropped,
        timedOut: child.timedOut,
        killed: child.killed,
      };
      if (aborted) {
        // What the call saw before the abort; code stays 'ABORT_ERR'.
        Object.assign(aborted, result, { code: 'ABORT_ERR', exitCode: result.code });
        reject(aborted);
      } else if (lost) {
        // Never resolve with an exit code nobody saw.
        Object.assign(lost, result, { code: lost.code, exitCode: null });
        reject(lost);
      } else {
        resolve(result);
      }
    });
  });
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
  const [warmSpawns, coldFallbacks, started, restarted, shutDown, reasons] =
    require('./native').warmStats();
  return { warmSpawns, coldFallbacks, reasons, started, restarted, shutDown };
}

function warmShutdown() {
  require('./native').warmShutdown();
}

module.exports = {
  run,
  execFile,
  clearTemplateCache,
  configureTemplateCache,
  templateCacheSize: () => cache.size,
  templateCacheMaxSize: () => cache.maxSize,
  _templateCache: cache,
  captureOptions,
  warmStats,
  warmShutdown,
};
