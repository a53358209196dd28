import type { CommandState } from '../commands/command-state.ts';
import type { BrandRecord, CategoryRecord, ProductRecord } from '../events/catalogue.ts';
import type { ContractorRecord } from '../events/contractors.ts';
import type { DocumentRecord, DocumentType } from '../events/documents.ts';
import { evolveBrand, evolveCategory, evolveContractor, evolveContractorStatus, evolveDocument, evolveProduct, unfolded } from '../events/folds.ts';
import type { DomainEvent } from '../events/registry.ts';
import type { NewEvent } from '../events/store.ts';
import type { AsyncReads } from '../storage/async-reads.ts';

/** Reads of many keys in one query each: what a batch's records ask for is fetched before they are decided. */
export interface BulkReads {
  products(ids: number[]): Map<number, ProductRecord>;
  /** The products with these skus, by sku: a sku's product is read with its id, saving a round. */
  productsBySku(skus: string[]): Map<string, ProductRecord>;
  contractors(ids: number[]): Map<number, ContractorRecord>;
  existingContractorStatuses(names: string[]): Set<string>;
}

/** The read-model state a batch is decided against, and its bulk reads, as the storage seam answers them. */
export type StateSource = AsyncReads<CommandState & BulkReads>;

/** A kind of key's answers, fetched in bulk and kept for the batch; `absent` answers a key the fetch did not find. */
class Memo<K, V> {
  private readonly known = new Map<K, V>();
  /** Keys asked that are not known yet: the next round fetches them. */
  readonly wanted = new Set<K>();

  constructor(
    private readonly fetch: (keys: K[]) => Promise<Map<K, V>>,
    private readonly absent: V,
  ) {}

  /** The key's answer when known; otherwise undefined, and the key is fetched next round. */
  get(key: K): V | undefined {
    if (this.known.has(key)) return this.known.get(key);
    this.wanted.add(key);
    return undefined;
  }

  /** Keeps an answer read with another kind's (a product read by its sku), so it is not fetched again. */
  prime(key: K, value: V): void {
    this.known.set(key, value);
    this.wanted.delete(key);
  }

  async load(): Promise<void> {
    if (this.wanted.size === 0) return;
    const keys = [...this.wanted];
    this.wanted.clear();
    const found = await this.fetch(keys);
    for (const key of keys) this.known.set(key, found.has(key) ? found.get(key)! : this.absent);
  }
}

/** A fetch of many keys made of one read per key: for the kinds a batch seldom asks many of. */
function oneByOne<K, V>(read: (key: K) => Promise<V>): (keys: K[]) => Promise<Map<K, V>> {
  return async (keys) => new Map(await Promise.all(keys.map(async (key) => [key, await read(key)] as const)));
}

/** Rounds of gathering a batch may take: each follows one step of a chain (a sku's id, then that product). */
const MAX_ROUNDS = 8;

/** One kind's records a batch decided, with its highest id and its lookup by a unique key (a sku, a name) when it has one. */
class Decided<R extends { id: number }, K = never> {
  readonly records = new Map<number, R>();
  /** Keys the batch moved: to the record now holding them, or to none (undefined) once left. */
  readonly byKey = new Map<K, number | undefined>();
  maxId = 0;

  constructor(private readonly keyOf?: (record: R) => K) {}

  set(before: R | undefined, after: R): void {
    if (this.keyOf !== undefined) {
      if (before !== undefined) this.byKey.set(this.keyOf(before), undefined);
      this.byKey.set(this.keyOf(after), after.id);
    }
    this.records.set(after.id, after);
    this.maxId = Math.max(this.maxId, after.id);
  }
}

/** What the batch's own decisions changed, laid over the source: each record is decided after the earlier ones. */
class Overlay {
  products = new Decided((product: ProductRecord) => product.sku);
  categories = new Decided((category: CategoryRecord) => siblingKey(category.parent, category.name));
  brands = new Decided((brand: BrandRecord) => brand.name);
  contractors = new Decided<ContractorRecord>();
  statuses = new Set<string>();
  documents = new Map<string, DocumentRecord>();
}

const siblingKey = (parent: number, name: string) => `${parent}\u0000${name}`;
const documentKey = (type: DocumentType, id: number) => `${type}-${id}`;

/**
 * The state a batch is decided on, batch-level: the records its commands ask for are read up front, a few
 * queries for the whole batch (`decideAll`), and the batch's own decisions are laid over them as they are made
 * (`evolve`), so a batch may add a group and then its subgroup, or two products with the next ids. The answers
 * are always the read tables' plus the batch's own.
 */
export class BatchState implements CommandState {
  private overlay = new Overlay();
  private readonly products: Memo<number, ProductRecord | undefined>;
  private readonly skus: Memo<string, number | undefined>;
  private readonly categories: Memo<number, CategoryRecord | undefined>;
  private readonly siblingNames: Memo<string, number | undefined>;
  private readonly brands: Memo<number, BrandRecord | undefined>;
  private readonly brandNames: Memo<string, number | undefined>;
  private readonly contractors: Memo<number, ContractorRecord | undefined>;
  private readonly statuses: Memo<string, boolean>;
  private readonly documents: Memo<string, DocumentRecord | undefined>;
  /** Each read table's highest id, by table. */
  private readonly maxIds: Memo<'products' | 'categories' | 'brands' | 'contractors', number>;
  private readonly memos: { readonly wanted: ReadonlySet<unknown>; load(): Promise<void> }[];

  constructor(source: StateSource) {
    this.products = new Memo((ids) => source.products(ids), undefined);
    this.skus = new Memo(async (skus) => {
      const found = await source.productsBySku(skus);
      for (const product of found.values()) this.products.prime(product.id, product);
      return new Map([...found].map(([sku, product]) => [sku, product.id]));
    }, undefined);
    this.categories = new Memo(oneByOne((id) => source.category(id)), undefined);
    this.siblingNames = new Memo(
      oneByOne((key) => {
        const [parent, name] = key.split('\u0000');
        return source.categoryIdBySiblingName(Number(parent), name);
      }),
      undefined,
    );
    this.brands = new Memo(oneByOne((id) => source.brand(id)), undefined);
    this.brandNames = new Memo(oneByOne((name) => source.brandIdByName(name)), undefined);
    this.contractors = new Memo((ids) => source.contractors(ids), undefined);
    this.statuses = new Memo(async (names) => new Map([...(await source.existingContractorStatuses(names))].map((name) => [name, true])), false);
    this.documents = new Memo(
      oneByOne((key) => {
        const at = key.lastIndexOf('-');
        return source.document(key.slice(0, at) as DocumentType, Number(key.slice(at + 1)));
      }),
      undefined,
    );
    const nextIds = { products: source.nextProductId, categories: source.nextCategoryId, brands: source.nextBrandId, contractors: source.nextContractorId };
    this.maxIds = new Memo(oneByOne(async (table) => (await nextIds[table]()) - 1), 0);
    this.memos = [this.products, this.skus, this.categories, this.siblingNames, this.brands, this.brandNames, this.contractors, this.statuses, this.documents, this.maxIds];
  }

  /**
   * Decides the batch, each record after the earlier ones, once per round against what is known so far, to
   * learn which records its commands ask for, and reads those in bulk; again until a round asks for nothing new.
   * That last round had every answer, so its decisions are the batch's. Decisions are pure, so the rounds before
   * it change nothing. A decider may throw on a state that is only partly known (an id found, its record not
   * yet): it is decided again next round; one that throws on a state fully known throws here.
   */
  async decideAll<I, D>(inputs: (I | undefined)[], decide: (input: I) => D, eventsOf: (decision: D) => NewEvent[] | undefined): Promise<(D | undefined)[]> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      let thrown: { error: unknown } | undefined;
      this.overlay = new Overlay();
      const decisions = inputs.map((input) => {
        if (input === undefined) return undefined;
        try {
          const decision = decide(input);
          const events = eventsOf(decision);
          if (events !== undefined) this.evolve(events);
          return decision;
        } catch (error) {
          thrown ??= { error }; // partly known state: see above
          return undefined;
        }
      });
      if (this.memos.every((memo) => memo.wanted.size === 0)) {
        if (thrown) throw thrown.error;
        return decisions;
      }
      await Promise.all(this.memos.map((memo) => memo.load()));
    }
    throw new Error(`the state a batch is decided on was still incomplete after ${MAX_ROUNDS} rounds of reading`);
  }

  /** Lays a decision's events over the state, so the next record of the batch is decided after it. */
  evolve(events: NewEvent[]): void {
    for (const event of events) this.layOver(event);
  }

  /**
   * One event folded into its record (a lookup of the record before is made only by events that change one, see
   * events/folds.ts), and the lookups by name and the highest ids it moves. A record not known leaves the
   * overlay as it was: that happens only while probing, where a lookup may not be known yet.
   */
  private layOver(event: DomainEvent): void {
    const o = this.overlay;
    switch (event.type) {
      case 'ProductAdded':
      case 'ProductEdited':
      case 'ProductPricesUpdated': {
        let before: ProductRecord | undefined;
        const after = evolveProduct(() => (before = this.product(event.data.id)), event);
        if (after !== undefined) o.products.set(before, after);
        break;
      }
      case 'CategoryAdded':
      case 'CategoryEdited': {
        let before: CategoryRecord | undefined;
        const after = evolveCategory(() => (before = this.category(event.data.id)), event);
        if (after !== undefined) o.categories.set(before, after);
        break;
      }
      case 'BrandAdded':
      case 'BrandEdited': {
        let before: BrandRecord | undefined;
        const after = evolveBrand(() => (before = this.brand(event.data.id)), event);
        if (after !== undefined) o.brands.set(before, after);
        break;
      }
      case 'ContractorAdded':
      case 'ContractorEdited': {
        const after = evolveContractor(() => this.contractor(event.data.id), event);
        if (after !== undefined) o.contractors.set(undefined, after);
        break;
      }
      case 'ContractorStatusCreated':
        o.statuses.add(evolveContractorStatus(event).name);
        break;
      case 'DocumentRecorded':
      case 'DocumentRevised':
      case 'DocumentPosted':
      case 'DocumentUnposted':
      case 'DocumentLinked': {
        const { docType, id } = event.data;
        const after = evolveDocument(() => this.document(docType, id), event);
        if (after !== undefined) o.documents.set(documentKey(docType, id), after);
        break;
      }
      case 'ImportRunRecorded':
        break; // no command reads an import run
      default:
        unfolded(event);
    }
  }

  product(id: number): ProductRecord | undefined {
    return this.overlay.products.records.get(id) ?? this.products.get(id);
  }

  productIdBySku(sku: string): number | undefined {
    return this.overlay.products.byKey.has(sku) ? this.overlay.products.byKey.get(sku) : this.skus.get(sku);
  }

  nextProductId(): number {
    return Math.max(this.maxIds.get('products') ?? 0, this.overlay.products.maxId) + 1;
  }

  category(id: number): CategoryRecord | undefined {
    return this.overlay.categories.records.get(id) ?? this.categories.get(id);
  }

  categoryIdBySiblingName(parent: number, name: string): number | undefined {
    const key = siblingKey(parent, name);
    return this.overlay.categories.byKey.has(key) ? this.overlay.categories.byKey.get(key) : this.siblingNames.get(key);
  }

  nextCategoryId(): number {
    return Math.max(this.maxIds.get('categories') ?? 0, this.overlay.categories.maxId) + 1;
  }

  brand(id: number): BrandRecord | undefined {
    return this.overlay.brands.records.get(id) ?? this.brands.get(id);
  }

  brandIdByName(name: string): number | undefined {
    return this.overlay.brands.byKey.has(name) ? this.overlay.brands.byKey.get(name) : this.brandNames.get(name);
  }

  nextBrandId(): number {
    return Math.max(this.maxIds.get('brands') ?? 0, this.overlay.brands.maxId) + 1;
  }

  contractor(id: number): ContractorRecord | undefined {
    return this.overlay.contractors.records.get(id) ?? this.contractors.get(id);
  }

  nextContractorId(): number {
    return Math.max(this.maxIds.get('contractors') ?? 0, this.overlay.contractors.maxId) + 1;
  }

  contractorStatusExists(name: string): boolean {
    return this.overlay.statuses.has(name) || (this.statuses.get(name) ?? false);
  }

  document(type: DocumentType, id: number): DocumentRecord | undefined {
    const key = documentKey(type, id);
    return this.overlay.documents.get(key) ?? this.documents.get(key);
  }
}
