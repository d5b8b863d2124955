'use strict';
// SpawnkitChild: a ChildProcess-like EventEmitter over one spawned child.
//
// Events, in child_process order: 'spawn' (next tick after a successful
// start), 'error' (start failed, or aborted), 'exit' (code, signal) as soon
// as the pidfd says the child is gone, 'close' (code, signal) once it exited
// and every stdio stream of ours closed.
const { EventEmitter } = require('node:events');
const net = require('node:net');
const native = require('./native');
const { signalNumber, signalName } = require('./signals');
const { AbortError, systemError } = require('./errors');

const DEFAULT_KILL_GRACE_MS = 1000;

function pipeStream(fd, readable) {
  // A net.Socket over a pipe fd is a libuv pipe handle: non-blocking reads
  // and writes in the event loop, exactly what child_process uses.
  return new net.Socket({ fd, readable, writable: !readable, allowHalfOpen: false });
}

class SpawnkitChild extends EventEmitter {
  constructor(file, args) {
    super();
    this.pid = undefined;
    this.stdin = null;
    this.stdout = null;
    this.stderr = null;
    this.stdio = [null, null, null];
    this.exitCode = null;
    this.signalCode = null;
    this.killed = false;
    this.spawnfile = file;
    this.spawnargs = args;
    this.timedOut = false;
    this._handle = null;
    this._pipeFds = [];
    this._openStreams = 0;
    this._exited = false;
    this._closed = false;
    this._timers = [];
    this._killTree = true;
    this._killSignal = 'SIGTERM';
    this._graceMs = DEFAULT_KILL_GRACE_MS;
    this._abort = null;
  }

  // Called by Template with the addon's [pid, fd0, fd1, fd2, handle].
  _attach(res, opts) {
    const [pid, fd0, fd1, fd2, handle] = res;
    this.pid = pid;
    this._handle = handle;
    this._killTree = opts.killTree !== false;
    if (opts.killSignal !== undefined) this._killSignal = opts.killSignal; // checked before spawn
    if (opts.killGraceMs !== undefined) this._graceMs = opts.killGraceMs;
    const fds = [fd0, fd1, fd2];
    for (let i = 0; i < 3; i++) {
      if (fds[i] < 0) continue;
      const s = pipeStream(fds[i], i !== 0);
      this._pipeFds.push({ fd: fds[i], stream: s });
      // As child_process: 'close' waits for the readable streams only.
      if (i !== 0) {
        this._openStreams++;
        s.once('close', () => this._streamClosed());
      }
      this.stdio[i] = s;
    }
    [this.stdin, this.stdout, this.stderr] = this.stdio;
    if (this.stdin) {
      // Like child_process: a child that exits without reading makes our
      // writes fail with EPIPE; that is not worth crashing the parent.
      this.stdin.on('error', (err) => {
        if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') this.emit('error', err);
      });
    }
    if (opts.timeout > 0) {
      const t = setTimeout(() => {
        this.timedOut = true;
        this._terminate(this._killSignal);
      }, opts.timeout);
      this._timers.push(t);
    }
    if (opts.signal) this._watchAbort(opts.signal);
    process.nextTick(() => this.emit('spawn'));
  }

  _watchAbort(signal) {
    const onAbort = () => {
      if (this._exited && this._openStreams === 0) return;
      this._terminate(this._killSignal);
      this.emit('error', new AbortError(undefined, { cause: signal.reason }));
    };
    if (signal.aborted) {
      process.nextTick(onAbort);
    } else {
      signal.addEventListener('abort', onAbort, { once: true });
      this._abort = () => signal.removeEventListener('abort', onAbort);
    }
  }

  // Timeout or abort: kill the tree (or the child), then make sure the call
  // ends even if something we could not kill still holds a pipe.
  _terminate(sig) {
    if (this._killTree) this.killTree(sig);
    else this.kill(sig);
    if (this._graceMs >= 0 && !this._closed) {
      const t = setTimeout(() => this._forceCloseStreams(), this._graceMs);
      t.unref();
      this._timers.push(t);
    }
  }

  _forceCloseStreams() {
    for (const { stream } of this._pipeFds) if (!stream.destroyed) stream.destroy();
  }

  _onExit(code, sig) {
    this._exited = true;
    if (code < 0 && !(sig > 0)) this._statusLost(code);
    this.exitCode = code >= 0 ? code : null;
    this.signalCode = sig > 0 ? signalName(sig) : null;
    // Nobody reads our writes any more (child_process does the same).
    if (this.stdin && !this.stdin.destroyed) this.stdin.destroy();
    this.emit('exit', this.exitCode, this.signalCode);
    this._maybeClose();
  }

  // The wait failed (-errno): ECHILD when another waiter in the process
  // (native code calling waitpid(-1)) took the status and the kernel kept
  // none on the pidfd.  Said as an 'error' if anyone listens, else as a
  // process warning; 'exit' then reports (null, null), never a made-up 0.
  _statusLost(errno) {
    const err = systemError(errno, 'waitid');
    err.message = `exit status of child ${this.pid} was lost (${err.code}): ` +
      'another waiter in this process reaped it and this kernel keeps no status on the pidfd';
    err.pid = this.pid;
    this.statusError = err;
    if (this.listenerCount('error') > 0) this.emit('error', err);
    else process.emitWarning(err.message, { code: 'SPAWNKIT_EXIT_STATUS_LOST' });
  }

  _streamClosed() {
    this._openStreams--;
    this._maybeClose();
  }

  _maybeClose() {
    if (!this._exited || this._openStreams > 0 || this._closed) return;
    this._closed = true;
    for (const t of this._timers) clearTimeout(t);
    this._timers = [];
    if (this._abort) this._abort();
    this.emit('close', this.exitCode, this.signalCode);
  }

  // Start failed: same sequence as child_process ('error', then 'close'
  // with the negative errno as code).
  _failed(err) {
    this._exited = true;
    this._closed = true;
    process.nextTick(() => {
      this.emit('error', err);
      this.emit('close', err.errno, null);
    });
  }

  kill(sig = 'SIGTERM') {
    const num = signalNumber(sig);
    if (!this._handle || this._exited) return false;
    const r = native.kill(this._handle, num);
    if (r === 0) {
      this.killed = true;
      return true;
    }
    return false;
  }

  // Signal the child and all its descendants (spawnkit_kill_tree(3): the
  // library's one tree kill).  Returns how many processes were signalled.
  killTree(sig = 'SIGKILL') {
    const num = signalNumber(sig);
    if (!this._handle) return 0;
    const n = native.killTree(this._handle, num);
    if (n > 0) this.killed = true;
    return n < 0 ? 0 : n;
  }

  ref() {
    if (this._handle) native.ref(this._handle, true);
    for (const { stream } of this._pipeFds) stream.ref();
  }

  unref() {
    if (this._handle) native.ref(this._handle, false);
    for (const { stream } of this._pipeFds) stream.unref();
  }
}

module.exports = { SpawnkitChild };
