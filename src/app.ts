// createApp(deps): the request flow of the sandbox, top to bottom, in one screen.
import { Hono } from 'hono';
import { adminRoutes } from './admin/routes.js';
import { authenticate } from './auth/authenticate.js';
import { docsRoutes } from './docs/routes.js';
import { limitBodySize } from './http/body-limit.js';
import { corsForBrowsers } from './http/cors.js';
import { dispatch } from './http/dispatch.js';
import type { SandboxEnv } from './http/env.js';
import { handleError } from './http/error-handler.js';
import { matchOperation } from './http/match-operation.js';
import { pathWithoutNamespace, selectNamespace } from './http/namespace.js';
import { asMiddleware, pipeline } from './http/pipeline.js';
import { requestId } from './http/request-id.js';
import { errorContract } from './http/response-check.js';
import { validate } from './http/validate.js';
import { recordInJournal } from './journal/record-request.js';
import { logRequests } from './logging/request-log.js';
import type { SandboxDeps } from './sandbox.js';
import { checkScenarioHeaders } from './scenarios/check-headers.js';
import { injectScenario } from './scenarios/inject.js';

export function createApp(deps: SandboxDeps): Hono<SandboxEnv> {
  const { config } = deps;
  const app = new Hono<SandboxEnv>({ getPath: pathWithoutNamespace });
  const onError = handleError(deps.logger, config.validateResponses ? errorContract(deps.api.spec) : null); // self-check errors too

  const everyRequest = [
    requestId(), //                                           x-request-id in and out
    logRequests(deps.logger, deps.stats), //                    a line per 4xx/5xx (info) or request (debug), with its id
    corsForBrowsers(['x-request-id', 'retry-after', 'x-sandbox-scenario']), // browser SDKs (Embed) call it too
    limitBodySize(config.bodyLimitBytes), //                   413 before a large body is buffered
  ];
  const namespace = selectNamespace(deps.namespaces); //     /ns/{name}/ prefix or x-sandbox-namespace

  // The sandbox's own routes, as Hono routes behind the same first steps.
  app.route('/', docsRoutes(everyRequest.map(asMiddleware))); // /docs, /openapi.json, /openapi.admin.json: no auth, not journaled
  app.use('/_sandbox/*', ...[...everyRequest, namespace].map(asMiddleware));
  app.all('/_sandbox/*', adminRoutes(deps)); //                control API (openapi.admin.json)

  // Every other request is an API call: one handler runs its steps in order (src/http/pipeline.ts).
  const answerApiCall = pipeline(
    [
      ...everyRequest,
      namespace,
      recordInJournal({ size: config.journalSize }), //          every API request and its response (not /_sandbox)
      checkScenarioHeaders(deps), //                              400 for unknown x-sandbox-scenario names or undeclared Prefer: code
      matchOperation(deps.api.router), //                         operation from openapi.json, else 404/405
      authenticate({ mode: config.auth, tokenCache: deps.tokenCache }), // 401 token, 403 scope, 403 merchant
      injectScenario(deps), //                                    x-sandbox-scenario, Prefer: code=, active scenarios
      validate(), //                                              400 with one detail per problem
    ],
    dispatch({ handlers: deps.api.handlers, services: deps.services, validateResponses: config.validateResponses }),
    onError,
  );
  app.all('*', answerApiCall);

  app.onError(onError);
  return app;
}
