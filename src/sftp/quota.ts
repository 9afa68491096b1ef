// Per-merchant storage quotas: bytes, files, folders and folder depth in inbound/. Without
// them one merchant key could fill the disk shared by every merchant, the database and the
// archive (2,000 files, 300 nested folders and a 2 GiB sparse file were all accepted). The
// bytes quota counts everything kept for the merchant on that disk: inbound/, outbound/ (the
// acks and results its files caused) and its archive of ingested files, so neither a flood of
// acks nor of archived files grows outside it.
//
// Usage is measured on disk when an upload, a folder or a move begins (inbound/ is small:
// intake empties it), plus the uploads still being written, tracked in memory with their
// highest written offset, so a sparse write far past the end counts at its full size.
// The ledger is per instance: replicas sharing the storage each hold their own uploads in
// flight, and see each other's only once published.
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Refusal } from './refusal.ts';

export interface QuotaLimits {
  quotaBytes: number;
  quotaFiles: number;
  quotaFolders: number;
  maxFolderDepth: number;
}

export interface Usage {
  bytes: number;
  files: number;
  folders: number;
  /** Nesting of the deepest folder below the measured one (0: no folders). */
  depth: number;
}

/** Walks a folder without following links; `skip` leaves out temp files counted elsewhere. */
export async function measure(dir: string, skip: (path: string) => boolean = () => false): Promise<Usage> {
  const usage: Usage = { bytes: 0, files: 0, folders: 0, depth: 0 };
  const stack: [string, number][] = [[dir, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [folder, depth] = next;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const path = join(folder, e.name);
      if (e.isDirectory()) {
        usage.folders++;
        usage.depth = Math.max(usage.depth, depth + 1);
        stack.push([path, depth + 1]);
      } else if (e.isFile() && !skip(path)) {
        usage.files++;
        // A file removed meanwhile (intake took it) no longer counts.
        usage.bytes += (await lstat(path).catch(() => undefined))?.size ?? 0;
      }
    }
  }
  return usage;
}

/** One upload being written: its temp file and the bytes it claims. */
export interface UploadClaim {
  temp: string;
  /** The upload creates a file (not a rewrite of an existing one). */
  adds: boolean;
  bytes: number;
}

/** Whose upload: the ledger's key, and the merchant's archive folder's name. */
export interface QuotaOwner {
  merchantId: string;
  mid: string;
}

export interface Quotas {
  readonly limits: QuotaLimits;
  /** Checks a new upload into `inbound` against the file count and the bytes kept; registers it. */
  beginUpload(who: QuotaOwner, inbound: string, claim: UploadClaim): Promise<void>;
  /** Whether the upload may grow to `end` bytes; records it when it may. */
  grow(key: string, claim: UploadClaim, end: number): string | undefined;
  /** The upload was published or discarded. */
  endUpload(key: string, claim: UploadClaim, published: boolean): void;
  /** Checks a new folder `depth` levels below inbound/. */
  checkFolder(inbound: string, depth: number): Promise<void>;
  /** Checks moving the folder `from` so that it sits `depth` levels below inbound/. */
  checkMove(from: string, depth: number): Promise<void>;
}

interface Ledger {
  /** Bytes of published files at the last measurement, plus those published since. */
  committed: number;
  claims: Set<UploadClaim>;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * `archiveRoot`: the folder of every merchant's archive (`<mid>/` below it), counted in the
 * bytes quota with outbound/.
 */
export function createQuotas(limits: QuotaLimits, archiveRoot?: string): Quotas {
  const ledgers = new Map<string, Ledger>();
  const ledger = (key: string): Ledger => {
    let l = ledgers.get(key);
    if (!l) ledgers.set(key, (l = { committed: 0, claims: new Set() }));
    return l;
  };
  const claimed = (l: Ledger) => [...l.claims].reduce((sum, c) => sum + c.bytes, 0);
  const bytesRefusal = `quota exceeded: inbound/, outbound/ and the archive of your files hold ${plural(limits.quotaBytes, 'byte', 'bytes')} at most; remove acks and results you have read from outbound/`;
  /** Bytes of outbound/ (beside inbound/) and of the merchant's archive. */
  const keptElsewhere = async (who: QuotaOwner, inbound: string) => {
    const folders = [join(dirname(inbound), 'outbound'), ...(archiveRoot ? [join(archiveRoot, who.mid)] : [])];
    const usages = await Promise.all(folders.map((f) => measure(f)));
    return usages.reduce((sum, u) => sum + u.bytes, 0);
  };

  return {
    limits,
    async beginUpload(who, inbound, claim) {
      const l = ledger(who.merchantId);
      const temps = new Set([...l.claims].map((c) => c.temp));
      const [usage, elsewhere] = await Promise.all([measure(inbound, (p) => temps.has(p)), keptElsewhere(who, inbound)]);
      l.committed = usage.bytes + elsewhere;
      const adding = [...l.claims].filter((c) => c.adds).length + (claim.adds ? 1 : 0);
      if (usage.files + adding > limits.quotaFiles) {
        throw new Refusal('failure', `quota exceeded: inbound/ holds ${plural(limits.quotaFiles, 'file', 'files')} at most`);
      }
      if (l.committed + claimed(l) + claim.bytes > limits.quotaBytes) throw new Refusal('failure', bytesRefusal);
      l.claims.add(claim);
    },
    grow(key, claim, end) {
      if (end <= claim.bytes) return undefined;
      const l = ledger(key);
      if (l.committed + claimed(l) - claim.bytes + end > limits.quotaBytes) return bytesRefusal;
      claim.bytes = end;
      return undefined;
    },
    endUpload(key, claim, published) {
      const l = ledger(key);
      if (!l.claims.delete(claim)) return;
      if (published) l.committed += claim.bytes;
      if (l.claims.size === 0) ledgers.delete(key);
    },
    async checkFolder(inbound, depth) {
      if (depth > limits.maxFolderDepth) throw new Refusal('failure', `quota exceeded: folders nest ${plural(limits.maxFolderDepth, 'level', 'levels')} deep at most`);
      const usage = await measure(inbound);
      if (usage.folders + 1 > limits.quotaFolders) throw new Refusal('failure', `quota exceeded: inbound/ holds ${plural(limits.quotaFolders, 'folder', 'folders')} at most`);
    },
    async checkMove(from, depth) {
      const moved = await measure(from);
      if (depth + moved.depth > limits.maxFolderDepth) throw new Refusal('failure', `quota exceeded: folders nest ${plural(limits.maxFolderDepth, 'level', 'levels')} deep at most`);
    },
  };
}
