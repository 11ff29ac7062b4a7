// `payments-sandbox trigger NAME [--target ID]`: asks a running sandbox to emit an event now
// (POST /_sandbox/events), like `stripe trigger`; its subscriptions receive it like any event.
// Prints what was emitted and where it goes; a refusal is exit code 1 with the sandbox's message.
import { sandboxUrlOf } from './control-call.js';
import { TRIGGER_HELP } from './help.js';
import { UsageError } from './usage-error.js';

export interface TriggerArgs {
  name: string;
  target: string | undefined;
  url: string;
  namespace: string | undefined;
  merchantAccount: string;
  adminToken: string | undefined;
  help: boolean;
}

const VALUE_OPTIONS = ['target', 'url', 'namespace', 'merchant-account', 'admin-token'] as const;

export function parseTriggerArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): TriggerArgs {
  const values = new Map<string, string>();
  const positional: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!(VALUE_OPTIONS as readonly string[]).includes(name)) throw new UsageError(`unknown option --${name} (see payments-sandbox trigger --help)`);
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--')) || value.trim() === '') throw new UsageError(`--${name} needs a value`);
    values.set(name, value.trim());
  }
  if (help) return { name: '', target: undefined, url: '', namespace: undefined, merchantAccount: 'default', adminToken: undefined, help };
  if (positional.length !== 1) {
    throw new UsageError(
      positional.length === 0
        ? 'trigger needs an event name, e.g. payments-sandbox trigger buyer.updated (see payments-sandbox trigger --help)'
        : `trigger takes one event name, got ${positional.length}: ${positional.join(' ')}`,
    );
  }
  const url = sandboxUrlOf(values.get('url'), env);
  return {
    name: positional[0],
    target: values.get('target'),
    url,
    namespace: values.get('namespace'),
    merchantAccount: values.get('merchant-account') ?? 'default',
    adminToken: values.get('admin-token') ?? (env.SANDBOX_ADMIN_TOKEN || undefined),
    help,
  };
}

/** Thrown when the sandbox refused or could not be reached: exit code 1. */
export class TriggerError extends Error {}

interface EventResult {
  event: { id: string; name: string; created_at: string; merchant_account_id: string; target: { type?: string; id?: string } };
  deliveries: Array<{ id: string; subscription_id: string; url: string | null; status: string }>;
}

/** Runs the command; resolves to the text for stdout. */
export async function runTriggerCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const args = parseTriggerArgs(argv, env);
  if (args.help) return TRIGGER_HELP;
  const base = args.namespace ? `${args.url}/ns/${encodeURIComponent(args.namespace)}` : args.url;
  const body = { name: args.name, merchant_account_id: args.merchantAccount, ...(args.target ? { target_id: args.target } : {}) };
  let res: Response;
  try {
    res = await fetch(`${base}/_sandbox/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(args.adminToken ? { 'x-sandbox-admin-token': args.adminToken } : {}) },
      body: JSON.stringify(body),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new TriggerError(`cannot reach the sandbox at ${args.url}: ${cause?.code ?? cause?.message ?? (err as Error).message} (is it running? set --url)`);
  }
  const text = await res.text();
  if (res.status !== 201) {
    let message = text.slice(0, 500);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not JSON: the text as it came
    }
    throw new TriggerError(`the sandbox refused the event (${res.status}): ${message}`);
  }
  const { event, deliveries } = JSON.parse(text) as EventResult;
  const lines = [
    `${event.name} ${event.id} emitted in merchant account ${event.merchant_account_id}${args.namespace ? ` of namespace ${args.namespace}` : ''}: target ${event.target.type ?? '?'} ${event.target.id ?? '?'}`,
    deliveries.length
      ? `${deliveries.length} deliver${deliveries.length === 1 ? 'y' : 'ies'} queued:`
      : 'no active subscription in this merchant account: nothing is delivered (make one through POST /_sandbox/records/webhook_subscriptions)',
    ...deliveries.map((d) => `  ${d.id} -> ${d.url ?? '(no URL)'} (subscription ${d.subscription_id})`),
    `see them: GET ${base}/_sandbox/webhooks/deliveries?event_id=${event.id}`,
  ];
  return `${lines.join('\n')}\n`;
}
