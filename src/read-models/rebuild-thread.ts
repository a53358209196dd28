import { type ResourceLimits, Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { besideSqliteFile } from '../storage/sqlite-file-beside.ts';
import type { RebuildProgress } from '../storage/read-tables.ts';
import type { ReadModels } from './read-models.ts';
import { rebuild } from './rebuild.ts';

/**
 * `tradebook rebuild` runs the rebuild on a worker thread for one reason: a worker's heap can be given limits, and
 * a process's only from the node command line. A rebuild allocates fast and keeps little: with V8's default
 * young generation (semi-spaces growing to 16 MB) and old generation sizing, the heap grew to about three times
 * what it held: peak RSS 240–256 MB on the seeded log, 139–150 MB with a 6 MB young generation, 165–178 MB with
 * this 16 MB one, which scavenges less often (a scavenge costs what survives it, not what died: 7,400 scavenges,
 * 3.9 s of a 1M-event rebuild at 6 MB) and took 10–20 % less CPU (docs/performance.md). What a rebuild keeps
 * grows with the number of records (products with unwritten price changes, documents to render), not with the
 * log: a database whose live data outgrows the old generation's limit (TRADEBOOK_REBUILD_HEAP_MB, default 128)
 * has its rebuild started again without the limit, so it costs memory there instead of failing. The served
 * tables are untouched until a rebuild's swap.
 */
const YOUNG_MB = 16;
const DEFAULT_OLD_MB = 128;

/** Every read table of `readModels` in the SQLite file `file` rebuilt beside the served ones and swapped in, on a connection of its own. */
function rebuildSqliteFile(file: string, readModels: ReadModels, onProgress: (progress: RebuildProgress) => void): Promise<{ events: number }> {
  return besideSqliteFile(file, (beside) => rebuild(readModels, beside, { onProgress }));
}

/**
 * The rebuild of `file` on a thread of its own. The thread runs the same bundle and is handed the read models by
 * the composition root that loads it (`serveRebuildThread`): they are code, and cannot cross threads.
 */
export function rebuildOnThread(file: string, readModels: ReadModels, onProgress: (progress: RebuildProgress) => void, onRetry: (reason: string) => void): Promise<{ events: number }> {
  // Run from its TypeScript sources (no bundle built, see bin/bundle.mjs), this module cannot be a worker: Node 20
  // gives a worker none of tsx's loader hooks. The rebuild then runs on this thread, without the heap limit.
  if (import.meta.url.endsWith('.ts')) return rebuildSqliteFile(file, readModels, onProgress);
  const oldMb = Number(process.env.TRADEBOOK_REBUILD_HEAP_MB) || DEFAULT_OLD_MB;
  return runThread(file, onProgress, { maxYoungGenerationSizeMb: YOUNG_MB, maxOldGenerationSizeMb: oldMb }).catch((error: { code?: string }) => {
    if (error.code !== 'ERR_WORKER_OUT_OF_MEMORY') throw error;
    onRetry(`the rebuild needed more than ${oldMb} MB of heap; rebuilding again without that limit`);
    return runThread(file, onProgress, undefined);
  });
}

function runThread(file: string, onProgress: (progress: RebuildProgress) => void, resourceLimits: ResourceLimits | undefined): Promise<{ events: number }> {
  return new Promise((resolve, reject) => {
    // The bundle runs the rebuild when it is loaded as the worker (`serveRebuildThread`).
    const worker = new Worker(new URL(import.meta.url), { workerData: { rebuild: file }, resourceLimits });
    let result: { events: number } | undefined;
    let failure: unknown;
    worker.on('message', (message: { progress?: RebuildProgress; done?: { events: number }; failed?: string; code?: string }) => {
      if (message.progress) onProgress(message.progress);
      if (message.done) result = message.done;
      // Sent as text: an error crossing threads keeps none of its message but its own fields. Its code says
      // whether it was a storage fault.
      if (message.failed) reject(Object.assign(new Error(message.failed), { code: message.code }));
    });
    worker.on('error', (error) => (failure = error));
    worker.on('exit', (code) => (result ? resolve(result) : reject(failure ?? new Error(`the rebuild thread stopped with code ${code}`))));
  });
}

/** The worker's side: the rebuild, its progress and its outcome posted to the thread that started it. */
async function rebuildAsWorker(file: string, readModels: ReadModels): Promise<void> {
  try {
    const done = await rebuildSqliteFile(file, readModels, (progress) => parentPort!.postMessage({ progress }));
    parentPort!.postMessage({ done });
  } catch (error) {
    const code = (error as { code?: string } | null)?.code;
    parentPort!.postMessage({ failed: error instanceof Error ? `${error.message} (${code ?? error.name})` : String(error), code });
  }
}

/**
 * Runs the rebuild this thread was started for, when it is a rebuild's worker (the bundle loaded by `runThread`);
 * called by the composition root as the bundle loads, with the read models it hands the rebuild.
 */
export function serveRebuildThread(readModels: ReadModels): void {
  if (!isMainThread && workerData?.rebuild !== undefined) void rebuildAsWorker(workerData.rebuild as string, readModels);
}
