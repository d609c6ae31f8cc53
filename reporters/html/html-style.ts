/** The report's stylesheet (inline: the file must open without network). */
export const HTML_REPORT_STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --panel: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --inconclusive: #9a6700; --skipped: #59636e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0; display: flex; align-items: center; gap: 10px; flex-wrap: wrap; }
h3 { font-size: 15px; margin: 22px 0 8px; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
.subtitle { color: var(--muted); margin: 0 0 20px; }
.interrupted { border-left: 4px solid var(--inconclusive); padding: 6px 12px; background: var(--panel); margin: 0 0 20px; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 10px; font-size: 12px; font-weight: 600; color: #fff; text-transform: uppercase; letter-spacing: .03em; }
.badge.pass { background: var(--pass); } .badge.fail { background: var(--fail); }
.badge.inconclusive { background: var(--inconclusive); } .badge.skipped, .badge.measured { background: var(--skipped); }
.status-pass { color: var(--pass); } .status-fail { color: var(--fail); font-weight: 600; }
.status-inconclusive { color: var(--inconclusive); }
section.bench { border: 1px solid var(--line); border-radius: 10px; padding: 18px 20px; margin: 24px 0; }
.facts { color: var(--muted); margin: 6px 0 14px; }
.file { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; }
.card { background: var(--panel); border-radius: 8px; padding: 10px 12px; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .delta { font-size: 12px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 10px; text-align: left; vertical-align: top; }
th { font-weight: 600; background: var(--panel); }
td.num, th.num { text-align: right; }
.table-wrap { overflow-x: auto; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 18px; margin-top: 8px; }
figure.chart { margin: 0; }
figcaption { display: flex; flex-direction: column; margin-bottom: 4px; }
.chart-title { font-weight: 600; }
.chart-note { color: var(--muted); font-size: 12px; }
svg { max-width: 100%; height: auto; }
svg .grid { stroke: #eaeef2; stroke-width: 1; }
svg .axis { stroke: #8c959f; stroke-width: 1; }
svg .tick { fill: var(--muted); font-size: 11px; }
svg .axis-label { fill: var(--fg); font-size: 12px; }
svg .series { fill: none; stroke-width: 2; stroke-linejoin: round; stroke-linecap: round; }
svg .marker-label { fill: var(--fg); font-size: 11px; }
svg .marker-label.emphasis { font-weight: 600; }
svg .empty { fill: var(--muted); font-size: 13px; }
.legend { display: flex; gap: 14px; flex-wrap: wrap; color: var(--muted); font-size: 12px; margin-top: 2px; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; }
.inventory { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 18px; }
.inventory td:first-child { color: var(--muted); white-space: nowrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.inventory td { word-break: break-word; }
pre.failure { background: #fff1f0; border: 1px solid #ffcecb; border-radius: 8px; padding: 10px 12px; white-space: pre-wrap; font-size: 12px; }
.warning { background: #fff8c5; border: 1px solid #eed888; border-radius: 8px; padding: 6px 10px; margin: 8px 0; }
.note { color: var(--muted); font-size: 12px; }
.judge-note { border-left: 3px solid var(--line); padding: 2px 10px; margin: 6px 0; }
h2 .kind { color: var(--muted); font-size: 13px; font-weight: 400; }
.answer { border-left: 4px solid #0969da; background: var(--panel); padding: 8px 14px; margin: 10px 0 14px; }
.answer .headline { margin: 2px 0; font-size: 16px; font-weight: 600; }
.answer .reasons { margin: 4px 0; color: var(--fail); }
.answer-mark { color: #0969da; font-weight: 600; white-space: nowrap; }
.missed { color: var(--fail); font-size: 12px; white-space: nowrap; }
`

/**
 * A whole page of the HTML reports: one self-contained file (no script, no outside resource, as its
 * Content-Security-Policy says), `body` inside `<main>`. `title` is text (escaped by the caller).
 */
export function htmlDocument(title: string, body: string, extraStyle: string = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>${HTML_REPORT_STYLE}${extraStyle}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`
}
