// Which file names in inbound/ are batch files. DESIGN.md "Batch file": any *.json or
// *.json.gz; dot-files and client temp names (.filepart, .part, .tmp) are ignored until the
// client renames them into place.

/** Our own upload temp files: hidden, so neither the watcher nor `ls` shows them. */
export const UPLOAD_TEMP_PREFIX = '.rescued-upload-';

/**
 * The folder in each home where uploads are written until they are complete: beside
 * inbound/, not in it, so the watcher's inotify watches see no event per write (measured:
 * a third of the server's CPU during a 500 MB upload went to chokidar handling them).
 */
export const UPLOAD_TEMP_DIR = '.rescued-uploads';

const CLIENT_TEMP = /\.(filepart|part|tmp)$/i;
const BATCH = /\.json(\.gz)?$/i;

export type NameKind = 'batch' | 'pending' | 'other';

/** `pending`: a dot-file or a client temp name, handed over once renamed; `other`: never handed over. */
export function classifyName(name: string): NameKind {
  if (name.startsWith('.') || CLIENT_TEMP.test(name)) return 'pending';
  return BATCH.test(name) ? 'batch' : 'other';
}
