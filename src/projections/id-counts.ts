import type { ReadModelDialect } from '../storage/dialect.ts';
import { type SqlSession, byCount, inChunks, placeholders } from '../storage/sql.ts';

/**
 * How many ids a table holds in each range of consecutive ids, ranges nested 64 to 1: at level l a range is the
 * 64^l ids sharing `floor(id / 64^l)` (its `node`), and its row holds its `size` and `before`, the ids in the
 * ranges before it under the same range of the level above. Level 9's one range (64^9 = 2^54) holds every id
 * (ids stay below 2^53), so its size is the table's count: one seek. A page at offset k walks down from the lowest
 * range holding every id (found from the first and last ranges of level 1: two seeks, where ids below 64^3 would
 * otherwise cross six levels holding one range each): at each level the last range under the one found whose
 * `before` is at most k holds the (k+1)-th id (one short index walk back from the range's end), and k less its
 * `before` is the offset within it; below level 1, at most 64 ids of the table are numbered. The same work at
 * any offset.
 * A row added or removed changes one size a level, and the `before` of the ranges after its own under the same
 * range above: at most 9 + 9 × 63 rows whatever the table's size and wherever the id falls (ids in order change
 * nine sizes and no `before`). The counts depend only on which ids are there, so a rebuild, a replay and every
 * engine write the same rows; a range whose size falls to zero loses its row.
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
  return `CREATE TABLE ${table} (${columns}level ${t.integer} NOT NULL, node ${t.integer} NOT NULL, size ${t.integer} NOT NULL,
    before ${t.integer} NOT NULL, PRIMARY KEY (${key}))${clusteredTableSuffix}`;
}

/** The range holding `id` at `level`. Division, not shifts: ids reach 2^53, beyond 32-bit shifts. */
const nodeOf = (id: number, level: number) => Math.floor(id / FAN_OUT ** level);

/** A count to change: its partition's values, level and node, and by how much. */
interface Change {
  values: unknown[];
  by: number;
  /** The partition's values as JSON ('' for a table without partitions), its level and node, as in `values`. */
  partition: string;
  level: number;
  node: number;
}

/** The statements that keep the counts of `table`, partitioned by the columns `parts`. */
function countStatements(table: string, parts: readonly string[]) {
  const key = [...parts, 'level', 'node'];
  const sameKey = (row: string) => key.map((column) => `${table}.${column} = ${row}.${column}`).join(' AND ');
  return {
    upsert: byCount(
      (rows) =>
        `INSERT INTO ${table} (${key.join(', ')}, size, before) VALUES ${placeholders(rows, key.length + 2)}
         ON CONFLICT (${key.join(', ')}) DO UPDATE SET size = ${table}.size + excluded.size`,
    ),
    dropEmpty: byCount(
      (rows) => `DELETE FROM ${table} WHERE size = 0 AND (${Array(rows).fill(`(${key.map((column) => `${column} = ?`).join(' AND ')})`).join(' OR ')})`,
    ),
    // The ranges under each range given (partition, level, first and last node), each with the sizes before it.
    renumber: byCount(
      (ranges) =>
        `WITH fresh AS (SELECT ${key.join(', ')}, CAST(sum(size) OVER (PARTITION BY ${[...parts, 'level', `node / ${FAN_OUT}`].join(', ')} ORDER BY node) AS BIGINT) - size AS before
           FROM ${table} WHERE ${Array(ranges).fill(`(${[...parts, 'level'].map((column) => `${column} = ?`).join(' AND ')} AND node BETWEEN ? AND ?)`).join(' OR ')})
         UPDATE ${table} SET before = fresh.before FROM fresh WHERE ${sameKey('fresh')} AND ${table}.before <> fresh.before`,
    ),
    // The last level-1 range of a partition, before this persist's changes (SQL NULL when the partition is empty).
    lastLeaf: `SELECT max(node) FROM ${table} WHERE ${[...parts.map((column) => `${column} = ?`), 'level = 1'].join(' AND ')}`,
  };
}

/** Adds `by` to the nine counts of `id` in the partition `values` among `changes` (by partition as JSON, level and node). */
function change(changes: Map<string, Change>, values: Partition, id: number, by: number): void {
  // The key's text is built from numbers, and a change's values only when it is first made.
  const partitionName = values.length === 0 ? '' : JSON.stringify(values);
  for (let level = 1; level <= TOP_LEVEL; level++) {
    const node = nodeOf(id, level);
    const name = `${partitionName}/${level}/${node}`;
    const found = changes.get(name);
    if (found === undefined) changes.set(name, { values: [...values, level, node], by, partition: partitionName, level, node });
    else found.by += by;
  }
}

/** A change's partition values, of `parts` columns. */
const partitionOf = (c: Change, parts: number) => c.values.slice(0, parts);

/**
 * Whether `c` changed the range that already was the last of its level in its partition: the ancestor of the
 * last level-1 range (every range holding an id has a row, so the last range of each level holds the last id).
 */
function changedTheLast(c: Change, last: Map<string, number>): boolean {
  const leaf = last.get(c.partition);
  return leaf !== undefined && c.node === Math.floor(leaf / FAN_OUT ** (c.level - 1));
}

/**
 * The ranges under which a `before` may move: partition, level, and the first and last node under the range
 * above. A range is left out when its one changed size is that of the range that already was the last of its
 * level: no range after it, none created beside it, and nothing before it changed, so every `before` under it
 * stays (ids added in order change only such ranges, but for one that opens a new range).
 */
function rangesToRenumber(written: Change[], last: Map<string, number>): unknown[][] {
  const ranges = new Map<string, { changed: Change[] }>();
  for (const c of written) {
    const name = `${c.partition}/${c.level}/${Math.floor(c.node / FAN_OUT)}`;
    const found = ranges.get(name);
    if (found === undefined) ranges.set(name, { changed: [c] });
    else found.changed.push(c);
  }
  const range = ({ values, node }: Change) => {
    const first = Math.floor(node / FAN_OUT) * FAN_OUT;
    return [...values.slice(0, -1), first, first + FAN_OUT - 1];
  };
  return [...ranges.values()].filter(({ changed }) => changed.length > 1 || !changedTheLast(changed[0], last)).map(({ changed }) => range(changed[0]));
}

/**
 * Keeps the counts of `table` (see `idCountsTable`) as rows come and go: `add` and `remove` only remember the
 * change; `persist` writes every size it changed, a hundred a statement (a batch of a thousand adds in id order
 * touches a few dozen), then sets `before` anew under every range above one that changed (but where only the last
 * range of its level changed: ids in order), a hundred such ranges a statement, writing only the rows whose
 * `before` moved. The caller calls `persist` before its transaction ends
 * and `discard` when it is rolled back. A build keeps none up (`write-strategies.ts`): it counts the loaded rows at
 * its end (`countIds`).
 */
export function idCounts(session: SqlSession, table: string, partition: readonly PartitionColumn[] = []) {
  const parts = partition.length;
  const sql = countStatements(table, partition.map((c) => c.name));
  /** Changes not written yet, by partition (as JSON), level and node. */
  const changes = new Map<string, Change>();
  /** Per partition changed (by its values as JSON), its last level-1 node before the changes, if it had any. */
  const lastLeaves = async (written: Change[]) => {
    const partitions = new Map<string, Partition>();
    for (const c of written) if (!partitions.has(c.partition)) partitions.set(c.partition, partitionOf(c, parts));
    const last = new Map<string, number>();
    for (const [name, values] of partitions) {
      const node = await session.value<number | string | null>(sql.lastLeaf, values);
      if (node !== undefined && node !== null) last.set(name, Number(node));
    }
    return last;
  };
  return {
    /** A row of `id` joined the partition. */
    add: (values: Partition, id: number) => change(changes, values, id, 1),
    /** The row of `id` left the partition. */
    remove: (values: Partition, id: number) => change(changes, values, id, -1),
    persist: async () => {
      const written = [...changes.values()].filter((c) => c.by !== 0);
      changes.clear();
      if (written.length === 0) return;
      const last = await lastLeaves(written);
      await inChunks(written, (chunk) => session.run(sql.upsert(chunk.length), chunk.flatMap((c) => [...c.values, c.by, 0])));
      const lowered = written.filter((c) => c.by < 0);
      await inChunks(lowered, (chunk) => session.run(sql.dropEmpty(chunk.length), chunk.flatMap((c) => c.values)));
      await inChunks(rangesToRenumber(written, last), (chunk) => session.run(sql.renumber(chunk.length), chunk.flat()));
    },
    discard: () => changes.clear(),
  };
}

/**
 * Writes the counts of `rows`' ids into the empty `counts` at once, a statement a level: the sizes of level 1 by a
 * `GROUP BY` of the ids (one pass over them), each level above by summing the sizes of the one below, and every
 * range's `before` by a running sum over the ranges under the same range above. The same rows as keeping them up
 * id by id: they depend only on which ids are there.
 */
export async function countIds(session: SqlSession, { rows, counts, partition = [] }: IdPaging): Promise<void> {
  const parts = partition.map((c) => c.name);
  const columns = [...parts, 'level', 'node', 'size', 'before'].join(', ');
  // Integer division on both engines: ids and nodes are integers.
  const ranges = (level: number) =>
    level === 1
      ? `SELECT ${[...parts, `id / ${FAN_OUT} AS node`].join(', ')}, count(*) AS size FROM ${rows} GROUP BY ${[...parts, `id / ${FAN_OUT}`].join(', ')}`
      : `SELECT ${[...parts, `node / ${FAN_OUT} AS node`].join(', ')}, sum(size) AS size FROM ${counts} WHERE level = ${level - 1} GROUP BY ${[...parts, `node / ${FAN_OUT}`].join(', ')}`;
  for (let level = 1; level <= TOP_LEVEL; level++) {
    await session.run(
      `INSERT INTO ${counts} (${columns})
       SELECT ${[...parts, `${level}`, 'node', 'CAST(size AS BIGINT)'].join(', ')}, CAST(sum(size) OVER (PARTITION BY ${[...parts, `node / ${FAN_OUT}`].join(', ')} ORDER BY node) - size AS BIGINT)
       FROM (${ranges(level)}) ranges`,
    );
  }
}

/** Where a page's rows and their counts are: the ranked table, its counts table, the partition's columns. */
export interface IdPaging {
  rows: string;
  counts: string;
  partition?: readonly PartitionColumn[];
}

/**
 * `WITH RECURSIVE … first_id (id)`: the id at a 0-based offset in id order within a partition (none past the end),
 * found from the counts, for a page to read from with `id >= (SELECT id FROM first_id)` (see `idPage`). Its
 * parameters: the partition's values, then the offset. The leaf's bounds are scalar subqueries of its one row so
 * that they bound the index scan of the rows: joined to the walk instead, PostgreSQL read the partition's every row
 * and filtered them. Its offset is a column of the numbered rows: as a subquery in `first_id`'s condition SQLite
 * built an index on them.
 */
function firstIdOfPage({ rows, counts, partition = [] }: IdPaging): string {
  const cast = { text: 'TEXT', integer: 'BIGINT' };
  const args = [...partition.map((c) => `CAST(? AS ${cast[c.type]}) AS ${c.name}`), 'CAST(? AS BIGINT) AS k'].join(', ');
  const samePartition = (table: string) => partition.map((c) => `${table}.${c.name} = arg.${c.name} AND `).join('');
  const under = (column: string, parent: string) => `${column} BETWEEN ${parent}.node * ${FAN_OUT} AND ${parent}.node * ${FAN_OUT} + ${FAN_OUT - 1}`;
  const leafNode = (pick: 'min' | 'max') => `(SELECT ${pick}(e.node) FROM ${counts} e WHERE ${samePartition('e')}e.level = 1)`;
  // The lowest level whose one range holds every id of the partition (ranges above it hold nothing else), found
  // from its first and last level-1 ranges; an empty partition starts at the top and finds nothing.
  const levels = Array.from({ length: TOP_LEVEL - 1 }, (_, i) => ({ level: i + 1, width: FAN_OUT ** i }));
  const start = (value: (width: number, level: number) => string, otherwise: string) =>
    `CASE ${levels.map(({ level, width }) => `WHEN lo / ${width} = hi / ${width} THEN ${value(width, level)}`).join(' ')} ELSE ${otherwise} END`;
  return `WITH RECURSIVE arg AS (SELECT ${args}),
    span AS MATERIALIZED (SELECT ${leafNode('min')} AS lo, ${leafNode('max')} AS hi, k FROM arg),
    at (level, node, k) AS (
      SELECT CAST(${start((_, level) => `${level}`, `${TOP_LEVEL}`)} AS BIGINT), CAST(${start((width) => `hi / ${width}`, '0')} AS BIGINT), k FROM span
      UNION ALL
      SELECT c.level, c.node, at.k - c.before FROM at CROSS JOIN arg CROSS JOIN ${counts} c
      WHERE at.level > 1 AND ${samePartition('c')}c.level = at.level - 1 AND c.node = (
        SELECT d.node FROM ${counts} d WHERE ${samePartition('d')}d.level = at.level - 1 AND ${under('d.node', 'at')} AND d.before <= at.k
        ORDER BY d.node DESC LIMIT 1)),
    leaf AS MATERIALIZED (SELECT ${partition.map((c) => `arg.${c.name}, `).join('')}at.node * ${FAN_OUT} AS low, at.node * ${FAN_OUT} + ${FAN_OUT - 1} AS high, at.k
      FROM arg CROSS JOIN at WHERE at.level = 1),
    numbered AS (SELECT t.id, l.k, row_number() OVER (ORDER BY t.id) AS n FROM leaf l CROSS JOIN ${rows} t
      WHERE ${partition.map((c) => `t.${c.name} = l.${c.name} AND `).join('')}t.id BETWEEN l.low AND l.high),
    first_id AS (SELECT id FROM numbered WHERE n = k + 1)`;
}

/** The most rows a page holds (the API's lists ask for at most 100). */
export const MAX_PAGE_ROWS = 100;

/**
 * A page's statement: `select` (the columns `id` and `json`, reading on from `(SELECT id FROM first_id)`, `ORDER BY
 * id`) cut to the page's limit (`ReadModelDialect.limitedPage`). Its parameters: `firstIdOfPage`'s, `select`'s, then
 * the limit (at most MAX_PAGE_ROWS: `pageLimit`).
 */
export function idPage(dialect: Pick<ReadModelDialect, 'limitedPage'>, paging: IdPaging, select: string): string {
  return `${firstIdOfPage(paging)} ${dialect.limitedPage(select, MAX_PAGE_ROWS)}`;
}

/** `limit` as a page's last parameter: a page holds at most MAX_PAGE_ROWS rows (`idPage`). */
export function pageLimit(limit: number): number {
  if (!(limit <= MAX_PAGE_ROWS)) throw new RangeError(`a page holds at most ${MAX_PAGE_ROWS} rows, not ${limit}`);
  return limit;
}

/** The number of rows of a partition: the top level's one count. Its parameters: the partition's values. */
export function idCount({ counts, partition = [] }: IdPaging): string {
  const where = [...partition.map((c) => `${c.name} = ?`), `level = ${TOP_LEVEL}`, 'node = 0'].join(' AND ');
  return `SELECT coalesce((SELECT size FROM ${counts} WHERE ${where}), 0)`;
}
