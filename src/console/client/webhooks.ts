// The Webhooks page in the browser: deliveries are made after the API call that caused them has
// been answered, and retried later, so the page brings its list of deliveries and its inbox up to
// date by itself (every 2 seconds while each one's box is ticked and the tab is shown), swapping a
// part only when it changed and keeping the focus where it was. Everything else on the page is
// plain data-api actions.
import { controlHeaders } from './api.js';
import { focusKey, restoreFocus } from './focus.js';
import { labelStackedCells } from './stack.js';

const EVERY_MS = 2000;
let timers: number[] = [];

export function startWebhooks(root: HTMLElement): void {
  for (const timer of timers) window.clearInterval(timer);
  timers = [];
  follow(root, '#deliveries', '#deliveries-follow', '#deliveries-refresh');
  follow(root, '#inbox', '#inbox-follow', null);
  // A delivery opened from the list (or from the Clock page, or the inbox) is below it: go there.
  if (new URLSearchParams(location.search).has('delivery')) document.getElementById('delivery-title')?.focus();
}

/** Reads the part in `regionSelector` again every EVERY_MS while its box is ticked (and when its refresh button is pressed). */
function follow(root: HTMLElement, regionSelector: string, boxSelector: string, refreshSelector: string | null): void {
  const region = root.querySelector<HTMLElement>(regionSelector);
  const box = root.querySelector<HTMLInputElement>(boxSelector);
  if (!region || !box) return;
  const url = region.dataset.part as string;
  let busy = false;
  // The server's text of the part, to compare with (the first update may swap it once for the same content).
  let shown = '';

  /** Reads the part again; `asked`: the Refresh button, whatever the box says. */
  const update = async (asked = false) => {
    if (busy || !region.isConnected || (!asked && (!box.checked || document.visibilityState !== 'visible'))) return;
    busy = true;
    try {
      const res = await fetch(url, { headers: controlHeaders() });
      if (!res.ok) return; // the next page load shows why (the token form, an error line)
      const html = await res.text();
      if (html === shown) return;
      const focused = focusKey(region);
      const open = [...region.querySelectorAll('details[open]')].map((d) => d.closest('[data-notification]')?.getAttribute('data-notification'));
      region.innerHTML = html;
      shown = html;
      labelStackedCells(region);
      // A notification's headers and body the tester opened stay open.
      for (const id of open) if (id) region.querySelector(`[data-notification="${id}"] details`)?.setAttribute('open', '');
      restoreFocus(region, focused);
    } catch {
      // The sandbox stopped: the part stays as it was.
    } finally {
      busy = false;
    }
  };
  timers.push(window.setInterval(() => void update(), EVERY_MS));
  if (refreshSelector) root.querySelector(refreshSelector)?.addEventListener('click', () => void update(true));
}
