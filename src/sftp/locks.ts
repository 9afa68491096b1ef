// Files being ingested. The SFTP server refuses to overwrite, rename or remove a busy file;
// the stage holds a file busy while onFileReady runs, and intake may hold it longer by
// acquiring it itself. In memory and per instance: with replicas on shared storage, intake
// must also claim a file in PostgreSQL (DESIGN.md §4).

export interface FileLocks {
  /** True while any holder has acquired this absolute path. */
  isBusy(path: string): boolean;
  /** True while any file below this folder is busy. */
  isBusyBelow(folder: string): boolean;
  /** Marks the path busy until the returned release is called (idempotent). */
  acquire(path: string): () => void;
}

export function createFileLocks(): FileLocks {
  const holders = new Map<string, number>();
  return {
    isBusy: (path) => holders.has(path),
    isBusyBelow(folder) {
      const prefix = folder.endsWith('/') ? folder : `${folder}/`;
      for (const path of holders.keys()) if (path.startsWith(prefix)) return true;
      return false;
    },
    acquire(path) {
      holders.set(path, (holders.get(path) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (holders.get(path) ?? 1) - 1;
        if (n <= 0) holders.delete(path);
        else holders.set(path, n);
      };
    },
  };
}
