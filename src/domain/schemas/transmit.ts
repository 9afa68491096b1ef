// The transmit request schema, derived from the evaluate schema rather than written again:
// the same fields, every one optional except orderId, transaction and payer (DESIGN.md §2
// "Transmit input"). It documents the input (OpenAPI); validation runs the evaluate
// validator and relaxes its verdict (src/domain/transmit.ts), so the rules stay in one place.
import type { TObject, TSchema } from '@sinclair/typebox';
import { EvaluateRequestSchema, type EvaluateRequest } from './evaluate.ts';
import type { Payer, Transaction } from './objects.ts';

export const TRANSMIT_REQUIRED = ['orderId', 'transaction', 'payer'] as const;

function withoutRequired(schema: TSchema): TSchema {
  if (schema.type === 'array') return { ...schema, items: withoutRequired(schema.items as TSchema) };
  if (schema.type !== 'object') return schema;
  const { required: _required, ...rest } = schema;
  const properties = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Record<string, TSchema>).map(([k, v]) => [k, withoutRequired(v)]),
  );
  return { ...rest, properties };
}

export const TransmitRequestSchema: TObject = {
  ...(withoutRequired(EvaluateRequestSchema) as TObject),
  $id: 'TransmitRequest',
  required: [...TRANSMIT_REQUIRED],
};

/** Every field optional, at every depth. */
export type Lenient<T> = T extends readonly (infer U)[] ? Lenient<U>[] : T extends object ? { [K in keyof T]?: Lenient<T[K]> } : T;

/** The type of TransmitRequestSchema, derived from the evaluate request's type. */
export type TransmitRequest = Lenient<Omit<EvaluateRequest, (typeof TRANSMIT_REQUIRED)[number]>> & {
  orderId: string;
  transaction: Lenient<Transaction>;
  payer: Lenient<Payer>;
};
