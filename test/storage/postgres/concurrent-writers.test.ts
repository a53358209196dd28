import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';
import { readEvents } from '../../../src/storage/postgres/event-log.ts';
import { migrate } from '../../../src/storage/postgres/migrate.ts';
import { type Appended, appendWhenGo } from './appending.ts';
import { describeEngines } from './engines.ts';
import { all, expectIntactChain } from './log-checks.ts';

const WORKER = path.join(import.meta.dirname, 'append-worker.ts');

/** `appendWhenGo` in a process of its own (append-worker.ts): ready when it says so, `go` sent on its stdin. */
function appendInChildProcess(url: string, name: string, ready: () => void, go: Promise<number>): Promise<Appended> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, url, name], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    if (output === '' && chunk.startsWith('ready\n')) {
      ready();
      chunk = chunk.slice('ready\n'.length);
    }
    output += chunk;
  });
  void go.then((until) => child.stdin.end(`${until}\n`));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`writer ${name} exited with ${code}`))));
  });
}

describeEngines('several writers on one database', (database, real) => {
  // PGlite is one connection: writers that race need a server.
  test.runIf(real)('two writers in this process and three in others, appending at once: seq dense and in commit order, every batch whole, the chain intact', async () => {
    const db = database();
    const url = db.url!;
    await migrate(db.session);
    // The child processes take a moment to start: once every writer is connected, all begin together and append
    // for three seconds.
    let readyCount = 0;
    let allReady!: () => void;
    const ready = new Promise<void>((resolve) => (allReady = resolve));
    const onReady = () => ++readyCount === 5 && allReady();
    const go = ready.then(() => Date.now() + 3_000);
    const writers = [
      appendWhenGo(url, 'here-1', onReady, go),
      appendWhenGo(url, 'here-2', onReady, go),
      ...['child-1', 'child-2', 'child-3'].map((name) => appendInChildProcess(url, name, onReady, go)),
    ];
    const until = await go;
    // Meanwhile a reader never sees a seq before all those below it are committed: commits come in seq order.
    const gaps: string[] = [];
    let seen = 0;
    for (let done = false; !done; ) {
      done = Date.now() > until + 500;
      for (const { seq } of await db.pool.sql<{ seq: number }>('SELECT seq FROM events WHERE seq > $1 ORDER BY seq', [seen])) {
        if (seq !== seen + 1) gaps.push(`saw ${seq} after ${seen}`);
        seen = seq;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const appended = await Promise.all(writers);
    expect(gaps).toEqual([]);

    const rows = await all(readEvents(db.pool));
    expect(appended.every((a) => a.batches > 0)).toBe(true);
    expect(rows).toHaveLength(appended.reduce((sum, a) => sum + a.events, 0));
    expectIntactChain(rows);
    expect(await db.pool.sql('SELECT seq, hash FROM chain_head')).toEqual([{ seq: rows.length, hash: rows[rows.length - 1].hash }]);
    // Each acknowledged batch is in the log once, its events together; each stream's versions are dense.
    const batches = new Map<string, number[]>();
    const versions = new Map<string, number>();
    for (const row of rows) {
      batches.set(row.meta, [...(batches.get(row.meta) ?? []), row.seq]);
      expect(row.stream_version).toBe((versions.get(row.stream) ?? 0) + 1);
      versions.set(row.stream, row.stream_version);
    }
    expect(batches.size).toBe(appended.reduce((sum, a) => sum + a.batches, 0));
    for (const seqs of batches.values()) expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
    console.info(`5 writers (2 in this process, 3 child processes), 3 s: ${rows.length} events in ${batches.size} batches`);
  });
});
