// Writes a batch file of N MIT rebill entries in the spec's layout, for load tests and
// benchmarks: `npm run sample:batch -- --entries 1000000 --out big.json [--mid M]
// [--token "Bearer …"] [--card-token tok_…] [--invalid-every K] [--gzip]` (`--help` says more).
// Entries are about 1.4 KB, shaped like samples/requests/evaluate-mit.json; every K-th entry
// (if asked) carries an error so the acknowledgement has rejections to report. The daemon's
// sandbox uses the same writer for the demo merchant's ready-to-upload batch (src/merchants/demo.ts).
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createProgress, type ProgressSink } from '../src/cli/progress.ts';

const TEMPLATE = JSON.parse(readFileSync(fileURLToPath(new URL('./requests/evaluate-mit.json', import.meta.url)), 'utf8')) as Record<string, unknown>;

export interface BatchOptions {
  entries: number;
  mid: string;
  authorizationToken: string;
  cardTokens: string[];
  /**
   * The card of each entry, in turn, instead of cardTokens, with what the entry says of it:
   * the demo batch's vault tokens of sandbox test cards, for one.
   */
  cards?: Array<{ cardNumber: string; token: boolean; bin: string; last4: string; brand: string; month: number; year: number }>;
  /** The merchant's siteId (default: the template's). */
  siteId?: string;
  invalidEvery?: number;
  expiryDateUtc?: string;
  /** Distinguishes order ids between generated files. */
  runId?: string;
  /**
   * When the entries' declines happened (transaction.timestampUtc): default an hour before the
   * file is written. A decline is a past event: one ahead of the daemon's clock by more than
   * api.clockSkewSeconds is rejected (ERR_MODEL_TIME_IN_FUTURE), so the time is never the
   * template's fixed one.
   */
  declinedAt?: Date;
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
  if (opts.siteId) e.siteId = opts.siteId;
  e.orderId = `ORD-${opts.runId ?? 'gen'}-${i + 1}`;
  e.idempotencyKey = randomUUID();
  delete e.expiryDateUtc;
  tx.id = `ch_${opts.runId ?? 'gen'}_${i + 1}`;
  tx.timestampUtc = (opts.declinedAt ?? new Date(Date.now() - 3_600_000)).toISOString();
  tx.amount = 1000 + (i % 9000);
  pm.cardNumber = opts.cardTokens[i % opts.cardTokens.length];
  const card = opts.cards?.[i % opts.cards.length];
  if (card) {
    Object.assign(pm, { cardNumber: card.cardNumber, token: card.token, cardBinNumber: card.bin, cardLast4Digits: card.last4, cardBrand: card.brand });
    Object.assign(pm, { expirationMonth: card.month, expirationYear: card.year });
  }
  if (opts.invalidEvery && (i + 1) % opts.invalidEvery === 0) tx.currency = 'XXZ';
  return e;
}

/**
 * Streams the batch into `out` (a writable), entry by entry. `onEntry(n)` is called after
 * each entry is written (progress).
 */
export async function writeBatch(out: NodeJS.WritableStream, opts: BatchOptions, onEntry?: (written: number) => void): Promise<void> {
  const write = async (s: string) => {
    if (!out.write(s)) await once(out as unknown as NodeJS.EventEmitter, 'drain');
  };
  await write(`{"mid":${JSON.stringify(opts.mid)},"authorizationToken":${JSON.stringify(opts.authorizationToken)},`);
  await write(`"expiryDateUtc":${JSON.stringify(opts.expiryDateUtc ?? new Date(Date.now() + 30 * 86_400_000).toISOString())},"requests":[\n`);
  for (let i = 0; i < opts.entries; i++) {
    await write(`${i ? ',\n' : ''}${JSON.stringify(entry(i, opts))}`);
    onEntry?.(i + 1);
  }
  await write('\n]}\n');
}

const OPTIONS = {
  entries: { type: 'string', default: '1000' },
  out: { type: 'string' },
  mid: { type: 'string', default: '00000000-0000-4000-8000-000000000000' },
  token: { type: 'string', default: 'Bearer REPLACE_WITH_ACCESS_TOKEN' },
  'card-token': { type: 'string', multiple: true, default: ['tok_REPLACE_WITH_CARD_TOKEN'] },
  'invalid-every': { type: 'string' },
  gzip: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies ParseArgsConfig['options'];

export const USAGE = `Usage: npm run sample:batch -- --out FILE [options]
       node samples/generate-batch.ts --out FILE [options]

Writes ONE batch file, at the path --out names, of MIT rebill entries in the spec's layout
(about 1.4 KB an entry), streamed, so a million entries take little memory. Upload it to the
merchant's inbound/. Without --mid, --token and --card-token its entries hold placeholders,
which intake rejects: give the merchant's values for a file it accepts.

Options:
  --out FILE             where to write it (required)
  --entries N            how many entries (default 1000)
  --mid MID              the merchant's mid (default a placeholder)
  --token TOKEN          authorizationToken: "Bearer <access token>" of that merchant
                         (default a placeholder)
  --card-token TOKEN     a card token (tok_…) for paymentMethod.cardNumber; repeat the option
                         to use several in turn (default a placeholder)
  --invalid-every K      make every K-th entry invalid (currency XXZ), so the
                         acknowledgement has rejections to show
  --gzip                 write gzip (name the file .json.gz)
  -h, --help             show this and exit

Progress goes to stderr when it is a terminal; nothing is printed when it is piped.

Not this tool: at every start the sandbox daemon writes a small ready-to-upload batch for
its demo merchant, <dataDir>/demo/sample-<time>.json (the previous one removed), and prints
the command that uploads it. This tool is for bigger files, or other merchants.
`;

export interface MainIo {
  stdout: { write(text: string): unknown };
  stderr: ProgressSink;
  /** Least time between two progress redraws (tests draw every entry); default 200 ms. */
  progressIntervalMs?: number;
}

/** The command line; resolves with the exit status (0, or 2 for a usage error). */
export async function main(argv: string[], io: MainIo = process): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (err) {
    io.stderr.write(`generate-batch: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const entries = Number(values.entries);
  if (!values.out || !Number.isInteger(entries) || entries < 0) {
    io.stderr.write(`generate-batch: ${values.out ? '--entries must be a whole number' : '--out FILE is required'}\n\n${USAGE}`);
    return 2;
  }
  const pass = new PassThrough();
  const done = values.gzip ? pipeline(pass, createGzip({ level: 1 }), createWriteStream(values.out)) : pipeline(pass, createWriteStream(values.out));
  const progress = createProgress(`writing ${values.out}`, { sink: io.stderr, total: entries, unit: 'entries', ...(io.progressIntervalMs !== undefined ? { intervalMs: io.progressIntervalMs } : {}) });
  await writeBatch(pass, {
    entries,
    mid: values.mid,
    authorizationToken: values.token,
    cardTokens: values['card-token'],
    invalidEvery: values['invalid-every'] ? Number(values['invalid-every']) : undefined,
    runId: randomUUID().slice(0, 8),
  }, (n) => progress.update(n));
  pass.end();
  await done;
  progress.finish();
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
