// Turns a client path into a checked real path for one kind of access. `read` covers both
// folders (merchants read back their uploads and fetch acknowledgements and results);
// `write` is inbound/ only, and never the inbound folder itself; `remove` is a write, or the
// removal of an ack or results file the merchant has read from outbound/ (they count in its
// storage quota, quota.ts) — never a temporary file being written there.
import type { SessionContext } from './context.ts';
import { checkOnDisk, normaliseVirtual, realPathOf, type VirtualPath } from './paths.ts';
import { UPLOAD_TEMP_PREFIX } from './names.ts';
import { Refusal } from './refusal.ts';

export interface Target {
  v: VirtualPath;
  real: string;
  exists: boolean;
}

export type Access = 'read' | 'write' | 'remove';

function lexical(ctx: SessionContext, input: string, access: Access): { v: VirtualPath; real: string } {
  const v = normaliseVirtual(input);
  if (v.area === 'root' && v.below.length > 0) throw new Refusal('denied', 'only inbound/ and outbound/ exist here');
  // Our upload temp files are hidden and belong to uploads in progress: a client may
  // neither create such a name (it would never be ingested) nor touch another's.
  if (v.below.some((s) => s.startsWith(UPLOAD_TEMP_PREFIX))) throw new Refusal('denied', `names starting with ${UPLOAD_TEMP_PREFIX} are reserved`);
  if (access === 'remove' && v.area === 'outbound' && v.below.length > 0) {
    if (v.below.at(-1)!.startsWith('.')) throw new Refusal('denied', 'a file being written cannot be removed');
  } else if (access !== 'read') {
    if (v.area === 'outbound') throw new Refusal('denied', 'outbound/ is read-only but for removing files');
    if (v.area === 'root') throw new Refusal('denied', 'files go into inbound/');
    if (v.below.length === 0) throw new Refusal('denied', 'inbound/ itself cannot be changed');
  }
  return { v, real: realPathOf(ctx.home, v) };
}

export async function resolveTarget(ctx: SessionContext, input: string, access: Access): Promise<Target> {
  const { v, real } = lexical(ctx, input, access);
  const exists = (await checkOnDisk(real)) === 'exists';
  return { v, real, exists };
}

/** Like resolveTarget, but the path must exist. */
export async function resolveExisting(ctx: SessionContext, input: string, access: Access): Promise<Target> {
  const target = await resolveTarget(ctx, input, access);
  if (!target.exists) throw new Refusal('no_such_file', 'no such file or folder');
  return target;
}

export function refuseIfBusy(ctx: SessionContext, real: string): void {
  if (ctx.locks.isBusy(real)) throw new Refusal('denied', 'the file is being ingested');
}
