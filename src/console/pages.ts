// The console's pages, in the order the navigation lists them; the first is where it opens. A new
// page is a module in pages/ and one line here.
import { approvalsPage } from './pages/approvals.js';
import { clockPage } from './pages/clock.js';
import { namespacesPage } from './pages/namespaces.js';
import { recordsPage } from './pages/records.js';
import { requestsPage } from './pages/requests.js';
import { scenariosPage } from './pages/scenarios.js';
import { webhooksPage } from './pages/webhooks.js';
import type { ConsolePage } from './types.js';

export const PAGES: readonly ConsolePage[] = [requestsPage, scenariosPage, clockPage, recordsPage, webhooksPage, approvalsPage, namespacesPage];

export function pageBySlug(slug: string): ConsolePage | undefined {
  return PAGES.find((page) => page.slug === slug);
}
