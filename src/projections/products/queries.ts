import { type SqlSession, byCount, keyedRead } from '../../storage/sql.ts';
import type { ProductRecord } from '../../records/product/events.ts';
import { idCount, idPage, pageLimit } from '../id-counts.ts';
import { nameKey, nameWords } from '../../lib/name-key.ts';

// A page's first id from the counts, then the rows on from it in id order; the count is one seek.
const PAGING = { rows: 'products', counts: 'product_id_counts' };

const namesByIds = keyedRead<number, string>((list) => `SELECT id, record FROM products WHERE id IN (${list})`, (record) => (JSON.parse(record as string) as ProductRecord).name);

const skusByIds = keyedRead<number, string>((list) => `SELECT id, sku FROM products WHERE id IN (${list})`, (sku) => sku as string);

/**
 * How many entries of one word's start a search reads at most. A start shared by more names than this is read
 * only this far: a search is bounded whatever the catalogue's size, and finds all it should whenever one of the
 * words typed begins fewer words than this.
 */
export const WORD_ENTRIES = 1000;

/** How many words typed a search looks at: the rest only narrow what these find, and are left out. */
const WORDS_TYPED = 6;

/** The keys starting with `start`, as a range of byte-ordered text: from `start` to its last character's successor. */
function startRange(start: string): [string, string] {
  const characters = [...start];
  const last = characters.pop()!.codePointAt(0)!;
  return [start, characters.join('') + String.fromCodePoint(last + 1)];
}

const wordCounts = byCount(
  (words) =>
    `SELECT ${Array.from({ length: words }, (_, i) => `(SELECT count(*) FROM (SELECT 1 FROM product_name_words WHERE word >= ? AND word < ? LIMIT ${WORD_ENTRIES}) AS w${i})`).join(', ')}`,
);
const WORD_ROWS = `SELECT product_id, name FROM product_name_words WHERE word >= ? AND word < ? ORDER BY word, product_id LIMIT ${WORD_ENTRIES}`;

/** A product as a search by name finds it. */
export interface ProductNamed {
  id: number;
  name: string;
  sku: string;
}

/** The products' reads: pages, one product's JSON or record, and the lookups commands decide by. */
export function productQueries(session: SqlSession) {
  const page = {
    select: idPage(session.dialect, PAGING, 'SELECT id, list_json AS json FROM products WHERE id >= (SELECT id FROM first_id) ORDER BY id'),
    allCount: idCount(PAGING),
  };
  return {
    page: (offset: number, limit: number) => session.joinedPage(page, { select: [offset, pageLimit(limit)], allCount: [] }),
    fullJsonById: (id: number) => session.value<string>('SELECT full_json FROM products WHERE id = ?', [id]),
    fullJsonBySku: (sku: string) => session.value<string>('SELECT full_json FROM products WHERE sku = ?', [sku]),
    async byId(id: number): Promise<ProductRecord | undefined> {
      const json = await session.value<string>('SELECT record FROM products WHERE id = ?', [id]);
      return json === undefined ? undefined : JSON.parse(json);
    },
    /** The names of the products with these ids, by id (unknown ids are left out). */
    namesByIds: (ids: number[]) => namesByIds(session, ids),
    idBySku: (sku: string) => session.value<number>('SELECT id FROM products WHERE sku = ?', [sku]),
    /**
     * Up to `limit` products whose name has a word starting with each word of `text` (any case, ё as е); only
     * those named `text` exactly when there are any (`Стол` beside `Стол письменный`). The words' table is read from the start that begins the fewest words: its
     * entries (at most `WORD_ENTRIES`) are the candidates, checked against the rest of the words typed.
     */
    async byName(text: string, limit: number): Promise<ProductNamed[]> {
      const typed = nameWords(text).slice(0, WORDS_TYPED);
      if (typed.length === 0) return [];
      const ranges = typed.map(startRange);
      const [counts] = await session.rows<number[]>(wordCounts(typed.length), ranges.flat());
      const rarest = counts.map(Number).reduce((best, count, i, all) => (count < all[best] ? i : best), 0);
      if (Number(counts[rarest]) === 0) return [];
      const exact = nameKey(text.trim());
      const found = new Map<number, string>();
      for (const [id, name] of await session.rows<[number, string]>(WORD_ROWS, ranges[rarest])) {
        const words = nameWords(name);
        if (typed.every((start) => words.some((word) => word.startsWith(start)))) found.set(id, name);
      }
      const named = [...found].filter(([, name]) => nameKey(name) === exact);
      const picked = (named.length > 0 ? named : [...found]).slice(0, limit);
      const skus = await skusByIds(session, picked.map(([id]) => id));
      return picked.map(([id, name]) => ({ id, name, sku: skus.get(id)! }));
    },
  };
}
