// The Requests page in the browser: the list from GET /_sandbox/requests?view=summary, new rows
// from GET /_sandbox/requests/stream (server-sent events, read with fetch so the admin token goes
// as a header), the filters as both requests' query, a row's detail as a part of the page, and
// the export as GET /_sandbox/requests?format=har.
import type { JournalSummary } from '../../journal/entry.js';
import { controlHeaders, isTokenProblem, say } from './api.js';

interface Htmx {
  ajax(method: string, url: string, options: { target: string | Element; swap?: string }): Promise<void>;
}
declare const htmx: Htmx;

type Summary = JournalSummary;

/** Rows kept on the page at most (the journal has the rest). */
const MAX_ROWS = 500;

/** Starts the page; returns what reads the list again (after the journal was cleared, say). */
export function startRequests(root: HTMLElement): () => void {
  const listUrl = root.dataset.requests as string;
  const entryUrl = root.dataset.entry as string;
  const form = root.querySelector('#request-filters') as HTMLFormElement;
  const rows = root.querySelector('#request-rows') as HTMLTableSectionElement;
  const live = root.querySelector('#live-state') as HTMLElement;
  const notice = root.querySelector('#requests-notice') as HTMLElement;
  const shown = new Set<string>();
  let session: AbortController | null = null;

  /** The filters as the journal's query. */
  function query(): URLSearchParams {
    const q = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      const text = String(value).trim();
      if (!text) continue;
      if (name === 'path_contains') q.set('path', `*${text}*`);
      else q.set(name, text);
    }
    return q;
  }

  function setLive(state: 'on' | 'off', text: string): void {
    live.className = `live ${state}`;
    live.textContent = text;
  }

  function row(entry: Summary, fresh: boolean): HTMLTableRowElement {
    const tr = document.createElement('tr');
    tr.dataset.key = `${entry.namespace}:${entry.id}`;
    if (fresh) tr.className = 'fresh';
    const cell = (text: string, className?: string) => {
      const td = document.createElement('td');
      td.textContent = text;
      if (className) td.className = className;
      tr.append(td);
      return td;
    };
    const time = cell(entry.timestamp.slice(11, 23), 'time');
    time.title = entry.timestamp;
    cell(entry.method);
    const pathCell = document.createElement('td');
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'open';
    const search = entry.url.includes('?') ? entry.url.slice(entry.url.indexOf('?')) : '';
    open.textContent = `${entry.path}${search}`;
    // The name holds the text shown (the path and its query), so speech input finds the button by what it reads.
    open.setAttribute('aria-label', `Open ${entry.method} ${entry.path}${search}, status ${entry.status}`);
    open.addEventListener('click', () => void openEntry(tr, entry));
    pathCell.append(open);
    if (form.elements.namedItem('namespace') && (form.elements.namedItem('namespace') as HTMLSelectElement).value === '*') {
      const ns = document.createElement('span');
      ns.className = 'muted';
      ns.textContent = ` ${entry.namespace}`;
      pathCell.append(ns);
    }
    tr.append(pathCell);
    const status = cell('');
    const badge = document.createElement('span');
    badge.className = `badge status-${Math.floor(entry.status / 100)}xx`;
    badge.textContent = String(entry.status);
    status.append(badge);
    cell(`${Math.round(entry.duration_ms * 10) / 10} ms`, 'num');
    const scenario = cell(entry.scenario ?? '');
    if (entry.outside_contract) {
      // A status the operation does not declare (infrastructure's 429 or 5xx): said in the row, not only in the detail.
      const mark = document.createElement('span');
      mark.className = 'badge outside';
      mark.textContent = 'outside the contract';
      scenario.append(' ', mark);
    }
    return tr;
  }

  function add(entry: Summary, position: 'top' | 'bottom'): void {
    const key = `${entry.namespace}:${entry.id}`;
    if (shown.has(key)) return;
    shown.add(key);
    if (position === 'top') rows.prepend(row(entry, true));
    else rows.append(row(entry, false));
    while (rows.rows.length > MAX_ROWS) {
      const last = rows.rows[rows.rows.length - 1];
      shown.delete(last.dataset.key as string);
      last.remove();
    }
  }

  async function openEntry(tr: HTMLTableRowElement, entry: Summary): Promise<void> {
    for (const selected of rows.querySelectorAll('tr[aria-selected]')) selected.removeAttribute('aria-selected');
    tr.setAttribute('aria-selected', 'true');
    const q = new URLSearchParams({ namespace: entry.namespace, id: String(entry.id) });
    await htmx.ajax('GET', `${entryUrl}?${q}`, { target: '#request-detail', swap: 'innerHTML' });
    document.getElementById('detail-title')?.focus();
  }

  /** Follows the stream until it breaks or `signal` aborts (then it stops at once, mid-batch too). */
  async function follow(q: URLSearchParams, signal: AbortSignal, connected: () => void): Promise<void> {
    const res = await fetch(`${listUrl}/stream?${q}&view=summary`, { headers: controlHeaders(), signal });
    if (!res.ok || !res.body) {
      let body: any = null;
      try {
        body = await res.json();
      } catch {}
      if (isTokenProblem(res.status, body)) document.body.dispatchEvent(new CustomEvent('sandbox:login', { detail: { status: res.status, body } }));
      throw new Error(body?.message ?? `the stream answered ${res.status}`);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!name) continue;
        const payload = data ? JSON.parse(data) : null;
        if (name === 'ready') connected();
        else if (name === 'request') add(payload as Summary, 'top');
        else if (name === 'dropped') {
          notice.hidden = false;
          // Not sent on this stream: the journal has them. Dropped by a full journal: gone, nothing to reload.
          notice.textContent = payload.reason === 'journal_full' ? payload.message : `${payload.message} Reload the list to see them.`;
        } else if (name === 'reload') void load();
        if (signal.aborted) return; // load() started over (a reload, or live again after a break)
      }
    }
  }

  /** Reads the list again and follows it live, with the filters as they are now. */
  async function load(): Promise<void> {
    session?.abort();
    const own = new AbortController();
    session = own;
    rows.replaceChildren();
    shown.clear();
    notice.hidden = true;
    setLive('off', 'Connecting…');
    const q = query();
    // A comparison comes after its request's answer: the upstream filter reads the list, and is not live.
    if (q.has('upstream')) {
      setLive('off', 'Not live: comparisons with the upstream come after each answer; change a filter to read again');
      await list(q, own);
      return;
    }
    // Follow first, then read: what arrives in between is in both, and shown once. A stream that
    // breaks (or never connects) is tried again each second; once one is live after that, the list
    // is read again from the start (load()), since requests recorded while none was live would
    // otherwise never show.
    const ready = new Promise<void>((resolve) => {
      const stream = async () => {
        for (let attempt = 0; !own.signal.aborted; attempt++) {
          try {
            await follow(q, own.signal, () => {
              if (attempt > 0) return void load(); // live again: read what the break missed
              setLive('on', 'Live');
              resolve();
            });
          } catch (err) {
            if (own.signal.aborted) return;
            setLive('off', `Not live (${(err as Error).message}); retrying…`);
            resolve();
            await new Promise((r) => setTimeout(r, 1000));
          }
        }
      };
      void stream();
    });
    await ready;
    await list(q, own);
  }

  /** The journal's newest entries that match, below those already shown. */
  async function list(q: URLSearchParams, own: AbortController): Promise<void> {
    if (own.signal.aborted) return;
    const res = await fetch(`${listUrl}?${q}&view=summary&limit=200`, { headers: controlHeaders(), signal: own.signal }).catch(() => null);
    if (!res) return;
    const body = await res.json();
    if (!res.ok) {
      say(`${res.status}: ${body?.message ?? 'the journal could not be read'}`, true);
      return;
    }
    for (const entry of body.items as Summary[]) add(entry, 'bottom');
    (root.querySelector('#requests-table caption') as HTMLElement).textContent =
      body.total > body.items.length
        ? `Requests, newest first: the newest ${body.items.length} of ${body.total} in the journal, and new ones as they come`
        : 'Requests, newest first, new ones added as they come';
  }

  form.addEventListener('change', () => {
    const q = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
    for (const [name, value] of [...q]) if (!value) q.delete(name);
    history.replaceState(null, '', `${location.pathname}${q.size ? `?${q}` : ''}`);
    void load();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });

  root.querySelector('#export-har')?.addEventListener('click', async () => {
    const res = await fetch(`${listUrl}?${query()}&format=har&limit=10000`, { headers: controlHeaders() });
    if (!res.ok) {
      say(`Export failed: ${res.status}`, true);
      return;
    }
    const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'sandbox-requests.har';
    const link = document.createElement('a');
    link.href = URL.createObjectURL(await res.blob());
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    say(`Exported ${name}.`);
  });

  void load();
  return () => void load();
}
