// Keeping the keyboard focus where it was when part of a page is made again (after an action, or a
// list brought up to date): a control is found again by its id, or by what it is and says.

/** Something to find the same control by once `root`'s content is made again; null when the focus is elsewhere. */
export function focusKey(root: HTMLElement): string | null {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el)) return null;
  if (el.id) return `#${el.id}`;
  return keyOf(el);
}

function keyOf(el: Element): string {
  return `${el.tagName}|${el.getAttribute('data-api') ?? ''}|${el.getAttribute('name') ?? ''}|${el.getAttribute('href') ?? ''}|${el.textContent?.trim() ?? ''}`;
}

/** Puts the focus back on the control `key` names, if `root` still has it. */
export function restoreFocus(root: HTMLElement, key: string | null): void {
  if (!key) return;
  if (key.startsWith('#')) {
    document.getElementById(key.slice(1))?.focus();
    return;
  }
  for (const el of root.querySelectorAll<HTMLElement>('button, input, select, textarea, a, summary')) {
    if (keyOf(el) === key) {
      el.focus();
      return;
    }
  }
}
