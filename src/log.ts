// One pino root logger; every component takes a child (`log.child({ component })`).
// Redaction is by key name at any depth and by value shape: a digit run that looks like a
// card number (13–19 digits, Luhn-valid) is masked to its first six and last four wherever
// it appears, because a log line is the easiest place for a card number to escape.
import pino, { type Logger, type DestinationStream } from 'pino';
import { luhnValid, maskPan, stripPan } from './vault/pan.ts';

export type { Logger };

const SECRET_KEY_NAMES = [
    'authorization', 'cookie', 'set-cookie', 'password', 'secret', 'clientSecret', 'client_secret', 'appSecret',
    'accessToken', 'access_token', 'token', 'authorizationToken', 'refreshToken', 'apiKey', 'tokenizationKey',
    'environment', 'signingKey', 'signingKeys', 'keys', 'fingerprintKey', 'webhookSecret',
    'cardNumber', 'number', 'pan', 'cvv', 'cvc', 'cvv2', 'verification_value', 'verificationValue',
  'authenticationValue', 'x-fc-signature', 'webhook-signature', 'x-fc-authorization',
];
const SECRET_KEYS = new Set(SECRET_KEY_NAMES.map((k) => k.toLowerCase()));

const REDACTED = '[redacted]';
// A digit run glued to letters or digits (a UUID's groups, a hex id) is an identifier, not a
// card number: without these guards a mid could come out half-masked.
const DIGIT_RUN = /(?<![0-9A-Za-z]-?)\d(?:[ -]?\d){12,18}(?!-?[0-9A-Za-z])/g;

/** Masks card-number-shaped digit runs inside free text. */
export function scrubText(text: string): string {
  if (!/\d{4}/.test(text)) return text;
  return text.replace(DIGIT_RUN, (run) => {
    const digits = stripPan(run);
    if (digits.length < 13 || digits.length > 19 || !luhnValid(digits)) return run;
    return maskPan(digits);
  });
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null || depth > 8) return value;
  if (value instanceof Error) {
    return { type: value.name, message: scrubText(value.message), stack: value.stack ? scrubText(value.stack) : undefined, code: (value as { code?: unknown }).code };
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  // Class instances (requests, sockets, buffers) are left to their serializers, which run
  // after this formatter; walking them would be slow and would copy internals into the log.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEYS.has(k.toLowerCase()) && v !== null && v !== undefined ? REDACTED : scrub(v, depth + 1);
  }
  return out;
}

export interface LogOptions {
  level: string;
  destination?: DestinationStream;
}

export function createLogger(opts: LogOptions): Logger {
  return pino(
    {
      level: opts.level,
      base: { service: 'rescued' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (b) => scrub(b, 0) as Record<string, unknown>,
        log: (obj) => scrub(obj, 0) as Record<string, unknown>,
      },
      hooks: {
        // The message string is not passed through formatters.log.
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>);
        },
      },
      serializers: { err: (e: unknown) => scrub(e, 0) },
      // Child bindings skip formatters.log; pino's redaction covers their top-level keys.
      redact: { paths: SECRET_KEY_NAMES.map((k) => `["${k}"]`), censor: REDACTED },
    },
    opts.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
