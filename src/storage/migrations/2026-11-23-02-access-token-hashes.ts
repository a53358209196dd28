import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { SchemaDialect } from './column-types.ts';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<any>, dialect: SchemaDialect): Promise<void> {
  // PostgreSQL's tables began with hashed tokens (the foundation names the column so there).
  if (dialect === 'postgres') return;
  // Access tokens are kept only as SHA-256 (hex) hashes. Tokens issued before (alive for at most a minute) are
  // hashed in place rather than dropped, so a client holding one, or retrying a spent one, is answered as before.
  // One transaction, so the column is never renamed with clear tokens left in it.
  await db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE access_tokens RENAME COLUMN token TO token_hash`.execute(trx);
    const { rows } = await sql<{ token_hash: string }>`SELECT token_hash FROM access_tokens`.execute(trx);
    for (const { token_hash: token } of rows) {
      const hash = createHash('sha256').update(token).digest('hex');
      await sql`UPDATE access_tokens SET token_hash = ${hash} WHERE token_hash = ${token}`.execute(trx);
    }
  });
}
