// "Copy as curl" for a journal entry: the request as the client sent it, secrets still redacted.
// A redacted header becomes a shell variable the user sets ($TOKEN for Authorization, as in the
// front page README), so the command runs once that is exported; nothing the journal dropped is made up.
import type { JournalEntry } from '../journal/entry.js';
import { REDACTED } from '../journal/redact.js';

/** Headers curl or the connection sets by itself: repeating them would be wrong or noise. */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'expect', 'upgrade', 'te']);

/** What a redacted header's value becomes: a shell variable, with how to fill it. */
const PLACEHOLDERS: Record<string, { value: string; hint: string }> = {
  authorization: { value: 'Bearer $TOKEN', hint: 'export TOKEN=$(npx payments-sandbox token)' },
  'proxy-authorization': { value: '$PROXY_AUTHORIZATION', hint: 'export PROXY_AUTHORIZATION=...' },
  'x-sandbox-admin-token': { value: '$SANDBOX_ADMIN_TOKEN', hint: 'export SANDBOX_ADMIN_TOKEN=<the --admin-token value>' },
};

/** Single-quoted for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function curlCommand(entry: JournalEntry): string {
  const lines: string[] = [];
  const hints: string[] = [];
  lines.push(`curl${entry.method === 'GET' ? '' : ` -X ${entry.method}`} ${shellQuote(entry.url)}`);
  for (const [name, value] of Object.entries(entry.headers)) {
    if (LEFT_OUT.has(name)) continue;
    const placeholder = value === REDACTED ? (PLACEHOLDERS[name] ?? { value: `$${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`, hint: '' }) : null;
    if (placeholder) {
      // Double quotes: the shell fills the variable in.
      lines.push(`-H "${name}: ${placeholder.value}"`);
      hints.push(`# ${name} was redacted by the journal: ${placeholder.hint || `set ${placeholder.value.slice(1)}`}`);
    } else lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (entry.scenario && !('x-sandbox-scenario' in entry.headers)) {
    // Activated for the namespace (the console, PUT /_sandbox/scenarios/active), not named by the
    // client: without the header a replay would run normally once the activation ended or moved on.
    lines.push(`-H ${shellQuote(`x-sandbox-scenario: ${entry.scenario}`)}`);
    hints.push(
      `# x-sandbox-scenario added: the scenario ${entry.scenario} answered this request (activated, not named by the client) with ${entry.status}; a scenario that counts calls (calls, after, times) answers a replay as its next call, which may run normally`,
    );
  }
  if (entry.body !== null && entry.body !== undefined) {
    const text = typeof entry.body === 'string' ? entry.body : JSON.stringify(entry.body);
    if (/\.\.\. \[truncated: \d+ characters\]$/.test(text)) hints.push('# the journal kept only the beginning of this body');
    if (text.includes(REDACTED)) hints.push('# a private key in the body was redacted by the journal');
    lines.push(`--data-raw ${shellQuote(text)}`);
  }
  return [...hints, lines.join(' \\\n  ')].join('\n');
}
