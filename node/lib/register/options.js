'use strict';
// register's one setting: childNice, how much higher than the parent's
// the nice value of the children it starts without waiting for them
// (spawn, exec, execFile) is, 0 to 19, default 0.  The library's NICE
// action sets it in the child before the exec (spawnkit_action_nice(3)).
//
// Why: an agent runtime keeps many CPU-bound tools in flight; at equal
// weight the event loop gets one share in 17 of the CPUs when it needs
// them and waits behind its own tools (docs/node-register.md).  A lower
// weight for the tools gives the loop its share back.  It is opt-in
// because it is visible: the tools and everything they start run at that
// nice value, which they cannot lower again without privilege.
//
// Set by SPAWNKIT_REGISTER_CHILD_NICE (read when register installs, so it
// works with `node -r spawnkit/register`) or registerOptions({childNice}).
// Sync starts (spawnSync, execSync, execFileSync) keep the parent's value:
// the loop waits for those children, so slowing them slows the loop.
// Starts handed to stock child_process (registerStats().reasons) keep it
// too: libuv has no such step.
const { typeError, rangeError } = require('../run_options');

const ENV = 'SPAWNKIT_REGISTER_CHILD_NICE';
const MAX = 19;
const current = { childNice: 0 };

function checkNice(name, v) {
  if (typeof v !== 'number') throw typeError(name, 'of type number', v);
  if (!(Number.isInteger(v) && v >= 0 && v <= MAX)) throw rangeError(name, `an integer in 0..${MAX}`, v);
  return v;
}

// The environment's value, if any: a bad one is an error at install, not
// a setting silently ignored.
function fromEnv(env = process.env) {
  const s = env[ENV];
  if (s === undefined || s === '') return;
  if (!/^[0-9]+$/.test(s)) throw rangeError(ENV, `an integer in 0..${MAX}`, s);
  current.childNice = checkNice(ENV, Number(s));
}

// registerOptions() reads the settings, registerOptions({childNice}) sets
// them (for starts from then on) and returns the new ones.
function registerOptions(opts) {
  if (opts !== undefined) {
    if (opts === null || typeof opts !== 'object') throw typeError('options', 'of type object', opts);
    if (opts.childNice !== undefined) current.childNice = checkNice('options.childNice', opts.childNice);
  }
  return { ...current };
}

module.exports = { registerOptions, fromEnv, childNice: () => current.childNice, ENV };
