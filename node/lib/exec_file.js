'use strict';
// execFile on top of a run(): resolves with run()'s result when the command
// exited 0, otherwise rejects like util.promisify(child_process.execFile)
// (code = exit code, killed, signal, cmd, stdout, stderr).  Shared by the
// addon's run (lib/run.js) and the portable fallback (lib/fallback.js).
function execFileOver(runInternal) {
  return async function execFile(file, args = [], options = {}) {
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      options = args;
      args = [];
    }
    const r = await runInternal(file, args, options);
    if (r.code === 0 && !r.timedOut) return r;
    const cmd = [file, ...(args ?? [])].join(' ');
    const err = new Error(`Command failed: ${cmd}\n${r.stderr}`);
    Object.assign(err, r, { code: r.code, cmd });
    throw err;
  };
}

module.exports = { execFileOver };
