// Picks the namespace of a request: the URL prefix /ns/{name}/ (so an SDK needs only a new base URL)
// or the x-sandbox-namespace header; neither means `default`. A namespace that does not exist yet
// is created only once the caller has proved who it is (admitNamespace, after authentication or
// the admin token); until then the request sees the fresh state a new namespace would start from.
//
// The prefix is taken as written, never percent-decoded: a namespace name needs no encoding, and a
// proxy routing by it (deploy/haproxy.cfg) hashes the path as written, so /ns/te%61m-1/ decoded here
// would be namespace team-1 served by whichever node the ring gives te%61m-1: two owners of team-1.
import { getPath } from 'hono/utils/url';
import { ApiError } from '../errors/api-error.js';
import type { NamespaceHost } from '../namespace/host.js';
import type { Namespace } from '../namespace/namespace.js';
import { DEFAULT_NAMESPACE, NAMESPACE_NAME, NamespaceRegistry } from '../namespace/registry.js';
import type { Call } from './call.js';
import { fromPageOfAnotherOrigin } from './origin-check.js';
import type { Step } from './pipeline.js';

export const NAMESPACE_HEADER = 'x-sandbox-namespace';
const PREFIX = /^\/ns\/([^/]+)(\/.*)?$/;

/** Hono's `getPath` with the namespace prefix removed, so routes see the API path. */
export function pathWithoutNamespace(request: Request): string {
  const path = getPath(request);
  if (!path.startsWith('/ns/')) return path; // most requests: no regular expression
  const match = PREFIX.exec(path);
  return match ? match[2] || '/' : path;
}

/** The name of the /ns/{name}/ prefix of a path as Hono gives it (the namespace step has refused a percent-encoded one). */
export function namespaceOfPath(path: string): string | null {
  if (!path.startsWith('/ns/')) return null;
  const match = PREFIX.exec(path);
  return match ? match[1] : null;
}

/** The name of the /ns/{name}/ prefix as the client wrote it in the URL (Hono's path has it percent-decoded already). */
function namespaceOfUrl(url: string): string | null {
  const start = url.indexOf('/', url.indexOf(':') + 3);
  if (start < 0 || !url.startsWith('/ns/', start)) return null;
  let end = start + 4;
  for (; end < url.length; end++) {
    const char = url.charCodeAt(end);
    if (char === 47 || char === 63 || char === 35) break; // / ? #
  }
  return end > start + 4 ? url.slice(start + 4, end) : null;
}

/** The 400 of a percent-encoded prefix: what to write instead, when it decodes to a valid name. */
function percentEncoded(name: string): ApiError {
  let decoded = '';
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // not even valid encoding: nothing to suggest
  }
  const instead = NAMESPACE_NAME.test(decoded) ? ` (write /ns/${decoded}/)` : '';
  return ApiError.badRequest(
    `The namespace in the path prefix /ns/${name.slice(0, 80)}/ is percent-encoded: write its name as is${instead}. A namespace is 1-64 letters, digits, '.', '_' or '-', which never need encoding, and a proxy routing by namespace reads the prefix as written.`,
    [
      {
        location: 'path',
        pointer: '/ns',
        type: 'string_pattern_mismatch',
        message: 'A namespace is 1-64 letters, digits, ".", "_" or "-", not percent-encoded.',
      },
    ],
  );
}

/**
 * Refuses a /ns/{name}/ prefix that is percent-encoded, or that disagrees with the x-sandbox-namespace
 * header: which of the two was meant cannot be told, and a proxy routing by namespace reads the prefix first.
 */
function checkPrefix(fromPath: string, header: string | undefined): void {
  if (fromPath.includes('%')) throw percentEncoded(fromPath);
  if (!header || header === fromPath) return; // an empty header names no namespace, as without a prefix
  throw ApiError.badRequest(
    `The path prefix /ns/${fromPath.slice(0, 80)}/ names namespace '${fromPath.slice(0, 80)}' but the x-sandbox-namespace header names '${header.slice(0, 80)}': send one of them, or the same name in both.`,
    [
      { location: 'path', pointer: '/ns', type: 'value_error', message: `The prefix names namespace '${fromPath.slice(0, 80)}'.` },
      { location: 'header', pointer: '/x-sandbox-namespace', type: 'value_error', message: `The header names namespace '${header.slice(0, 80)}'.` },
    ],
  );
}

export function selectNamespace(registry: NamespaceRegistry): Step {
  return {
    name: 'namespace',
    provides: ['namespace'],
    before(call) {
      const fromPath = namespaceOfUrl(call.url);
      if (fromPath !== null) checkPrefix(fromPath, call.header(NAMESPACE_HEADER));
      const named = fromPath ?? call.header(NAMESPACE_HEADER);
      call.namespaceNamed = Boolean(named);
      const name = named || DEFAULT_NAMESPACE;
      call.namespaceName = name;
      const ns = registry.find(name);
      if (!ns) {
        if (fromPath !== null) NamespaceRegistry.checkName(name, 'path');
        call.ns = registry.unadmitted(name);
        return;
      }
      call.ns = ns;
      ns.inFlight++;
    },
    after(call) {
      // Counted when the call got a kept namespace: here, or when admitted.
      if (call.ns?.admitted) call.ns.inFlight--;
    },
  };
}

/**
 * Makes sure the process serves the call's namespace before anything reads it (a shared sandbox:
 * its lease, loading it or waiting for a handover); then the call has the namespace as the host
 * holds it. `anyNode`: calls not bound to a namespace, which any process of a shared sandbox answers.
 * One process's host has nothing to do (a call that returns at once).
 */
export function ownNamespace(host: NamespaceHost, anyNode: (call: Call) => boolean = () => false): Step {
  return {
    name: 'own namespace',
    requires: ['namespace'],
    before(call) {
      const waiting = host.own(call, anyNode);
      if (waiting) return waiting.then(() => rebind(call, host.registry));
    },
  };
}

/** The call's namespace is now the one the registry holds (or, never created, the fresh state admit makes it from). */
function rebind(call: Call, registry: NamespaceRegistry): void {
  const ns = registry.find(call.namespaceName);
  if (ns === call.ns) return;
  if (call.ns?.admitted) call.ns.inFlight--;
  if (ns) {
    call.ns = ns;
    ns.inFlight++;
  } else call.ns = registry.unadmitted(call.namespaceName);
}

/**
 * Creates the request's namespace if it is new, now that the caller is known: a verified token
 * (or --auth none) on the API, or the admin token on the control API (a 503 at the cap, or when
 * another process of a shared sandbox holds it). A call of an operation that needs no credentials,
 * and one any process answers (`anyNode`), may not create one: it is answered from a copy made for it.
 */
export function admitNamespace(host: NamespaceHost, anyNode: (call: Call) => boolean = () => false): Step {
  const { registry } = host;
  return {
    name: 'admit namespace',
    requires: ['namespace'],
    before(call) {
      if (call.ns.admitted) return;
      if (call.principal?.kind === 'anonymous' || anyNode(call)) {
        call.ns = registry.throwaway(call.namespaceName);
        return;
      }
      // A page the browser opened (one granted CORS too) could make namespaces until the cap refuses CI jobs theirs.
      if (fromPageOfAnotherOrigin(call)) throw notMadeForPages(call);
      const admitted = host.admit(call.namespaceName);
      if (admitted instanceof Promise) return admitted.then((ns) => enter(call, ns));
      enter(call, admitted);
    },
  };
}

function notMadeForPages(call: Call): ApiError {
  const name = call.namespaceName.slice(0, 80);
  const from = call.header('origin')?.slice(0, 100) ?? `another site (Sec-Fetch-Site: ${call.header('sec-fetch-site')})`;
  return ApiError.ofStatus(
    403,
    `Namespace '${name}' does not exist, and a web page of another origin (${from}) may not create one: namespaces are made by code (a call without an Origin header), so that pages cannot use up the --namespace-cap CI jobs rely on. Create it from your test's setup (any authenticated API call, or POST /ns/${name}/_sandbox/reset), then use it from the page.`,
    [
      {
        location: 'header',
        pointer: '/origin',
        type: 'origin_not_allowed',
        message: 'A page of another origin may use an existing namespace but not create one.',
      },
    ],
    { outsideContract: true },
  );
}

/** The call is in namespace `ns` now (counted in flight until it ends: selectNamespace's after). */
function enter(call: Call, ns: Namespace): void {
  call.ns = ns;
  ns.inFlight++;
}
