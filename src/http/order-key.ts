// The orderSessionKey of a follow-up call: from the path (/v1/orders/{key}/…) or, on the
// unversioned paths the spec writes (/outcome, /refund, /cancel), from the body.
import type { FastifyRequest } from 'fastify';
import { RescuedError } from '../errors.ts';

export function orderKeyOf(request: FastifyRequest): string {
  const params = request.params as { orderSessionKey?: string } | undefined;
  if (params?.orderSessionKey) return params.orderSessionKey;
  const b = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
  const key = b.orderSessionKey ?? b.OrderSessionKey ?? b.ordersessionkey;
  if (typeof key !== 'string' || key.trim() === '') {
    throw new RescuedError('ERR_MODEL_INVALID', undefined, [{ field: 'orderSessionKey', code: 'ERR_MODEL_REQUIRED', message: 'orderSessionKey is required' }]);
  }
  return key.trim();
}
