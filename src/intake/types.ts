// The intake stage's contract: what ingesting a file needs and what it is handed. Kept apart
// from ingest.ts so its helpers (pass two, archive) can name these without importing it.
import type { Db, Transaction as Tx } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { ModelMode, PaymentMethod } from '../domain/index.ts';
import type { FieldError } from '../error-types.ts';
import type { TestCard } from '../vault/test-cards.ts';
import type { IntakeLimits } from './limits.ts';
import type { MemoryBudget } from './budget.ts';

export interface IntakeDeps {
  db: Db;
  tokens: TokenService;
  cards: CardResolver;
  mode: ModelMode;
  /** How far ahead of the receiving time an entry's past-event time may be (api.clockSkewSeconds). */
  clockSkewMs?: number;
  log: Logger;
  /** Where ingested files go, outside every chroot. */
  archiveDir: string;
  now?: () => Date;
  /**
   * Files from this many bytes on are parsed, checked and encoded in the intake worker, on
   * PostgreSQL (default 1 MiB; 0: every file). Smaller files, and PGlite, stay on this thread.
   */
  workerMinBytes?: number;
  /** Entries per INSERT. */
  chunkSize?: number;
  /** Bounds of a file while it is read (default: DEFAULT_LIMITS). */
  limits?: IntakeLimits;
  /** Intake's memory for every file of the process (default: one of limits.memoryBytes per file). */
  budget?: MemoryBudget;
  /** Aborting rolls the file in progress back (daemon shutdown). */
  signal?: AbortSignal;
  /**
   * Whether a write on `db` can run while the file's transaction is open (PostgreSQL with a
   * pool of two or more): the file's progress is then recorded beside it, for every session
   * to see. Otherwise (PGlite, the default) none is recorded (src/intake/progress.ts).
   */
  progressBesideTransaction?: boolean;
  /**
   * A session lock on a connection of its own (Database.tryLock): held by a staged ingest
   * (staged.ts) across its transactions, so one instance ingests the file. Absent: a lock in
   * this process only.
   */
  tryLock?: (key: bigint) => Promise<(() => Promise<void>) | undefined>;
  /** Entries per committed transaction of a staged ingest (default: staged.ts, COMMIT_ENTRIES). */
  stagedCommitEntries?: number;
  /** Hears each committed transaction of a staged ingest, before the next begins (tests, the bench). */
  onChunkCommitted?: (c: ChunkCommitted) => void | Promise<void>;
  /** Applies a card-update file's entries (src/intake/updates.ts); absent: such files are ingested as batch files. */
  cardUpdates?: ApplyCardUpdate;
}

/** A staged ingest's transaction committed: its batch and the entries committed so far. */
export interface ChunkCommitted {
  batchId: string;
  entries: number;
  accepted: number;
  rejected: number;
  /** Entries the file holds. */
  total: number;
}

export interface IntakeFile {
  merchantId: string;
  mid: string;
  path: string;
  name: string;
  outboundDir: string;
}

/** Turns payment methods into vault tokens: full numbers are tokenized, tokens checked. */
export interface CardResolver {
  /** Runs on the file's transaction `tx`; one result per method, in order. */
  resolve(tx: Tx, merchantId: string, methods: PaymentMethod[]): Promise<Array<{ token: string; testCard?: TestCard } | { errors: FieldError[] }>>;
}

/** The order a card-update file's entry names. */
export type UpdateRef = { orderSessionKey: string } | { orderId: string };

/** Applies one card update (src/orders/payment-method.ts, wired by the daemon); throws a RescuedError when refused. */
export type ApplyCardUpdate = (merchantId: string, ref: UpdateRef, body: unknown) => Promise<{ orderSessionKey: string; status: string }>;
