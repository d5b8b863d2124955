'use strict';
// Which implementation require('spawnkit') gives: the addon, or the
// portable fallback (lib/fallback.js) where the addon cannot work.  The C
// library decides whether it can (spawnkit_backend() is -ENOSYS where
// pidfd_open is missing or refused, or for SPAWNKIT_BACKEND=fallback); this
// adds the case it cannot see: no addon at all.  Decided once, at load.
const { addon, loadError } = require('./addon');

const ENOSYS = -38;
const NAMES = { 1: 'user', 2: 'kernel' };

function whyFallback() {
  const forced = process.env.SPAWNKIT_BACKEND ?? '';
  if (forced === 'fallback') return 'SPAWNKIT_BACKEND=fallback';
  if (!addon) return `no compiled addon (${loadError})`;
  // Forcing "kernel" where there is none stays an error (backend() throws).
  if (typeof addon.backend === 'function' && addon.backend() === ENOSYS && forced !== 'kernel') {
    return 'no pidfds here (pidfd_open is missing or refused)';
  }
  return null;
}

const fallbackReason = whyFallback();

// 'user', 'kernel' or 'fallback': what a run() started now goes through.
// Throws (code ENOSYS / EINVAL) for a SPAWNKIT_BACKEND the addon refuses.
function backend() {
  if (fallbackReason) return 'fallback';
  const r = addon.backend();
  if (r > 0) return NAMES[r] ?? 'unknown';
  const { systemError } = require('./errors');
  throw systemError(r, 'spawnkit_backend');
}

module.exports = { backend, fallbackReason };
