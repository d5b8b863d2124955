'use strict';
// The portable fallback: run() and execFile() over child_process, for where
// the addon cannot work (macOS, no pidfds, a seccomp policy refusing them,
// SPAWNKIT_BACKEND=fallback); backend() then says 'fallback'.
//
// Same API as lib/run.js, with the options checked by the same code
// (prepareRun): stdin ignored unless `input`, output captured with a
// head+tail limit (maxBuffer; no marker line: there is no C library here to
// join them), onStdout/onStderr, timeout, noOutputTimeout, waitDelay, and a
// kill of the child's process group (newSession, the default, starts it
// detached).  After a kill the pipes get 1 s to close.  An orphan that left
// the group (setsid) is not found: it cannot hang the call, but it lives on.
// rlimits, umask, nice, schedPolicy, cgroup and pty need the library: refused here.  No templates.
const childProcess = require('node:child_process');
const path = require('node:path');
const { HeadTail } = require('./fallback_capture');
const { spawnError, systemError } = require('./errors');
const { checkFile, prepareRun, watchAbort } = require('./options');
const { execFileOver } = require('./exec_file');
const { OutputStreams } = require('./run_result');

const KILL_GRACE_MS = 1000;
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

function unavailable(opts) {
  for (const key of ['rlimits', 'umask', 'nice', 'schedPolicy', 'cgroup', 'pty']) {
    const v = opts[key];
    if (v === null || v === -1 || v === false || (Array.isArray(v) && v.length === 0)) continue;
    const err = new Error(`spawnkit: options.${key} needs the addon (the fallback backend has no C library)`);
    err.code = 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM';
    return err;
  }
  return null;
}

function runInternal(file, args, options) {
  const prep = prepareRun(file, args, options);
  if (prep.early) return prep.early;
  const opts = prep.opts;
  args = prep.args;
  const refused = unavailable(opts);
  if (refused) return Promise.reject(refused);
  return new Promise((resolve, reject) => {
    // child_process finds a name on PATH (execvp's rules, EACCES
    // included); a path is made absolute, so a script sees the $0 it has
    // with the addon (its template pins the absolute path).
    const command = file.includes('/') ? path.resolve(opts.cwd ?? '', file) : file;
    const child = childProcess.spawn(command, args, {
      cwd: opts.cwd ?? undefined,
      env: opts.env ?? process.env,
      argv0: opts.argv0 ?? file,
      stdio: [opts.stdin, 'pipe', 'pipe'],
      detached: opts.newSession,
    });
    const out = new HeadTail(opts.maxBuffer);
    const errs = new HeadTail(opts.maxBuffer);
    const timers = [];
    let timedOut = false;
    let noOutput = false;
    let waitDelayExpired = false;
    let killed = false;
    let startError = null;
    let idle = null;
    const streams = [child.stdout, child.stderr];

    const terminate = () => {
      if (child.pid === undefined || killed) return;
      killed = signal(opts.newSession ? -child.pid : child.pid, 'SIGKILL') || killed;
      const t = setTimeout(() => {
        for (const s of streams) if (s && !s.destroyed) s.destroy();
      }, KILL_GRACE_MS);
      t.unref();
      timers.push(t);
    };
    const later = (ms, fn) => {
      const t = setTimeout(fn, ms);
      timers.push(t);
      return t;
    };
    const rearm = () => {
      if (opts.noOutputTimeout === null || killed) return;
      clearTimeout(idle);
      idle = later(opts.noOutputTimeout, () => {
        timedOut = noOutput = true;
        terminate();
      });
    };

    // onStdout/onStderr as with the addon (lib/run_result.js)
    const chunks = new OutputStreams(opts);
    const give = chunks.callback();
    chunks.onError = terminate;
    child.stdout.on('data', (c) => {
      out.push(c);
      rearm();
      if (give) give(1, c);
    });
    child.stderr.on('data', (c) => {
      errs.push(c);
      rearm();
      if (give) give(2, c);
    });
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
    child.on('exit', () => {
      if (opts.waitDelay === null) return;
      later(opts.waitDelay, () => {
        waitDelayExpired = true;
        terminate();
        for (const s of streams) if (s && !s.destroyed) s.destroy();
      });
    });
    rearm();
    if (opts.timeout) {
      later(opts.timeout, () => {
        timedOut = true;
        terminate();
      });
    }
    const abort = watchAbort(opts.signal, terminate);
    child.on('close', (code, sig) => {
      for (const t of timers) clearTimeout(t);
      abort.unwatch();
      const aborted = abort.error();
      if (startError && child.pid === undefined) {
        startError.cmd = [file, ...args].join(' ');
        startError.stdout = opts.encoding === 'buffer' ? Buffer.alloc(0) : '';
        startError.stderr = startError.stdout;
        reject(startError);
        return;
      }
      // A background job of a successful call goes with its group.
      if (opts.newSession && child.pid !== undefined) signal(-child.pid, 'SIGKILL');
      chunks.end();
      const [oh, ot] = out.decoded(opts.encoding);
      const [eh, et] = errs.decoded(opts.encoding);
      const cat = (h, t) => (opts.encoding === 'buffer' ? Buffer.concat([h, t]) : h + t);
      const result = {
        pid: child.pid,
        code,
        signal: sig,
        stdout: cat(oh, ot),
        stderr: cat(eh, et),
        stdoutHead: oh,
        stdoutTail: ot,
        stderrHead: eh,
        stderrTail: et,
        stdoutBytes: out.total,
        stderrBytes: errs.total,
        stdoutDropped: out.dropped,
        stderrDropped: errs.dropped,
        timedOut,
        noOutputTimedOut: noOutput,
        waitDelayExpired,
        killed,
      };
      if (chunks.error) {
        reject(Object.assign(chunks.error, { result }));
      } else if (aborted) {
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
