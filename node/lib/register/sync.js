'use strict';
// The spawnSync half: child_process.spawnSync, execSync and execFileSync
// all end in the spawn_sync binding's spawn(options); this stands in for
// it and returns the same result object ({error?, status, signal, output,
// pid}) that Node's JavaScript then turns into its results and errors.
const { Buffer } = require('node:buffer');
const { addon: native, usable, reason: unusable } = require('./addon');
const { plan } = require('./route');
const { start } = require('./start');
const { signalName } = require('../signals');
const stats = require('./stats');

const SIGTERM = 15;

function bytes(input) {
  if (input === undefined || input === null) return null;
  if (Buffer.isBuffer(input) || input instanceof Uint8Array) return input;
  // Any other ArrayBufferView: its bytes, as Node's binding reads them.
  return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}

function makeSpawnSync(stockSpawn) {
  return function spawn(options) {
    const p = usable ? plan(options) : { reason: unusable };
    if (p.reason) {
      stats.fallback(p.reason);
      return stockSpawn.call(this, options);
    }
    const stdio = options.stdio ?? [];
    const readable = stdio.map((s) => s.type === 'pipe' && s.readable === true);
    const inputs = stdio.map((s) => bytes(s.input));
    const timeout = typeof options.timeout === 'number' ? options.timeout : 0;
    const maxBuffer = typeof options.maxBuffer === 'number' ? options.maxBuffer : 0;
    const killSignal = typeof options.killSignal === 'number' ? options.killSignal : SIGTERM;
    const res = start(options, (t) => native.compatSpawnSync(t, options.args ?? [],
      options.envPairs ?? [], options.cwd || null, p.spec, !!options.detached, readable, inputs,
      timeout, maxBuffer, killSignal));
    if (res.fallback) {
      stats.fallback(res.fallback);
      return stockSpawn.call(this, options);
    }
    stats.routed();
    if (typeof res === 'number') {
      return { error: res, status: null, signal: null, output: null, pid: 0 };
    }
    const [pid, , status, termsig, error, output] = res;
    const r = {};
    if (error) r.error = error;
    r.status = termsig > 0 ? null : status;
    r.signal = termsig > 0 ? signalName(termsig) : null;
    r.output = output;
    r.pid = pid;
    return r;
  };
}

module.exports = { makeSpawnSync };
