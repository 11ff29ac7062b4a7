// The sandbox's logger: pino with structured JSON lines (or a compact human format on a terminal),
// and secrets censored by path wherever they appear, so a stray `logger.info({ headers })` cannot
// leak a bearer token, the admin token, a private key or a webhook subscription's secret.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { SandboxConfig } from '../config.js';
import { prettyStream } from './pretty.js';

/** Paths pino censors in every line (one level of nesting covers `{ req: { headers } }` shapes too). */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  '*.headers.authorization',
  '*.authorization',
  'token',
  '*.token',
  'adminToken',
  '*.adminToken',
  'admin_token',
  '*.admin_token',
  'privateKey',
  '*.privateKey',
  'privateKeyPem',
  '*.privateKeyPem',
  'private_key',
  '*.private_key',
  'secret',
  '*.secret',
  'previous_secret',
  '*.previous_secret',
  'headers["x-sandbox-admin-token"]',
  '*.headers["x-sandbox-admin-token"]',
];

export interface LoggerOptions {
  /** Where lines go (default stdout). */
  out?: NodeJS.WritableStream;
  /** Colours in the pretty format (default: when `out` is a terminal). */
  colors?: boolean;
}

export function createLogger(config: Pick<SandboxConfig, 'logLevel' | 'logFormat'>, options: LoggerOptions = {}): Logger {
  const out = options.out ?? process.stdout;
  const destination: DestinationStream =
    config.logFormat === 'pretty'
      ? prettyStream(out, options.colors ?? Boolean((out as NodeJS.WriteStream).isTTY))
      : out === process.stdout
        ? pino.destination({ dest: 1, sync: true }) // sync: a line written before exit is never lost
        : (out as DestinationStream);
  return pino(
    {
      level: config.logLevel,
      base: { name: 'payments-sandbox' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
