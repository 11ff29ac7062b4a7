// The typed context every middleware and handler shares.

import type { Namespace } from '../namespace/namespace.js';
import type { Operation } from '../spec/operations.js';
import type { ApiKeyPairRecord } from '../store/records.js';

export interface Principal {
  /** `key-pair`: a verified token; `anonymous`: an operation without security; `auth-off`: --auth none. */
  kind: 'key-pair' | 'anonymous' | 'auth-off';
  keyPair: ApiKeyPairRecord | null;
  /** The token's scopes (empty when anonymous). */
  scopes: string[];
  claims: Record<string, unknown>;
}

export interface SandboxEnv {
  Variables: {
    requestId: string;
    /** performance.now() when the request arrived (request log, journal duration). */
    receivedAt: number;
    /** The namespace clock when the request arrived, for its journal entry. */
    journalTimestamp: string;
    /** The report lifecycle the request's x-sandbox-scenario header selects (see scheduler.ts). */
    requestLifecycle: import('../resources/reports/scheduler.js').RequestLifecycle | undefined;
    /** A scenario step that rewrites the normal answer (override / merge), applied after it. */
    scenarioRewrite: import('../scenarios/types.js').StepAction | undefined;
    ns: Namespace;
    operation: Operation;
    pathParams: Record<string, string>;
    principal: Principal;
    merchantAccountId: string;
    /** The parsed JSON body (undefined when none was sent). */
    body: unknown;
    /** The request body's text once validation has read it: the journal keeps it without reading again. */
    bodyText: string | undefined;
    query: Record<string, unknown>;
    headers: Record<string, unknown>;
    /** Headers for the response to carry, whoever writes it (set before the response exists). */
    responseHeaders: Record<string, string> | undefined;
    /** The JSON body (text or bytes) last written with jsonResponse(), for the journal. */
    sentJson: { res: Response; body: import('./json-response.js').SentBody } | undefined;
    /** Name of the scenario that answered or shaped the response, for the journal. */
    scenario: string | null;
  };
}
