// createApp(deps): the request flow of the sandbox, top to bottom, in one screen.
import { Hono } from 'hono';
import { every } from 'hono/combine';
import { requireAdminToken } from './admin/admin-token.js';
import { adminContextOf } from './admin/index.js';
import { servedByAnyNode } from './admin/scope.js';
import { authenticate, authorize } from './auth/authenticate.js';
import { consoleRoutes } from './console/routes.js';
import { docsRoutes } from './docs/routes.js';
import { hostedRoutes } from './hosted/routes.js';
import { limitBodySize } from './http/body-limit.js';
import { callOf, type SandboxEnv } from './http/call.js';
import { corsForApi, corsForBrowsers, corsRuleOf } from './http/cors.js';
import { dispatch } from './http/dispatch.js';
import { handleError } from './http/error-handler.js';
import { refuseFraming } from './http/frame-guard.js';
import { OperationContext } from './http/handler.js';
import { checkHost, hostRuleOf } from './http/host-check.js';
import { matchOperation } from './http/match-operation.js';
import { admitNamespace, ownNamespace, pathWithoutNamespace, selectNamespace } from './http/namespace.js';
import { ownOriginOnly } from './http/origin-check.js';
import { asMiddleware, pipeline } from './http/pipeline.js';
import { requestId } from './http/request-id.js';
import { errorContract } from './http/response-check.js';
import { validate } from './http/validate.js';
import { refuseOwnDeliveries } from './http/webhook-loop.js';
import { recordInJournal } from './journal/record-request.js';
import { redactTokensInText } from './journal/tokens.js';
import { logRequests } from './logging/request-log.js';
import type { SandboxDeps } from './sandbox.js';
import { checkScenarioHeaders } from './scenarios/check-headers.js';
import { injectScenario } from './scenarios/inject.js';
import { answerFromUpstream, compareWithUpstream } from './upstream/steps.js';

/** Bodies the control API takes at least (state and snapshot imports); the API's limit is --body-limit. */
export const CONTROL_BODY_LIMIT = 64 * 1024 * 1024;

export function createApp(deps: SandboxDeps): Hono<SandboxEnv> {
  const { config, host } = deps;
  const app = new Hono<SandboxEnv>({ getPath: pathWithoutNamespace });

  // What the steps take of the sandbox's parts (deps), each made once here, from the control API down to the HTTP
  // layer, and shared by the routes below; a request then meets them in the order the routes list them.
  const controlContextOf = adminContextOf(deps.admin.deps); //          the control API's handlers' context
  const checkScenarios = checkScenarioHeaders(deps); //                 400 for unknown x-sandbox-scenario names or a Prefer: code that cannot be
  const compared = compareWithUpstream(deps.upstream); //              --upstream --compare: once journaled, the call goes to the compare worker
  const upstreamAnswers = answerFromUpstream(deps.upstream); //        --upstream, record mode: the upstream answers
  const journal = recordInJournal(deps.pendingJournals); //             every API request and its response (and hosted pages')
  const authenticated = authenticate({ mode: config.auth, tokenCache: deps.tokenCache, merchantAccountHeaders: config.merchantAccountHeaders }); // 400 misnamed merchant header, 401 token
  const logged = logRequests(deps.logger, deps.stats, redactTokensInText); // a line per 4xx/5xx (info) or request (debug), with its id, no token
  const onError = handleError(deps.logger, config.validateResponses ? errorContract(deps.api.spec) : null); // self-check errors too
  const identified = requestId(deps.node); //                           x-request-id in and out, x-sandbox-node out
  const [matchControl, matchApi] = [matchOperation(deps.admin.router), matchOperation(deps.api.router)]; // the operation, else 404/405
  const { validateResponses } = config;
  const answerControl = dispatch({
    handlers: deps.admin.handlers,
    contextOf: controlContextOf,
    // Reset, imports and the records API change a store (one process: the default namespace's file; a shared sandbox:
    // the request's namespace's, with its clock, scenarios and webhook behaviour when they changed).
    recordedIn: (call) => host.storeOfControlCall(call.ns),
    validateResponses,
  });
  const answerApi = dispatch({
    handlers: deps.api.handlers,
    contextOf: (call) => new OperationContext(call, deps.services),
    recordedIn: (call) => call.ns.store,
    validateResponses,
  });
  const namespace = selectNamespace(deps.namespaces); //              /ns/{name}/ prefix or x-sandbox-namespace
  // The namespace host serves the namespace before anything reads it (a shared sandbox: only its owner does, taking the
  // lease of one that exists or waiting for a handover, else 503); a new one is made only for a caller it knows (503 at
  // the cap), by the host. At the root, health, metrics and what spans namespaces need no owner.
  const [own, ownControl] = [ownNamespace(host), ownNamespace(host, servedByAnyNode)];
  const [admit, admitControl] = [admitNamespace(host), admitNamespace(host, servedByAnyNode)];

  const exposeHeaders = ['x-request-id', 'retry-after', 'x-sandbox-scenario', 'x-sandbox-node'];
  const firstSteps = [
    identified,
    logged,
    checkHost(hostRuleOf(config)), //                           403 for a Host not served (DNS rebinding), every route
    refuseOwnDeliveries(), //                                   403 for a webhook delivery of a sandbox (a loop through a proxy), every route
  ];
  // Browser SDKs (Embed) call the API too, from pages the developer runs (loopback, --cors-origin): 403 for other pages; 413 before a large body is buffered.
  const everyRequest = [...firstSteps, corsForApi(corsRuleOf(config), exposeHeaders), limitBodySize(config.bodyLimitBytes)];
  // The control API and the console: 403 for a page of another origin (before anything acts), CORS only for --allowed-origin.
  const { allowedOrigins } = config;
  const ownOrigin = (navigations: boolean) => [
    ownOriginOnly({ allowedOrigins, navigations }),
    ...(allowedOrigins.length ? [corsForBrowsers(exposeHeaders, allowedOrigins)] : []),
  ];

  // Documents and their pages: no operation document describes them, so plain Hono routes.
  const noFraming = refuseFraming(); //                       HTML pages: CSP frame-ancestors and X-Frame-Options (no clickjacking)
  const documentSteps = [...firstSteps, noFraming, corsForBrowsers(exposeHeaders, '*'), limitBodySize(config.bodyLimitBytes)];
  app.route('/', docsRoutes(documentSteps.map(asMiddleware))); // /docs, /openapi.json, /openapi.admin.json: no auth, not journaled

  // The console's pages (HTML, plain Hono routes like /docs): its content behind the admin token, read through the control API's handlers.
  // Its shells and files hold no data: only its parts, past the admin token, need the namespace's owner (they never create it).
  const consoleDeps = { control: { handlers: deps.admin.handlers, deps: deps.admin.deps }, apiOperations: deps.api.spec.operations, version: deps.version };
  const consoleParts = [requireAdminToken(config.adminToken), own].map(asMiddleware);
  app.route('/', consoleRoutes(consoleDeps, [...firstSteps, noFraming, ...ownOrigin(true), namespace].map(asMiddleware), every(...consoleParts)));

  // The hosted pages a buyer's browser opens (approval_url, default_completion_url): no admin token, journaled like API
  // calls. The app under test sends the buyer there (a navigation from its origin); the page's own form posts back.
  const hostedSteps = [...firstSteps, noFraming, ...ownOrigin(true), limitBodySize(config.bodyLimitBytes), namespace, own, journal];
  app.route('/', hostedRoutes(hostedSteps.map(asMiddleware)));

  // The control API (openapi.admin.json): the same pipeline, behind the admin token, not journaled.
  const controlSteps = [
    ...firstSteps,
    ...ownOrigin(false), //                                      403 for another origin's page, CORS for --allowed-origin
    limitBodySize(Math.max(config.bodyLimitBytes, CONTROL_BODY_LIMIT)), // a whole namespace's state may be many MB
    namespace,
    requireAdminToken(config.adminToken), //                    401/403 when a token is required
    matchControl, //                                            operation from openapi.admin.json, else 404/405
    ownControl, //                                              the host serves the namespace (at the root: health, metrics, ... need none)
    admitControl,
    validate(), //                                              400 with one detail per problem
  ];
  app.all('/_sandbox/*', pipeline(controlSteps, answerControl, onError));

  // Every other request is an API call (openapi.json).
  const apiSteps = [
    ...everyRequest,
    namespace,
    own, //                                                     the host serves the namespace
    ...compared, //                                             --upstream --compare: once journaled, the call goes to the compare worker
    journal, //                                                 every API request and its response
    checkScenarios, //                                          400 for unknown x-sandbox-scenario names or a Prefer: code that cannot be
    matchApi, //                                                operation from openapi.json, else 404/405
    ...upstreamAnswers, //                                      --upstream, record mode: the upstream answers
    authenticated, //                                           400 misnamed merchant header, 401 token
    admit,
    authorize(), //                                            403 scope, 403 merchant account
    injectScenario(), //                                        x-sandbox-scenario, Prefer: code=, active scenarios (400: none applies)
    validate(), //                                              400 with one detail per problem
  ];
  app.all('*', pipeline(apiSteps, answerApi, onError));

  app.onError((err, c) => onError(err, callOf(c))); // the docs routes' errors
  return app;
}
