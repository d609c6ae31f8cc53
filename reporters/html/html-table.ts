import { escapeHtml } from './escape-html.ts'

/**
 * A table of the HTML report: `header` as text (escaped here), `rows` as HTML (escaped by the
 * caller); the columns in `numeric` are right-aligned.
 */
export function htmlTable(
  header: readonly string[],
  rows: readonly string[][],
  numeric: ReadonlySet<number> = new Set(),
): string {
  const head = header
    .map((text, column) => `<th${numeric.has(column) ? ' class="num"' : ''}>${escapeHtml(text)}</th>`)
    .join('')
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((text, column) => `<td${numeric.has(column) ? ' class="num"' : ''}>${text}</td>`).join('')}</tr>`,
    )
    .join('')
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`
}
