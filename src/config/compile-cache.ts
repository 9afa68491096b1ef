// Node's compile cache for this process and its worker threads. module.enableCompileCache()
// covers only the thread that calls it; the environment variable carries it to the worker
// threads (the intake worker, started for each large batch file), which otherwise load Node's
// TypeScript stripper and compile their modules afresh each time (about 10 MiB of a
// million-entry ingest's peak, docs/performance.md "Batch intake"). Here, beside the other
// environment reads, because it is one.
import { enableCompileCache } from 'node:module';

export function enableSharedCompileCache(): void {
  const cache = enableCompileCache();
  if (cache.directory) process.env.NODE_COMPILE_CACHE ??= cache.directory;
}
