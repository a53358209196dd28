import type { CommandState } from '../commands/command-state.ts';
import type { IdTable, LookupKind, Lookups } from '../commands/lookups.ts';
import type { ProductRecord } from '../records/product/events.ts';
import type { BrandRecord } from '../records/brand/events.ts';
import type { CategoryRecord } from '../records/category/events.ts';
import type { ContractorRecord } from '../records/contractor/events.ts';
import type { DocumentRecord, DocumentRef, DocumentType } from '../records/document/events.ts';
import { type RecordState, evolveRecord } from '../events/folds.ts';
import type { DomainEvent } from '../events/registry.ts';
import type { NewEvent } from '../events/store.ts';
import type { BulkReads } from '../projections/bulk-reads.ts';
import type { AsyncReads } from '../storage/async-reads.ts';

/** The bulk reads a batch's lookups are answered from, as the storage seam answers them. */
export type StateSource = AsyncReads<BulkReads>;

/** One kind of lookup's answers, by key; asking a key the batch's lookups did not name is a bug in a decider's `lookups`. */
class Answers<K, V> {
  private readonly answers = new Map<K, V>();

  constructor(private readonly kind: LookupKind) {}

  set(key: K, value: V): void {
    this.answers.set(key, value);
  }

  /** Sets the answer unless one is known (a record found by another kind of lookup than the one that missed it). */
  setAbsent(key: K, absent: V): void {
    if (!this.answers.has(key)) this.answers.set(key, absent);
  }

  get(key: K): V {
    if (!this.answers.has(key)) throw new Error(`a decider read ${this.kind} ${JSON.stringify(key)}, which no lookup of its batch named`);
    return this.answers.get(key)!;
  }
}

/** Every key of every record's lookups, each kind's keys once. */
function union(all: Lookups[]) {
  const keys = <K>(pick: (lookups: Lookups) => K[] | undefined) => [...new Set(all.flatMap((lookups) => pick(lookups) ?? []))];
  const documents = new Map<string, DocumentRef>();
  for (const lookups of all) for (const ref of lookups.documents ?? []) documents.set(documentKey(ref.type, ref.id), { type: ref.type, id: ref.id });
  return {
    products: keys((l) => l.products),
    productSkus: keys((l) => l.productSkus),
    categories: keys((l) => l.categories),
    categoryNames: keys((l) => l.categoryNames),
    brands: keys((l) => l.brands),
    brandNames: keys((l) => l.brandNames),
    contractors: keys((l) => l.contractors),
    contractorStatuses: keys((l) => l.contractorStatuses),
    documents: [...documents.values()],
    highestIds: keys((l) => l.highestIds),
  };
}

const siblingKey = (parent: number, name: string) => `${parent}\u0000${name}`;
const documentKey = (type: DocumentType, id: number) => `${type}-${id}`;

/** The kinds of record a batch's events change, each with the read table of its ids and its unique key, if any. */
type Kind = 'product' | 'category' | 'brand' | 'contractor' | 'status' | 'document' | 'import' | 'company';

const KIND_OF: Record<DomainEvent['type'], Kind> = {
  ProductAdded: 'product',
  ProductEdited: 'product',
  ProductPricesUpdated: 'product',
  CategoryAdded: 'category',
  CategoryEdited: 'category',
  BrandAdded: 'brand',
  BrandEdited: 'brand',
  ContractorAdded: 'contractor',
  ContractorEdited: 'contractor',
  ContractorStatusCreated: 'status',
  DocumentRecorded: 'document',
  DocumentRevised: 'document',
  DocumentPosted: 'document',
  DocumentUnposted: 'document',
  DocumentLinked: 'document',
  ImportRunRecorded: 'import',
  CompanyDetailsSet: 'company',
};

const TABLE_OF: Partial<Record<Kind, IdTable>> = { product: 'products', category: 'categories', brand: 'brands', contractor: 'contractors' };

/** The key a record holds alone among its kind, as the overlay keeps its owner. */
const UNIQUE_KEY_OF: Partial<Record<Kind, (record: RecordState) => string>> = {
  product: (record) => `sku\u0000${(record as ProductRecord).sku}`,
  category: (record) => `group\u0000${siblingKey((record as CategoryRecord).parent, (record as CategoryRecord).name)}`,
  brand: (record) => `brand\u0000${(record as BrandRecord).name}`,
};

/** What the batch's own events made of its records, laid over what was read: by stream, with the unique keys and highest ids they moved. */
class Overlay {
  readonly records = new Map<string, RecordState>();
  /** Unique keys the batch moved: to the id now holding them, or to none (undefined) once left. */
  readonly owners = new Map<string, number | undefined>();
  readonly highest = new Map<IdTable, number>();

  lay(kind: Kind, stream: string, before: RecordState | undefined, after: RecordState): void {
    this.records.set(stream, after);
    const keyOf = UNIQUE_KEY_OF[kind];
    const id = (after as { id?: number }).id;
    if (keyOf !== undefined && id !== undefined) {
      if (before !== undefined) this.owners.set(keyOf(before), undefined);
      this.owners.set(keyOf(after), id);
    }
    const table = TABLE_OF[kind];
    if (table !== undefined && id !== undefined) this.highest.set(table, Math.max(this.highest.get(table) ?? 0, id));
  }

  /** The record of the stream when the batch changed it (`has` first: a record is never undefined here). */
  record<T extends RecordState>(stream: string): T | undefined {
    return this.records.get(stream) as T | undefined;
  }

  owner(key: string): { id: number | undefined } | undefined {
    return this.owners.has(key) ? { id: this.owners.get(key) } : undefined;
  }
}

/**
 * The state a batch is decided on: its records' lookups, unioned and read once in bulk per kind (`read`), then each
 * record decided once, in order, over those answers and an overlay of the batch's own events (`decideEach`), so a
 * batch may add a group and then its subgroup, or two products with the next ids.
 */
export class BatchState implements CommandState {
  private readonly overlay = new Overlay();
  private readonly products = new Answers<number, ProductRecord | undefined>('products');
  private readonly skuOwners = new Answers<string, number | undefined>('productSkus');
  private readonly categories = new Answers<number, CategoryRecord | undefined>('categories');
  private readonly categoryNames = new Answers<string, true>('categoryNames');
  /** The lowest id of each name under each parent, among the groups read by name. */
  private readonly siblings = new Map<string, number>();
  private readonly brands = new Answers<number, BrandRecord | undefined>('brands');
  private readonly brandOwners = new Answers<string, number | undefined>('brandNames');
  private readonly contractors = new Answers<number, ContractorRecord | undefined>('contractors');
  private readonly statuses = new Answers<string, boolean>('contractorStatuses');
  private readonly documents = new Answers<string, DocumentRecord | undefined>('documents');
  private readonly highest = new Answers<IdTable, number>('highestIds');

  constructor(private readonly source: StateSource) {}

  /** Reads what every record's lookups name, each kind of lookup in one bulk read (none for a kind no record names). */
  async read(all: Lookups[]): Promise<void> {
    const keys = union(all);
    const reads: Promise<void>[] = [];
    const read = <K>(wanted: K[], fetch: (keys: K[]) => Promise<void>) => {
      if (wanted.length > 0) reads.push(fetch(wanted));
    };
    read(keys.products, async (ids) => {
      const found = await this.source.products(ids);
      for (const id of ids) this.products.set(id, found.get(id));
    });
    read(keys.productSkus, async (skus) => {
      const found = await this.source.productsBySku(skus);
      for (const sku of skus) {
        const product = found.get(sku);
        this.skuOwners.set(sku, product?.id);
        if (product !== undefined) this.products.set(product.id, product);
      }
    });
    read(keys.categories, async (ids) => {
      const rows = await this.source.categoriesWithAncestors(ids);
      for (const row of rows) this.categories.set(row.id, row);
      for (const id of ids) this.categories.setAbsent(id, undefined);
      for (const row of rows) if (row.parent !== 0) this.categories.setAbsent(row.parent, undefined);
    });
    read(keys.categoryNames, async (names) => {
      for (const row of await this.source.categoriesByName(names)) {
        this.categories.set(row.id, row);
        const key = siblingKey(row.parent, row.name);
        this.siblings.set(key, Math.min(this.siblings.get(key) ?? row.id, row.id));
      }
      for (const name of names) this.categoryNames.set(name, true);
    });
    read(keys.brands, async (ids) => {
      const rows = await this.source.brands(ids);
      for (const row of rows) this.brands.set(row.id, row);
      for (const id of ids) this.brands.setAbsent(id, undefined);
    });
    read(keys.brandNames, async (names) => {
      const owners = new Map<string, BrandRecord>();
      for (const row of await this.source.brandsByName(names)) if (!owners.has(row.name) || owners.get(row.name)!.id > row.id) owners.set(row.name, row);
      for (const name of names) {
        const owner = owners.get(name);
        this.brandOwners.set(name, owner?.id);
        if (owner !== undefined) this.brands.set(owner.id, owner);
      }
    });
    read(keys.contractors, async (ids) => {
      const found = await this.source.contractors(ids);
      for (const id of ids) this.contractors.set(id, found.get(id));
    });
    read(keys.contractorStatuses, async (names) => {
      const existing = await this.source.existingContractorStatuses(names);
      for (const name of names) this.statuses.set(name, existing.has(name));
    });
    read(keys.documents, async (refs) => {
      const rows = await this.source.documentsWithBases(refs);
      for (const row of rows) this.documents.set(documentKey(row.type, row.id), row.record);
      for (const ref of [...refs, ...rows.flatMap((row) => row.record.basedOn)]) this.documents.setAbsent(documentKey(ref.type, ref.id), undefined);
    });
    read(keys.highestIds, async (tables) => {
      for (const [table, highest] of await this.source.highestIds(tables)) this.highest.set(table, highest);
    });
    await Promise.all(reads);
  }

  /** Decides each record once, in order, each after the events of the ones before it. */
  decideEach<I, D>(inputs: (I | undefined)[], decide: (input: I) => D, eventsOf: (decision: D) => NewEvent[] | undefined): (D | undefined)[] {
    return inputs.map((input) => {
      if (input === undefined) return undefined;
      const decision = decide(input);
      for (const event of eventsOf(decision) ?? []) this.evolve(event);
      return decision;
    });
  }

  /** One event folded into its record (events/folds.ts), laid over the state for the records after it. */
  private evolve(newEvent: NewEvent): void {
    const event = newEvent as DomainEvent;
    const kind = KIND_OF[event.type];
    let before: RecordState | undefined;
    const after = evolveRecord(() => (before = this.recordOf(kind, event)), event);
    if (after === undefined) throw new Error(`${event.type} changes ${newEvent.stream}, which its decider did not read`);
    this.overlay.lay(kind, newEvent.stream, before, after);
  }

  /** The record an event changes, as the state answers it. */
  private recordOf(kind: Kind, event: DomainEvent): RecordState | undefined {
    const data = event.data as { id: number; docType: DocumentType; name: string };
    switch (kind) {
      case 'product':
        return this.product(data.id);
      case 'category':
        return this.category(data.id);
      case 'brand':
        return this.brand(data.id);
      case 'contractor':
        return this.contractor(data.id);
      case 'status':
        return this.contractorStatusExists(data.name) ? { name: data.name } : undefined;
      case 'document':
        return this.document(data.docType, data.id);
      case 'import':
        return undefined; // recorded once, whole: no command reads an import run
    }
  }

  private next(table: IdTable): number {
    return Math.max(this.highest.get(table), this.overlay.highest.get(table) ?? 0) + 1;
  }

  product(id: number): ProductRecord | undefined {
    return this.overlay.record<ProductRecord>(`product-${id}`) ?? this.products.get(id);
  }

  productIdBySku(sku: string): number | undefined {
    return (this.overlay.owner(`sku\u0000${sku}`) ?? { id: this.skuOwners.get(sku) }).id;
  }

  nextProductId(): number {
    return this.next('products');
  }

  category(id: number): CategoryRecord | undefined {
    return this.overlay.record<CategoryRecord>(`category-${id}`) ?? this.categories.get(id);
  }

  categoryIdBySiblingName(parent: number, name: string): number | undefined {
    const moved = this.overlay.owner(`group\u0000${siblingKey(parent, name)}`);
    if (moved !== undefined) return moved.id;
    this.categoryNames.get(name);
    return this.siblings.get(siblingKey(parent, name));
  }

  nextCategoryId(): number {
    return this.next('categories');
  }

  brand(id: number): BrandRecord | undefined {
    return this.overlay.record<BrandRecord>(`brand-${id}`) ?? this.brands.get(id);
  }

  brandIdByName(name: string): number | undefined {
    return (this.overlay.owner(`brand\u0000${name}`) ?? { id: this.brandOwners.get(name) }).id;
  }

  nextBrandId(): number {
    return this.next('brands');
  }

  contractor(id: number): ContractorRecord | undefined {
    return this.overlay.record<ContractorRecord>(`contractor-${id}`) ?? this.contractors.get(id);
  }

  nextContractorId(): number {
    return this.next('contractors');
  }

  contractorStatusExists(name: string): boolean {
    return this.overlay.records.has(`contractor-status-${name}`) || this.statuses.get(name);
  }

  document(type: DocumentType, id: number): DocumentRecord | undefined {
    return this.overlay.record<DocumentRecord>(documentKey(type, id)) ?? this.documents.get(documentKey(type, id));
  }
}
