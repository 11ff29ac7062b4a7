// What the console's pages are given. The console reads through the control API's own handlers
// (so it shows exactly what the API would answer) and changes nothing itself: every action in the
// browser is a request to the documented control API.
import type { Child } from 'hono/jsx';
import type { AdminDeps, AdminHandlerMap } from '../admin/types.js';
import type { Call } from '../http/call.js';
import type { Operation } from '../spec/operations.js';

/** What the console needs of the sandbox (built in app.ts from its deps). */
export interface ConsoleDeps {
  /** The control API's handlers and what they are given: pages read through them. */
  control: { handlers: AdminHandlerMap; deps: AdminDeps };
  /** The API's operations (filters, scopes). */
  apiOperations: readonly Operation[];
  version: string;
}

/** One request for a page or a fragment of one. */
export interface ConsoleView {
  deps: ConsoleDeps;
  call: Call;
  /** The query of the page's address (filters, the selected collection or record). */
  query: URLSearchParams;
  /** '' at the root, or /ns/{name} when the console was opened through a namespace: every address it makes starts with it. */
  base: string;
}

/** A page of the console: a module, listed in the navigation by PAGES (pages.ts). */
export interface ConsolePage {
  /** Its address: /_sandbox/console/{slug}. */
  slug: string;
  title: string;
  /** What the page is for, in a line under its title. */
  summary: string;
  /** Its content, read through the control API's handlers. */
  render(view: ConsoleView): Child | Promise<Child>;
  /** Parts it loads on demand (a request's detail), under /_sandbox/console/parts/{slug}/{name}. */
  fragments?: Record<string, (view: ConsoleView) => Child | Promise<Child>>;
}
