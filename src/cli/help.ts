// The --help texts, built from the option table so they never drift from what is accepted.
import { CONFIG_FILE_NAME } from './load-config.js';
import { START_OPTIONS } from './options.js';

export const MAIN_HELP = `Usage: payments-sandbox [command] [options]

A high-fidelity sandbox of the payments orchestration API.

Commands:
  start    run the sandbox server (the default command)
  record   let the real service answer and record it: payments-sandbox record --upstream URL (start's options)
  token    print a signed bearer token for the sandbox, e.g. TOKEN=$(npx payments-sandbox token)
  wait     wait until a sandbox is ready, for scripts: payments-sandbox wait --timeout 30s

  trigger  ask a running sandbox to emit a webhook event now, e.g. payments-sandbox trigger buyer.updated
  upstream show or switch a running sandbox's upstream mode (started with --upstream URL): off, record, compare
  listen   print a namespace's webhook notifications as they arrive (its inbox), or forward them to a local URL
  cluster  show a shared sandbox as Redis knows it: nodes, the namespaces each owns, leases, epochs

Run payments-sandbox <command> --help for the options of a command;
payments-sandbox --version prints the version.
`;

export function startHelp(): string {
  const rows = START_OPTIONS.map((o) => {
    const names = [o.flag, ...(o.aliases ?? [])].map((n) => `--${n}`).join(', ');
    const left = `${names}${o.arg ? ` ${o.arg}` : ''}`;
    return `  ${left.padEnd(34)} ${o.help}\n  ${''.padEnd(34)} env ${o.env.join(' or ')}, config key "${o.key}"`;
  });
  return `Usage: payments-sandbox [start] [options]

Runs the sandbox. Every option is a flag, an environment variable and a key of the config file
(${CONFIG_FILE_NAME} in the current folder, or --config FILE / SANDBOX_CONFIG); a flag wins over
the environment, which wins over the file. Boolean flags take --no-<flag> to turn off.

Options:
  --config FILE                      JSON config file to read instead of ./${CONFIG_FILE_NAME}
${rows.join('\n')}
  -h, --help                         show this help

Stop with Ctrl-C (SIGINT) or SIGTERM: state is flushed to the data file and the exit code is 0.
`;
}

export const TOKEN_HELP = `Usage: payments-sandbox token [--key FILE] [--scopes a,b] [--ttl 1h]

Prints a signed bearer token (a JWT, kid = the key's thumbprint) and nothing else on stdout:
  TOKEN=$(npx payments-sandbox token)
  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:4010/buyers

Options:
  --key FILE       private key (PEM) of an API key pair the sandbox knows
                   (default: the well-known admin key, fixtures/keys/admin.pem)
  --scopes a,b     comma-separated scopes (default: *.read,*.write,embed)
  --ttl DURATION   lifetime: seconds, or 30s, 15m, 1h, 2d (default 1h)
  -h, --help       show this help
`;

export const WAIT_HELP = `Usage: payments-sandbox wait [--url URL] [--timeout 30s]

Waits until the sandbox at URL answers GET /_sandbox/health, for CI scripts that start it in the
background:
  npx payments-sandbox --port 4010 &
  npx payments-sandbox wait --timeout 30s && npm test

Exit code 0 once it is healthy (one line on stdout); 1 with one line on stderr when the timeout
passes, or when the control API refuses the admin token; 2 for a usage error.

Options:
  --url URL            the sandbox's base URL (may end in /ns/<name>); default: where
                       payments-sandbox start would listen with the same SANDBOX_* variables and
                       ${CONFIG_FILE_NAME} (http://127.0.0.1:4010; https:// with --tls)
  --timeout DURATION   how long to wait: 30s, 500ms, 2m, or a number of seconds (default 30s)
  -h, --help           show this help

An https URL is checked against the usual CAs, the sandbox CA of --tls-dir (SANDBOX_TLS_DIR,
default ~/.payments-sandbox/tls), your --tls-cert and NODE_EXTRA_CA_CERTS. The admin token
(SANDBOX_ADMIN_TOKEN or the config file) is sent when one is set.
`;

export const TRIGGER_HELP = `Usage: payments-sandbox trigger NAME [--target ID] [--url U] [--namespace N] [--merchant-account M]

Asks a running sandbox to emit the webhook event NAME now (POST /_sandbox/events), like stripe
trigger: every active subscription of the merchant account receives it, signed, like any event.
NAME is an event name of openapi.json's webhooks section, e.g. buyer.updated, transaction.captured,
report-execution.succeeded.

Options:
  --target ID              the record the event is about (default: the first of its kind in the
                           merchant account)
  --url U                  the sandbox's base URL (default $SANDBOX_URL, else http://127.0.0.1:4010)
  --namespace N            a namespace of the sandbox (default: the default namespace)
  --merchant-account M     the merchant account (default: default)
  --admin-token T          the sandbox's admin token, when it has one (default $SANDBOX_ADMIN_TOKEN)
  -h, --help               show this help

Exit code 0 when emitted, 1 when the sandbox refused it or could not be reached, 2 for wrong usage.
`;

export const UPSTREAM_HELP = `Usage: payments-sandbox upstream [off|record|compare] [--url U] [--admin-token T]

Shows the upstream of a running sandbox started with --upstream URL (its address, fixed at start,
and its mode), or switches the mode from the next call on (PUT /_sandbox/upstream):
  off       the sandbox answers every call; nothing is sent to the upstream
  record    the upstream answers every API call; the sandbox records the exchanges
  compare   the sandbox answers, then the same call goes to the upstream and the answers are compared

A stop writes the files of every mode that was on: the compare report, the recording.
  npx payments-sandbox --upstream https://api.sandbox.example.com &
  npx payments-sandbox upstream record && npm test -- checkout && npx payments-sandbox upstream off

Options:
  --url U                  the sandbox's base URL (default $SANDBOX_URL, else http://127.0.0.1:4010)
  --admin-token T          the sandbox's admin token, when it has one (default $SANDBOX_ADMIN_TOKEN)
  -h, --help               show this help

Exit code 0 when shown or switched, 1 when the sandbox refused or could not be reached (404: it was
not started with --upstream URL), 2 for wrong usage.
`;

export const LISTEN_HELP = `Usage: payments-sandbox listen [--forward-to URL] [--url U] [--namespace N] [--merchant-account M]

Follows the namespace's webhook inbox, like stripe listen: makes sure an active subscription of the
merchant account targets the inbox (https://inbox.sandbox.invalid/, made when none does), prints its
signing secret, then prints each notification as the sandbox delivers it (event, id, the status the
inbox answered, whether the signature checks) or POSTs it to --forward-to with the headers it was
signed with. Notifications the bounded inbox dropped before they were read are announced.

Options:
  --forward-to URL         POST each notification to your local receiver, e.g. http://127.0.0.1:3000/hooks
  --url U                  the sandbox's base URL (default $SANDBOX_URL, else http://127.0.0.1:4010)
  --namespace N            a namespace of the sandbox (default: the default namespace)
  --merchant-account M     the merchant account whose subscription targets the inbox (default: default)
  --admin-token T          the sandbox's admin token, when it has one (default $SANDBOX_ADMIN_TOKEN)
  --interval-ms MS         how often the inbox is read when nothing is waiting (default 250)
  --count N                stop after N notifications (default: run until Ctrl-C)
  --format F               text (default) or json: one notification a line, as GET /_sandbox/webhooks/inbox gives it
  -h, --help               show this help

Exit code 0 when stopped, 1 when the sandbox refused or could not be reached, 2 for wrong usage.
`;

export const CLUSTER_HELP = `Usage: payments-sandbox cluster --store redis://HOST:PORT [--json]

Shows a shared sandbox (nodes started with --store redis://...) as its Redis knows it: every node
(alive while it renews its key), the namespaces each holds the lease of, and for every namespace the
node holding it, the lease's epoch and time left, and the size of its state.

Options:
  --store URL   the shared sandbox's Redis (default $SANDBOX_STORE)
  --json        the same as JSON
  -h, --help    show this help

Exit code 0; 1 when Redis cannot be reached; 2 for wrong usage.
`;
