import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { type PostgresDatabase, openPostgres } from '../src/storage/postgres/connection.ts';
import { Company } from '../src/company.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The database on the real server that the run's test databases are copies of: migrated, its read tables built. */
    postgresTemplate?: string;
  }
}

/**
 * A new database on the real server at `url` (through `admin`), migrated and opened as a company once, then closed:
 * a template that CREATE DATABASE … TEMPLATE copies in a fraction of the time a migration takes. Its name, and how
 * to drop it.
 */
export async function migratedTemplate(admin: PostgresDatabase, url: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `tradebook_test_template_${randomBytes(6).toString('hex')}`;
  await admin.session.sql(`CREATE DATABASE ${name}`);
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${name}`;
  // Closed before any copy is made: a database someone is connected to cannot be a template.
  await (await Company.open({ engine: 'postgres', url: templateUrl.toString() })).close();
  return { name, drop: async () => void (await admin.session.sql(`DROP DATABASE ${name} WITH (FORCE)`)) };
}

/**
 * Global set-up of the PostgreSQL pass on a real server: one template database a run, so each test file's database
 * is a copy of it instead of one migrated again; dropped at the end of the run.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const url = process.env.TRADEBOOK_TEST_POSTGRES_URL;
  if (!url) return undefined;
  const admin = openPostgres(url, { poolSize: 1 });
  const template = await migratedTemplate(admin, url);
  project.provide('postgresTemplate', template.name);
  return async () => {
    await template.drop();
    await admin.close();
  };
}
