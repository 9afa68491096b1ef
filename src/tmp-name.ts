// Temporary names for files written whole and then renamed into place. The name is unique per
// write, not per process: two writers in one process (or replicas on shared storage, whose
// process ids may coincide) must never share, and delete, each other's temporary file.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** A hidden temporary path beside `name` in `dir`: `.<name>.<random>.tmp`. */
export function tmpPathFor(dir: string, name: string): string {
  return join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
}
