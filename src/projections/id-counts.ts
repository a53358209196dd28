import type { ReadModelDialect } from '../storage/dialect.ts';
import { type SqlSession, byCount, inChunks, placeholders } from '../storage/sql.ts';

/**
 * How many ids a table holds in each range of consecutive ids, ranges nested 64 to 1: at level l a range is the
 * 64^l ids sharing `floor(id / 64^l)` (its `node`). Level 9's one range (64^9 = 2^54) holds every id (ids stay
 * below 2^53), so its count is the table's: one seek. A row added or removed changes one count a level, nine rows
 * whatever the table's size and wherever the id falls; a page at offset k walks down from the top, at each level
 * summing at most 64 counts to find the range holding the (k+1)-th id, then numbers at most 64 ids of the table:
 * the same work at any offset. The counts depend only on which ids are there, so a rebuild, a replay and every
 * engine write the same rows; a range whose count falls to zero loses its row.
 */

const FAN_OUT = 64;
export const TOP_LEVEL = 9;

/** A partition column: its name and type (the counts are kept per partition, e.g. per document type). */
export interface PartitionColumn {
  name: string;
  type: 'text' | 'integer';
}

/** Values of the partition columns, in their order. */
export type Partition = readonly unknown[];

/** `CREATE TABLE` of the counts of a table's ids, per partition. */
export function idCountsTable(
  table: string,
  partition: readonly PartitionColumn[],
  { types: t, clusteredTableSuffix }: Pick<ReadModelDialect, 'types' | 'clusteredTableSuffix'>,
): string {
  const columns = partition.map((c) => `${c.name} ${t[c.type]} NOT NULL, `).join('');
  const key = [...partition.map((c) => c.name), 'level', 'node'].join(', ');
  return `CREATE TABLE ${table} (${columns}level ${t.integer} NOT NULL, node ${t.integer} NOT NULL, size ${t.integer} NOT NULL, PRIMARY KEY (${key}))${clusteredTableSuffix}`;
}

/** The range holding `id` at `level`. Division, not shifts: ids reach 2^53, beyond 32-bit shifts. */
const nodeOf = (id: number, level: number) => Math.floor(id / FAN_OUT ** level);

/**
 * Keeps the counts of `table` (see `idCountsTable`) as rows come and go: `add` and `remove` only remember the
 * change; `persist` writes every count it changed, a hundred a statement (a batch of a thousand adds in id order
 * touches a few dozen counts). The caller calls `persist` before its transaction ends and `discard` when it is
 * rolled back.
 */
export function idCounts(session: SqlSession, table: string, partition: readonly PartitionColumn[] = []) {
  const key = [...partition.map((c) => c.name), 'level', 'node'];
  const width = key.length + 1;
  const upsert = byCount(
    (rows) =>
      `INSERT INTO ${table} (${key.join(', ')}, size) VALUES ${placeholders(rows, width)}
       ON CONFLICT (${key.join(', ')}) DO UPDATE SET size = ${table}.size + excluded.size`,
  );
  const dropEmpty = byCount(
    (rows) => `DELETE FROM ${table} WHERE size = 0 AND (${Array(rows).fill(`(${key.map((column) => `${column} = ?`).join(' AND ')})`).join(' OR ')})`,
  );
  /** Changes not written yet, by partition, level and node (as JSON): the key's values and the change. */
  const changes = new Map<string, { values: unknown[]; by: number }>();

  const change = (values: Partition, id: number, by: number) => {
    for (let level = 1; level <= TOP_LEVEL; level++) {
      const at = [...values, level, nodeOf(id, level)];
      const name = JSON.stringify(at);
      const found = changes.get(name);
      if (found === undefined) changes.set(name, { values: at, by });
      else found.by += by;
    }
  };

  return {
    /** A row of `id` joined the partition. */
    add: (values: Partition, id: number) => change(values, id, 1),
    /** The row of `id` left the partition. */
    remove: (values: Partition, id: number) => change(values, id, -1),
    persist: async () => {
      const written = [...changes.values()].filter((c) => c.by !== 0);
      changes.clear();
      await inChunks(written, (chunk) => session.run(upsert(chunk.length), chunk.flatMap((c) => [...c.values, c.by])));
      const lowered = written.filter((c) => c.by < 0);
      await inChunks(lowered, (chunk) => session.run(dropEmpty(chunk.length), chunk.flatMap((c) => c.values)));
    },
    discard: () => changes.clear(),
  };
}

/** Where a page's rows and their counts are: the ranked table, its counts table, the partition's columns. */
export interface IdPaging {
  rows: string;
  counts: string;
  partition?: readonly PartitionColumn[];
}

/**
 * `WITH … first_id (id)`: the id at a 0-based offset in id order within a partition (no row past the end), found
 * from the counts, for a page to read from with `id >= (SELECT id FROM first_id) ORDER BY id LIMIT ?`. Its
 * parameters: the partition's values, then the offset.
 */
export function firstIdOfPage({ rows, counts, partition = [] }: IdPaging): string {
  const cast = { text: 'TEXT', integer: 'BIGINT' };
  const args = [...partition.map((c) => `CAST(? AS ${cast[c.type]}) AS ${c.name}`), '0 AS node', 'CAST(? AS BIGINT) AS k'].join(', ');
  // Each step carries the partition's values on and is read once, by the next: a chain, nothing evaluated twice.
  const carried = partition.map((c) => `a.${c.name}, `).join('');
  const kept = partition.map((c) => `${c.name}, `).join('');
  // The range found above comes first (CROSS JOIN keeps SQLite to that order): its children are one index range.
  const under = (level: number, table: string) =>
    `FROM at${level + 1} a CROSS JOIN ${table} t WHERE ${partition.map((c) => `t.${c.name} = a.${c.name} AND `).join('')}`;
  const range = (level: number) => `BETWEEN a.node * ${FAN_OUT} AND a.node * ${FAN_OUT} + ${FAN_OUT - 1}`;
  const ctes = [`at${TOP_LEVEL} AS (SELECT ${args})`];
  for (let level = TOP_LEVEL - 1; level >= 1; level--) {
    // The ranges under the one found above, each with k less the ids before it: the first where k < size holds it.
    ctes.push(
      `upto${level} AS (SELECT ${carried}t.node, t.size, a.k + t.size - CAST(sum(t.size) OVER (ORDER BY t.node) AS BIGINT) AS k
         ${under(level, counts)}t.level = ${level} AND t.node ${range(level)})`,
      `at${level} AS (SELECT ${kept}node, k FROM upto${level} WHERE k < size ORDER BY node LIMIT 1)`,
    );
  }
  ctes.push(
    `numbered AS (SELECT t.id, a.k, row_number() OVER (ORDER BY t.id) AS n ${under(0, rows)}t.id ${range(0)})`,
    'first_id AS (SELECT id FROM numbered WHERE n = k + 1)',
  );
  return `WITH ${ctes.join(',\n')}`;
}

/** The number of rows of a partition: the top level's one count. Its parameters: the partition's values. */
export function idCount({ counts, partition = [] }: IdPaging): string {
  const where = [...partition.map((c) => `${c.name} = ?`), `level = ${TOP_LEVEL}`, 'node = 0'].join(' AND ');
  return `SELECT coalesce((SELECT size FROM ${counts} WHERE ${where}), 0)`;
}
