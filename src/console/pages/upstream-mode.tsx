// The upstream's mode in the Requests page (a sandbox started with --upstream URL, at the root: the
// mode is the whole sandbox's): the address, the mode now and a switch (PUT /_sandbox/upstream).
// The list below goes on live; the mode shown is the switch's answer.

import type { Child } from 'hono/jsx';
import { controlPath, controlRead } from '../read.js';
import type { ConsoleView } from '../types.js';
import { ApiForm, Select } from '../ui.js';

const MODES: Array<[string, string]> = [
  ['off', 'off: the sandbox answers, nothing is sent'],
  ['record', 'record: the upstream answers, the sandbox records'],
  ['compare', 'compare: the sandbox answers and compares with the upstream'],
];

export async function upstreamModePart(view: ConsoleView): Promise<Child> {
  if (!view.deps.control.deps.upstream || view.call.namespaceNamed) return null;
  const state: { url: string; mode: string } = await controlRead(view, 'getUpstream');
  return (
    <section id="upstream-mode" class="panel" aria-labelledby="upstream-mode-title">
      <h2 id="upstream-mode-title">Upstream</h2>
      <p id="upstream-mode-now" role="status">
        <code>{state.url}</code> mode <strong data-result-field="mode">{state.mode}</strong>
      </p>
      <ApiForm
        method="PUT"
        path={controlPath(view, '/upstream')}
        done="Upstream mode {mode}, from the next call on."
        label="Switch the upstream mode"
        id="upstream-mode-form"
        result="#upstream-mode-now"
      >
        <Select name="mode" id="upstream-mode-select" label="Mode" options={MODES} value={state.mode} />
        <div class="actions">
          <button type="submit">Switch</button>
        </div>
      </ApiForm>
    </section>
  );
}
