'use strict';
// Signal names <-> numbers, with the same validation messages as Node.
const { signals } = require('node:os').constants;

const byNumber = new Map();
for (const [name, num] of Object.entries(signals)) {
  if (!byNumber.has(num)) byNumber.set(num, name);
}

function signalNumber(sig) {
  if (typeof sig === 'number' && Number.isInteger(sig) && sig >= 0 && sig < 65) return sig;
  if (typeof sig === 'string' && Object.hasOwn(signals, sig)) return signals[sig];
  const err = new TypeError(`Unknown signal: ${sig}`);
  err.code = 'ERR_UNKNOWN_SIGNAL';
  throw err;
}

function signalName(num) {
  return byNumber.get(num) ?? null;
}

module.exports = { signalNumber, signalName };
