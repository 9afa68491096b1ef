// Card numbers for tests of the card-number detector: generated from a seed (the same seed
// gives the same numbers), Luhn-valid, written in each spelling people and programs use.
import { luhnValid } from '../../src/vault/pan.ts';



/** A Luhn-valid number of `length` digits starting with `prefix` (random digits otherwise). */
export function luhnNumber(random: () => number, length: number, prefix = String(1 + Math.floor(random() * 9))): string {
  let body = prefix;
  while (body.length < length - 1) body += String(Math.floor(random() * 10));
  for (let check = 0; check <= 9; check++) if (luhnValid(body + check)) return body + check;
  throw new Error('unreachable: one check digit always fits');
}

export const SPELLINGS = [
  'plain', 'in groups of four', 'with runs of spaces', 'with tabs', 'with dashes', 'with dots', 'with slashes',
  'as JSON escapes', 'in full-width digits', 'in full-width UTF-8 read as latin1', 'mixed',
] as const;
export type Spelling = (typeof SPELLINGS)[number];

const groups = (pan: string) => pan.match(/.{1,4}/g)!;
const escaped = (d: string) => `\\u003${d}`;
const fullWidth = (d: string) => String.fromCharCode(0xff10 + Number(d));
const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

/** `pan` written in `spelling`; `random` varies the runs of spaces and the mixed spelling. */
export function spell(pan: string, spelling: Spelling, random: () => number): string {
  switch (spelling) {
    case 'plain': return pan;
    case 'in groups of four': return groups(pan).join(' ');
    case 'with runs of spaces': return groups(pan).map((g, i) => (i ? ' '.repeat(2 + Math.floor(random() * 4)) : '') + g).join('');
    case 'with tabs': return groups(pan).join('\t');
    case 'with dashes': return groups(pan).join('-');
    case 'with dots': return groups(pan).join('.');
    case 'with slashes': return groups(pan).join('/');
    case 'as JSON escapes': return [...pan].map(escaped).join('');
    case 'in full-width digits': return [...pan].map(fullWidth).join('');
    case 'in full-width UTF-8 read as latin1': return Buffer.from([...pan].map(fullWidth).join(''), 'utf8').toString('latin1');
    case 'mixed': {
      const digit = (d: string) => pick(random, [d, escaped(d), fullWidth(d)]);
      const gap = () => pick(random, ['  ', '\t', ' - ', '.', '/', ' ', '\\u0020']);
      return groups(pan).map((g) => [...g].map(digit).join('')).join(gap());
    }
  }
}
