'use strict';
// install(): route child_process through spawnkit (see docs/node-register.md).
//
// Two hooks, both below child_process's public functions, so every caller
// is covered however it imported them (require, import, destructured
// before register ran):
//   - async (spawn, exec, execFile): ChildProcess's native handle class is
//     replaced by SkProcess (./handle.js).  If child_process was loaded
//     before register, its module already holds the native class; then
//     ChildProcess.prototype.spawn swaps each new handle for an SkProcess.
//   - sync (spawnSync, execSync, execFileSync): the spawn_sync binding's
//     spawn() (./sync.js).
// fork() goes through the same handle and is handed to stock (ipc).
// Without a usable addon every start goes to stock, counted as 'no-addon'.
const { SkProcess, setNativeProcess } = require('./handle');
const { makeSpawnSync } = require('./sync');
const { fromEnv } = require('./options');

let installed = false;

// process.binding() warns (DEP0111) under --pending-deprecation, and throws
// under --throw-deprecation too: that is about the caller's own use, not
// ours, so it stays quiet for these two lookups.
function binding(name) {
  const saved = process.noDeprecation;
  process.noDeprecation = true;
  try {
    return process.binding(name);
  } finally {
    process.noDeprecation = saved;
  }
}

function install() {
  if (installed) return;
  fromEnv();
  const processWrap = binding('process_wrap');
  const spawnSync = binding('spawn_sync');
  setNativeProcess(processWrap.Process);
  if (!process.moduleLoadList.includes('NativeModule internal/child_process')) {
    processWrap.Process = SkProcess;
  }
  const { ChildProcess } = require('node:child_process');
  const stockProtoSpawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function spawn(options) {
    if (this._handle && !(this._handle instanceof SkProcess)) {
      this._handle = SkProcess.adopt(this._handle);
    }
    const handle = this._handle;
    const err = stockProtoSpawn.call(this, options);
    // Started, exec not confirmed yet: 'spawn' waits for it (handle.js).
    if (handle instanceof SkProcess && handle._pending) handle.holdSpawn(this);
    return err;
  };
  spawnSync.spawn = makeSpawnSync(spawnSync.spawn);
  installed = true;
}

module.exports = { install, isInstalled: () => installed };
