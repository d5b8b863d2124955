'use strict';
// Which normalized child_process options spawnkit can honour exactly, and
// the stdio spec the addon takes for them (src/compat_plan.h).  Anything
// else gets a reason and goes to stock child_process, never silently
// dropped.
const PIPE = -1;
const IGNORE = -2;
const MAX_SLOTS = 100; // COMPAT_MAX_SLOTS

// The fd a stream handle wraps (Pipe, TTY, TCP wraps expose it), else -1.
function wrapFd(entry) {
  const fd = entry.handle?.fd;
  return Number.isInteger(fd) ? fd : -1;
}

// options: what ChildProcess.prototype.spawn (async) or child_process
// .spawnSync (sync) hands to the native Process / spawn_sync binding.
// Returns { spec } or { reason }.
function plan(options) {
  if (options.uid !== undefined) return { reason: 'uid' };
  if (options.gid !== undefined) return { reason: 'gid' };
  const stdio = options.stdio ?? [];
  if (stdio.length > MAX_SLOTS) return { reason: 'stdio-count' };
  const spec = [];
  for (const s of stdio) {
    if (s.ipc) return { reason: 'ipc' };
    switch (s.type) {
      case 'pipe':
      case 'overlapped':
        spec.push(PIPE);
        break;
      case 'ignore':
        spec.push(IGNORE);
        break;
      case 'inherit':
      case 'fd':
        if (!Number.isInteger(s.fd) || s.fd < 0) return { reason: 'stdio-fd' };
        spec.push(s.fd);
        break;
      case 'wrap': {
        const fd = wrapFd(s);
        if (fd < 0) return { reason: 'stdio-handle' };
        spec.push(fd);
        break;
      }
      default:
        return { reason: `stdio-${s.type}` };
    }
  }
  return { spec };
}

module.exports = { plan, PIPE, IGNORE };
