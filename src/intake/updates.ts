// Card-update files (docs/sftp-and-batches.md "Card-update files"): the batch form of
// POST /v1/orders/{orderSessionKey}/payment-method. A file named *.updates.json holds the
// batch header (mid, authorizationToken) and `updates`, each naming an open order by
// orderSessionKey or orderId and giving its new card as a vault token or a card in the
// tokenize shape. Each entry is applied on its own, as the API applies it (the same checks,
// the same refusals); the file is answered by <name>.ack.json and then deleted, since it may
// hold card numbers. Files of this kind are small (a merchant's updated cards), so the file is
// read whole, up to UPDATES_MAX_BYTES.
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { validateBatchHeader } from '../domain/index.ts';
import { RescuedError, type FieldError } from '../errors.ts';
import { AtomicFile } from '../atomic-file.ts';
import { ackName } from './ack.ts';
import type { ApplyCardUpdate, IntakeDeps, IntakeFile, UpdateRef } from './types.ts';

export const UPDATES_FILE = /\.updates\.json$/i;
export const UPDATES_MAX_BYTES = 8 * 1024 * 1024;
export const UPDATES_MAX_ENTRIES = 10_000;

export type { ApplyCardUpdate, UpdateRef } from './types.ts';

interface EntryAnswer {
  position: number;
  orderSessionKey: string | null;
  orderId: string | null;
  status: 'updated' | 'rejected';
  code?: string;
  errors?: FieldError[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

function refOf(e: Obj): UpdateRef | FieldError {
  const key = str(e.orderSessionKey);
  const id = str(e.orderId);
  if ((key === null) === (id === null)) return { field: 'orderSessionKey', code: 'ERR_MODEL_REQUIRED', message: 'name the order by exactly one of orderSessionKey and orderId' };
  return key !== null ? { orderSessionKey: key } : { orderId: id! };
}

async function applyOne(apply: ApplyCardUpdate, merchantId: string, raw: unknown, position: number): Promise<EntryAnswer> {
  const e = obj(raw);
  const ref = refOf(e);
  const base = { position, orderSessionKey: str(e.orderSessionKey), orderId: str(e.orderId) };
  if ('field' in ref) return { ...base, status: 'rejected', code: ref.code, errors: [ref] };
  const body = e.payment_method !== undefined ? { payment_method: e.payment_method } : { token: e.token };
  try {
    const done = await apply(merchantId, ref, body);
    return { ...base, orderSessionKey: done.orderSessionKey, status: 'updated' };
  } catch (err) {
    if (!(err instanceof RescuedError)) throw err;
    return { ...base, status: 'rejected', code: err.code, errors: err.errors };
  }
}

/** Header problems: the whole file is refused, nothing applied. */
async function headerError(deps: IntakeDeps, file: IntakeFile, doc: Obj): Promise<string | null> {
  const header = validateBatchHeader(doc);
  if (!header.ok) return 'the header (mid, authorizationToken) is invalid';
  if (header.value.mid.toLowerCase() !== file.mid.toLowerCase()) return 'the mid in the file is not the merchant of this SFTP account';
  try {
    await deps.tokens.verify(header.value.authorizationToken, { expectedMid: file.mid });
  } catch {
    return 'authorizationToken is not accepted';
  }
  if (!Array.isArray(doc.updates)) return '`updates` must be an array';
  if (doc.updates.length > UPDATES_MAX_ENTRIES) return `at most ${UPDATES_MAX_ENTRIES} updates per file`;
  return null;
}

/** Reads, applies and answers a card-update file, then deletes it. */
export async function ingestUpdates(deps: IntakeDeps, file: IntakeFile, apply: ApplyCardUpdate): Promise<{ ackPath: string; updated: number; rejected: number }> {
  const receivedAt = (deps.now ?? (() => new Date()))();
  const bytes = await readFile(file.path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let doc: Obj = {};
  let error: string | null = null;
  if (bytes.length > UPDATES_MAX_BYTES) error = `the file is larger than ${UPDATES_MAX_BYTES} bytes`;
  else {
    try {
      doc = obj(JSON.parse(bytes.toString('utf8')));
    } catch {
      error = 'the file is not valid JSON';
    }
  }
  error ??= await headerError(deps, file, doc);
  const answers: EntryAnswer[] = [];
  if (!error) {
    const updates = doc.updates as unknown[];
    // One at a time, in file order: two entries for one order apply in the order written.
    for (let i = 0; i < updates.length; i++) answers.push(await applyOne(apply, file.merchantId, updates[i], i + 1));
  }
  const updated = answers.filter((a) => a.status === 'updated').length;
  const rejected = answers.length - updated;
  const ack = new AtomicFile(file.outboundDir, ackName(file.name));
  const status = error ? 'rejected' : rejected === 0 ? 'accepted' : updated === 0 ? 'rejected' : 'partially_accepted';
  await ack.end(`${JSON.stringify({
    file: file.name, kind: 'card_updates', mid: file.mid, sha256, receivedAt: receivedAt.toISOString(), finishedAt: new Date().toISOString(), status,
    counts: { entries: answers.length, updated, rejected }, ...(error ? { error: { code: 'ERR_INTAKE_HEADER_INVALID', message: `${error}; nothing was applied.` } } : {}), updates: answers,
  }, null, 1)}\n`);
  const ackPath = await ack.publish();
  await rm(file.path, { force: true });
  deps.log.info({ mid: file.mid, file: file.name, updated, rejected, status }, 'card-update file answered');
  return { ackPath, updated, rejected };
}
