#!/usr/bin/env node
// npm run image: builds payments-sandbox:<version> and payments-sandbox:latest from the Dockerfile,
// with podman or docker (IMAGE_ENGINE to choose), then prints the build time and the image size.
//   IMAGE_BASE=debian  first makes a Node base from Debian's packages (mmdebstrap trixie: nodejs,
//                      ca-certificates) for machines that reach no container registry; made once,
//                      reused while the image exists. (The build stage fetches npm's tarball.)
//   IMAGE_BASE=REF     builds on another Node 20 image (default node:20-bookworm-slim).
//   node scripts/image.mjs redis haproxy   also (or only) builds the compose file's Redis and
//                      HAProxy from Debian's packages on that base (deploy/*.Dockerfile).
// NODE_EXTRA_CA_CERTS, when set, reaches npm in the build stage as a build secret (a proxy's CA).
// The build stage's untagged image is removed after the build (IMAGE_KEEP_BUILD_STAGE=1 keeps it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const IMAGE = 'payments-sandbox';
/** The base made from Debian's packages (Node alone) for both stages. */
export const DEBIAN_BASE = 'localhost/payments-sandbox-base:trixie';
const WHAT = ['sandbox', 'redis', 'haproxy'];
/** The Dockerfile's label of its build stage. */
export const BUILD_STAGE_LABEL = 'io.payments-sandbox.stage=build';

function has(program) {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

/** podman or docker, whichever is there (IMAGE_ENGINE to choose). */
export function containerEngine(env = process.env) {
  if (env.IMAGE_ENGINE) return env.IMAGE_ENGINE;
  if (has('podman')) return 'podman';
  if (has('docker')) return 'docker';
  throw new Error('npm run image needs podman or docker (apt-get install -y podman runc)');
}

/**
 * The environment podman runs in. Podman's defaults fail on machines where crun cannot set
 * RLIMIT_NOFILE (ours, docs/containers.md): with runc installed and no CONTAINERS_CONF of the
 * user's, point it at a file choosing runc, cgroupfs and no default ulimits, in a temporary folder.
 */
export function engineEnv(engine, env = process.env) {
  if (engine !== 'podman' || env.CONTAINERS_CONF || !has('runc')) return env;
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-podman-'));
  const file = join(dir, 'containers.conf');
  writeFileSync(file, '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n');
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { ...env, CONTAINERS_CONF: file };
}

function run(engine, args, env, options = {}) {
  const result = spawnSync(engine, args, { cwd: ROOT, env, stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${engine} ${args.slice(0, 2).join(' ')} failed (exit ${result.status ?? result.signal})`);
  return result.stdout ?? '';
}

function imageExists(engine, ref, env) {
  return spawnSync(engine, ['image', 'inspect', ref], { env, stdio: 'ignore' }).status === 0;
}

/** mmdebstrap a Debian trixie root file system with these packages and import it as an image; seconds taken (0: reused). */
function debianBase(engine, ref, packages, env) {
  if (imageExists(engine, ref, env)) return 0;
  if (!has('mmdebstrap')) throw new Error('IMAGE_BASE=debian needs mmdebstrap (apt-get install -y mmdebstrap)');
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-base-'));
  try {
    const tar = join(dir, 'base.tar');
    const made = spawnSync('mmdebstrap', ['--quiet', '--variant=minbase', `--include=${packages.join(',')}`, 'trixie', tar], { stdio: 'inherit' });
    if (made.status !== 0) throw new Error(`mmdebstrap failed (exit ${made.status})`);
    run(engine, ['import', '--change', 'CMD ["node"]', tar, ref], env, { capture: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return (Date.now() - started) / 1000;
}

/** Where the build stage fetches npm on a base without it (Debian's nodejs), as the host's npm client reports it. */
function npmTarballArgs() {
  const view = spawnSync('npm', ['view', 'npm@10.8.2', 'dist.tarball', 'dist.integrity', '--json'], { encoding: 'utf8' });
  if (view.status !== 0) throw new Error(`npm view npm@10.8.2 failed (exit ${view.status}): the Debian base needs npm's tarball`);
  const dist = JSON.parse(view.stdout);
  return ['--build-arg', `NPM_TARBALL=${dist['dist.tarball']}`, '--build-arg', `NPM_INTEGRITY=${dist['dist.integrity']}`];
}

function buildArgs(engine) {
  // podman writes OCI images by default, which drop HEALTHCHECK: the docker format keeps it.
  return engine === 'podman' ? ['build', '--format', 'docker'] : ['build'];
}

export function buildImages(what = ['sandbox'], env = process.env) {
  const engine = containerEngine(env);
  const engineEnvironment = engineEnv(engine, env);
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  const figures = {};
  let base = env.IMAGE_BASE || 'node:20-bookworm-slim';
  if (base === 'debian') {
    figures.baseSeconds = debianBase(engine, DEBIAN_BASE, ['nodejs', 'ca-certificates'], engineEnvironment);
    base = DEBIAN_BASE;
  }
  if (what.includes('sandbox')) {
    const started = Date.now();
    const secret = env.NODE_EXTRA_CA_CERTS ? ['--secret', `id=ca,src=${env.NODE_EXTRA_CA_CERTS}`] : [];
    const tags = ['-t', `${IMAGE}:${version}`, '-t', `${IMAGE}:latest`];
    const npm = base === DEBIAN_BASE ? npmTarballArgs() : [];
    run(engine, [...buildArgs(engine), ...tags, '--build-arg', `BASE=${base}`, ...npm, ...secret, '.'], engineEnvironment);
    figures.imageSeconds = (Date.now() - started) / 1000;
    // The build stage's image is left untagged (podman keeps it, with its layers: ~550 MB); removed
    // unless IMAGE_KEEP_BUILD_STAGE=1, which keeps its npm ci layer for a faster rebuild.
    if (env.IMAGE_KEEP_BUILD_STAGE !== '1')
      run(engine, ['image', 'prune', '--force', '--filter', `label=${BUILD_STAGE_LABEL}`], engineEnvironment, { capture: true });
    figures.imageBytes = Number(run(engine, ['image', 'inspect', '--format', '{{.Size}}', `${IMAGE}:${version}`], engineEnvironment, { capture: true }).trim());
  }
  for (const service of what.filter((w) => w !== 'sandbox')) {
    const started = Date.now();
    const baseArg = env.IMAGE_BASE === 'debian' ? ['--build-arg', `BASE=${base}`] : [];
    run(engine, [...buildArgs(engine), '-t', `${IMAGE}-${service}:latest`, ...baseArg, '-f', `deploy/${service}.Dockerfile`, 'deploy'], engineEnvironment);
    figures[`${service}Seconds`] = (Date.now() - started) / 1000;
  }
  return { engine, version, figures };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const what = process.argv.slice(2).length ? process.argv.slice(2) : ['sandbox'];
  const unknown = what.find((w) => !WHAT.includes(w));
  if (unknown) {
    process.stderr.write(`image: unknown image '${unknown}' (${WHAT.join(', ')})\n`);
    process.exit(2);
  }
  try {
    const { engine, version, figures } = buildImages(what);
    const lines = [`built with ${engine}:`];
    if (figures.baseSeconds !== undefined) lines.push(`  Debian Node base  ${figures.baseSeconds ? `${figures.baseSeconds.toFixed(0)} s` : 'reused'}`);
    if (figures.imageSeconds !== undefined)
      lines.push(`  ${IMAGE}:${version} and :latest  ${figures.imageSeconds.toFixed(0)} s, ${(figures.imageBytes / 1e6).toFixed(0)} MB`);
    for (const service of what.filter((w) => w !== 'sandbox')) lines.push(`  ${IMAGE}-${service}:latest  ${figures[`${service}Seconds`].toFixed(0)} s`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (err) {
    process.stderr.write(`image: ${err.message}\n`);
    process.exit(1);
  }
}
