'use strict';
// Counters behind require('spawnkit').registerStats(): how many starts the
// drop-in routed through spawnkit, how many it handed to stock
// child_process, and why.
const counts = { routed: 0, fallback: 0, reasons: Object.create(null) };

function routed() {
  counts.routed++;
}

function fallback(reason) {
  counts.fallback++;
  counts.reasons[reason] = (counts.reasons[reason] ?? 0) + 1;
}

// A copy: callers may keep and compare snapshots.
function registerStats() {
  return { routed: counts.routed, fallback: counts.fallback, reasons: { ...counts.reasons } };
}

module.exports = { routed, fallback, registerStats };
