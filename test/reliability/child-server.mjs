// A sandbox in a child process for the persistence tests: `node child-server.mjs DATA_FILE [FSYNC]`.
// Prints its URL on the first stdout line; SIGTERM or SIGINT flushes (close()) and exits 0. A data
// file that cannot be loaded makes it exit 1 with the error on stderr. Uses the built package
// (dist/), not the CLI, so it tests exactly what startSandbox() promises; responses are checked
// against openapi.json, as in every test.
import { startSandbox } from '../../dist/bundle/index.js';

const [dataFile, fsync = 'batch'] = process.argv.slice(2);
let sandbox;
try {
  sandbox = await startSandbox({ port: 0, dataFile, fsync, logLevel: 'silent', validateResponses: true });
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await sandbox.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Only now: whoever reads the URL may signal at once.
process.stdout.write(`${sandbox.url}\n`);
