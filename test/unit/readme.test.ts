// The documentation is part of the interface. README.md is what a newcomer reads in five
// minutes; the depth lives in docs/. The error table (docs/errors.md) must match the
// catalogue, the configuration table (docs/configuration.md) must name every key, and no
// relative link may point to a file or heading that is not there: a moved section must not
// leave a dead link behind.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ERRORS } from '../../src/catalogue.ts';
import { ConfigSchema, configKeys } from '../../src/config/index.ts';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every Markdown file under docs/, as a path from the repository root. */
function docsFiles(dir = 'docs'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return docsFiles(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks and code spans: where a link can be. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/** Relative link targets of a Markdown file: inline links and reference definitions. */
function relativeLinks(markdown: string): string[] {
  const text = prose(markdown);
  const targets = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** What is wrong with one link of `from` (a path from the root), or undefined. */
function brokenLink(from: string, target: string): string | undefined {
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = rawPath === '' ? join(ROOT, from) : resolve(ROOT, dirname(from), decodeURIComponent(rawPath));
  if (!path.startsWith(ROOT)) return 'leaves the repository';
  if (!existsSync(path)) return `${relative(ROOT, path)} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(path).isDirectory() || !path.endsWith('.md')) return `#${anchor} on a file that is not Markdown`;
  return anchors(readFileSync(path, 'utf8')).has(anchor) ? undefined : `${relative(ROOT, path)} has no heading #${anchor}`;
}

describe('docs', () => {
  it('keeps the error table in docs/ in step with the catalogue', () => {
    const rows = [...read('docs/errors.md').matchAll(/^\| `(ERR_[A-Z0-9_]+)` \| (\d{3}) \| (yes|no) \|/gm)].map((m) => [m[1], Number(m[2]), m[3] === 'yes']);
    const catalogue = Object.entries(ERRORS).map(([code, spec]) => [code, spec.status, spec.retryable]);
    expect(rows.sort()).toEqual(catalogue.sort());
  });

  it('documents every configuration key in docs/configuration.md', () => {
    const configuration = read('docs/configuration.md');
    for (const key of configKeys(ConfigSchema)) expect(configuration, key).toContain(`| \`${key}\` |`);
  });
});

describe('the link check', () => {
  it('knows GitHub\'s heading anchors, and finds a missing file or heading', () => {
    expect([...anchors('# Rescue engine: attempts\n## The ack\'s keys\n```\n# not a heading\n```\n## Keys\n## Keys\n')]).toEqual(['rescue-engine-attempts', 'the-acks-keys', 'keys', 'keys-1']);
    expect(relativeLinks('[a](docs/a.md#x) `[b](no.md)` [c](https://example.com) <https://example.com>\n[d]: ../e.md\n')).toEqual(['docs/a.md#x', '../e.md']);
    expect(brokenLink('README.md', 'docs/README.md')).toBeUndefined();
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toBe('docs/no-such-page.md does not exist');
    expect(brokenLink('docs/README.md', '../README.md#no-such-heading')).toBe('README.md has no heading #no-such-heading');
  });
});

describe('README', () => {
  it('is 300 lines at most', () => {
    expect(read('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('and every page of docs/ link only to files and headings that exist', () => {
    expect(relativeLinks(read('README.md')).length).toBeGreaterThan(10);
    const broken = ['README.md', ...docsFiles()].flatMap((file) =>
      relativeLinks(read(file)).flatMap((target) => {
        const why = brokenLink(file, target);
        return why ? [`${file}: (${target}) ${why}`] : [];
      }));
    expect(broken).toEqual([]);
  });
});
