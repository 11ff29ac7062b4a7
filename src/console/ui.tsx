// Small pieces every page uses. Actions are plain buttons and forms that name the control API
// request they make (data-api="METHOD path"): the console's script sends it with the admin token,
// shows the answer's errors next to the fields they name, and refreshes the page's content.
import type { Child } from 'hono/jsx';

/** JSON as an indented block, for bodies and records: a named region, focusable so that the keyboard scrolls it. */
export function JsonBlock(props: { value: unknown; label: string }) {
  const text = typeof props.value === 'string' ? props.value : JSON.stringify(props.value, null, 2);
  return (
    <section class="code" aria-label={props.label}>
      <pre class="json" tabindex={0}>
        {text}
      </pre>
    </section>
  );
}

/** A button making one control API request with a fixed JSON body (or none); `label`: its name for screen readers when its text alone is not enough (it starts with the text). */
export function ApiButton(props: { method: string; path: string; body?: unknown; done: string; children: Child; class?: string; id?: string; label?: string }) {
  return (
    <button
      type="button"
      id={props.id}
      class={props.class}
      aria-label={props.label}
      data-api={`${props.method} ${props.path}`}
      data-json={props.body === undefined ? undefined : JSON.stringify(props.body)}
      data-done={props.done}
    >
      {props.children}
    </button>
  );
}

/**
 * An ApiButton behind a confirm step, for what cannot be undone (drop a namespace, clear its
 * journal): the first click (`children`, shown with "…") only reveals "`confirm` now" and "Keep it"
 * beside it, as a record's Delete does; the script (console.ts) moves the focus between them.
 */
export function ConfirmedApiButton(props: { method: string; path: string; body?: unknown; done: string; children: string; confirm: string }) {
  return (
    <span class="confirmable">
      <button type="button" data-confirm-start aria-expanded="false">
        {props.children}…
      </button>
      <span data-confirm hidden>
        <ApiButton method={props.method} path={props.path} body={props.body} done={props.done} class="danger">
          {props.confirm} now
        </ApiButton>
        <button type="button" data-confirm-cancel>
          Keep it
        </button>
      </span>
    </span>
  );
}

/**
 * A form whose fields make the JSON body of one control API request (each named field, typed by
 * its data-type: number, boolean, json, or text; an empty optional field is left out). Errors of
 * the answer appear in the form's alert line and next to the field they point at. `done` may name
 * fields of the answer: "Scenario {name} saved".
 */
export function ApiForm(props: {
  method: string;
  path: string;
  done: string;
  children: Child;
  label: string;
  id?: string;
  class?: string;
  result?: string;
  /** Which of the script's builders makes the request, when the body is not simply the fields (the scenario forms). */
  build?: string;
}) {
  return (
    <form
      id={props.id}
      class={props.class ?? 'api-form'}
      data-api={`${props.method} ${props.path}`}
      data-done={props.done}
      data-result={props.result}
      data-build={props.build}
      aria-label={props.label}
    >
      {props.children}
      <p class="form-error" data-errors role="alert" />
    </form>
  );
}

/** A labelled input with the place its error appears. */
export function Field(props: {
  name: string;
  label: string;
  id: string;
  type?: string;
  value?: string;
  placeholder?: string;
  required?: boolean;
  dataType?: string;
  hint?: string;
}) {
  const errorId = `${props.id}-error`;
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        placeholder={props.placeholder}
        required={props.required}
        data-type={props.dataType}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ')}
      />
      {props.hint ? (
        <span class="hint" id={hintId}>
          {props.hint}
        </span>
      ) : null}
      <span class="field-error" id={errorId} data-error-for={props.name} />
    </div>
  );
}

/** A labelled select. */
export function Select(props: { name: string; label: string; id: string; options: Array<[value: string, label: string]>; value?: string; dataType?: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name} data-type={props.dataType} aria-describedby={`${props.id}-error`}>
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
      <span class="field-error" id={`${props.id}-error`} data-error-for={props.name} />
    </div>
  );
}

/** A table's header row: one column heading each. */
export function TableHead(props: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => (
          <th scope="col">{column}</th>
        ))}
      </tr>
    </thead>
  );
}

/** A note in place of content (nothing to show, a namespace not created yet). */
export function Note(props: { children: Child }) {
  return <p class="note">{props.children}</p>;
}

/** An instant's text as the console shows it: RFC 3339 in UTC, the way the API writes it, to the second. */
export const instantText = (value: string) => value.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

/** An instant as the console shows it (instantText), machine-readable too. */
export function Instant(props: { value: string | null | undefined }) {
  if (!props.value) return <span class="muted">none</span>;
  return <time datetime={props.value}>{instantText(props.value)}</time>;
}

/** How far `toMs` is from `fromMs`, in the largest units: "in 3 h 20 min", "2 d ago". */
export function relative(fromMs: number, toMs: number): string {
  const diff = toMs - fromMs;
  const abs = Math.abs(diff);
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  const parts: string[] = [];
  let rest = abs;
  for (const [size, name] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  const text = parts.length ? parts.join(' ') : `${abs} ms`;
  return diff >= 0 ? `in ${text}` : `${text} ago`;
}

/** The box of a part the page reads again by itself (client/webhooks.ts), ticked at first. */
export function FollowBox(props: { id: string }) {
  return (
    <span class="checkbox">
      <input type="checkbox" id={props.id} checked />
      <label for={props.id}>Update every 2 seconds</label>
    </span>
  );
}

/**
 * A secret shown masked (its last 4 characters), with Show and Copy buttons (client/console.ts):
 * a table of subscriptions stays readable, and a secret is not on screen unless asked for.
 */
export function Secret(props: { id: string; value: string; what: string }) {
  return (
    <span class="secret-box">
      <code class="masked">{`••••${props.value.slice(-4)}`}</code>
      <code class="secret" id={props.id} hidden>
        {props.value}
      </code>{' '}
      <button
        type="button"
        class="small"
        data-reveal={`#${props.id}`}
        data-what={props.what}
        aria-controls={props.id}
        aria-expanded="false"
        aria-label={`Show ${props.what}`}
      >
        Show
      </button>
      <button type="button" class="small" data-copy={`#${props.id}`} aria-label={`Copy ${props.what}`}>
        Copy
      </button>
    </span>
  );
}
