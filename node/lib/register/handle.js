'use strict';
// SkProcess: what ChildProcess keeps in this._handle, in place of the
// native Process of process_wrap.  Node's own ChildProcess code runs
// unchanged on top of it (option checks, stdio sockets, events and their
// order, kill(), timeout, killSignal, AbortSignal, exec's maxBuffer, error
// objects); only the start differs: spawnkit's addon instead of uv_spawn.
// What spawnkit cannot honour exactly is handed to a native Process.
const fs = require('node:fs');
const { addon: native, usable, reason: unusable } = require('./addon');
const { plan } = require('./route');
const { start } = require('./start');
const { signalName } = require('../signals');
const stats = require('./stats');

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
      (code, sig) => this._onExit(code, sig)));
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
