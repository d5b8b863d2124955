'use strict';
// node_badinput - bad arguments to spawnkit.run(), each compared with what
// child_process.spawn gives for the same call: NUL bytes, empty names, E2BIG
// argv and environments, bad cwd, odd PATH entries, wrong types.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  PROBE, Snap, cpOutcome, expect, main, scenario, sk, skOutcome, sleep,
} = require('./node_harness');

async function compare(cases) {
  await skOutcome(PROBE, ['--quiet']);
  const s = new Snap();
  const wrong = [];
  for (const [label, file, args, opts] of cases) {
    const got = await skOutcome(file, args, opts);
    const ref = await cpOutcome(file, args, opts);
    if (got !== ref) wrong.push(`${label}: spawnkit ${got}, child_process ${ref}`);
  }
  expect(wrong.length === 0, wrong.join('; '));
  // The cache keeps the templates of programs that ran (one fd each), and
  // child_process closes its pipes a moment after a failed start.
  sk.clearTemplateCache();
  await sleep(100);
  return s.check(`${cases.length} cases as child_process`);
}

scenario('nul-bytes', () => compare([
  ['NUL in the file', 'pro\0be', []],
  ['NUL in an argument', PROBE, ['a\0b']],
  ['NUL in env name', PROBE, ['--quiet'], { env: { 'A\0B': '1' } }],
  ['NUL in env value', PROBE, ['--quiet'], { env: { A: '1\0' } }],
  ['NUL in cwd', PROBE, ['--quiet'], { cwd: '/tm\0p' }],
]));

scenario('empty-names', () => compare([
  ['empty file', '', []],
  ['empty argument kept', PROBE, ['--quiet', '']],
]));

scenario('e2big', () => compare([
  ['one 200 KiB argument', PROBE, ['x'.repeat(200 << 10)]],
  ['4 MB of arguments', PROBE, Array(40000).fill('y'.repeat(100))],
  ['one 200 KiB variable', PROBE, ['--quiet'], { env: { BIG: 'z'.repeat(200 << 10) } }],
  ['500 KB of arguments fits', PROBE, ['--quiet', ...Array(5000).fill('w'.repeat(100))]],
]));

scenario('bad-cwd', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'skstress.'));
  const f = path.join(d, 'file');
  fs.writeFileSync(f, '');
  return compare([
    ['missing cwd', PROBE, ['--quiet'], { cwd: '/nonexistent/dir' }],
    ['cwd a file', PROBE, ['--quiet'], { cwd: f }],
  ]).finally(() => fs.rmSync(d, { recursive: true, force: true }));
});

scenario('path-lookups', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'skstress.'));
  fs.mkdirSync(path.join(d, 'dirs', 'tool'), { recursive: true });
  fs.mkdirSync(path.join(d, 'noexec'));
  fs.writeFileSync(path.join(d, 'noexec', 'tool'), '');
  fs.mkdirSync(path.join(d, 'work', 'bin'), { recursive: true });
  fs.copyFileSync(PROBE, path.join(d, 'work', 'bin', 'tool'));
  fs.chmodSync(path.join(d, 'work', 'bin', 'tool'), 0o755);
  const env = (p) => ({ ...process.env, PATH: p });
  return compare([
    ['a directory named so', 'tool', [], { env: env(`${d}/dirs`) }],
    ['a file not executable', 'tool', [], { env: env(`${d}/noexec`) }],
    ['relative entry with cwd', 'tool', ['--quiet'], { env: env('bin'), cwd: path.join(d, 'work') }],
    ['not found', 'no-such-tool-here', [], { env: env(d) }],
  ]).finally(() => fs.rmSync(d, { recursive: true, force: true }));
});

scenario('wrong-types', () => compare([
  ['file a number', 5, []],
  ['args not an array', PROBE, 'x'],
  ['an argument a number', PROBE, [5]],
  ['cwd a number', PROBE, [], { cwd: 5 }],
  ['env not an object', PROBE, [], { env: 'x' }],
]));

main();
