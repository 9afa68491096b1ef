// The one card-number detector: every place that must find a card number in text — the scan of
// a batch file's raw bytes, the scrub of a request before it is stored, log lines, ack and
// results files, webhooks, the tests' card-data sweep — asks this file. A card number is a run
// of 13–19 digits that passes Luhn, written as people and programs write it:
//  - digits: ASCII, full-width (U+FF10–FF19, also as the UTF-8 bytes of a file read as
//    latin1), and JSON escapes (`\u0035`, any number of backslashes, so a value escaped twice
//    is read as the parsed value would be);
//  - between two digits: any run of spaces and tabs (also NBSP, U+3000, `\t`, `\u0020`) with at
//    most one dash, dot or slash in it (ASCII, U+2010–2015, `\/`, `\u002d`). Two punctuation
//    marks in a row (`4111--1111`) end the run: nobody writes a card number that way.
// A run glued to a letter (`ORD-4111…`, a UUID's or hex id's groups `…7a-1662-4900-…`) is an
// identifier, not a card number: the groups joined to the letter without a space are skipped.
// A run longer than 19 digits can hold a card number beside other groups (`4111 1111 1111 1111
// 12 2029`): every stretch of its consecutive groups holding 13–19 digits is tried, and readings
// that overlap are masked as one.
// Text is searched in two steps: a regex finds the stretches with at least 13 digits (the
// engine skips everything else fast), then a small tokenizer reads each stretch exactly.
// No imports beyond the PAN helpers, so the logger, the domain and intake can all use it.
import { isIssuedCardNumber, maskPan } from './vault/pan.ts';
import { code, digitOf, gluedAfter, gluedBefore, isPunct, isSpace, read } from './card-text.ts';

export { isIssuedCardNumber } from './vault/pan.ts';

export interface CardNumberAt {
  /** Where the number's first digit starts and its last digit ends, in the text searched. */
  start: number;
  end: number;
  /** Its digits, ASCII. */
  digits: string;
}

// A digit written otherwise than as one character: full-width as UTF-8 read as latin1, or a
// JSON escape of an ASCII or full-width digit.
const MULTI_DIGIT = String.raw`\u00ef\u00bc[\u0090-\u0099]|\\+u(?:003[0-9]|[Ff][Ff]1[0-9])`;
const DIGIT = String.raw`(?:[0-9\uff10-\uff19]|${MULTI_DIGIT})`;
// One-character separators, and those written otherwise (UTF-8 read as latin1, JSON escapes).
const SEPARATOR = String.raw`[ \t\u00a0\u3000\-./\u2010-\u2015]`;
const MULTI_SEPARATOR = String.raw`(?:\u00c2\u00a0|\u00e2\u0080[\u0090-\u0095]|\u00e3\u0080\u0080|\\+[t/]|\\+u(?:00(?:20|09|[Aa]0|2[DdEeFf])|201[0-5]|3000))`;
// Where a stretch may start: not at a later digit of a stretch already tried (its count of
// digits can only be smaller): without this a date like 2026-11-27 would be searched from each
// of its eight digits. A start among an escape's hex digits (`\u0020` before a number) is
// moved back to the escape by the tokenizer.
const START = String.raw`(?:(?<![0-9][ \t\-./]*)[0-9\uff10-\uff19]|${MULTI_DIGIT})`;
// A stretch of at least 13 digits with separators between them: where a card number can be.
// Anything may stand between two digits here (the tokenizer then applies the exact rule); the
// plain digit and the plain separator are tried first, as V8's regex engine then takes the
// usual text fastest (measured: 600 MB/s against 550 for one alternation of every form).
const STRETCH = new RegExp(
  `${START}(?:[0-9\\uff10-\\uff19]|${SEPARATOR}+(?:${MULTI_SEPARATOR}${SEPARATOR}*)*${DIGIT}|(?:${MULTI_SEPARATOR}${SEPARATOR}*)+${DIGIT}|${MULTI_DIGIT}){12,}`,
  'g',
);

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;

interface Group {
  start: number;
  end: number;
  /** Its digits, ASCII: the first MAX_DIGITS + 1 of them (a longer group is in no card number). */
  digits: string;
  /** How many digits it has. */
  count: number;
  /** Whether the join before this group holds a space (a join of punctuation alone glues). */
  spaced: boolean;
}

const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

/**
 * The card numbers among one run's groups: every stretch of consecutive groups of 13–19 digits
 * that passes Luhn (they may overlap; maskCardNumbers masks their union), leaving out the
 * groups glued to a letter (see the top of this file).
 */
function numbersInRun(text: string, groups: Group[], out: CardNumberAt[]): void {
  let total = 0;
  for (const g of groups) total += g.count;
  if (total < MIN_DIGITS) return;
  let lo = 0;
  let hi = groups.length - 1;
  if (gluedBefore(text, groups[0]!.start)) for (lo = 1; lo <= hi && !groups[lo]!.spaced; ) lo++;
  if (gluedAfter(text, groups[hi]!.end)) for (hi -= 1; hi >= lo && !groups[hi + 1]!.spaced; ) hi--;
  // Luhn kept up to date as digits are added on the right, in constant time per digit: the sums
  // of the digits at even and odd places, as they are and doubled. A run of 500,000 one-digit
  // groups ("9 9 9 …") is then read in milliseconds, not seconds (a string and a Luhn pass per
  // stretch of groups took 1.8 s a MiB, holding the event loop).
  for (let a = lo; a <= hi; a++) {
    let n = 0;
    let plainEven = 0;
    let plainOdd = 0;
    let doubledEven = 0;
    let doubledOdd = 0;
    for (let b = a; b <= hi && n + groups[b]!.count <= MAX_DIGITS; b++) {
      const g = groups[b]!;
      for (let k = 0; k < g.count; k++) {
        const d = g.digits.charCodeAt(k) - 48;
        n++;
        if (n % 2 === 0) {
          plainEven += d;
          doubledEven += DOUBLED[d]!;
        } else {
          plainOdd += d;
          doubledOdd += DOUBLED[d]!;
        }
      }
      // The rightmost digit is not doubled, the one before it is, and so on.
      const sum = n % 2 === 0 ? doubledOdd + plainEven : doubledEven + plainOdd;
      if (n >= MIN_DIGITS && sum % 10 === 0) {
        let digits = '';
        for (let c = a; c <= b; c++) digits += groups[c]!.digits;
        out.push({ start: groups[a]!.start, end: g.end, digits });
      }
    }
  }
}

/** Where the escape that i lies in starts (i itself when it lies in none). */
function escapeStart(text: string, i: number): number {
  for (let k = 2; k <= 5 && i - k >= 0; k++) {
    if (text.charCodeAt(i - k) === 92 && text.charCodeAt(i - k + 1) === 117) {
      let at = i - k;
      while (at > 0 && text.charCodeAt(at - 1) === 92) at--;
      return at;
    }
  }
  return i;
}

/** The position of the next digit at or after j (to when none is before it). */
function nextDigit(text: string, j: number, to: number): number {
  while (j < to) {
    const len = read(text, j);
    if (digitOf(code) >= 0) return j;
    j += len;
  }
  return to;
}

/** Reads the stretch [from, to) the regex found into runs of groups, and their card numbers. */
function numbersInStretch(text: string, from: number, to: number, out: CardNumberAt[]): void {
  let groups: Group[] = [];
  let spaced = false;
  let i = nextDigit(text, escapeStart(text, from), to);
  while (i < to) {
    const start = i;
    let digits = '';
    let count = 0;
    for (let len = read(text, i); i < to && digitOf(code) >= 0; len = read(text, i)) {
      if (count++ <= MAX_DIGITS) digits += String.fromCharCode(48 + digitOf(code));
      i += len;
    }
    groups.push({ start, end: i, digits, count, spaced });
    // The join: spaces, at most one punctuation mark, spaces.
    let j = i;
    let punct = false;
    spaced = false;
    let next = -1;
    while (j < to) {
      const len = read(text, j);
      if (digitOf(code) >= 0) {
        next = j;
        break;
      }
      if (isSpace(code)) spaced = true;
      else if (isPunct(code) && !punct) punct = true;
      else break;
      j += len;
    }
    if (next > i) {
      i = next;
      continue;
    }
    // Not a join: the run ends, and the next one starts at the next digit.
    numbersInRun(text, groups, out);
    groups = [];
    spaced = false;
    i = nextDigit(text, j, to);
  }
  if (groups.length > 0) numbersInRun(text, groups, out);
}

/** scanHints: the text may hold a card number (13 digits with no letter between them). */
export const MAY_HOLD_CARD = 1;
/** scanHints: the text may hold a CVV next to its name (three ASCII digits and a `c`, as every CVV word has). */
export const MAY_HOLD_CVV = 2;

/**
 * What the text may hold, in one pass: MAY_HOLD_CARD when 13 characters standing for digits (a
 * digit ASCII or full-width, the last UTF-8 byte of a full-width one read as latin1, a JSON
 * escape of one) have no letter between them, a superset of where the detector finds a number;
 * MAY_HOLD_CVV for scrub.ts. The usual text, a name, a date, a UUID, an amount, is answered
 * here in nanoseconds, without a regex: intake scrubs every string of every batch entry.
 */
export function scanHints(text: string): number {
  let run = 0;
  let digits = 0;
  let c = false;
  let hints = 0;
  for (let i = 0; i < text.length; i++) {
    let ch = text.charCodeAt(i);
    if (ch === 92) {
      const len = read(text, i);
      i += len - 1;
      ch = code;
      if (len === 1) continue;
    }
    if (ch >= 48 && ch <= 57) {
      digits++;
      if (++run >= MIN_DIGITS) hints |= MAY_HOLD_CARD;
    } else if ((ch >= 0xff10 && ch <= 0xff19) || (ch >= 0x90 && ch <= 0x99)) {
      if (++run >= MIN_DIGITS) hints |= MAY_HOLD_CARD;
    } else if ((ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122)) {
      run = 0;
      if (ch === 99 || ch === 67) c = true;
    }
    if (c && digits >= 3) hints |= MAY_HOLD_CVV;
    if (hints === (MAY_HOLD_CARD | MAY_HOLD_CVV)) break;
  }
  return hints;
}

/** Whether the text may hold a card number (see scanHints): no regex runs on text that cannot. */
export function mayHoldCardNumber(text: string): boolean {
  return text.length >= MIN_DIGITS && (scanHints(text) & MAY_HOLD_CARD) !== 0;
}

/** Every card number in the text, in order. */
export function findCardNumbers(text: string): CardNumberAt[] {
  const out: CardNumberAt[] = [];
  if (!mayHoldCardNumber(text)) return out;
  STRETCH.lastIndex = 0;
  for (let m = STRETCH.exec(text); m; m = STRETCH.exec(text)) numbersInStretch(text, m.index, m.index + m[0].length, out);
  return out;
}

/** Whether the text holds a card number, in any spelling above. */
export function hasCardNumber(text: string): boolean {
  if (!mayHoldCardNumber(text)) return false;
  const out: CardNumberAt[] = [];
  STRETCH.lastIndex = 0;
  for (let m = STRETCH.exec(text); m; m = STRETCH.exec(text)) {
    numbersInStretch(text, m.index, m.index + m[0].length, out);
    if (out.length > 0) return true;
  }
  return false;
}

/** The digits (ASCII) of text[from, to). */
function digitsIn(text: string, from: number, to: number): string {
  let digits = '';
  for (let i = from; i < to; ) {
    i += read(text, i);
    if (digitOf(code) >= 0) digits += String.fromCharCode(48 + digitOf(code));
  }
  return digits;
}

/** The text with the numbers found replaced by their first six and last four digits. */
function masked(text: string, found: CardNumberAt[]): string {
  if (found.length === 0) return text;
  found.sort((x, y) => x.start - y.start);
  let out = '';
  let at = 0;
  for (let k = 0; k < found.length; ) {
    const start = found[k]!.start;
    let end = found[k]!.end;
    for (k++; k < found.length && found[k]!.start < end; k++) end = Math.max(end, found[k]!.end);
    out += text.slice(at, start) + maskPan(digitsIn(text, start, end));
    at = end;
  }
  return out + text.slice(at);
}

/**
 * The text with every card number replaced by its first six and last four digits (ASCII).
 * Numbers that overlap (two readings of one run) are masked as one, so that no reading leaves
 * digits of another in clear.
 */
export function maskCardNumbers(text: string): string {
  return masked(text, findCardNumbers(text));
}

const ALL_DIGITS = /^[0-9]+$/;
const UUID_WITH_A_LETTER = /^(?=[^a-f]*[a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The first card number in an identifier that a network could have issued, or undefined.
 * Identifiers are checked on every request and batch entry, so the two usual shapes are
 * answered without the search, with the search's answer: digits alone are one group, and every
 * digit run of a UUID holding a letter is glued to that letter through dashes.
 */
export function issuedCardNumberIn(text: string): CardNumberAt | undefined {
  if (text.length < MIN_DIGITS || UUID_WITH_A_LETTER.test(text)) return undefined;
  if (ALL_DIGITS.test(text)) return text.length <= MAX_DIGITS && isIssuedCardNumber(text) ? { start: 0, end: text.length, digits: text } : undefined;
  return findCardNumbers(text).find((n) => isIssuedCardNumber(n.digits));
}

/**
 * An identifier as it may be written out (results files, webhooks): masked only where it holds
 * a number a network could have issued, so that every other identifier still matches the
 * merchant's own. Requests whose identifiers hold one are refused on the way in
 * (domain/card-data.ts); this is the same rule for what gateways hand back.
 */
export function maskIdentifier<T extends string | null>(text: T): T {
  if (text === null || text.length < MIN_DIGITS) return text;
  return masked(text, findCardNumbers(text).filter((n) => isIssuedCardNumber(n.digits))) as T;
}
