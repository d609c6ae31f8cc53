// The README was split into docs/ pages (issue 50): every relative link in the README, DEVELOPERS.md
// and docs/*.md must name a file that exists, so that nothing moved is left behind a dead link.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const pages = [
  'README.md',
  'DEVELOPERS.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** The relative targets of a page's Markdown links and images, without their `#fragment`; code blocks left out. */
function relativeTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  const targets: string[] = []
  for (const match of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? ''
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue
    targets.push(target.split('#')[0] ?? '')
  }
  return targets
}

describe('links between the pages', () => {
  test('the pages are found (README, DEVELOPERS and more than ten docs pages)', () => {
    expect(pages.length).toBeGreaterThan(12)
  })

  test.each(pages)('every relative link in %s names an existing file', (page) => {
    const dir = dirname(join(ROOT, page))
    const missing = relativeTargets(readFileSync(join(ROOT, page), 'utf8')).filter(
      (target) => !existsSync(join(dir, decodeURIComponent(target))),
    )
    expect(missing.map((target) => relative(ROOT, join(dir, target)))).toEqual([])
  })

  test('the check sees a dead link (a link to a page that does not exist is reported)', () => {
    expect(relativeTargets('[a](docs/none.md) [b](https://x.org) [c](#here) `[d](no.md)`')).toEqual(['docs/none.md'])
  })
})
