'use strict';
// Shared test helpers: collect a child's outcome, temp dirs, process checks.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// Wait for 'close' and gather everything a caller can observe.
function collect(child) {
  return new Promise((resolve) => {
    const out = [];
    const err = [];
    const events = [];
    let error = null;
    let exit = null;
    child.stdout?.on('data', (d) => out.push(d));
    child.stderr?.on('data', (d) => err.push(d));
    child.on('error', (e) => { error = e; events.push('error'); });
    child.on('exit', (code, signal) => { exit = { code, signal }; events.push('exit'); });
    child.on('close', (code, signal) => {
      events.push('close');
      resolve({
        code, signal, exit, error, events,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      });
    });
  });
}

// The fields of a Node-style system error that must match.
function errorShape(e) {
  if (!e) return null;
  return {
    name: e.name, message: e.message, code: e.code, errno: e.errno,
    syscall: e.syscall, path: e.path, spawnargs: e.spawnargs,
    killed: e.killed, signal: e.signal, cmd: e.cmd,
    stdout: e.stdout, stderr: e.stderr,
  };
}

function makeTmpDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spawnkit-node-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function writeScript(dir, name, body, mode = 0o755) {
  const p = path.join(dir, name);
  fs.writeFileSync(p, body, { mode });
  fs.chmodSync(p, mode);
  return p;
}

// 'gone', 'zombie' (exited, waiting for a reaper that is not us) or 'alive'.
function processState(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 'gone';
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X' ? 'zombie' : 'alive';
}

async function waitFor(pred, ms = 3000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return pred();
}

function openFds() {
  return fs.readdirSync('/proc/self/fd').length;
}

// test() for what needs the addon (templates, pidfds, the C library's fd
// closing): skipped, never passed, where require('spawnkit') chose the
// portable fallback (macOS, no pidfds, SPAWNKIT_BACKEND=fallback).
function nativeTest(name, ...rest) {
  const test = require('node:test');
  if (require('..').backend() !== 'fallback') return test(name, ...rest);
  const fn = rest.pop();
  return test(name, { ...(rest[0] ?? {}), skip: 'needs the addon (fallback backend)' }, fn);
}

module.exports = { collect, errorShape, makeTmpDir, writeScript, processState, waitFor, openFds, nativeTest };
