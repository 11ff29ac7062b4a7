// Persistence with --data-file FILE, through real processes: a child sandbox under a stream of
// writes is stopped at seeded random moments (kill -9 in every other cycle whatever the seed,
// SIGTERM or SIGINT in the others, the last one SIGTERM), on the same file, with each fsync policy in
// turn: 6 times in npm test (the fewest that kill -9 a child under each policy and stop one with each
// signal), 20 in CI (.ci/run sets PERSISTENCE_CYCLES), 200 with SOAK. Every restart must load the
// file and serve every write that was answered 2xx before the stop, whatever the stop, and nothing
// that was never sent. Under a file size limit, appends fail: those writes are answered 503 (never
// 2xx), the next write is a snapshot, and every 2xx is kept.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSandbox } from '../../src/sandbox.js';
import { mulberry32 } from '../../src/scenarios/random.js';
import { tokenFor } from '../support/sandbox.js';
import { ROOT } from './support.js';

const CYCLES = Number(process.env.PERSISTENCE_CYCLES ?? (process.env.SOAK ? 200 : 6));
const WRITERS = 4;
const CHILD = join(ROOT, 'test/reliability/child-server.mjs');
const FSYNC = ['batch', 'always', 'never'] as const;

let dir: string;
let auth: string;

/** Newest modification time of the files dist/ is built from. */
function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

beforeAll(async () => {
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
  auth = `Bearer ${await tokenFor('admin')}`;
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** The child sandbox on FILE; `limitBytes`: the largest file it may write (RLIMIT_FSIZE, through prlimit). */
function startChild(file: string, fsync: string = 'batch', limitBytes?: number): Promise<Child> {
  const node = [process.execPath, CHILD, file, fsync];
  const proc =
    limitBytes === undefined
      ? spawn(node[0], node.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('prlimit', [`--fsize=${limitBytes}`, '--', ...node], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', (d) => resolve({ proc, url: String(d).trim().split('\n')[0], exited, stderr: () => stderr }));
    void exited.then(({ code }) => reject(new Error(`child exited (${code}) before listening: ${stderr}`)));
  });
}

/** The number at the end of display_name `w-<cycle>-<n>` or `f-<n>` (0 for a fixture name). */
const seqOf = (name: string | null) => Number(/^(?:w-\d+|f)-(\d+)$/.exec(name ?? '')?.[1] ?? 0);

/** The change log next to FILE: every complete line is a change with an increasing seq; only a torn last line (no newline) may not parse. */
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

/** SIGTERM, and the graceful stop's exit code 0. */
async function stopGracefully(child: Child): Promise<void> {
  child.proc.kill('SIGTERM');
  expect((await child.exited).code).toBe(0);
}

function putBuyer(url: string, id: string, body: object): Promise<Response> {
  return fetch(`${url}/buyers/${id}`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** What the sandbox serves for each buyer now (an empty PUT answers the record as it is). */
async function served(url: string, ids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const id of ids) {
    const res = await putBuyer(url, id, {});
    expect(res.status).toBe(200);
    out.set(id, seqOf((await res.json()).display_name));
  }
  return out;
}

/** The first buyers of merchant account default in FILE. */
function someBuyers(file: string, n: number): string[] {
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const ids = data.collections.buyers
    .filter((b: any) => b.merchant_account_id === 'default')
    .slice(0, n)
    .map((b: any) => b.id);
  expect(ids).toHaveLength(n);
  return ids;
}

/**
 * How cycle `cycle` ends, fixed whatever the seed (which only picks the moment): kill -9 in every
 * even cycle (half of them, at least 10 of 20), SIGTERM and SIGINT in turn in the odd ones, and a
 * SIGTERM last so that the file alone holds the state at the end.
 */
function stopFor(cycle: number): NodeJS.Signals {
  if (cycle === CYCLES - 1) return 'SIGTERM';
  if (cycle % 2 === 0) return 'SIGKILL';
  return cycle % 4 === 1 ? 'SIGTERM' : 'SIGINT';
}

describe('data file under kill -9 and graceful stops', () => {
  it(
    `serves every write answered 2xx after each of ${CYCLES} random stops, kill -9 included`,
    async () => {
      const file = join(dir, 'state.json');
      const random = mulberry32(4010);
      let buyers: string[] = [];
      /** Per buyer: the highest write answered 200 (it must survive any stop). */
      const acknowledged = new Map<string, number>();
      /** Per buyer: the highest write ever sent (nothing beyond it can be in the file). */
      const sent = new Map<string, number>();
      let seq = 0;
      let writes = 0;
      const stops: string[] = [];
      /** The fsync policies a kill -9 struck (cycles rotate through them). */
      const killedUnder = new Set<string>();

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const fsync = FSYNC[cycle % FSYNC.length];
        const child = await startChild(file, fsync);
        if (cycle === 0) buyers = someBuyers(file, WRITERS);
        // What the restarted sandbox serves holds every acknowledged write and nothing never sent.
        const now = await served(child.url, buyers);
        for (const id of buyers) {
          expect(now.get(id), `cycle ${cycle} (after ${stops.at(-1)}) buyer ${id}`).toBeGreaterThanOrEqual(acknowledged.get(id) ?? 0);
          expect(now.get(id)).toBeLessThanOrEqual(sent.get(id) ?? 0);
        }

        let stopAsked = false;
        const writer = async (id: string) => {
          for (;;) {
            const n = ++seq;
            sent.set(id, n);
            try {
              const res = await putBuyer(child.url, id, { display_name: `w-${cycle}-${n}` });
              if (res.status !== 200) throw new Error(`write answered ${res.status}: ${await res.text()}`);
              await res.arrayBuffer();
              acknowledged.set(id, n);
              writes++;
            } catch (err) {
              if (!stopAsked) throw err; // a failure before any stop is a bug
              return; // the child is stopping or gone: this write is not acknowledged
            }
          }
        };
        const writing = Promise.all(buyers.map(writer));
        await new Promise((r) => setTimeout(r, 30 + Math.floor(random() * 300)));

        const how = stopFor(cycle);
        stops.push(how);
        if (how === 'SIGKILL') killedUnder.add(fsync);
        stopAsked = true;
        child.proc.kill(how);
        const { code } = await child.exited;
        await writing; // every writer has its answer, or its connection refused
        buyersInFile(file, buyers); // parses
        if (how === 'SIGKILL') {
          checkLog(file); // complete lines parse, seqs increase
        } else {
          expect(code).toBe(0);
          expect(checkLog(file), `after ${how} in cycle ${cycle}: FILE alone holds the state`).toBe('');
          const onDisk = buyersInFile(file, buyers);
          for (const id of buyers) {
            expect(onDisk.get(id)!, `after ${how} in cycle ${cycle}`).toBeGreaterThanOrEqual(acknowledged.get(id) ?? 0);
            expect(onDisk.get(id)!).toBeLessThanOrEqual(sent.get(id)!);
          }
        }
      }
      // Every other cycle was a kill -9 (10 of 20), each fsync policy had some, graceful stops of
      // both kinds came between them, and writes were acknowledged in most cycles.
      expect(stops.filter((s) => s === 'SIGKILL').length).toBeGreaterThanOrEqual(Math.floor(CYCLES / 2));
      if (CYCLES >= 20) expect(stops.filter((s) => s === 'SIGKILL').length).toBeGreaterThanOrEqual(10);
      if (CYCLES >= 6) expect([...killedUnder].sort()).toEqual([...FSYNC].sort());
      if (CYCLES >= 5) expect(new Set(stops.filter((s) => s !== 'SIGKILL'))).toEqual(new Set(['SIGTERM', 'SIGINT']));
      expect(writes).toBeGreaterThan(CYCLES * WRITERS);
    },
    CYCLES * 12_000,
  );
});

describe('data file on a disk that refuses writes', () => {
  it('answers 503 for a write the log could not take, follows it with a snapshot, and keeps every 2xx across kill -9', async () => {
    const file = join(dir, 'limited.json');
    const seeding = await startChild(file);
    await stopGracefully(seeding);
    const ids = someBuyers(file, 2);
    // Room for a snapshot (the file and its temporary copy are each a little bigger than now), not
    // for much log: about 30 appends fill it, and each later append fails with EFBIG.
    const limit = statSync(file).size + 32 * 1024;
    const child = await startChild(file, 'batch', limit);
    const acknowledged = new Map<string, number>();
    const sent = new Map<string, number>();
    const refused: number[] = [];
    let n = 0;
    let recoveredAfterRefusal = false;
    await Promise.all(
      ids.map(async (id) => {
        while (n < 300) {
          const mine = ++n;
          sent.set(id, mine);
          const res = await putBuyer(child.url, id, { display_name: `f-${mine}` });
          const body = await res.json();
          if (res.status === 200) {
            acknowledged.set(id, mine);
            if (refused.length) recoveredAfterRefusal = true;
            continue;
          }
          expect(res.status).toBe(503);
          expect(res.headers.get('retry-after')).toBe('1');
          expect(body).toEqual({
            type: 'error',
            code: 'service_unavailable',
            status: 503,
            message: expect.stringMatching(/^The change could not be recorded in the data file \(.*EFBIG.*\), so it is not acknowledged/),
            details: [],
          });
          refused.push(mine);
        }
      }),
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(recoveredAfterRefusal).toBe(true); // the next write was a snapshot: writes go on
    expect(child.stderr()).not.toMatch(/self-check/i);
    child.proc.kill('SIGKILL');
    await child.exited;

    const restarted = await startChild(file);
    const now = await served(restarted.url, ids);
    for (const id of ids) {
      expect(now.get(id)).toBeGreaterThanOrEqual(acknowledged.get(id)!);
      expect(now.get(id)).toBeLessThanOrEqual(sent.get(id)!);
    }
    await stopGracefully(restarted);
  }, 60_000);
});

describe('a control API write on a disk that refuses it', () => {
  it('answers a reset whose snapshot cannot be written 503, and keeps the state the file holds', async () => {
    const file = join(dir, 'limited-reset.json');
    const seeding = await startChild(file);
    const ids = someBuyers(file, 1);
    expect((await putBuyer(seeding.url, ids[0], { display_name: 'f-1' })).status).toBe(200);
    await stopGracefully(seeding);
    // Room for appends, not for a whole snapshot.
    const child = await startChild(file, 'batch', Math.floor(statSync(file).size / 2));
    expect((await putBuyer(child.url, ids[0], { display_name: 'f-2' })).status).toBe(200);
    const reset = await fetch(`${child.url}/_sandbox/reset`, { method: 'POST' });
    expect(reset.status).toBe(503);
    expect(reset.headers.get('retry-after')).toBe('1');
    expect(await reset.json()).toMatchObject({ type: 'error', code: 'service_unavailable', status: 503, details: [] });
    child.proc.kill('SIGKILL');
    await child.exited;
    const restarted = await startChild(file);
    expect((await served(restarted.url, ids)).get(ids[0])).toBe(2); // the acknowledged write, not the refused reset
    await stopGracefully(restarted);
  }, 60_000);
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
