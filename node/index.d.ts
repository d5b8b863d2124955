// Type declarations for spawnkit (Node.js binding of libspawnkit).
/// <reference types="node" />
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';

export type StdioSlot = 'pipe' | 'ignore' | 'inherit' | number | { fd: number } | null | undefined;
export type Stdio = 'pipe' | 'ignore' | 'inherit' | StdioSlot[];

export interface SpawnOptions {
  /** Working directory of the child (opened in the parent, FCHDIR action). */
  cwd?: string | URL;
  /** Environment; default process.env.  Undefined values are left out. */
  env?: NodeJS.ProcessEnv;
  /** argv[0]; default: the command as given. */
  argv0?: string;
  /** Child fds 0..2 only (every fd above 2 is closed).  Default ['ignore', 'pipe', 'pipe']. */
  stdio?: Stdio;
  /** Kill after this many ms (0: never). */
  timeout?: number;
  /** Signal for timeout/abort.  Template.spawn: 'SIGTERM'; run/execFile: 'SIGKILL'. */
  killSignal?: NodeJS.Signals | number;
  /** On timeout/abort kill the whole tree and escaped pipe holders (default true). */
  killTree?: boolean;
  /** After a timeout/abort kill, close our pipe ends after this many ms if still open (default 1000; -1: never). */
  killGraceMs?: number;
  signal?: AbortSignal;
  /** Keep fds above 2 open in the child (SPAWNKIT_SPAWN_INHERIT_FDS). */
  inheritFds?: boolean;
  /** Start a Python call (`python [flags] script|-c|-m ...`) from a warm
   *  interpreter when it fits; anything else runs cold (docs/warm.md). */
  warm?: boolean;
  /** With warm: modules the warm interpreter imports once (then visible in
   *  the tool's sys.modules: opt-in).  Part of the interpreter's key. */
  preload?: readonly string[];
}

/** Resource limits by name: one number (soft = hard) or [soft, hard]; Infinity: unlimited. */
export type RlimitName =
  | 'cpu' | 'fsize' | 'data' | 'stack' | 'core' | 'rss' | 'nproc' | 'nofile'
  | 'memlock' | 'as' | 'locks' | 'sigpending' | 'msgqueue' | 'nice' | 'rtprio' | 'rttime';
export type Rlimits = Partial<Record<RlimitName, number | readonly [number, number]>>;

/**
 * run()/execFile(): one spawnkit_run() call (man 3 spawnkit_run) off the
 * event loop.  Timeouts, aborts and the wait delay kill the whole tree with
 * SIGKILL, so Template.spawn's killSignal/killTree/killGraceMs/inheritFds
 * are not taken (only the values that say what run() does anyway).
 */
export interface RunOptions extends Omit<SpawnOptions, 'stdio' | 'argv0' | 'killSignal' | 'killTree' | 'killGraceMs' | 'inheritFds'> {
  /** Bytes kept per stream: the first half and the last half (default 1 MiB, Infinity: all). */
  maxBuffer?: number;
  /** 'utf8' (default) and other Buffer encodings, or 'buffer' for Buffers. */
  encoding?: BufferEncoding | 'buffer' | null;
  /** Written to the child's stdin (then closed); without it stdin is /dev/null. */
  input?: string | Uint8Array;
  /** stdin when no input is given: 'ignore' (default, /dev/null) or 'inherit'. */
  stdin?: 'ignore' | 'inherit';
  argv0?: string;
  /** Start the child in a new session, without a controlling terminal
   *  (default true; false with warm: true).  Its session is killed after it exits. */
  newSession?: boolean;
  /** Alias of newSession (as child_process's detached); both given must agree. */
  detached?: boolean;
  /** Kill the tree when no output came for this many ms (> 0); timedOut and noOutputTimedOut are then true. */
  noOutputTimeout?: number;
  /** Once the child exited, how many ms its pipes may stay open (Go's WaitDelay); then
   *  whatever holds them is killed and the child's own status returned.  Default: wait. */
  waitDelay?: number;
  /** Mark a cut in stdout/stderr with a `[... N bytes omitted ...]` line (default true). */
  marker?: boolean;
  /** Each chunk of stdout as it comes (a string in text mode: a character split between
   *  chunks arrives whole; a Buffer with encoding 'buffer').  A throw stops the run and
   *  rejects with what was thrown. */
  onStdout?: ((chunk: string | Buffer) => void) | null;
  onStderr?: ((chunk: string | Buffer) => void) | null;
  /** setrlimit in the child, e.g. { nofile: 1024, core: 0, nproc: [64, 128] }. */
  rlimits?: Rlimits;
  /** The child's umask (0..0o777). */
  umask?: number;
  /** Added to the child's nice value as `nice -n` does (-39..39; the result is clamped
   *  to -20..19; lowering it needs CAP_SYS_NICE): the child and all it starts. */
  nice?: number;
  /**
   * The child's scheduling policy: 'other', 'batch' or 'idle' (the ones that
   * need no privilege; default: the caller's).  Its nice value is kept; an
   * 'idle' child and all it starts stay SCHED_IDLE and get CPU time only when
   * no normal task of their session (or cgroup) wants it.
   */
  schedPolicy?: 'other' | 'batch' | 'idle' | null;
  /** Start the child in this cgroup2 directory (must be writable); it is killed with the run. */
  cgroup?: string;
  /** stdin, stdout and stderr on a new pseudoterminal, the child's controlling terminal
   *  (isatty holds; output comes as stdout, with the terminal's \r\n; stderr stays empty). */
  pty?: boolean;
  /** The pty's window, [rows, cols] (default [24, 80]); needs pty: true. */
  ptySize?: readonly [number, number];
  /** Always SIGKILL for run(). */
  killSignal?: 'SIGKILL' | 9;
  /** Always true for run(). */
  killTree?: true;
}

export interface RunResult<T = string> {
  pid: number;
  /** Exit code, or null if killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Head and tail of the output, with a marker line where bytes were dropped (see marker). */
  stdout: T;
  stderr: T;
  /** The first and the last bytes kept, without any marker. */
  stdoutHead: T;
  stdoutTail: T;
  stderrHead: T;
  stderrTail: T;
  /** Bytes the child wrote, and how many of them were dropped between head and tail. */
  stdoutBytes: number;
  stderrBytes: number;
  stdoutDropped: number;
  stderrDropped: number;
  /** timeout or noOutputTimeout expired. */
  timedOut: boolean;
  /** noOutputTimeout expired. */
  noOutputTimedOut: boolean;
  /** The pipes stayed open waitDelay after the child exited. */
  waitDelayExpired: boolean;
  /** Whether the run had to kill (timeout, noOutputTimeout, waitDelay, abort). */
  killed: boolean;
  /** Wall time of the run (the addon only). */
  elapsedMs?: number;
}

export interface SpawnkitError extends Error, Partial<Omit<RunResult<string | Buffer>, 'code' | 'signal' | 'killed' | 'stdout' | 'stderr'>> {
  code?: string | number | null;
  errno?: number;
  syscall?: string;
  path?: string;
  spawnargs?: string[];
  cmd?: string;
  killed?: boolean;
  signal?: NodeJS.Signals | null;
  stdout?: string | Buffer;
  stderr?: string | Buffer;
  /** AbortError from run()/execFile(): the exit code the aborted child had. */
  exitCode?: number | null;
}

export class SpawnkitChild extends EventEmitter {
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdio: [Writable | null, Readable | null, Readable | null];
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly killed: boolean;
  readonly timedOut: boolean;
  readonly spawnfile: string;
  readonly spawnargs: string[];
  /** pidfd_send_signal to the child; false if it is gone. */
  kill(signal?: NodeJS.Signals | number): boolean;
  /** Signal the child, its descendants and escaped holders of its pipes; returns how many. */
  killTree(signal?: NodeJS.Signals | number): number;
  ref(): void;
  unref(): void;

  on(event: 'spawn', listener: () => void): this;
  on(event: 'error', listener: (err: SpawnkitError) => void): this;
  on(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once(event: 'spawn', listener: () => void): this;
  once(event: 'error', listener: (err: SpawnkitError) => void): this;
  once(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
}

export class Template {
  /** Absolute path, relative path, or a name looked up in PATH.  Throws ENOENT/EACCES/... */
  constructor(pathOrCommand: string, options?: { env?: NodeJS.ProcessEnv; cwd?: string });
  readonly file: string;
  /** The absolute path the template pins. */
  readonly path: string;
  /** 'user' or 'kernel'. */
  readonly backend: string;
  /** Start failures (ENOENT, EACCES, ESTALE, bad cwd) arrive as an 'error' event. */
  spawn(args?: readonly string[], options?: SpawnOptions): SpawnkitChild;
  close(): void;
}

/** Options whose onStdout/onStderr get strings (text mode) or Buffers. */
export type TextRunOptions = Omit<RunOptions, 'encoding' | 'onStdout' | 'onStderr'> & {
  encoding?: BufferEncoding;
  onStdout?: ((chunk: string) => void) | null;
  onStderr?: ((chunk: string) => void) | null;
};
export type BufferRunOptions = Omit<RunOptions, 'encoding' | 'onStdout' | 'onStderr'> & {
  encoding: 'buffer' | null;
  onStdout?: ((chunk: Buffer) => void) | null;
  onStderr?: ((chunk: Buffer) => void) | null;
};

export function run(file: string, args: readonly string[], options: BufferRunOptions): Promise<RunResult<Buffer>>;
export function run(file: string, args?: readonly string[], options?: TextRunOptions): Promise<RunResult<string>>;
export function run(file: string, args: readonly string[], options: RunOptions): Promise<RunResult<string | Buffer>>;
export function execFile(file: string, args: readonly string[], options: BufferRunOptions): Promise<RunResult<Buffer>>;
export function execFile(file: string, args?: readonly string[], options?: TextRunOptions): Promise<RunResult<string>>;
export function execFile(file: string, options: TextRunOptions): Promise<RunResult<string>>;
export function execFile(file: string, args: readonly string[], options: RunOptions): Promise<RunResult<string | Buffer>>;
export function clearTemplateCache(): void;
export function templateCacheSize(): number;
/** The cache's bound now: maxSize if configured, else an eighth of RLIMIT_NOFILE (4..256). */
export function templateCacheMaxSize(): number;
/**
 * Bound the template cache behind run()/execFile(): maxSize (default: from
 * RLIMIT_NOFILE) and idleMs (default 300 000); omitted fields go back to
 * the defaults.  Applies at once.
 */
export function configureTemplateCache(options?: { maxSize?: number; idleMs?: number }): void;
export class AbortError extends Error {
  readonly code: 'ABORT_ERR';
}
export const nativePathSearch: boolean;
/** 'user' or 'kernel' (the addon), or 'fallback': child_process underneath,
 * where the addon cannot work (macOS, no pidfds, SPAWNKIT_BACKEND=fallback). */
export function backend(): 'user' | 'kernel' | 'fallback';
/** Why the fallback is in use, or null when the addon is. */
export const fallbackReason: string | null;

/** What spawnkit/register did since it was loaded (docs/node-register.md). */
export interface RegisterStats {
  /** starts made through spawnkit (including those that failed like stock: ENOENT, ...) */
  routed: number;
  /** starts handed to stock child_process */
  fallback: number;
  /** fallbacks by reason: 'ipc', 'detached', 'uid', 'gid', 'ENOEXEC', 'stdio-handle', ... */
  reasons: Record<string, number>;
}
/** A copy of the counters; all zero unless spawnkit/register is loaded. */
export function registerStats(): RegisterStats;
/** spawnkit/register's settings (docs/node-register.md). */
export interface RegisterOptions {
  /**
   * 0..19 (default 0, or SPAWNKIT_REGISTER_CHILD_NICE): added to the nice
   * value of the children of spawn, exec and execFile, so that CPU-bound
   * tools do not hold the event loop off the CPU.  Not the sync calls'.
   */
  childNice: number;
  /**
   * 'other', 'batch' or 'idle' (default null: the parent's; or
   * SPAWNKIT_REGISTER_CHILD_POLICY): the scheduling policy of the children
   * of spawn, exec and execFile.  'idle' tools give way to the event loop
   * whenever it wakes, and neither they nor theirs can leave SCHED_IDLE
   * without privilege.  Not the sync calls'.
   */
  childPolicy: 'other' | 'batch' | 'idle' | null;
  /**
   * 0.1..100, or 0 (default: the kernel's; or SPAWNKIT_REGISTER_CHILD_SLICE_MS):
   * the EEVDF slice in ms of those children, set before their policy (an
   * 'idle' child keeps it).  Needs Linux 6.12 (the start fails with
   * EOPNOTSUPP before).
   */
  childSliceMs: number;
  /**
   * 0.1..100, or 0 (default: the kernel's; or SPAWNKIT_REGISTER_LOOP_SLICE_MS):
   * the EEVDF slice in ms of the thread that sets it (the event loop's),
   * set at once; no thread or child inherits it (reset-on-fork).  Needs
   * Linux 6.12 (EOPNOTSUPP before).
   */
  loopSliceMs: number;
}
/**
 * Reads register's settings; with options, sets them: childNice and
 * childPolicy for the starts from then on, loopSliceMs at once.
 */
export function registerOptions(options?: Partial<RegisterOptions>): RegisterOptions;

export interface WarmStats {
  warmSpawns: number;
  coldFallbacks: number;
  /** Cold fallbacks by reason ('not-python', 'args', 'script', ...). */
  reasons: Record<string, number>;
  started: number;
  restarted: number;
  shutDown: number;
}
/** The library's warm-template counters for this process. */
export function warmStats(): WarmStats;
/** Stop and reap this process's warm interpreters now. */
export function warmShutdown(): void;
