'use strict';
// The addon, if this platform has one with the drop-in's functions and a
// backend that can spawn: where not (not built, not Linux, no pidfds, the
// portable fallback chosen), register still installs and hands every
// start to stock, counted under `reason`.
let addon = null;
try {
  addon = require('../native');
} catch {
  addon = null;
}
let reason = null;
if (!addon || typeof addon.compatSpawn !== 'function' || typeof addon.compatSpawnSync !== 'function') {
  reason = 'no-addon';
} else if (typeof addon.backend === 'function' && !(addon.backend() > 0)) {
  reason = 'no-backend';
}

module.exports = { addon, usable: reason === null, reason };
