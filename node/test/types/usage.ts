// Compiled (not run) by test/types.test.js with tsc --strict: the
// declarations must accept this typical use and reject the marked misuse.
import { Template, run, execFile, SpawnkitChild, RunResult, registerStats, RegisterStats } from '../..';
import '../../register';

async function main(): Promise<void> {
  const st: RegisterStats = registerStats();
  const n: number = st.routed + st.fallback + (st.reasons['ipc'] ?? 0);
  void n;
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
  // @ts-expect-error: timeout is a number
  t.spawn([], { timeout: '5s' });
  // @ts-expect-error: run() takes an array of arguments
  await run('ls', '-l');
}
void main;
