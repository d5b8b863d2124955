'use strict';
// Must match src/stdio_plan.h.
module.exports.STDIO = Object.freeze({ PIPE: -1, IGNORE: -2, INHERIT: -3 });
