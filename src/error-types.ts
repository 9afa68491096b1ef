// The shapes of the error catalogue, apart from the catalogue itself: each stage's codes.ts
// declares its entries against ErrorSpec, and src/errors.ts merges them, so the stages
// must not import errors.ts for the type.
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
