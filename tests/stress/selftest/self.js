'use strict';
// self.js - one scenario of each bad verdict, to show the Node.js harness
// counts them (tests/stress/harness_check.sh).
const fs = require('node:fs');
const { Snap, expect, main, scenario } = require('../node_harness');

scenario('hang', () => new Promise(() => setInterval(() => {}, 1000)), { timeout: 1 });
scenario('crash', () => process.kill(process.pid, 'SIGSEGV'));
scenario('leak', () => {
  const s = new Snap();
  fs.openSync('/dev/null', 'r');
  return s.check('one open');
});
scenario('wrong', () => expect(1 + 1 === 3, '1 + 1 is not 3'));
scenario('ok', () => 'nothing to see');

main();
