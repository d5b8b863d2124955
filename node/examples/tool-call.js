'use strict';
// An agent-style tool call with spawnkit: run a command with a timeout that
// kills its whole tree, stdin at /dev/null, and output capped to its head
// and tail.  Usage: node examples/tool-call.js CMD [ARGS...]
const { run } = require('..');

async function main() {
  const [cmd = 'ls', ...args] = process.argv.slice(2);
  const r = await run(cmd, args, { timeout: 10_000, maxBuffer: 8 << 10 });
  process.stdout.write(r.stdout);
  if (r.stdoutDropped) process.stdout.write(`\n[... ${r.stdoutDropped} bytes dropped in the middle ...]\n`);
  process.stderr.write(r.stderr);
  const how = r.timedOut ? 'timed out' : r.signal ? `killed by ${r.signal}` : `exit ${r.code}`;
  console.error(`[${cmd}: ${how}, ${r.stdoutBytes} bytes of output]`);
  process.exitCode = r.code ?? 1;
}

main().catch((err) => {
  console.error(`${err.code}: ${err.message}`);
  process.exitCode = 127;
});
