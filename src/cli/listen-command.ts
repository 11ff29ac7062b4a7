// `payments-sandbox listen`: follows a namespace's webhook inbox (GET /_sandbox/webhooks/inbox) and
// prints each notification as it arrives, like `stripe listen`, or forwards it to a local URL with
// the headers it was signed with. First it makes sure an active subscription of the merchant account
// targets the inbox (made when none does), and prints its secret for a local receiver to check
// signatures with. It reads the inbox every --interval-ms and says when notifications were dropped
// before it read them (the inbox is bounded). Runs until interrupted, or --count notifications.

import { parseCommandArgs } from './command-args.js';
import { controlCall, sandboxUrlOf } from './control-call.js';
import { LISTEN_HELP } from './help.js';
import { UsageError } from './usage-error.js';

const NAMES = ['url', 'namespace', 'merchant-account', 'admin-token', 'forward-to', 'interval-ms', 'count', 'format'] as const;

export interface ListenArgs {
  url: string;
  namespace: string | undefined;
  merchantAccount: string;
  adminToken: string | undefined;
  forwardTo: string | null;
  intervalMs: number;
  count: number;
  json: boolean;
}

export function parseListenArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ListenArgs | null {
  const parsed = parseCommandArgs(argv, 'listen', NAMES);
  if (parsed.help) return null;
  const values = new Map(parsed.values);
  const url = sandboxUrlOf(values.get('url'), env);
  const forwardTo = values.get('forward-to') ?? null;
  if (forwardTo !== null && !/^https?:\/\/[^/\s]+/.test(forwardTo)) {
    throw new UsageError(`--forward-to must be an http or https URL of your receiver, e.g. http://127.0.0.1:3000/hooks, got ${JSON.stringify(forwardTo)}`);
  }
  const number = (name: string, fallback: number, min: number) => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`--${name} must be a whole number of at least ${min}, got ${JSON.stringify(text)}`);
    return Number(text);
  };
  const format = values.get('format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format is text or json, got ${JSON.stringify(format)}`);
  return {
    url,
    namespace: values.get('namespace'),
    merchantAccount: values.get('merchant-account') ?? 'default',
    adminToken: values.get('admin-token') ?? (env.SANDBOX_ADMIN_TOKEN || undefined),
    forwardTo,
    intervalMs: number('interval-ms', 250, 10),
    count: number('count', 0, 1),
    json: format === 'json',
  };
}

/** Thrown when the sandbox refused or could not be reached: exit code 1. */
export class ListenError extends Error {}

interface Notification {
  id: number;
  received_at: string;
  event_name: string;
  event_id: string;
  delivery_id: string;
  attempt: number;
  status_code: number;
  headers: Record<string, string>;
  body: string;
  signature: { valid: boolean; secret: string | null };
}

interface InboxAnswer {
  url: string;
  notifications: Notification[];
  dropped: number;
  last_id: number;
  limits: { max_notifications: number };
}

export interface ListenIo {
  write(text: string): void;
  /** Aborted when the command should stop (Ctrl-C). */
  signal?: AbortSignal;
}

/** Runs the command until interrupted or --count notifications; resolves to the exit code. */
export async function runListenCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: ListenIo): Promise<number> {
  const args = parseListenArgs(argv, env);
  if (args === null) {
    io.write(LISTEN_HELP);
    return 0;
  }
  const control = new Control(args);
  const first = await control.inbox(undefined, 1);
  const subscription = await control.ensureSubscription(first.url);
  io.write(
    `${subscription.made ? 'Subscribed' : 'Listening on'} ${subscription.url} for merchant account ${args.merchantAccount}${args.namespace ? ` of namespace ${args.namespace}` : ''} (subscription ${subscription.id}).\n` +
      `Signing secret: ${subscription.secret}\n` +
      `${args.forwardTo ? `Forwarding to ${args.forwardTo}` : 'Printing notifications'} as they arrive; Ctrl-C to stop.\n`,
  );
  let after = first.last_id;
  let seen = 0;
  while (!io.signal?.aborted) {
    const answer = await control.inbox(after, 1000);
    const firstId = answer.notifications[0]?.id;
    if (firstId !== undefined && firstId > after + 1) {
      io.write(
        `! ${firstId - after - 1} notifications were dropped before they were read (the inbox keeps ${answer.limits.max_notifications}; read more often with --interval-ms)\n`,
      );
    }
    for (const n of answer.notifications) {
      const forwarded = args.forwardTo ? await forward(args.forwardTo, n) : '';
      io.write(args.json ? `${JSON.stringify({ ...n, ...(args.forwardTo ? { forwarded } : {}) })}\n` : `${line(n)}${forwarded ? `  => ${forwarded}` : ''}\n`);
      after = n.id;
      if (args.count && ++seen >= args.count) return 0;
    }
    if (answer.notifications.length === 0) await sleep(args.intervalMs, io.signal);
  }
  return 0;
}

function line(n: Notification): string {
  const signature = n.signature.valid ? 'signature ok' : 'signature MISMATCH';
  return `${n.received_at}  ${n.event_name}  ${n.event_id}  -> ${n.status_code}  ${signature}  attempt ${n.attempt}  delivery ${n.delivery_id}`;
}

/** POSTs the notification to the local receiver as the sandbox sent it; the answer's status, or why none came. */
async function forward(url: string, n: Notification): Promise<string> {
  try {
    const res = await fetch(url, { method: 'POST', headers: n.headers, body: n.body, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return `${url} answered ${res.status}`;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return `${url} did not answer: ${cause?.code ?? (err as Error).message}`;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** The control routes the command calls. */
class Control {
  constructor(private readonly args: ListenArgs) {}

  inbox(after: number | undefined, limit: number): Promise<InboxAnswer> {
    return this.call('GET', `/webhooks/inbox?limit=${limit}${after === undefined ? '' : `&after=${after}`}`);
  }

  /** An active subscription of the merchant account to the inbox: one that exists, else a new one. */
  async ensureSubscription(inboxUrl: string): Promise<{ id: string; url: string; secret: string; made: boolean }> {
    const list = await this.call('GET', '/records/webhook_subscriptions?limit=1000&shape=stored');
    const host = new URL(inboxUrl).host;
    const existing = (list.items as Array<{ id: string; url: string; secret: string; active: boolean; merchant_account_id: string }>).find(
      (s) => s.active && s.merchant_account_id === this.args.merchantAccount && URL.canParse(s.url) && new URL(s.url).host === host,
    );
    if (existing) return { ...existing, made: false };
    const made = await this.call('POST', '/records/webhook_subscriptions', { url: inboxUrl, merchant_account_id: this.args.merchantAccount });
    return { id: made.id, url: made.url, secret: made.secret, made: true };
  }

  private call(method: string, path: string, body?: unknown): Promise<any> {
    return controlCall(this.args, method, path, body, (message) => new ListenError(message));
  }
}
