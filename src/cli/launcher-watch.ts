// Started through npm (npx payments-sandbox, npm start, npm run ...), the process a script holds is
// npm's, not the server's: `npx payments-sandbox &` then `kill $!` signals npm, which hands the
// signal to the shell it runs the command in, which does not pass it on (and `kill -9` passes
// nothing). The server would live on as an orphan holding the port. So the server watches the
// process that launched it, the nearest ancestor that is not a shell (npm), and stops gracefully
// when it is gone, as on SIGTERM.
//
// Only when npm launched it: a server started directly is signalled directly by `kill $!`, and as
// any background job it outlives the script or terminal that started it (nohup, a CI step that
// leaves it running for the next steps). Linux reads /proc; other Unix systems ask `ps` once at
// start and probe the launcher with signal 0; Windows is not watched.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox']);

export interface Launcher {
  pid: number;
  /** Its command name, for the log line. */
  name: string;
}

interface ProcessInfo {
  ppid: number;
  name: string;
  zombie: boolean;
}

/** The process's parent and command name, or null when it does not exist (or cannot be read). */
function processInfo(pid: number): ProcessInfo | null {
  if (process.platform === 'linux') {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return null;
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const [state, ppid] = stat
      .slice(close + 2)
      .split(' ')
      .slice(0, 2);
    return { ppid: Number(ppid), name: stat.slice(stat.indexOf('(') + 1, close), zombie: state === 'Z' || state === 'X' };
  }
  try {
    const [ppid, ...command] = execFileSync('ps', ['-o', 'ppid=,comm=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split(/\s+/);
    return { ppid: Number(ppid), name: basename(command.join(' ')), zombie: false };
  } catch {
    return null;
  }
}

/** The launcher to watch, or null: not started by npm, on Windows, or launched by init itself. */
export function findLauncher(env: NodeJS.ProcessEnv = process.env): Launcher | null {
  if (process.platform === 'win32' || (env.npm_lifecycle_event === undefined && env.npm_execpath === undefined)) return null;
  let pid = process.ppid;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    const info = processInfo(pid);
    if (!info) return null;
    if (!SHELLS.has(info.name.replace(/^-/, ''))) return { pid, name: info.name };
    pid = info.ppid;
  }
  return null; // only shells up to init: nothing that a script would signal
}

function isAlive(pid: number): boolean {
  if (process.platform === 'linux') {
    const info = processInfo(pid);
    return info !== null && !info.zombie;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Calls `onGone` once the launcher has ended; checked every `intervalMs` on a timer that keeps no process alive. Returns a stop function. */
export function watchLauncher(launcher: Launcher, onGone: () => void, intervalMs = 1_000): () => void {
  const timer = setInterval(() => {
    if (isAlive(launcher.pid)) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
