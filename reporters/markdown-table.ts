/** A table cell: pipes escaped, line breaks as `<br>`. */
export function markdownCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>')
}

/** A GitHub-flavoured Markdown table; `align` per column: left, right or centre. */
export function markdownTable(
  header: readonly string[],
  align: readonly ('l' | 'r' | 'c')[],
  rows: readonly string[][],
): string {
  const rule = align.map((a) => (a === 'r' ? '--:' : a === 'c' ? ':-:' : '---'))
  return [header, rule, ...rows]
    .map((row, index) => `| ${(index === 1 ? row : row.map(markdownCell)).join(' | ')} |`)
    .join('\n')
}
