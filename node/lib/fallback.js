'use strict';
// The portable fallback: run() and execFile() over child_process, for where
// the addon cannot work (macOS, no pidfds, a seccomp policy refusing them,
// SPAWNKIT_BACKEND=fallback); backend() then says 'fallback'.
//
// Same API and semantics as lib/run.js: stdin ignored unless `input`,
// output captured with a head+tail limit (maxBuffer), and a timeout or abort
// that kills the whole tree and then gives the pipes killGraceMs to close.
// The tree is found differently: the child starts detached (its own session
// and process group), so a timeout is a signal to the group.  An orphan that
// left the group (setsid) is not found: child_process's stdio are
// socketpairs, whose other end /proc does not name; it cannot hang the call
// (killGraceMs), but it lives on.  No templates here.
const childProcess = require('node:child_process');
const { HeadTail } = require('./capture');
const { AbortError, spawnError, systemError } = require('./errors');
const { checkFile, checkArgs } = require('./options');
const { signalNumber } = require('./signals');
const { captureOptions } = require('./run');
const { resolveCommand } = require('./resolve');
const { execFileOver } = require('./exec_file');

const DEFAULT_KILL_GRACE_MS = 1000;
const ENOSYS = -38;

class Template {
  constructor(pathOrCommand) {
    checkFile('pathOrCommand', pathOrCommand); // bad arguments first, as the addon's
    throw systemError(ENOSYS, 'spawn_template_create (fallback backend)');
  }
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

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
    // The command is resolved as lib/run.js does (a script sees the same
    // absolute path), and a name not found fails the same way.
    let abs;
    try {
      abs = resolveCommand(file, args, opts.env ?? process.env, opts.cwd);
    } catch (err) {
      err.cmd = [file, ...args].join(' ');
      err.stdout = opts.encoding === 'buffer' ? Buffer.alloc(0) : '';
      err.stderr = err.stdout;
      reject(err);
      return;
    }
    const child = childProcess.spawn(abs, args, {
      cwd: opts.cwd ?? undefined,
      env: opts.env ?? process.env,
      argv0: opts.argv0 ?? file,
      stdio: opts.stdio,
      detached: true,
    });
    const out = new HeadTail(opts.maxBuffer);
    const errs = new HeadTail(opts.maxBuffer);
    const graceMs = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const timers = [];
    let timedOut = false;
    let killed = false;
    let aborted = null;
    let startError = null;
    const streams = [child.stdout, child.stderr];

    const terminate = (sig) => {
      if (child.pid === undefined) return;
      const num = signalNumber(sig);
      if (opts.killTree === false) killed = child.kill(sig) || killed;
      else killed = signal(-child.pid, num) || killed;
      if (graceMs >= 0) {
        const t = setTimeout(() => {
          for (const s of streams) if (s && !s.destroyed) s.destroy();
        }, graceMs);
        t.unref();
        timers.push(t);
      }
    };

    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => errs.push(c));
    if (child.stdin) {
      child.stdin.on('error', (err) => {
        if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') startError ??= err;
      });
      if (opts.input !== undefined) child.stdin.end(opts.input);
    }
    child.on('error', (err) => {
      // Named as the caller named it, as lib/run.js and child_process do.
      if (child.pid === undefined) startError = spawnError(err.errno, file, args);
    });
    if (opts.timeout > 0) {
      timers.push(setTimeout(() => {
        timedOut = true;
        terminate(opts.killSignal);
      }, opts.timeout));
    }
    let unwatch = null;
    if (opts.signal) {
      const onAbort = () => {
        aborted = new AbortError(undefined, { cause: opts.signal.reason });
        terminate(opts.killSignal);
      };
      opts.signal.addEventListener('abort', onAbort, { once: true });
      unwatch = () => opts.signal.removeEventListener('abort', onAbort);
    }
    child.on('close', (code, sig) => {
      for (const t of timers) clearTimeout(t);
      if (unwatch) unwatch();
      if (startError && child.pid === undefined) {
        startError.cmd = [file, ...args].join(' ');
        startError.stdout = opts.encoding === 'buffer' ? Buffer.alloc(0) : '';
        startError.stderr = startError.stdout;
        reject(startError);
        return;
      }
      const result = {
        pid: child.pid,
        code,
        signal: sig,
        stdout: out.value(opts.encoding),
        stderr: errs.value(opts.encoding),
        stdoutBytes: out.total,
        stderrBytes: errs.total,
        stdoutDropped: out.dropped,
        stderrDropped: errs.dropped,
        timedOut,
        killed,
      };
      if (aborted) {
        Object.assign(aborted, result, { code: 'ABORT_ERR', exitCode: result.code });
        reject(aborted);
      } else {
        resolve(result);
      }
    });
  });
}

function run(file, args = [], options = {}) {
  return runInternal(file, args, options);
}

// As lib/run.js's execFile (lib/exec_file.js).
const execFile = execFileOver(runInternal);

module.exports = {
  Template,
  run,
  execFile,
  clearTemplateCache() {},
  templateCacheSize: () => 0,
  // No warm interpreters here (they are templates).
  warmStats: () => ({ warmSpawns: 0, coldFallbacks: 0, reasons: {}, started: 0, restarted: 0, shutDown: 0 }),
  warmShutdown() {},
  nativePathSearch: false,
};
