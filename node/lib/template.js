'use strict';
// Template: one executable, resolved and pinned once, spawned many times.
const native = require('./native');
const { SpawnkitChild } = require('./child');
const { spawnError, systemError, isAsyncSpawnError, syncSpawnError } = require('./errors');
const { resolveCommand } = require('./resolve');
const { checkString, checkFile, checkArgs, envPairs, stdioSpec, checkSpawnOptions } = require('./options');

const INHERIT_FDS = 1; // SPAWNKIT_SPAWN_INHERIT_FDS
const WARM = 1 << 8; // the addon's "try spawnkit_warm_spawn first" (src/binding.c)

class Template {
  // pathOrCommand: an absolute path, a relative path (to process.cwd()), or
  // a command name looked up in PATH (options.env?.PATH, else process.env).
  constructor(pathOrCommand, options = {}) {
    checkFile('pathOrCommand', pathOrCommand);
    const env = options.env ?? process.env;
    this.file = pathOrCommand;
    this.path = resolveCommand(pathOrCommand, [], env, options.cwd);
    const h = native.templateCreate(this.path);
    if (typeof h === 'number') throw spawnError(h, pathOrCommand, []);
    this._h = h;
  }

  // 'user' or 'kernel': which spawnkit backend this template uses.
  get backend() {
    const info = this._alive().templateInfo(this._h);
    return info[0];
  }

  _alive() {
    if (!this._h) throw systemError(-9 /* EBADF */, 'spawn_template (closed)');
    return native;
  }

  // Start without events: returns a SpawnkitChild, or a negative errno.
  _start(args, opts) {
    const argv = [checkString('options.argv0', opts.argv0 ?? this.file), ...args];
    const envp = envPairs(opts.env ?? process.env);
    const cwd = opts.cwd ?? null;
    const spec = stdioSpec(opts.stdio);
    const flags = (opts.inheritFds ? INHERIT_FDS : 0) | (opts.warm ? WARM : 0);
    const child = new SpawnkitChild(this.file, argv);
    const preload = opts.warm && opts.preload?.length ? opts.preload.join(',') : null;
    const res = this._alive().spawn(this._h, argv, envp, cwd, spec, flags,
      (code, sig) => child._onExit(code, sig), preload);
    if (typeof res === 'number') return res;
    child._attach(res, opts);
    return child;
  }

  // Like child_process.spawn(file, args, options).  A start that fails
  // about the executable (ENOENT, EACCES, ESTALE, a missing cwd) is reported
  // through 'error', as child_process does; bad arguments and other start
  // failures (ENOTDIR for a cwd that is a file, ...) throw, as there.
  spawn(args = [], options = {}) {
    args = checkArgs(args);
    const opts = checkSpawnOptions(options);
    const r = this._start(args, opts);
    if (typeof r !== 'number') return r;
    if (!isAsyncSpawnError(r)) throw syncSpawnError(r);
    const child = new SpawnkitChild(this.file, [opts.argv0 ?? this.file, ...args]);
    child._failed(spawnError(r, this.file, args));
    return child;
  }

  close() {
    if (this._h) native.templateDestroy(this._h);
    this._h = null;
  }
}

module.exports = { Template };
