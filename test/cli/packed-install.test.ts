// The package as another project gets it without a registry: `npm pack`, then `npm install` of the
// tarball into an empty project (from the local npm cache), then its `payments-sandbox` bin started
// from there answers 200 (the API, the docs and the console with every file it loads), with no dev tool installed. One test, slow (npm install): it leaves no
// process and no folder behind.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ASSET_NAMES } from '../../src/console/assets.js';
import { fingerprintOf } from '../../src/scenarios/catalog-cache.js';
import { childEnv, ensureBuilt, ROOT } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

function run(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(command, args, { cwd, env: childEnv(), timeout: 170_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('the packed package installed into another project', () => {
  let work: string;
  let server: ReturnType<typeof spawn> | undefined;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'sandbox-packed-'));
  });
  afterAll(() => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('packs what the bin needs, installs without dev tools, and its payments-sandbox answers 200', { timeout: 240_000 }, async () => {
    // Pack the build ensureBuilt() made (the prepare script would build again).
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
    const files = info.files.map((f) => f.path);
    for (const needed of [
      'dist/bundle/cli.js',
      'dist/bundle/index.js',
      'dist/fixtures/seed-4010.json',
      'dist/scenarios-catalog.json',
      'dist/src/index.d.ts',
      'openapi.json',
      'openapi.admin.json',
      'fixtures/keys/admin.pem',
      'scenarios/rate-limited.yaml',
      'package.json',
      'README.md',
      ...CONSOLE_ASSET_NAMES.filter((name) => name !== 'htmx.min.js').map((name) => `dist/bundle/console/${name}`),
    ]) {
      expect(files, needed).toContain(needed);
    }
    expect(files.filter((f) => /^(src|test|bench)\//.test(f) || f.startsWith('node_modules/') || /^dist\/src\/.*\.js$/.test(f))).toEqual([]);
    expect(info.size).toBeLessThan(2 * 1024 * 1024);

    // An empty project installs the tarball as a dev dependency, from the local npm cache.
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    const installed = await run(
      'npm',
      ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(work, info.filename)],
      project,
    );
    expect(installed.code, installed.stderr).toBe(0);
    const pkg = join(project, 'node_modules', 'payments-sandbox');
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).devDependencies['payments-sandbox']).toMatch(/payments-sandbox-\d+\.\d+\.\d+\.tgz$/);
    const modules = readdirSync(join(project, 'node_modules'));
    for (const devTool of ['typescript', 'esbuild', 'vitest', '@biomejs', 'supertest', 'autocannon', 'playwright-core']) expect(modules).not.toContain(devTool);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    // npm gives installed files the tarball's fixed date: the build's scenario catalog still applies.
    const catalog = JSON.parse(readFileSync(join(pkg, 'dist', 'scenarios-catalog.json'), 'utf8')) as { fingerprint: string };
    expect(fingerprintOf(join(pkg, 'scenarios'), join(pkg, 'openapi.json'))).toBe(catalog.fingerprint);

    const bin = join(project, 'node_modules', '.bin', 'payments-sandbox');
    const version = await run(bin, ['--version'], project);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);

    // Its bin, started from the project on a free port.
    server = spawn(bin, ['--port', '0'], { cwd: project, env: childEnv() });
    let banner = '';
    server.stderr!.on('data', (d) => (banner += d));
    const exited = new Promise<number | null>((resolve) => server!.on('exit', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${banner}`)), 30_000);
      server!.stderr!.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(banner);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    expect(banner).toContain(`key file  ${join(pkg, 'fixtures', 'keys', 'admin.pem')}`);
    const waited = await run(bin, ['wait', '--url', url, '--timeout', '20s'], project);
    expect(waited.code, waited.stderr).toBe(0);
    const token = (await run(bin, ['token'], project)).stdout.trim();
    const res = await fetch(`${url}/connections`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(Array.isArray(((await res.json()) as { items: unknown[] }).items)).toBe(true);
    // The docs page's assets come from the project's swagger-ui-dist, the documents from the package.
    expect((await fetch(`${url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
    expect((await (await fetch(`${url}/openapi.json`)).json()).servers[0].url).toBe(url);
    const limited = await fetch(`${url}/gift-cards`, { headers: { authorization: `Bearer ${token}`, 'x-sandbox-scenario': 'rate-limited' } });
    expect(limited.status).toBe(429);
    // The console: its page, and every file it loads, from the installed package alone.
    const page = await fetch(`${url}/_sandbox/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(await page.text()).toContain('src="/_sandbox/console/assets/console.js"');
    for (const name of CONSOLE_ASSET_NAMES) {
      const asset = await fetch(`${url}/_sandbox/console/assets/${name}`);
      expect(asset.status, name).toBe(200);
      expect(asset.headers.get('content-type'), name).toBe(name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      const body = await asset.text();
      expect(body.length, name).toBeGreaterThan(1000);
      if (name !== 'htmx.min.js') expect(body, name).toBe(readFileSync(join(pkg, 'dist', 'bundle', 'console', name), 'utf8'));
    }

    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
