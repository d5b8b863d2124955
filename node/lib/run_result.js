'use strict';
// run()'s side of a spawnkit_run() result (src/run_async.c): the result
// object, and the onStdout/onStderr chunks on their way in.
const { StringDecoder } = require('node:string_decoder');
const { signalName } = require('./signals');

// spawnkit/run.h: spawnkit_run_result.why
const WHY_TIMED_OUT = 1 << 0;
const WHY_NO_OUTPUT = 1 << 1;
const WHY_WAIT_DELAY = 1 << 2;
const WHY_STOPPED = 1 << 3;

function decode(buf, encoding) {
  return encoding === 'buffer' ? buf : buf.toString(encoding);
}

// res: { pid, code (-1: killed, -ECHILD: lost), signal, why, killed,
// stdout: [head, tail, dropped, total, joined], stderr: [...] }
function runResult(res, opts) {
  const enc = opts.encoding;
  const [oh, ot, od, on, oj] = res.stdout;
  const [eh, et, ed, en, ej] = res.stderr;
  return {
    pid: res.pid,
    code: res.code >= 0 ? res.code : null,
    signal: res.signal > 0 ? signalName(res.signal) : null,
    stdout: decode(oj, enc),
    stderr: decode(ej, enc),
    stdoutHead: decode(oh, enc),
    stdoutTail: decode(ot, enc),
    stderrHead: decode(eh, enc),
    stderrTail: decode(et, enc),
    stdoutBytes: on,
    stderrBytes: en,
    stdoutDropped: od,
    stderrDropped: ed,
    // timeout or noOutputTimeout: both are timeouts, as Python's
    // NoOutputTimeoutExpired is a TimeoutExpired
    timedOut: (res.why & (WHY_TIMED_OUT | WHY_NO_OUTPUT)) !== 0,
    noOutputTimedOut: (res.why & WHY_NO_OUTPUT) !== 0,
    waitDelayExpired: (res.why & WHY_WAIT_DELAY) !== 0,
    // whether the run had to kill (timeouts, wait delay, abort)
    killed: (res.why & (WHY_TIMED_OUT | WHY_NO_OUTPUT | WHY_WAIT_DELAY | WHY_STOPPED)) !== 0,
    elapsedMs: res.elapsedMs,
  };
}

// onStdout/onStderr: each chunk as it comes, decoded with a StringDecoder
// per stream in text mode (a character split between chunks arrives
// whole), Buffers otherwise.  A callback that throws stops the run
// (onError) and fails the call with what it threw (error).
class OutputStreams {
  constructor(opts) {
    this.fns = [null, opts.onStdout, opts.onStderr];
    this.text = opts.encoding !== 'buffer';
    this.decoders = this.text ? [null, new StringDecoder(opts.encoding), new StringDecoder(opts.encoding)] : null;
    this.error = null;
    this.onError = () => {};
  }

  _give(fd, chunk) {
    if (this.error || chunk.length === 0) return;
    try {
      this.fns[fd](chunk);
    } catch (err) {
      this.error = err;
      this.onError();
    }
  }

  // The addon's onOutput(fd, buffer), or null when nobody listens (no
  // chunk then crosses threads).
  callback() {
    if (!this.fns[1] && !this.fns[2]) return null;
    return (fd, buf) => {
      if (!this.fns[fd]) return;
      this._give(fd, this.text ? this.decoders[fd].write(buf) : buf);
    };
  }

  // After the last chunk: what a decoder still holds (an incomplete
  // character at the very end).
  end() {
    if (!this.text) return;
    for (const fd of [1, 2]) if (this.fns[fd]) this._give(fd, this.decoders[fd].end());
  }
}

module.exports = { runResult, OutputStreams };
