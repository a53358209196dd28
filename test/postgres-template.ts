import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { openPostgres } from '../src/storage/postgres/connection.ts';
import { Company } from '../src/company.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The database on the real server that the run's test databases are copies of: migrated, its read tables built. */
    postgresTemplate?: string;
  }
}

/**
 * Global set-up of the PostgreSQL pass on a real server: one database migrated and opened as a company once a run,
 * so each test file's database is a copy of it (CREATE DATABASE … TEMPLATE) instead of one migrated again; dropped
 * at the end of the run.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const url = process.env.TRADEBOOK_TEST_POSTGRES_URL;
  if (!url) return undefined;
  const name = `tradebook_test_template_${randomBytes(6).toString('hex')}`;
  const admin = openPostgres(url, { poolSize: 1 });
  await admin.session.sql(`CREATE DATABASE ${name}`);
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${name}`;
  // Closed before any copy is made: a database someone is connected to cannot be a template.
  await (await Company.open({ engine: 'postgres', url: templateUrl.toString() })).close();
  project.provide('postgresTemplate', name);
  return async () => {
    await admin.session.sql(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.close();
  };
}
