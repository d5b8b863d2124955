// line_stats.js FILE - the "node-small" tool of the agent-tools mix.
// A small Node.js program an agent runs: line count, longest line and word
// count of one file.  Its cost is dominated by Node.js start-up.
'use strict';
const fs = require('fs');

const path = process.argv[2];
const lines = fs.readFileSync(path, 'utf8').split('\n');
if (lines[lines.length - 1] === '') lines.pop();
let longest = 0;
let words = 0;
for (const line of lines) {
  if (line.length > longest) longest = line.length;
  words += line.split(/\s+/).filter((w) => w !== '').length;
}
console.log(`${path}: lines=${lines.length} longest=${longest} words=${words}`);
