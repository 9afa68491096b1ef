// Text as the card-number detector (card-numbers.ts) reads it, one character at a time: JSON
// escapes (`\u0035`, `\t`, with any number of backslashes) and the UTF-8 bytes of the few
// non-ASCII characters it knows, in text read as latin1 (batch files are scanned byte for byte),
// are decoded into the character they stand for; then which characters are digits, separators
// and letters, and whether a run of digits is glued to a letter.

// The character `read` (or `readBack`) read last, decoded; importers see it through the live
// binding. Module state, not an allocation per character: the scan runs over every byte of
// every batch file.
export let code = 0;

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
export function read(text: string, i: number): number {
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
export function digitOf(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 0xff10 && c <= 0xff19) return c - 0xff10;
  return -1;
}

export const isSpace = (c: number) => c === 32 || c === 9 || c === 0xa0 || c === 0x3000;
export const isPunct = (c: number) => c === 45 || c === 46 || c === 47 || (c >= 0x2010 && c <= 0x2015);
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
export function gluedBefore(text: string, i: number): boolean {
  if (i <= 0) return false;
  const at = readBack(text, i);
  if (isAlnum(code)) return true;
  if (code !== 45 || at <= 0) return false;
  readBack(text, at);
  return isAlnum(code);
}

/** Whether the run ending at i is glued to a letter on its right: directly or through one dash. */
export function gluedAfter(text: string, i: number): boolean {
  if (i >= text.length) return false;
  const len = read(text, i);
  if (isAlnum(code)) return true;
  if (code !== 45 || i + len >= text.length) return false;
  read(text, i + len);
  return isAlnum(code);
}
