'use strict';
// SkProcess: what ChildProcess keeps in this._handle, in place of the
// native Process of process_wrap.  Node's own ChildProcess code runs
// unchanged on top of it (option checks, stdio sockets, events and their
// order, kill(), timeout, killSignal, AbortSignal, exec's maxBuffer, error
// objects); only the start differs: spawnkit's addon instead of uv_spawn.
// What spawnkit cannot honour exactly is handed to a native Process.
//
// The addon's start returns before the child's exec (spawnkit_spawn_start),
// so the event loop never waits for the child to be scheduled.  Node emits
// 'spawn' on the next tick after spawn() returns; while the exec is not
// confirmed that 'spawn' is held (holdSpawn) and emitted when the addon
// says the exec ran, or dropped if it failed, which then ends as stock
// ends a failed start: onexit(-errno), so 'error' and 'close'.
const fs = require('node:fs');
const { addon: native, usable, reason: unusable } = require('./addon');
const { plan } = require('./route');
const { start } = require('./start');
const { signalName } = require('../signals');
const stats = require('./stats');
const { childNice, childPolicy, childSliceNs } = require('./options');

const ESRCH = -3;
// EACCES, EAGAIN, ENOENT: 'error' events for which Node goes on to make
// the stdio streams (not EMFILE, ENFILE: it returns before).
const OPENED_ON_ERROR = new Set([-13, -11, -2]);
let NativeProcess = null; // set by index.js before any use

function setNativeProcess(P) {
  NativeProcess = P;
}

class SkProcess {
  constructor() {
    // pid stays undefined unless a child started, as on a native Process.
    this.onexit = null;
    this._native = null; // a native Process: adopted, or made for a fallback
    this._stock = false; // this start went to the native Process
    this._child = null; // the addon's child handle while it runs
    this._ref = true;
    this._pending = false; // started, exec not confirmed yet
    this._release = null; // lets the held 'spawn' go (holdSpawn)
    this._owner = null; // the ChildProcess, while 'spawn' is held
  }

  // A ChildProcess made before register replaced the class: keep its
  // native handle for a possible fallback, take over everything else.
  static adopt(handle) {
    const sk = new SkProcess();
    sk._native = handle;
    sk.onexit = handle.onexit;
    for (const sym of Object.getOwnPropertySymbols(handle)) sk[sym] = handle[sym];
    return sk;
  }

  spawn(options) {
    if (!usable) return this._spawnStock(options, unusable);
    const p = plan(options);
    if (p.reason) return this._spawnStock(options, p.reason);
    const res = start(options, (t) => native.compatSpawn(t, options.args ?? [],
      options.envPairs ?? [], options.cwd || null, p.spec, !!options.detached,
      (code, sig) => this._onExit(code, sig), (err) => this._onSpawn(err), childNice(), childPolicy(), childSliceNs()));
    if (res.fallback) return this._spawnStock(options, res.fallback);
    stats.routed();
    let fds;
    if (typeof res === 'number') {
      // Node turns the errno into its error.  For the ones it reports as
      // an 'error' event it still makes streams of the Pipe handles, which
      // uv_spawn has opened: give them sockets that read EOF.
      if (!OPENED_ON_ERROR.has(res)) return res;
      fds = native.compatPipes(p.spec);
      if (typeof fds === 'number') return res;
    } else {
      const [pid, child] = res;
      this.pid = pid;
      this._child = child;
      fds = res[2];
      this._pending = res[3];
    }
    for (let i = 0; i < fds.length; i++) {
      if (fds[i] < 0) continue;
      // The Pipe handle Node made for this slot takes our socket end, as
      // libuv's uv_spawn hands it the socketpair it created.
      let err;
      try {
        err = options.stdio[i].handle.open(fds[i]);
      } catch (e) {
        err = e.errno ?? -1; // uv_pipe_open failed and pipe_wrap threw
      }
      if (err) fs.closeSync(fds[i]);
    }
    return typeof res === 'number' ? res : 0;
  }

  _spawnStock(options, reason) {
    stats.fallback(reason);
    this._stock = true;
    if (!this._native) {
      this._native = new NativeProcess();
      for (const sym of Object.getOwnPropertySymbols(this)) this._native[sym] = this[sym];
    }
    this._native.onexit = (code, sig) => this.onexit(code, sig);
    if (!this._ref) this._native.unref();
    const err = this._native.spawn(options);
    this.pid = this._native.pid;
    return err;
  }

  // Called by register's ChildProcess.prototype.spawn once Node has queued
  // its 'spawn' (process.nextTick): hold that emit on this child until the
  // exec is confirmed.  Only 'spawn' is held; every other event passes.
  holdSpawn(owner) {
    const sk = this;
    const own = Object.prototype.hasOwnProperty.call(owner, 'emit');
    const stockEmit = owner.emit;
    let held = false;
    const holding = function emit(name, ...args) {
      if (name === 'spawn') {
        held = true;
        return owner.listenerCount('spawn') > 0;
      }
      // Another event first (an AbortSignal's 'error', say): 'spawn' must
      // precede it, so learn the exec's outcome now, waiting if need be.
      // (Adding and removing listeners is not an event of the child's.)
      if (name !== 'newListener' && name !== 'removeListener') sk._settle();
      const next = owner.emit === holding ? stockEmit : owner.emit;
      return Reflect.apply(next, this, [name, ...args]);
    };
    // Not enumerable: the child looks as it did to whoever inspects it.
    Object.defineProperty(owner, 'emit', { value: holding, writable: true, configurable: true, enumerable: false });
    this._owner = owner;
    this._release = (ok) => {
      this._owner = null;
      if (owner.emit === holding) {
        if (own) owner.emit = stockEmit;
        else delete owner.emit;
      }
      if (ok && held) owner.emit('spawn');
    };
  }

  // Decide a held 'spawn' at once (the addon waits for the exec).
  _settle() {
    if (!this._pending || !this._child) return;
    const r = native.compatSettle(this._child);
    if (r !== 1) this._onSpawn(r);
  }

  // The addon: 0 once the child exec'd, or the -errno of its failed start
  // (always before _onExit, which a failed start does not get).
  _onSpawn(err) {
    this._pending = false;
    const owner = this._owner;
    const release = this._release ?? (() => {});
    this._release = null;
    if (err === 0) {
      release(true);
      return;
    }
    release(false);
    // As a start that failed at once: no pid, and Node's error path.
    this._child = null;
    this.pid = undefined;
    if (owner) owner.pid = undefined;
    this.onexit(err, '');
  }

  // As process_wrap reports it: (exit status, '') or (0, signal name).
  _onExit(code, sig) {
    this._child = null;
    if (sig > 0) this.onexit(0, signalName(sig) ?? '');
    else this.onexit(code, '');
  }

  kill(sig) {
    if (this._stock) return this._native.kill(sig);
    if (!this._child) return ESRCH;
    return native.kill(this._child, sig);
  }

  close(cb) {
    if (this._stock) return this._native.close(cb);
    this._child = null;
    if (typeof cb === 'function') process.nextTick(cb);
  }

  ref() {
    this._ref = true;
    if (this._stock) this._native.ref();
    else if (this._child) native.ref(this._child, true);
  }

  unref() {
    this._ref = false;
    if (this._stock) this._native.unref();
    else if (this._child) native.ref(this._child, false);
  }

  hasRef() {
    if (this._stock) return this._native.hasRef();
    return this._ref && this._child !== null;
  }
}

module.exports = { SkProcess, setNativeProcess };
