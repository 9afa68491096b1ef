// Codes of the operator console (src/http/console/), merged into the catalogue by src/catalogue.ts.
import type { ErrorSpec } from '../../error-types.ts';

export const CONSOLE_ERRORS = {
  ERR_CONSOLE_UNAUTHORIZED: { status: 401, retryable: false, message: 'The console needs the operator token: Authorization: Bearer <token>, or sign in at /console/login.' },
  ERR_CONSOLE_CROSS_SITE: { status: 403, retryable: false, message: 'The console takes sign-in, sign-out and other changes only from its own pages: this request came from another site (Origin or Sec-Fetch-Site).' },
} as const satisfies Record<string, ErrorSpec>;
