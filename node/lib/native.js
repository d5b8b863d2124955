'use strict';
// The compiled addon (see addon.js), or null where there is none: then
// lib/backend.js has chosen the fallback and nothing calls into it.
module.exports = require('./addon').addon;
