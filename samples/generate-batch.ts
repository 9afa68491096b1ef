// Writes a batch file of N MIT rebill entries in the spec's layout, for load tests and
// benchmarks: `npm run sample:batch -- --entries 1000000 --out big.json [--mid M]
// [--token "Bearer …"] [--card-token tok_…] [--invalid-every K] [--gzip]`.
// Entries are about 1.4 KB, shaped like samples/requests/evaluate-mit.json; every K-th entry
// (if asked) carries an error so the acknowledgement has rejections to report.
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TEMPLATE = JSON.parse(readFileSync(fileURLToPath(new URL('./requests/evaluate-mit.json', import.meta.url)), 'utf8')) as Record<string, unknown>;

export interface BatchOptions {
  entries: number;
  mid: string;
  authorizationToken: string;
  cardTokens: string[];
  invalidEvery?: number;
  expiryDateUtc?: string;
  /** Distinguishes order ids between generated files. */
  runId?: string;
}

export function entry(i: number, opts: BatchOptions): Record<string, unknown> {
  const e = structuredClone(TEMPLATE);
  const tx = e.transaction as Record<string, unknown>;
  const pm = e.paymentMethod as Record<string, unknown>;
  // A rebill rarely carries shipping details or extra fields: about 1.4 KB an entry.
  delete e.shippingInformation;
  delete e.additionalFields;
  delete e.affiliate;
  delete e.merchant;
  (e.orderItems as unknown[]).length = 1;
  e.sequenceNumber = i + 1;
  e.mid = opts.mid;
  e.orderId = `ORD-${opts.runId ?? 'gen'}-${i + 1}`;
  e.idempotencyKey = randomUUID();
  delete e.expiryDateUtc;
  tx.id = `ch_${opts.runId ?? 'gen'}_${i + 1}`;
  tx.amount = 1000 + (i % 9000);
  pm.cardNumber = opts.cardTokens[i % opts.cardTokens.length];
  if (opts.invalidEvery && (i + 1) % opts.invalidEvery === 0) tx.currency = 'XXZ';
  return e;
}

/** Streams the batch into `out` (a writable), entry by entry. */
export async function writeBatch(out: NodeJS.WritableStream, opts: BatchOptions): Promise<void> {
  const write = async (s: string) => {
    if (!out.write(s)) await once(out as unknown as NodeJS.EventEmitter, 'drain');
  };
  await write(`{"mid":${JSON.stringify(opts.mid)},"authorizationToken":${JSON.stringify(opts.authorizationToken)},`);
  await write(`"expiryDateUtc":${JSON.stringify(opts.expiryDateUtc ?? new Date(Date.now() + 30 * 86_400_000).toISOString())},"requests":[\n`);
  for (let i = 0; i < opts.entries; i++) await write(`${i ? ',\n' : ''}${JSON.stringify(entry(i, opts))}`);
  await write('\n]}\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      entries: { type: 'string', default: '1000' },
      out: { type: 'string' },
      mid: { type: 'string', default: '00000000-0000-4000-8000-000000000000' },
      token: { type: 'string', default: 'Bearer REPLACE_WITH_ACCESS_TOKEN' },
      'card-token': { type: 'string', multiple: true, default: ['tok_REPLACE_WITH_CARD_TOKEN'] },
      'invalid-every': { type: 'string' },
      gzip: { type: 'boolean', default: false },
    },
  });
  if (!values.out) throw new Error('--out FILE is required');
  const pass = new PassThrough();
  const done = values.gzip ? pipeline(pass, createGzip({ level: 1 }), createWriteStream(values.out)) : pipeline(pass, createWriteStream(values.out));
  await writeBatch(pass, {
    entries: Number(values.entries),
    mid: values.mid!,
    authorizationToken: values.token!,
    cardTokens: values['card-token']!,
    invalidEvery: values['invalid-every'] ? Number(values['invalid-every']) : undefined,
    runId: randomUUID().slice(0, 8),
  });
  pass.end();
  await done;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
