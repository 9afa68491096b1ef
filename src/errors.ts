// The typed error catalogue: every failure rescued reports has one code, with the HTTP status
// it maps to and whether a client may retry the same request unchanged. The codes of the core
// are here; each stage keeps its own in its codes.ts, and src/catalogue.ts, where the stages
// are wired, assembles them all and registers them here. docs/errors.md carries the same
// table; test/unit/readme.test.ts keeps the two in step.
// This module imports nothing (as fastify's lib/errors.js imports only its error factory), so
// every floor may throw its errors (.config/layers.mjs).

export interface ErrorSpec {
  readonly status: number;
  readonly retryable: boolean;
  readonly message: string;
}

/** One problem with one input field: what the merchant sees in `errors[]`. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * Every code of the catalogue, for the type of `new RescuedError(code)`: src/catalogue.ts
 * merges the assembled catalogue into this interface (declaration merging), so a code a stage
 * adds to its codes.ts is typed here without this module importing the stage.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by src/catalogue.ts
export interface ErrorCatalogue {}
export type ErrorCode = keyof ErrorCatalogue & string;

export const CORE_ERRORS = {
  ERR_CONFIG_INVALID: { status: 500, retryable: false, message: 'The configuration is invalid.' },
  ERR_AUTH_INVALID_CLIENT: { status: 401, retryable: false, message: 'Client authentication failed.' },
  ERR_AUTH_INVALID_REQUEST: { status: 400, retryable: false, message: 'The token request is missing a parameter or is malformed.' },
  ERR_AUTH_UNSUPPORTED_GRANT_TYPE: { status: 400, retryable: false, message: 'Only grant_type=client_credentials is supported.' },
  ERR_AUTH_TOKEN_MISSING: { status: 401, retryable: false, message: 'The request carries no bearer token.' },
  ERR_AUTH_TOKEN_INVALID: { status: 401, retryable: false, message: 'The bearer token is invalid, expired or not for this merchant.' },
  ERR_AUTH_TOO_MANY_FAILURES: { status: 429, retryable: true, message: 'Too many failed authentications from this address; retry after the time in Retry-After.' },
  ERR_HTTP_NOT_FOUND: { status: 404, retryable: false, message: 'No such resource.' },
  ERR_HTTP_METHOD_NOT_ALLOWED: { status: 405, retryable: false, message: 'This method is not allowed on this path.' },
  ERR_HTTP_BODY_INVALID: { status: 400, retryable: false, message: 'The request body is not valid JSON or form data.' },
  ERR_HTTP_BODY_TOO_LARGE: { status: 413, retryable: false, message: 'The request body is too large.' },
  ERR_HTTP_UNSUPPORTED_MEDIA_TYPE: { status: 415, retryable: false, message: 'The content type is not supported.' },
  ERR_HTTP_DRAINING: { status: 503, retryable: true, message: 'The server is shutting down; retry on another instance.' },
  ERR_INTERNAL: { status: 500, retryable: true, message: 'An internal error occurred.' },
  ERR_MERCHANT_NOT_FOUND: { status: 404, retryable: false, message: 'No such merchant.' },
  ERR_MERCHANT_INVALID_INPUT: { status: 400, retryable: false, message: 'A merchant command argument is invalid.' },
  ERR_VAULT_INVALID_TOKENIZATION_KEY: { status: 401, retryable: false, message: 'Unknown mid or tokenization key (environment), or the merchant is disabled.' },
  ERR_VAULT_CARD_INVALID: { status: 422, retryable: false, message: 'The card failed validation; see errors[].' },
  ERR_VAULT_CARD_EXPIRED: { status: 422, retryable: false, message: 'The card has expired.' },
  ERR_VAULT_NOT_TEST_CARD: { status: 422, retryable: false, message: 'Sandbox mode accepts only the whitelisted test cards (samples/test-cards.json).' },
  ERR_VAULT_TOKEN_UNKNOWN: { status: 422, retryable: false, message: 'The card token is not one of this merchant\'s tokens.' },
  ERR_VAULT_PAYER_EMAIL_REQUIRED: { status: 422, retryable: false, message: 'This sandbox test card requires a specific payer email.' },
  ERR_DB_NOT_MIGRATED: { status: 503, retryable: true, message: 'The database is not migrated to this version of rescued: run `rescued migrate`, or start the daemon (it migrates at start).' },
  ERR_VAULT_ROTATE_INCOMPLETE: { status: 500, retryable: true, message: 'Some sealed values could not be re-encrypted under the active key.' },
  ERR_PURGE_BUSY: { status: 409, retryable: true, message: 'Another instance is running the purge; it removes the same data. Try again when it has finished.' },
} as const satisfies Record<string, ErrorSpec>;

const registered = new Map<string, ErrorSpec>(Object.entries(CORE_ERRORS));

/** Adds one stage's codes; a code two stages both define is a mistake, refused at start. */
export function registerErrors(specs: Readonly<Record<string, ErrorSpec>>): void {
  for (const [code, spec] of Object.entries(specs)) {
    const known = registered.get(code);
    if (known && known !== spec) throw new Error(`The error code ${code} is defined twice`);
    registered.set(code, spec);
  }
}

function specOf(code: string): ErrorSpec {
  const spec = registered.get(code);
  // Only a process that did not load src/catalogue.ts can get here: its entry point must.
  if (!spec) throw new Error(`The error code ${code} is not registered: import src/catalogue.ts where the process starts`);
  return spec;
}

export class RescuedError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly errors: FieldError[];

  constructor(code: ErrorCode, message?: string, errors: FieldError[] = [], options?: ErrorOptions) {
    const spec = specOf(code);
    super(message ?? spec.message, options);
    this.name = 'RescuedError';
    this.code = code;
    this.status = spec.status;
    this.retryable = spec.retryable;
    this.errors = errors;
  }
}

export function isRescuedError(err: unknown): err is RescuedError {
  return err instanceof RescuedError;
}
