// A script starts the real `npx payments-sandbox ... &` in a project folder and signals `$!`, which
// is npm's process, not the server's: the server notices its launcher is gone and stops gracefully,
// leaving nothing on its port. A server started directly (not through npm) is a plain background
// job: it outlives the script that started it, as before.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, childEnv, ensureBuilt, ROOT, waitFor } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

let project: string;
beforeAll(() => {
  // A project that has the package as a dependency, as `npm install` would link a local one.
  project = mkdtempSync(join(tmpdir(), 'sandbox-launcher-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'launcher-test', private: true }));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules', 'payments-sandbox'));
  symlinkSync('../payments-sandbox/dist/bundle/cli.js', join(project, 'node_modules', '.bin', 'payments-sandbox'));
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Server pids the tests saw, killed afterwards if a test failed half-way. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already, as it should be
    }
  }
});

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runScript(name: string, script: string, env: NodeJS.ProcessEnv = childEnv()): Promise<ScriptRun> {
  const dir = join(project, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'run.sh'), script);
  return new Promise((resolve) =>
    execFile('sh', ['run.sh'], { cwd: dir, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    ),
  );
}

/**
 * The server's first log line: its URL and pid. Waited for: the script waited for the banner on
 * stderr, and the log line on stdout is a write of its own, which a busy machine may deliver later.
 */
function listening(dir: string): Promise<{ url: string; pid: number; launcher?: { pid: number; name: string } }> {
  return waitFor(() => {
    const [first, rest] = readFileSync(join(project, dir, 'out.log'), 'utf8').split('\n', 2);
    return rest === undefined ? undefined : JSON.parse(first);
  }, `the first log line in ${dir}/out.log`);
}

function portAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** The process has exited: no such process, or (orphaned, not yet reaped) a zombie. */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return / [ZX] /.test(stat.slice(stat.lastIndexOf(')')));
  } catch {
    return true; // gone between the two looks
  }
}

const BANNER_WAIT = 'i=0; until grep -q "listening on" err.log 2>/dev/null; do sleep 0.1; i=$((i+1)); [ $i -gt 300 ] && exit 3; done';

describe('a server started through npx by a script', () => {
  // Two npx starts (each a second or more of npm alone) and the launcher checks: under a full
  // suite on two cores this once took over 20 s, so the test has a wider limit of its own.
  it.each([
    ['kill $!', 'TERM'],
    ['kill -9 $!', 'KILL'],
  ])(
    'stops gracefully when the script does %s, and nothing keeps its port',
    async (_name, signal) => {
      const dir = `npx-${signal}`;
      const run = await runScript(
        dir,
        [
          'npx payments-sandbox --port 0 > out.log 2> err.log &',
          'NPX=$!',
          BANNER_WAIT,
          'npx payments-sandbox wait --url "$(grep -o "http://127.0.0.1:[0-9]*" err.log | head -1)" --timeout 20s > wait.txt',
          `kill -${signal} $NPX`,
          'wait $NPX',
          'echo "npx exited $?"',
        ].join('\n'),
      );
      expect(run.code).toBe(0);
      const { url, pid, launcher } = await listening(dir);
      started.push(pid);
      expect(launcher?.name).toMatch(/^npm/);
      expect(launcher?.pid).not.toBe(pid);
      expect(run.stdout).toMatch(/^npx exited \d+\n$/);
      expect(readFileSync(join(project, dir, 'wait.txt'), 'utf8')).toMatch(new RegExp(`^payments-sandbox \\S+ is ready at ${url}`));
      // The port is free again within a few checks of the launcher (one a second).
      await waitFor(async () => ((await portAnswers(url)) ? undefined : true), `${url} to stop answering`, 15_000);
      await waitFor(() => (ended(pid) ? true : undefined), `server ${pid} to end`);
      const err = readFileSync(join(project, dir, 'err.log'), 'utf8');
      expect(err.trimEnd().split('\n').at(-1)).toMatch(/^payments-sandbox stopped after \d+\.\d s: \d+ requests?, state was in memory$/);
      const lines = readFileSync(join(project, dir, 'out.log'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.at(-2)).toMatchObject({
        level: 'info',
        msg: `the process that started payments-sandbox (${launcher!.name}, pid ${launcher!.pid}) has ended: stopping`,
      });
      expect(lines.at(-1)).toMatchObject({ level: 'info', launcherGone: launcher!.pid });
    },
    90_000,
  );
});

describe('a server started directly by a script', () => {
  it('outlives the script, as any background job, and is not watched', async () => {
    // Not through npm: none of the variables npm sets.
    const env = Object.fromEntries(Object.entries(childEnv()).filter(([key]) => !key.startsWith('npm_')));
    const dir = 'direct';
    const run = await runScript(dir, [`node ${CLI} --port 0 > out.log 2> err.log &`, BANNER_WAIT, 'echo started'].join('\n'), env);
    expect(run).toMatchObject({ code: 0, stdout: 'started\n' });
    const { url, pid, launcher } = await listening(dir);
    started.push(pid);
    expect(launcher).toBeUndefined();
    // Well past a launcher check, the script's shell gone, it still answers.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const health = await fetch(`${url}/_sandbox/health`);
    expect(health.status).toBe(200);
    // The pid it logged stops it as usual.
    process.kill(pid, 'SIGTERM');
    await waitFor(() => (ended(pid) ? true : undefined), `server ${pid} to end`);
    expect(await portAnswers(url)).toBe(false);
    expect(readFileSync(join(project, dir, 'err.log'), 'utf8')).toMatch(/payments-sandbox stopped after \d+\.\d s: 1 request, state was in memory\n$/);
  }, 90_000); // a cold start of the CLI under the whole suite on two cores, as the launcher tests above
});
