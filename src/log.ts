// One pino root logger; every component takes a child (`log.child({ component })`).
// Redaction is by key name at any depth and by value shape (src/scrub.ts): a card number in
// any spelling the one detector knows (src/card-numbers.ts: 13–19 digits, Luhn-valid, spaced,
// dotted, JSON-escaped, full-width), in a value or a key, is masked to its first six and last
// four, a CVV next to its name or to a card number is redacted, wherever it appears, because
// a log line is the easiest place for a card number to escape. Database errors log the
// statement's name and code, never its parameters.
import { sqlState } from './sqlstate.ts';
import pino, { type Logger, type DestinationStream } from 'pino';
import { REDACTED, databaseMessage, scrubText, stackFrames, statementName } from './scrub.ts';
import { prettyDestination } from './log-format.ts';

export type { Logger };
export { scrubText, scrubUrl } from './scrub.ts';

const SECRET_KEY_NAMES = [
    'authorization', 'cookie', 'set-cookie', 'password', 'secret', 'clientSecret', 'client_secret', 'appSecret',
    'accessToken', 'access_token', 'token', 'authorizationToken', 'refreshToken', 'apiKey', 'tokenizationKey',
    'environment', 'signingKey', 'signingKeys', 'keys', 'fingerprintKey', 'webhookSecret',
    'cardNumber', 'number', 'pan', 'cvv', 'cvc', 'cvv2', 'verification_value', 'verificationValue',
  'authenticationValue', 'x-fc-signature', 'webhook-signature', 'x-fc-authorization',
];
const SECRET_KEYS = new Set(SECRET_KEY_NAMES.map((k) => k.toLowerCase()));

type DbError = Error & { query: string; params: unknown[]; cause?: unknown };
const isQueryError = (e: Error): e is DbError => typeof (e as Partial<DbError>).query === 'string' && Array.isArray((e as Partial<DbError>).params);
const codeOf = (e: unknown) => (e as { code?: unknown } | undefined)?.code;

/**
 * A failed query (drizzle's DrizzleQueryError, on PGlite and PostgreSQL alike) logs as the
 * statement's name and the database's SQLSTATE code: its message and stack spell out the
 * whole statement with every parameter, which can be a cardholder's name, an email, a CVV.
 */
function scrubError(e: Error): Record<string, unknown> {
  if (isQueryError(e)) {
    const cause = e.cause instanceof Error ? e.cause : undefined;
    const statement = statementName(e.query);
    return {
      type: 'DatabaseError', statement, code: sqlState(e) ?? codeOf(cause),
      message: `${statement} failed${cause ? `: ${databaseMessage(cause.message)}` : ''}`, stack: stackFrames(e.stack),
    };
  }
  return { type: e.name, message: scrubText(e.message), stack: e.stack ? scrubText(e.stack) : undefined, code: codeOf(e) };
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null || depth > 8) return value;
  if (value instanceof Error) return scrubError(value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  // Class instances (requests, sockets, buffers) are left to their serializers, which run
  // after this formatter; walking them would be slow and would copy internals into the log.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // Keys too: a merchant's object (additionalFields turned into a map, a stray field) can be keyed by a card number.
    out[scrubText(k)] = SECRET_KEYS.has(k.toLowerCase()) && v !== null && v !== undefined ? REDACTED : scrub(v, depth + 1);
  }
  return out;
}

/**
 * How many `component` keys a logger's bound fields hold. pino keeps a child's bindings as a
 * ready-made JSON fragment and writes it before each line's own fields, so a repeated key is
 * written twice: `{"component":"intake","component":"intake"}` (seen in the intake's lines).
 */
function chindingsOf(logger: Logger): string {
  const chindings = (logger as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
  return typeof chindings === 'string' ? chindings : '';
}

function boundComponents(logger: Logger): number {
  return chindingsOf(logger).split('"component":').length - 1;
}

/**
 * One `component` key per line (DESIGN.md §6: a child per component), by construction: the
 * component a logger already has wins, and a second one — in a child's bindings or in a
 * call's fields — is dropped. Never thrown: a logging mistake must not break a payment path.
 */
function withoutComponent(arg: object): object {
  const { component: _dropped, ...rest } = arg as Record<string, unknown>;
  return rest;
}

function hasOwnComponent(arg: unknown): arg is object {
  return typeof arg === 'object' && arg !== null && !(arg instanceof Error) && Object.hasOwn(arg, 'component');
}

/** Removes every `"component":…` fragment of a child's bindings after the first. */
function dropLaterComponents(child: Logger): void {
  let seen = false;
  const fixed = chindingsOf(child).replace(/,"component":"(?:[^"\\]|\\.)*"/g, (m) => (seen ? '' : ((seen = true), m)));
  (child as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym] = fixed;
}

export interface LogOptions {
  level: string;
  destination?: DestinationStream;
  /** json (the default): pino's JSON lines; pretty: one readable line per event (src/log-format.ts). */
  format?: 'json' | 'pretty';
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
          if (hasOwnComponent(args[0]) && boundComponents(this) > 0) args[0] = withoutComponent(args[0]) as never;
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>);
        },
      },
      onChild(child) {
        if (boundComponents(child) > 1) dropLaterComponents(child);
      },
      serializers: { err: (e: unknown) => scrub(e, 0) },
      // Child bindings skip formatters.log; pino's redaction covers their top-level keys.
      redact: { paths: SECRET_KEY_NAMES.map((k) => `["${k}"]`), censor: REDACTED },
    },
    destinationFor(opts),
  );
}

function destinationFor(opts: LogOptions): DestinationStream {
  const out = opts.destination ?? pino.destination({ dest: 1, sync: false });
  return opts.format === 'pretty' ? prettyDestination(out) : out;
}
