// Persistence with --data FILE: a child sandbox under write load is killed at seeded random moments
// (kill -9 in most cycles, SIGTERM or SIGINT in the others), 20 times, on the same file. Every
// restart must load the file; after a graceful stop it must hold every acknowledged write, after a
// kill -9 every write acknowledged before the last graceful stop and nothing that was never sent.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSandbox } from '../../src/sandbox.js';
import { mulberry32 } from '../../src/scenarios/random.js';
import { tokenFor } from '../support/sandbox.js';
import { ROOT } from './support.js';

const CYCLES = Number(process.env.PERSISTENCE_CYCLES ?? (process.env.SOAK ? 200 : 20));
const WRITERS = 4;
const CHILD = join(ROOT, 'test/reliability/child-server.mjs');

let dir: string;
let auth: string;

/** Newest modification time of the files dist/ is built from. */
function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

beforeAll(() => {
  const built = join(ROOT, 'dist/bundle/index.js');
  let stale = true;
  try {
    stale = statSync(built).mtimeMs < Math.max(newestSource(join(ROOT, 'src')), newestSource(join(ROOT, 'fixtures')));
  } catch {
    stale = true;
  }
  if (stale) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  }
  dir = mkdtempSync(join(tmpdir(), 'sandbox-persistence-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startChild(file: string): Promise<Child> {
  const proc = spawn(process.execPath, [CHILD, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', (d) => resolve({ proc, url: String(d).trim().split('\n')[0], exited }));
    void exited.then(({ code }) => reject(new Error(`child exited (${code}) before listening: ${stderr}`)));
  });
}

/** The number at the end of display_name `w-<cycle>-<n>` (0 for a fixture name). */
const seqOf = (name: string | null) => Number(/^w-\d+-(\d+)$/.exec(name ?? '')?.[1] ?? 0);

/** The change log next to FILE: every complete line is a change; only a torn last line (no newline) may not parse. */
function checkLog(file: string): string {
  let text = '';
  try {
    text = readFileSync(`${file}.log`, 'utf8');
  } catch {
    return ''; // not created yet
  }
  const lines = text.split('\n');
  lines.pop(); // '' after the last newline, or a torn last line
  let previous = 0;
  for (const line of lines) {
    const change = JSON.parse(line);
    const keys = Object.keys(change);
    expect(keys, line.slice(0, 200)).toHaveLength(3);
    expect(keys.slice(0, 2)).toEqual(['seq', 'c']);
    expect(['ins', 'put', 'del']).toContain(keys[2]);
    expect(change.seq).toBeGreaterThan(previous); // increasing through the file's life
    previous = change.seq;
  }
  return text;
}

function buyersInFile(file: string, ids: string[]): Map<string, number> {
  const data = JSON.parse(readFileSync(file, 'utf8')); // must always parse: writes are atomic
  expect(data.schema_version).toBe(1);
  const byId = new Map<string, any>(data.collections.buyers.map((b: any) => [b.id, b]));
  return new Map(ids.map((id) => [id, seqOf(byId.get(id)?.display_name ?? null)]));
}

describe('data file under kill -9 and graceful stops', () => {
  it(
    `keeps every acknowledged write across ${CYCLES} random kills`,
    async () => {
      const file = join(dir, 'state.json');
      auth = `Bearer ${await tokenFor('admin')}`;
      const random = mulberry32(4010);
      let buyers: string[] = [];
      /** Per buyer: the highest write acknowledged before the last graceful stop (must survive). */
      const guaranteed = new Map<string, number>();
      /** Per buyer: the highest write ever sent (nothing beyond it can be in the file). */
      const sent = new Map<string, number>();
      let seq = 0;
      const stops: string[] = [];

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const child = await startChild(file);
        if (cycle === 0) {
          const data = JSON.parse(readFileSync(file, 'utf8'));
          buyers = data.collections.buyers
            .filter((b: any) => b.merchant_account_id === 'default')
            .slice(0, WRITERS)
            .map((b: any) => b.id);
          expect(buyers).toHaveLength(WRITERS);
        }
        // What the restarted sandbox serves holds every guaranteed write and nothing never sent.
        for (const id of buyers) {
          const res = await fetch(`${child.url}/buyers/${id}`, {
            method: 'PUT',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: '{}',
          });
          expect(res.status).toBe(200);
          const served = seqOf((await res.json()).display_name);
          expect(served, `cycle ${cycle} buyer ${id}`).toBeGreaterThanOrEqual(guaranteed.get(id) ?? 0);
          expect(served).toBeLessThanOrEqual(sent.get(id) ?? 0);
        }

        const acked = new Map<string, number>();
        let stopWriting = false;
        let stopAsked = false;
        const writer = async (id: string) => {
          while (!stopWriting) {
            const n = ++seq;
            sent.set(id, n);
            try {
              const res = await fetch(`${child.url}/buyers/${id}`, {
                method: 'PUT',
                headers: { authorization: auth, 'content-type': 'application/json' },
                body: JSON.stringify({ display_name: `w-${cycle}-${n}` }),
              });
              if (res.status !== 200) throw new Error(`write answered ${res.status}`);
              await res.arrayBuffer();
              acked.set(id, n);
            } catch (err) {
              if (!stopAsked) throw err; // a failure before any stop is a bug
              return; // the child is stopping or gone: this write is not acknowledged
            }
          }
        };
        const writing = Promise.all(buyers.map(writer));
        await new Promise((r) => setTimeout(r, 30 + Math.floor(random() * 300)));

        const roll = random();
        const how: NodeJS.Signals = cycle === CYCLES - 1 || roll < 0.2 ? 'SIGTERM' : roll < 0.3 ? 'SIGINT' : 'SIGKILL';
        stops.push(how);
        stopAsked = true;
        child.proc.kill(how);
        if (how !== 'SIGKILL') {
          // Writers stop once the stop is asked for; what was acknowledged until then must be kept.
          const { code } = await child.exited;
          stopWriting = true;
          await writing;
          expect(code).toBe(0);
          for (const id of buyers) guaranteed.set(id, acked.get(id) ?? guaranteed.get(id) ?? 0);
          expect(checkLog(file), `after ${how} in cycle ${cycle}: FILE alone holds the state`).toBe('');
          const onDisk = buyersInFile(file, buyers);
          for (const id of buyers) {
            expect(onDisk.get(id)!, `after ${how} in cycle ${cycle}`).toBeGreaterThanOrEqual(guaranteed.get(id)!);
            expect(onDisk.get(id)!).toBeLessThanOrEqual(sent.get(id)!);
          }
        } else {
          await child.exited;
          stopWriting = true;
          await writing;
          buyersInFile(file, buyers); // parses
          checkLog(file); // complete lines parse
        }
      }
      // The seeded schedule mixed both kinds of stop.
      expect(stops.filter((s) => s === 'SIGKILL').length).toBeGreaterThan(CYCLES / 3);
      expect(stops.filter((s) => s !== 'SIGKILL').length).toBeGreaterThanOrEqual(2);
    },
    CYCLES * 12_000,
  );
});

describe('a data file that cannot be loaded', () => {
  it('is an error naming the file when it is not JSON, never a silent reset', async () => {
    const file = join(dir, 'corrupt.json');
    writeFileSync(file, '{"schema_version":1,"collections":{"buyers":[{"id":');
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(`the data file ${file} cannot be loaded`);
    expect(readFileSync(file, 'utf8')).toBe('{"schema_version":1,"collections":{"buyers":[{"id":'); // left as it was
  });

  it('is an error naming the file when it is JSON of another shape', async () => {
    const file = join(dir, 'other.json');
    writeFileSync(file, '{"hello":"world"}');
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(`the data file ${file} is not a payments-sandbox data file`);
    expect(readFileSync(file, 'utf8')).toBe('{"hello":"world"}');
  });

  it('is an error naming the path when it cannot be read', async () => {
    const file = join(dir, 'a-folder.json');
    mkdirSync(file);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(`the data file ${file} cannot be read: EISDIR`);
  });

  it('makes the process exit 1 with the file named on stderr', async () => {
    const file = join(dir, 'corrupt-child.json');
    writeFileSync(file, 'not json');
    await expect(startChild(file)).rejects.toThrow(`the data file ${file} cannot be loaded`);
    expect(readFileSync(file, 'utf8')).toBe('not json');
  });
});
