'use strict';
// register's settings, all opt-in (docs/node-register.md):
//
//   childNice    how much higher than the parent's the nice value of the
//                children it starts without waiting for them (spawn, exec,
//                execFile) is, 0 to 19, default 0: the library's NICE
//                action (spawnkit_action_nice(3)).
//   childPolicy  those children's scheduling policy, 'other', 'batch' or
//                'idle', default null (the parent's): the library's
//                SCHED_POLICY action (spawnkit_action_sched_policy(3)).
//   childSliceMs those children's EEVDF slice in ms, 0.1 to 100, or 0 (the
//                default: the kernel's), set before their policy, so an
//                'idle' child keeps it: the library's SCHED_SLICE action
//                (spawnkit_action_sched_slice(3)).  With 'idle' tools a
//                long one is what shortens the loop's waits most.
//   loopSliceMs  the EEVDF slice of the thread that sets it (the event
//                loop's: -r register, or whoever calls registerOptions), in
//                ms, 0.1 to 100, or 0 for the kernel's default (the
//                default; nothing is changed until it is set):
//                spawnkit_thread_set_slice(3), which no thread or child
//                inherits.
//
// Why: an agent runtime keeps many CPU-bound tools in flight; at equal
// weight the event loop gets one share in 17 of the CPUs when it needs
// them and waits behind its own tools.  A lower weight for the tools gives
// the loop its share back (childNice); SCHED_IDLE tools give way at once
// whenever the loop wakes (childPolicy 'idle'), and longer slices (the
// tools' and the loop's) let the loop's bursts of work end before a tick
// hands the CPU to a tool (childSliceMs, loopSliceMs).  They are opt-in because they are visible and sticky: the
// tools and everything they start keep the nice value or SCHED_IDLE, which
// they cannot undo without privilege, and the loop thread keeps
// reset-on-fork.
//
// Set by SPAWNKIT_REGISTER_CHILD_NICE, SPAWNKIT_REGISTER_CHILD_POLICY,
// SPAWNKIT_REGISTER_CHILD_SLICE_MS and SPAWNKIT_REGISTER_LOOP_SLICE_MS (read
// when register installs, so they work with `node -r spawnkit/register`) or
// registerOptions({...}).  Sync starts (spawnSync, execSync, execFileSync)
// keep the parent's nice value, policy and slice: the loop waits for those
// children, so slowing them slows the loop.  Starts handed to stock child_process (registerStats().reasons)
// keep them too: libuv has no such step.
const { typeError, rangeError, schedPolicyValue, SCHED_POLICIES } = require('../run_options');
const { addon: native } = require('./addon');
const { systemError } = require('../errors');

const ENV = 'SPAWNKIT_REGISTER_CHILD_NICE';
const ENV_POLICY = 'SPAWNKIT_REGISTER_CHILD_POLICY';
const ENV_SLICE = 'SPAWNKIT_REGISTER_LOOP_SLICE_MS';
const ENV_CHILD_SLICE = 'SPAWNKIT_REGISTER_CHILD_SLICE_MS';
const MAX = 19;
// The slice's range in ms, the kernel's (SPAWNKIT_THREAD_SLICE_MIN/_MAX).
const SLICE_MIN = 0.1;
const SLICE_MAX = 100;
const SLICE_RANGE = `0 (the default) or a number in ${SLICE_MIN}..${SLICE_MAX}`;
const current = { childNice: 0, childPolicy: null, childSliceMs: 0, loopSliceMs: 0 };

function checkNice(name, v) {
  if (typeof v !== 'number') throw typeError(name, 'of type number', v);
  if (!(Number.isInteger(v) && v >= 0 && v <= MAX)) throw rangeError(name, `an integer in 0..${MAX}`, v);
  return v;
}

function checkSlice(name, v) {
  if (typeof v !== 'number') throw typeError(name, 'of type number', v);
  if (!(v === 0 || (v >= SLICE_MIN && v <= SLICE_MAX))) throw rangeError(name, SLICE_RANGE, v);
  return v;
}

// The slice on the calling thread, now; an error naming the setting if the
// library cannot (EOPNOTSUPP: a kernel before 6.12; no addon: no library).
const EOPNOTSUPP = -95;

function sliceError(name, v, errno) {
  const err = systemError(errno, 'sched_setattr');
  err.message = `${name} = ${v} cannot be applied: ${err.message}` +
    (errno === EOPNOTSUPP ? ' (custom slices need Linux 6.12 and spawnkit\'s addon)' : '');
  return err;
}

function applySlice(name, v) {
  const r = native && typeof native.threadSetSlice === 'function'
    ? native.threadSetSlice(Math.round(v * 1e6)) : EOPNOTSUPP;
  if (r < 0) throw sliceError(name, v, r);
}

// childSliceMs other than 0 needs custom slices: an error naming the
// setting now, not an EOPNOTSUPP from every start.
function checkChildSlice(name, v) {
  if (v && !(native && typeof native.customSlices === 'function' && native.customSlices())) {
    throw sliceError(name, v, EOPNOTSUPP);
  }
  return v;
}

// A slice variable's value in ms, undefined if unset or empty.
function sliceFromEnv(env, name) {
  const s = env[name];
  if (s === undefined || s === '') return undefined;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(s)) throw rangeError(name, SLICE_RANGE, s);
  return checkSlice(name, Number(s));
}

// The environment's values, if any: a bad one is an error at install, not
// a setting silently ignored.
function fromEnv(env = process.env) {
  const s = env[ENV];
  if (s !== undefined && s !== '') {
    if (!/^[0-9]+$/.test(s)) throw rangeError(ENV, `an integer in 0..${MAX}`, s);
    current.childNice = checkNice(ENV, Number(s));
  }
  const p = env[ENV_POLICY];
  if (p !== undefined && p !== '') current.childPolicy = schedPolicyValue(ENV_POLICY, p);
  const c = sliceFromEnv(env, ENV_CHILD_SLICE);
  if (c !== undefined) current.childSliceMs = checkChildSlice(ENV_CHILD_SLICE, c);
  const m = sliceFromEnv(env, ENV_SLICE);
  if (m !== undefined) {
    if (m) applySlice(ENV_SLICE, m);
    current.loopSliceMs = m;
  }
}

// registerOptions() reads the settings, registerOptions({...}) sets them
// (childNice and childPolicy for starts from then on, loopSliceMs at once
// on the calling thread) and returns the new ones.  Every value is checked
// before any is set.
function registerOptions(opts) {
  if (opts !== undefined) {
    if (opts === null || typeof opts !== 'object') throw typeError('options', 'of type object', opts);
    const next = { ...current };
    if (opts.childNice !== undefined) next.childNice = checkNice('options.childNice', opts.childNice);
    if (opts.childPolicy !== undefined) next.childPolicy = schedPolicyValue('options.childPolicy', opts.childPolicy);
    if (opts.childSliceMs !== undefined) {
      next.childSliceMs = checkChildSlice('options.childSliceMs', checkSlice('options.childSliceMs', opts.childSliceMs));
    }
    if (opts.loopSliceMs !== undefined) {
      next.loopSliceMs = checkSlice('options.loopSliceMs', opts.loopSliceMs);
      // 0 after a slice: the default back (reset-on-fork stays)
      if (next.loopSliceMs || current.loopSliceMs) applySlice('options.loopSliceMs', next.loopSliceMs);
    }
    Object.assign(current, next);
  }
  return { ...current };
}

module.exports = {
  registerOptions,
  fromEnv,
  childNice: () => current.childNice,
  // the SCHED_* number for the addon, -1 for none
  childPolicy: () => (current.childPolicy === null ? -1 : SCHED_POLICIES[current.childPolicy]),
  // the slice in ns for the addon, 0 for none
  childSliceNs: () => Math.round(current.childSliceMs * 1e6),
  ENV,
  ENV_POLICY,
  ENV_SLICE,
  ENV_CHILD_SLICE,
};
