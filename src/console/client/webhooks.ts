// The Webhooks page in the browser: deliveries are made after the API call that caused them has
// been answered, and retried later, so the page brings its list of deliveries up to date by itself
// (every 2 seconds while its box is ticked and the tab is shown), swapping it only when it changed
// and keeping the focus where it was. Everything else on the page is plain data-api actions.
import { controlHeaders } from './api.js';
import { focusKey, restoreFocus } from './focus.js';

const EVERY_MS = 2000;
let timer: number | undefined;

export function startWebhooks(root: HTMLElement): void {
  window.clearInterval(timer);
  timer = undefined;
  const region = root.querySelector<HTMLElement>('#deliveries');
  const follow = root.querySelector<HTMLInputElement>('#deliveries-follow');
  if (!region || !follow) return;
  const url = region.dataset.part as string;
  let busy = false;
  // The server's text of the list, to compare with (the first update may swap it once for the same content).
  let shown = '';

  /** Reads the list again; `asked`: the Refresh button, whatever the box says. */
  const update = async (asked = false) => {
    if (busy || !region.isConnected || (!asked && (!follow.checked || document.visibilityState !== 'visible'))) return;
    busy = true;
    try {
      const res = await fetch(url, { headers: controlHeaders() });
      if (!res.ok) return; // the next page load shows why (the token form, an error line)
      const html = await res.text();
      if (html === shown) return;
      const focused = focusKey(region);
      region.innerHTML = html;
      shown = html;
      restoreFocus(region, focused);
    } catch {
      // The sandbox stopped: the list stays as it was.
    } finally {
      busy = false;
    }
  };
  // A delivery opened from the list (or from the Clock page) is below it: go there.
  if (new URLSearchParams(location.search).has('delivery')) document.getElementById('delivery-title')?.focus();
  timer = window.setInterval(() => void update(), EVERY_MS);
  root.querySelector('#deliveries-refresh')?.addEventListener('click', () => void update(true));
}
