import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { Company } from '../src/company.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A SQLite file migrated and closed once a run: a test service's new database is a copy of it. */
    sqliteTemplate?: string;
  }
}

/**
 * Global set-up: a company's SQLite file, migrated once a run instead of once a test (a migration's commits and
 * their fsyncs took a tenth to a third of a second a test on a loaded disk); removed at the end of the run.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradebook-template-'));
  const file = path.join(dir, 'migrated.db');
  await (await Company.open({ engine: 'sqlite', file })).close();
  // Closed, its log written back: the file alone is the whole database.
  if (fs.existsSync(`${file}-wal`)) throw new Error(`${file}-wal is left after closing the template`);
  project.provide('sqliteTemplate', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
