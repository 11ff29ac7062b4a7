#!/usr/bin/env node
// The payments-sandbox command. Minimal for now: start with --host/--port/--seed/--data/--auth.
import { startSandbox } from './start.js';

async function main(argv: string[]): Promise<void> {
  const flag = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sandbox = await startSandbox({
    host: flag('host') ?? '127.0.0.1',
    port: Number(flag('port') ?? process.env.PORT ?? 4010),
    seed: flag('seed') ? Number(flag('seed')) : undefined,
    dataFile: flag('data') ?? null,
    auth: flag('auth') === 'none' ? 'none' : 'jwt',
  });
  console.log(`payments-sandbox listening on ${sandbox.url}`);
  const stop = async () => {
    await sandbox.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`payments-sandbox: ${(err as Error).message}`);
  process.exit(1);
});
