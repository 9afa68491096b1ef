// The one scrubber for text that may carry card data: log lines, request URLs in logs, and
// merchant text before it is stored or written. Card numbers are found by the one detector
// (card-numbers.ts: any spelling of a Luhn-valid 13–19 digit run) and masked to their first
// six and last four; a CVV-shaped value next to a CVV word ("cvv 5678", "cvc: 123") or right
// after a card number becomes [redacted]. PCI DSS 3.3 forbids keeping a CVV at all, masked or not.
// No imports beyond the detector, so orders, intake and the domain can use it without the logger.
import { MAY_HOLD_CARD, MAY_HOLD_CVV, maskCardNumbers, scanHints } from './card-numbers.ts';

export { hasCardNumber } from './card-numbers.ts';

export const REDACTED = '[redacted]';

// The names people and JSON give a card's security code, then the separators between a name
// and its value (`cvv 5678`, `cvc: 123`, `"verification_value":"737"`, `cvv=7777`, `CVV is 123`).
const CVV_AFTER_WORD = /(?<![A-Za-z])((?:cvv2?|cvc2?|cav2|csc|security[ _-]?code|verification[ _-]?(?:value|code))["']?\s*(?:[:=#]|is\b)?\s*["']?)\d{3,4}(?!\d)/gi;
// A masked number followed by a short group (optionally an expiry first): "card 4242…4242 123".
const CVV_AFTER_CARD = /(\d{6}\*{3,9}\d{4}[\s,;]+(?:(?:0[1-9]|1[0-2])\/\d{2,4}[\s,;]+)?)\d{3,4}(?![\d/])/g;

/** "csc 123": no shorter text holds a CVV next to its name. */
const MIN_CVV_TEXT = 7;

/**
 * Masks card numbers and CVV-shaped values inside free text. The request of every batch entry
 * goes through here field by field: one loop (scanHints) answers the usual value, and the
 * regexes run only on text that may hold a card number or a CVV word with digits.
 */
export function scrubText(text: string): string {
  if (text.length < MIN_CVV_TEXT) return text;
  const hints = scanHints(text);
  if (hints === 0) return text;
  const masked = hints & MAY_HOLD_CARD ? maskCardNumbers(text) : text;
  // A CVV right after a card number needs the number masked first; one after its name needs a `c`.
  if (masked === text && !(hints & MAY_HOLD_CVV)) return text;
  if (!/\d{3}/.test(masked)) return masked;
  return masked.replace(CVV_AFTER_WORD, `$1${REDACTED}`).replace(CVV_AFTER_CARD, `$1${REDACTED}`);
}

// Query parameters whose value is never logged, whatever it looks like: credentials (the
// tokenize call's `environment` is a tokenization key) and card fields under any spelling
// (`payment_method[credit_card][number]`, `card`, `cvv`).
const SECRET_PARAM_WORDS = /cvv|cvc|card|secret|token|password|passwd|environment|apikey|verification|securitycode/;
const SECRET_PARAM_NAMES = new Set(['pan', 'number', 'num', 'csc', 'cid', 'key', 'sig', 'signature', 'auth', 'authorization']);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function secretParam(name: string): boolean {
  const plain = decoded(name).toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_PARAM_WORDS.test(plain) || SECRET_PARAM_NAMES.has(plain.replace(/\d+$/, ''));
}

/**
 * A request URL as it may be logged: the path scrubbed (`/v1/orders/5105105105105100`),
 * every query value of a sensitive name redacted, any other value that hides a card number
 * (also percent-encoded) redacted.
 */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const plainPath = decoded(path);
  const safePath = scrubText(plainPath) === plainPath ? path : scrubText(plainPath);
  if (q < 0) return safePath;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0) return scrubText(decoded(name)) === decoded(name) ? name : REDACTED;
    const value = pair.slice(eq + 1);
    const plain = decoded(value);
    return `${name}=${value === '' || (!secretParam(name) && scrubText(plain) === plain) ? value : REDACTED}`;
  });
  return `${safePath}?${query.join('&')}`;
}

// Database errors: drizzle's DrizzleQueryError carries the statement and every parameter (in
// its message, its stack and its own fields); a PostgreSQL message can quote the value it
// refused (`invalid input syntax for type uuid: "…"`). A log gets the statement's name and
// the SQLSTATE code, never a parameter.
const STATEMENT_TARGET = /\b(insert\s+into|update|delete\s+from|from)\s+"?([A-Za-z_][\w.]*)"?/i;

/** `insert orders`, `select refunds`, …: what a statement did, without its values. */
export function statementName(query: string): string {
  const verb = (/^\s*\(?\s*([A-Za-z]+)/.exec(query)?.[1] ?? 'query').toLowerCase();
  const target = STATEMENT_TARGET.exec(query)?.[2];
  return target ? `${verb} ${target}` : verb;
}

/** A PostgreSQL message with any quoted value it echoes removed. */
export function databaseMessage(message: string): string {
  return scrubText(message.replace(/(:\s*)"[^"]*"\s*$/, `$1${REDACTED}`));
}

/** The lines of a stack below its message: a message may carry what the frames never do. */
export const stackFrames = (stack: string | undefined) => stack?.split('\n').filter((l) => /^\s+at /.test(l)).join('\n');
