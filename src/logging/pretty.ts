// A small human format for pino's JSON lines on a terminal:
//   12:00:01.234 DEBUG [ci-run-42] GET /buyers 200 3.1ms  namespace=default
// (pino-pretty would do it too; this keeps the dependency list short).
import type { DestinationStream } from 'pino';

const COLORS: Record<string, string> = { trace: '90', debug: '36', info: '32', warn: '33', error: '31', fatal: '35' };
const SKIPPED = new Set(['time', 'level', 'msg', 'requestId', 'name', 'pid', 'hostname']);

export function formatPrettyLine(line: string, colors: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = String(entry.level ?? 'info');
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const label = level.toUpperCase().padEnd(5);
  const paint = (text: string) => (colors && COLORS[level] ? `\x1b[${COLORS[level]}m${text}\x1b[0m` : text);
  const id = entry.requestId ? ` [${entry.requestId}]` : '';
  const extras = Object.entries(entry)
    .filter(([key]) => !SKIPPED.has(key))
    .map(([key, value]) =>
      key === 'err' && value && typeof value === 'object' && 'stack' in value
        ? `\n${(value as { stack: string }).stack}`
        : `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
    );
  return `${time} ${paint(label)}${id} ${entry.msg ?? ''}${extras.length ? `  ${extras.join(' ')}` : ''}\n`;
}

export function prettyStream(out: NodeJS.WritableStream, colors: boolean): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) out.write(formatPrettyLine(line, colors));
    },
  };
}
