// Debian's Chromium driven by playwright-core, started as this workplace's machines need it: headless,
// and without the background connections a closed network refuses (see .ci/run, which installs it).
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The run's shared Chromium (browser-server.ts), or one of its own when the run started none or
 * `args` asks for more flags, e.g. `--host-resolver-rules=MAP evil.example 127.0.0.1` (a
 * public-looking name served from loopback). Closing a shared one closes the contexts this file
 * made and leaves the browser running.
 */
export function launchChromium(args: string[] = []): Promise<Browser> {
  const endpoint = inject('chromiumEndpoint');
  if (endpoint && args.length === 0) return chromium.connect(endpoint);
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args] });
}

export const AXE = join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js');

/** Where a page may go: 127.0.0.1, and what it made itself. */
const allowed = (url: URL) => url.hostname === '127.0.0.1' || url.protocol === 'blob:' || url.protocol === 'data:';

/**
 * A page that may only talk to 127.0.0.1 (by default also to what it made itself, blob: and data:),
 * collecting what it tried elsewhere and its errors. Only requests elsewhere are routed (and
 * aborted): routing a request bypasses the browser's cache, so a context that goes from page to page
 * would load and compile every script again. A failed load with a 4xx the test provokes on purpose
 * is not an error, unless `everyConsoleError`.
 */
export async function openPage(
  context: BrowserContext,
  { allow = allowed, everyConsoleError = false }: { allow?: (url: URL) => boolean; everyConsoleError?: boolean } = {},
): Promise<{ page: Page; blocked: string[]; errors: string[] }> {
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route(
    (url) => !allow(url),
    (route) => {
      blocked.push(route.request().url());
      return route.abort();
    },
  );
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    // Chromium logs an answer the test provokes on purpose (a 4xx) as a failed load: not a page error.
    const provoked = !everyConsoleError && /Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text());
    if (msg.type() === 'error' && !provoked) errors.push(msg.text());
  });
  return { page, blocked, errors };
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is: the violations, by rule and element.
 * `minPasses`: rules that must have passed, so that axe did look at the page (a small page passes fewer).
 */
export async function accessibilityViolations(page: Page, minPasses = 10): Promise<string[]> {
  const axeUrl = inject('axeUrl');
  await page.addScriptTag(axeUrl ? { url: axeUrl } : { content: readFileSync(AXE, 'utf8') });
  const result = await page.evaluate(async () => {
    const axe = (window as any).axe;
    const run = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return { passed: run.passes.length, violations: run.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`) };
  });
  expect(result.passed).toBeGreaterThan(minPasses);
  return result.violations as string[];
}

/**
 * A server on 127.0.0.1 answering every path with an empty HTML page: the page of another origin
 * a browser test opens (as 127.0.0.1, localhost, or a name mapped there with --host-resolver-rules).
 */
export async function servePlainPage(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a page</title><body></body>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
