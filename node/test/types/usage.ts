// Compiled (not run) by test/types.test.js with tsc --strict: the
// declarations must accept this typical use and reject the marked misuse.
import {
  Template, run, execFile, SpawnkitChild, RunResult, RunOptions, SpawnkitError, registerStats, RegisterStats,
  registerOptions, RegisterOptions,
} from '../..';
import '../../register';

async function main(): Promise<void> {
  const st: RegisterStats = registerStats();
  const n: number = st.routed + st.fallback + (st.reasons['ipc'] ?? 0);
  void n;
  const ro: RegisterOptions = registerOptions({ childNice: 10 });
  const nice: number = ro.childNice + registerOptions().childNice;
  void nice;
  // @ts-expect-error: childNice is a number
  registerOptions({ childNice: '10' });
  const pol: 'other' | 'batch' | 'idle' | null = registerOptions({ childPolicy: 'idle', loopSliceMs: 8 }).childPolicy;
  const slice: number = registerOptions({ childPolicy: null, childSliceMs: 8 }).loopSliceMs;
  void pol;
  void slice;
  // @ts-expect-error: not a policy register sets
  registerOptions({ childPolicy: 'fifo' });
  // @ts-expect-error: loopSliceMs is a number
  registerOptions({ loopSliceMs: '8' });
  const t = new Template('rg');
  const child: SpawnkitChild = t.spawn(['--version'], { cwd: '/tmp', timeout: 1000, killTree: true });
  child.stdout?.on('data', (d: Buffer) => d.length);
  child.on('exit', (code, signal) => { const c: number | null = code; const s: string | null = signal; void c; void s; });
  child.kill('SIGTERM');
  const r: RunResult<string> = await run('git', ['status'], { maxBuffer: 1 << 20, signal: AbortSignal.timeout(5000) });
  const out: string = r.stdout;
  const b = await execFile('cat', [], { input: 'x', encoding: 'buffer' });
  const buf: Buffer = b.stdout;
  const noArgs: RunResult<string> = await execFile('pwd', { cwd: '/' });
  void out; void buf; void noArgs;

  // issue 11: sessions, streaming, limits, truncation
  const chunks: string[] = [];
  const ac = new AbortController();
  const full: RunResult<string> = await run('make', ['-j2'], {
    newSession: true,
    timeout: 60_000,
    noOutputTimeout: 10_000,
    waitDelay: 500,
    maxBuffer: 1 << 20,
    marker: true,
    onStdout: (c) => { chunks.push(c); },
    onStderr: (c: string) => { chunks.push(c); },
    rlimits: { nofile: 1024, core: 0, nproc: [64, 128], as: Infinity },
    umask: 0o022,
    nice: 5,
    schedPolicy: 'idle',
    cgroup: '/sys/fs/cgroup/agent',
    signal: ac.signal,
  });
  const head: string = full.stdoutHead;
  const dropped: number = full.stdoutDropped + full.stderrDropped;
  const why: boolean = full.timedOut || full.noOutputTimedOut || full.waitDelayExpired;
  void head; void dropped; void why;
  const raw = await run('cat', ['/bin/sh'], { encoding: 'buffer', detached: false, onStdout: (c: Buffer) => c.length });
  const tail: Buffer = raw.stdoutTail;
  void tail;
  const opts: RunOptions = { encoding: 'buffer' };
  const either: RunResult<string | Buffer> = await run('ls', [], opts);
  void either;
  try {
    await execFile('false', [], { timeout: 5 });
  } catch (e) {
    const err = e as SpawnkitError;
    const n: number | undefined = err.stdoutDropped;
    void n;
  }
  const tty: RunResult<string> = await run('ls', ['--color=auto'], { pty: true, ptySize: [50, 132] });
  void tty;
  // @ts-expect-error: ptySize is [rows, cols]
  await run('ls', [], { pty: true, ptySize: [50] });
  // @ts-expect-error: onStdout gets a string in text mode
  await run('ls', [], { onStdout: (c: Buffer) => c.length });
  // @ts-expect-error: an unknown resource limit
  await run('ls', [], { rlimits: { files: 10 } });
  // @ts-expect-error: run() kills with SIGKILL only
  await run('ls', [], { killSignal: 'SIGTERM' });
  // @ts-expect-error: waitDelay is in ms, a number
  await run('ls', [], { waitDelay: '1s' });
  // @ts-expect-error: timeout is a number
  t.spawn([], { timeout: '5s' });
  // @ts-expect-error: run() takes an array of arguments
  await run('ls', '-l');
}
void main;
