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

export interface RunOptions extends Omit<SpawnOptions, 'stdio' | 'argv0'> {
  /** Bytes kept per stream: the first half and the last half (default 1 MiB, Infinity: all). */
  maxBuffer?: number;
  /** 'utf8' (default) and other Buffer encodings, or 'buffer' for Buffers. */
  encoding?: BufferEncoding | 'buffer' | null;
  /** Written to the child's stdin (then closed); without it stdin is /dev/null. */
  input?: string | Uint8Array;
  /** stdin when no input is given: 'ignore' (default, /dev/null) or 'inherit'. */
  stdin?: 'ignore' | 'inherit';
  argv0?: string;
}

export interface RunResult<T = string> {
  pid: number;
  /** Exit code, or null if killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: T;
  stderr: T;
  /** Bytes the child wrote, and how many of them were dropped between head and tail. */
  stdoutBytes: number;
  stderrBytes: number;
  stdoutDropped: number;
  stderrDropped: number;
  timedOut: boolean;
  /** Whether spawnkit sent the child a signal (timeout, abort, kill()). */
  killed: boolean;
}

export interface SpawnkitError extends Error {
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

export function run(file: string, args: readonly string[], options: RunOptions & { encoding: 'buffer' | null }): Promise<RunResult<Buffer>>;
export function run(file: string, args?: readonly string[], options?: RunOptions): Promise<RunResult<string>>;
export function execFile(file: string, args: readonly string[], options: RunOptions & { encoding: 'buffer' | null }): Promise<RunResult<Buffer>>;
export function execFile(file: string, args?: readonly string[], options?: RunOptions): Promise<RunResult<string>>;
export function execFile(file: string, options: RunOptions): Promise<RunResult<string>>;
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
