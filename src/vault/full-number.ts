// Whether a payment method carries a full card number rather than a vault token. Apart from
// the vault service so the intake worker (src/intake/parse-worker.ts) reads it without loading
// the vault and its database queries.

/** `token` absent: a digits-only cardNumber (spaces and dashes allowed) is a full number. */
export function carriesFullNumber(pm: { cardNumber: string; token?: boolean | undefined }): boolean {
  return pm.token === false || (pm.token === undefined && /^[\d\s-]+$/.test(pm.cardNumber));
}
