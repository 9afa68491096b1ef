// The one error body of DESIGN.md §2, for every failure on the side-port:
// {"success": false, "result": "Failed", "status": null, "statusCode": "<CODE>", "errors": [...]}
import type { FastifyError, FastifyReply } from 'fastify';
import { RescuedError, type FieldError } from '../errors.ts';

export interface ErrorBody {
  success: false;
  result: 'Failed';
  status: null;
  statusCode: string;
  message: string;
  errors: FieldError[];
}

export function errorBody(err: RescuedError): ErrorBody {
  return { success: false, result: 'Failed', status: null, statusCode: err.code, message: err.message, errors: err.errors };
}

export function sendError(reply: FastifyReply, err: RescuedError, extra: Record<string, unknown> = {}): FastifyReply {
  if (err.status === 429 || err.status === 503) reply.header('retry-after', reply.getHeader('retry-after') ?? '1');
  return reply.code(err.status).header('cache-control', 'no-store').send({ ...errorBody(err), ...extra });
}

/** Maps fastify's own errors (body parsing, limits) onto the catalogue. */
export function fromFastifyError(err: FastifyError): RescuedError | undefined {
  if (err.statusCode === 413) return new RescuedError('ERR_HTTP_BODY_TOO_LARGE');
  if (err.statusCode === 415) return new RescuedError('ERR_HTTP_UNSUPPORTED_MEDIA_TYPE');
  if (err.statusCode === 400 && err.code?.startsWith('FST_ERR_CTP')) return new RescuedError('ERR_HTTP_BODY_INVALID', `The request body could not be read: ${err.message}`);
  if (err.statusCode === 405) return new RescuedError('ERR_HTTP_METHOD_NOT_ALLOWED');
  return undefined;
}
