// Open SFTP handles of one session. Handles are 4-byte opaque counters (the protocol allows
// up to 256 bytes; ssh2 drops the connection beyond), checked for type on every request.
import type { FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { UploadClaim } from './quota.ts';
import { Refusal } from './refusal.ts';
import type { WriteQueue } from './write-queue.ts';

export interface DirEntry {
  name: string;
  stats: Stats;
}

export interface DirHandle {
  kind: 'dir';
  path: string;
  entries: DirEntry[];
  next: number;
}

export interface ReadHandle {
  kind: 'read';
  path: string;
  file: FileHandle;
  /** Bytes sent, for the download audit line. */
  bytes: number;
}

/** An upload: written to `temp` (hidden, same folder) and renamed to `target` on CLOSE. */
export interface UploadHandle {
  kind: 'upload';
  path: string;
  file: FileHandle;
  temp: string;
  target: string;
  /** Highest offset written. */
  size: number;
  /** Its share of the merchant's inbound/ quota. */
  claim: UploadClaim;
  /** Why the upload can no longer be published; undefined while it is healthy. */
  failed: string | undefined;
  /** Its disk writes, one at a time. */
  queue: WriteQueue;
}

export type OpenHandle = DirHandle | ReadHandle | UploadHandle;

export class HandleTable {
  #next = 1;
  readonly #open = new Map<number, OpenHandle>();
  readonly #max: number;
  #closed = false;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#open.size;
  }

  /** Throws a refusal when the session already holds its maximum of open handles. */
  reserve(): void {
    if (this.#open.size >= this.#max) throw new Refusal('failure', `too many open handles (at most ${this.#max})`);
  }

  add(handle: OpenHandle): Buffer {
    if (this.#closed) throw new Refusal('failure', 'the session has ended');
    const id = this.#next++;
    this.#open.set(id, handle);
    const buf = Buffer.alloc(4);
    buf.writeUInt32BE(id);
    return buf;
  }

  #id(buf: Buffer): number {
    return buf.length === 4 ? buf.readUInt32BE(0) : 0;
  }

  get<K extends OpenHandle['kind']>(buf: Buffer, ...kinds: K[]): Extract<OpenHandle, { kind: K }> {
    const handle = this.#open.get(this.#id(buf));
    if (!handle || !(kinds as string[]).includes(handle.kind)) throw new Refusal('failure', 'invalid handle');
    return handle as Extract<OpenHandle, { kind: K }>;
  }

  take(buf: Buffer): OpenHandle {
    const id = this.#id(buf);
    const handle = this.#open.get(id);
    if (!handle) throw new Refusal('failure', 'invalid handle');
    this.#open.delete(id);
    return handle;
  }

  /** Removes and returns every open handle (the session is ending). */
  drain(): OpenHandle[] {
    this.#closed = true;
    const all = [...this.#open.values()];
    this.#open.clear();
    return all;
  }
}
