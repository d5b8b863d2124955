'use strict';
// The addon, if this platform has one with the drop-in's functions: where
// it cannot be loaded (not built, not Linux, a portable fallback in its
// place), register still installs and hands every start to stock.
let addon = null;
try {
  addon = require('../native');
} catch {
  addon = null;
}
const usable = addon !== null && typeof addon.compatSpawn === 'function' &&
  typeof addon.compatSpawnSync === 'function';

module.exports = { addon, usable };
