// CPU of the products read model applying live writes on SQLite, per record: batches of 100 new products and of
// 100 price updates, each batch one transaction as the writer commits it, over a table already holding PRELOAD
// products (docs/performance.md, "Products found by name"). ROOT: the source tree measured, so that two commits
// can be compared (`git archive COMMIT | tar -x -C DIR`, node_modules linked in):
//   ROOT=$PWD PRELOAD=100000 node --import tsx bench/product-writes.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const ROOT = process.env.ROOT!;
const PRELOAD = Number(process.env.PRELOAD ?? 100000);
const { Company, releaseReadModels } = await import(`${ROOT}/src/company.ts`);
const { SqliteEngine } = await import(`${ROOT}/src/storage/sqlite/engine.ts`);
// This release's read models where the composition root hands them on, else (older commits) where they were.
const readModels = releaseReadModels ?? (await import(`${ROOT}/src/read-models/read-models.ts`)).readModels;
const { Projections, projectors } = await import(`${ROOT}/src/projections/registry.ts`);
const { sqliteSession } = await import(`${ROOT}/src/storage/sqlite/session.ts`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'product-projector-'));
const engine = await SqliteEngine.open(path.join(dir, 'tb.db'), readModels, {});
// Where the engine leaves its read tables to the read-models layer, they are brought up as a company's are.
if (Company.over) await Company.over(engine);
const db = engine.db;
// No fsync waits: the CPU is what is measured.
db.pragma('synchronous = OFF');
const list = projectors.filter((p: { name: string }) => ['brands', 'categories', 'products'].includes(p.name));
const projections = new Projections(sqliteSession(db), list);
const ADJ = ['Усиленная', 'Компактная', 'Новая', 'Офисная', 'Малая'];
const NOUN = ['ручка', 'лампа', 'дрель', 'тетрадь', 'крупа'];
let seq = 0;
const meta = { source: 'api' };
const stored = (type: string, stream: string, data: unknown) => ({ seq: ++seq, stream, streamVersion: 1, schemaVersion: type === 'ProductPricesUpdated' ? 2 : 1, type, data, meta, recordedAt: '2026-11-28T00:00:00.000Z' });
let n = 0;
const added = () => {
  const id = ++n;
  const record = {
    id, name: `${ADJ[id % 5]} ${NOUN[(id >> 3) % 5]} Заря-${100 + (id % 900)}`, sku: `SKU-${id}`, categoryId: 0, brandId: null,
    minPrice: 0, purchasePrice: 0, salePrice: 10000 + (id % 50), unit: 'шт', vat: 20, order: null, code: null, weight: null,
    dimensionX: null, dimensionY: null, dimensionZ: null, parent: 0, barcodes: [`46000${id}`], additionalPrices: [], packs: [], additionalFields: [], files: [],
  };
  return stored('ProductAdded', `product-${id}`, record);
};
let round = 0;
const priced = () => stored('ProductPricesUpdated', 'product-x', { id: 1 + ((round * 7919) % PRELOAD), changes: { salePrice: 500000 + (++round % 1000) } });
const batch = async (events: unknown[]) => {
  db.exec('BEGIN');
  await projections.apply(events);
  await projections.saveCheckpoint();
  db.exec('COMMIT');
};
for (let i = 0; i < PRELOAD / 100; i++) await batch(Array.from({ length: 100 }, added));
const cpu = async (batches: number, make: () => unknown) => {
  const start = process.cpuUsage();
  for (let i = 0; i < batches; i++) await batch(Array.from({ length: 100 }, make));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (batches * 100);
};
await cpu(20, added);
await cpu(20, priced);
const results: { add: number[]; prices: number[] } = { add: [], prices: [] };
for (let r = 0; r < 5; r++) {
  results.add.push(await cpu(50, added));
  results.prices.push(await cpu(50, priced));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(JSON.stringify({ root: path.basename(ROOT), addProductUs: +median(results.add).toFixed(1), updatePricesUs: +median(results.prices).toFixed(1), add: results.add.map((x) => +x.toFixed(1)), prices: results.prices.map((x) => +x.toFixed(1)) }));
engine.close?.();
fs.rmSync(dir, { recursive: true, force: true });
