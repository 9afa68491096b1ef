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
import { isIssuedCardNumber, luhnValid, maskPan } from './vault/pan.ts';

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
// Where a stretch may start: not at a later digit of a stretch already tried (its count of
// digits can only be smaller): without this a date like 2026-11-27 would be searched from each
// of its eight digits. A start among an escape's hex digits (`\u0020` before a number) is
// moved back to the escape by the tokenizer.
const START = String.raw`(?:(?<![0-9][ \t\-./]*)[0-9\uff10-\uff19]|${MULTI_DIGIT})`;
// Anything that may stand between two digits (the tokenizer then applies the exact rule).
const SEPARATOR = String.raw`(?:[ \t\u00a0\u3000\-./\u2010-\u2015]|\u00c2\u00a0|\u00e2\u0080[\u0090-\u0095]|\u00e3\u0080\u0080|\\+[t/]|\\+u(?:00(?:20|09|[Aa]0|2[DdEeFf])|201[0-5]|3000))`;
/** A stretch of at least 13 digits with separators between them: where a card number can be. */
const STRETCH = new RegExp(`${START}(?:${SEPARATOR}*${DIGIT}){12,}`, 'g');

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;

// The character the tokenizer read last, decoded. Module state, not an allocation per
// character: the scan runs over every byte of every batch file.
let code = 0;

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** The value of the four hex digits at i, or -1. */
function hex4(text: string, i: number): number {
  let n = 0;
  for (let k = 0; k < 4; k++) {
    const v = hexDigit(text.charCodeAt(i + k));
    if (v < 0) return -1;
    n = n * 16 + v;
  }
  return n;
}

/** What a one-letter JSON escape (`\t`, `\n`, `\/`, …) stands for, or -1. */
function shortEscape(c: number): number {
  switch (c) {
    case 116: return 9; // t
    case 110: return 10; // n
    case 114: return 13; // r
    case 98: return 8; // b
    case 102: return 12; // f
    case 47: return 47; // /
    case 34: return 34; // "
    default: return -1;
  }
}

/** Reads one character at i, decoding escapes and the UTF-8 bytes the detector knows; its length. */
function read(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 92) {
    let j = i;
    while (text.charCodeAt(j) === 92) j++;
    const next = text.charCodeAt(j);
    if (next === 117) {
      const n = hex4(text, j + 1);
      if (n >= 0) return (code = n), j + 5 - i;
    } else if (shortEscape(next) >= 0) {
      return (code = shortEscape(next)), j + 1 - i;
    }
    return (code = 92), 1;
  }
  // UTF-8 read as latin1 (batch files are scanned byte for byte).
  if (c === 0xef && text.charCodeAt(i + 1) === 0xbc) {
    const d = text.charCodeAt(i + 2) - 0x90;
    if (d >= 0 && d <= 9) return (code = 0xff10 + d), 3;
  } else if (c === 0xc2 && text.charCodeAt(i + 1) === 0xa0) {
    return (code = 0xa0), 2;
  } else if (c === 0xe2 && text.charCodeAt(i + 1) === 0x80) {
    const d = text.charCodeAt(i + 2) - 0x90;
    if (d >= 0 && d <= 5) return (code = 0x2010 + d), 3;
  } else if (c === 0xe3 && text.charCodeAt(i + 1) === 0x80 && text.charCodeAt(i + 2) === 0x80) {
    return (code = 0x3000), 3;
  }
  code = c;
  return 1;
}

/** The digit `c` stands for, or -1. */
function digitOf(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 0xff10 && c <= 0xff19) return c - 0xff10;
  return -1;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 0xa0 || c === 0x3000;
const isPunct = (c: number) => c === 45 || c === 46 || c === 47 || (c >= 0x2010 && c <= 0x2015);
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0xff10 && c <= 0xff19);

/** Where the character that ends right before i starts (decoding as `read` does); `code` is set to it. */
function readBack(text: string, i: number): number {
  // An escape `\uXXXX` or `\n` (with any number of backslashes) ends here.
  let at = -1;
  if (i >= 6 && text.charCodeAt(i - 5) === 117 && text.charCodeAt(i - 6) === 92 && hex4(text, i - 4) >= 0) at = i - 6;
  else if (i >= 2 && text.charCodeAt(i - 2) === 92 && shortEscape(text.charCodeAt(i - 1)) >= 0) at = i - 2;
  if (at >= 0) {
    while (at > 0 && text.charCodeAt(at - 1) === 92) at--;
    read(text, at);
    return at;
  }
  if (i >= 3 && read(text, i - 3) === 3) return i - 3;
  if (i >= 2 && read(text, i - 2) === 2) return i - 2;
  code = text.charCodeAt(i - 1);
  return i - 1;
}

/** Whether the run starting at i is glued to a letter on its left: directly or through one dash. */
function gluedBefore(text: string, i: number): boolean {
  if (i <= 0) return false;
  const at = readBack(text, i);
  if (isAlnum(code)) return true;
  if (code !== 45 || at <= 0) return false;
  readBack(text, at);
  return isAlnum(code);
}

/** Whether the run ending at i is glued to a letter on its right: directly or through one dash. */
function gluedAfter(text: string, i: number): boolean {
  if (i >= text.length) return false;
  const len = read(text, i);
  if (isAlnum(code)) return true;
  if (code !== 45 || i + len >= text.length) return false;
  read(text, i + len);
  return isAlnum(code);
}

interface Group {
  start: number;
  end: number;
  digits: string;
  /** Whether the join before this group holds a space (a join of punctuation alone glues). */
  spaced: boolean;
}

/**
 * The card numbers among one run's groups: every stretch of consecutive groups of 13–19 digits
 * that passes Luhn (they may overlap; maskCardNumbers masks their union), leaving out the
 * groups glued to a letter (see the top of this file).
 */
function numbersInRun(text: string, groups: Group[], out: CardNumberAt[]): void {
  let total = 0;
  for (const g of groups) total += g.digits.length;
  if (total < MIN_DIGITS) return;
  let lo = 0;
  let hi = groups.length - 1;
  if (gluedBefore(text, groups[0]!.start)) for (lo = 1; lo <= hi && !groups[lo]!.spaced; ) lo++;
  if (gluedAfter(text, groups[hi]!.end)) for (hi -= 1; hi >= lo && !groups[hi + 1]!.spaced; ) hi--;
  for (let a = lo; a <= hi; a++) {
    let digits = '';
    for (let b = a; b <= hi && digits.length + groups[b]!.digits.length <= MAX_DIGITS; b++) {
      digits += groups[b]!.digits;
      if (digits.length >= MIN_DIGITS && luhnValid(digits)) out.push({ start: groups[a]!.start, end: groups[b]!.end, digits });
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
    for (let len = read(text, i); i < to && digitOf(code) >= 0; len = read(text, i)) {
      digits += String.fromCharCode(48 + digitOf(code));
      i += len;
    }
    groups.push({ start, end: i, digits, spaced });
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

/** The first card number in an identifier that a network could have issued, or undefined. */
export function issuedCardNumberIn(text: string): CardNumberAt | undefined {
  return findCardNumbers(text).find((n) => isIssuedCardNumber(n.digits));
}

/**
 * An identifier as it may be written out (results files, webhooks): masked only where it holds
 * a number a network could have issued, so that every other identifier still matches the
 * merchant's own. Requests whose identifiers hold one are refused on the way in
 * (domain/card-data.ts); this is the same rule for what gateways hand back.
 */
export function maskIdentifier<T extends string | null>(text: T): T {
  return text === null ? text : (masked(text, findCardNumbers(text).filter((n) => isIssuedCardNumber(n.digits))) as T);
}
