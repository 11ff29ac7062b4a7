// Tables with actions become stacked cards on a narrow window (console.css, table.stack): each cell
// then says which column it is from, so its header is copied into it here (data-label), after every
// swap of content that may hold such a table. A table left to scroll sideways inside its frame (the
// records, with many columns) gets its frame focusable, so a keyboard can scroll it too.
export function labelStackedCells(root: ParentNode): void {
  for (const table of root.querySelectorAll<HTMLTableElement>('table.stack')) {
    const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
    for (const row of table.querySelectorAll('tbody tr')) {
      [...row.children].forEach((cell, i) => {
        if (headers[i]) cell.setAttribute('data-label', headers[i]);
      });
    }
  }
}

/** Frames (.table-wrap) whose table is wider than they are: focusable, named by the table's caption or the section's heading. */
export function focusableScrollFrames(root: ParentNode): void {
  for (const frame of root.querySelectorAll<HTMLElement>('.table-wrap')) {
    if (frame.scrollWidth > frame.clientWidth + 1) {
      const name = frame.querySelector('caption')?.textContent ?? frame.closest('section')?.querySelector('h2, h3')?.textContent ?? 'Table';
      frame.tabIndex = 0;
      frame.setAttribute('role', 'region');
      frame.setAttribute('aria-label', `${name.trim()} (scrolls sideways)`);
    } else if (frame.hasAttribute('tabindex')) {
      frame.removeAttribute('tabindex');
      frame.removeAttribute('role');
      frame.removeAttribute('aria-label');
    }
  }
}
