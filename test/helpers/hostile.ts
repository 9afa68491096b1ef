// Hostile batch files, generated from a seed rather than listed: the next attacker tries the
// neighbours of whatever a test names. A case is a shape (many keys, long keys, long strings,
// deep nesting, wide arrays, many entries) put in a place (the header, the entries, or the
// additionalFields of valid entries), plain or gzip, grown to a target size. The CI test
// (test/integration/intake/hostile.test.ts) drives intake with small ones; the bench
// (`npm run bench -- hostile`) drops full-size ones on the real daemon.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { entry } from '../../samples/generate-batch.ts';
import { seeded as random } from './seeded.ts';

export const SHAPES = ['manyKeys', 'longKeys', 'longStrings', 'deepNesting', 'wideArrays', 'manyEntries'] as const;
export const PLACES = ['header', 'entries', 'additionalFields'] as const;
export type Shape = (typeof SHAPES)[number];
export type Place = (typeof PLACES)[number];

export interface HostileCase {
  seed: number;
  shape: Shape;
  place: Place;
  gzip: boolean;
  /** Unpacked bytes the file is grown to. */
  targetBytes: number;
}


const pick = <T,>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
const between = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

/** `count` cases from `seed`: every shape in every place first, then drawn at random. */
export function hostileCases(seed: number, count: number, targetBytes: number): HostileCase[] {
  const rnd = random(seed);
  const cases: HostileCase[] = [];
  for (let i = 0; i < count; i++) {
    const grid = i < SHAPES.length * PLACES.length;
    const shape = grid ? SHAPES[i % SHAPES.length]! : pick(rnd, SHAPES);
    const place = grid ? PLACES[Math.floor(i / SHAPES.length)]! : pick(rnd, PLACES);
    cases.push({ seed: Math.floor(rnd() * 2 ** 31), shape, place, gzip: rnd() < 0.5, targetBytes });
  }
  return cases;
}

/** One JSON value of the shape, about `bytes` long (a unit of the file: a header value, an entry's field). */
function value(shape: Shape, rnd: () => number, bytes: number): string {
  switch (shape) {
    case 'manyKeys': {
      const leaf = pick(rnd, ['0', '""', '[]', '{}', 'null', '"x"']);
      const n = Math.max(1, Math.floor(bytes / (8 + leaf.length)));
      return `{${Array.from({ length: n }, (_, i) => `"k${i}":${leaf}`).join(',')}}`;
    }
    case 'longKeys': {
      const len = between(rnd, 1, Math.max(1, bytes - 8));
      return `{"${'k'.repeat(len)}":0}`;
    }
    case 'longStrings':
      return JSON.stringify(pick(rnd, ['a', '\\u0041', '9', ' ']).repeat(Math.max(1, Math.floor(bytes / 2))));
    case 'deepNesting': {
      const depth = between(rnd, 8, Math.max(8, Math.floor(bytes / 2)));
      return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    }
    case 'wideArrays': {
      const item = pick(rnd, ['[]', '{}', '0', '0.5', '""', 'true']);
      return `[${Array(Math.max(1, Math.floor(bytes / (item.length + 1)))).fill(item).join(',')}]`;
    }
    case 'manyEntries':
      return pick(rnd, ['{}', '0', '[]', 'null', '""']);
  }
}

export interface FileIds {
  mid: string;
  siteId: string;
  authorizationToken: string;
  cardToken: string;
}

/** Writes the case's file to `path`: returns its unpacked size. Streams, so a full-size file never sits in memory. */
export async function writeHostileFile(path: string, c: HostileCase, ids: FileIds): Promise<number> {
  const rnd = random(c.seed);
  const file = createWriteStream(path);
  const gzip = c.gzip ? createGzip({ level: 1 }) : undefined;
  if (gzip) gzip.pipe(file);
  const out = gzip ?? file;
  let written = 0;
  // Buffered: a file of a million 2-byte entries must not take a million stream writes.
  let pending = '';
  const flush = async () => {
    if (pending && !out.write(pending)) await once(out, 'drain');
    pending = '';
  };
  const write = async (text: string) => {
    written += text.length;
    pending += text;
    if (pending.length >= 1 << 16) await flush();
  };
  const header = `"mid":${JSON.stringify(ids.mid)},"authorizationToken":${JSON.stringify(ids.authorizationToken)}`;
  // A unit: what one header value, entry or field holds; a few per file up to one per 64 KB.
  const unit = c.shape === 'manyEntries' ? 0 : between(rnd, 1024, 64 * 1024);
  const valid = (i: number) => entry(i, { entries: 0, mid: ids.mid, siteId: ids.siteId, authorizationToken: '', cardTokens: [ids.cardToken], runId: `h${c.seed}` });
  await write(`{${header},`);
  if (c.place === 'header') {
    // Long keys are the header's own keys; other shapes are the values of many keys.
    const key = (i: number) => (c.shape === 'longKeys' ? `x${i}${'k'.repeat(unit)}` : `x${i}`);
    for (let i = 0; written < c.targetBytes; i++) await write(`"${key(i)}":${c.shape === 'longKeys' ? '0' : value(c.shape, rnd, unit)},`);
    await write('"requests":[]}');
  } else {
    await write('"requests":[');
    for (let i = 0; written < c.targetBytes; i++) {
      let text: string;
      if (c.place === 'entries') text = value(c.shape, rnd, unit);
      else {
        const e = valid(i);
        e.additionalFields = [{ key: 'note', value: '__V__' }];
        text = JSON.stringify(e).replace('"__V__"', value(c.shape, rnd, unit));
      }
      await write(`${i ? ',' : ''}${text}`);
    }
    await write(']}');
  }
  await flush();
  out.end();
  await once(file, 'finish');
  return written;
}
