import type { CommandState } from '../commands/command-state.ts';
import type { DocumentState } from '../commands/documents.ts';
import type { ProductRecord } from '../events/catalogue.ts';
import type { ContractorRecord } from '../events/contractors.ts';
import type { DocumentType } from '../events/documents.ts';
import type { NewEvent } from '../events/store.ts';
import type { AsyncReads } from '../storage/async-reads.ts';

type Category = NonNullable<ReturnType<CommandState['category']>>;
type Brand = NonNullable<ReturnType<CommandState['brand']>>;

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

/** What the batch's own decisions changed, laid over the source: each record is decided after the earlier ones. */
class Overlay {
  products = new Map<number, ProductRecord>();
  skus = new Map<string, number | undefined>();
  maxProductId = 0;
  categories = new Map<number, Category>();
  siblingNames = new Map<string, number | undefined>();
  maxCategoryId = 0;
  brands = new Map<number, Brand>();
  brandNames = new Map<string, number | undefined>();
  maxBrandId = 0;
  contractors = new Map<number, ContractorRecord>();
  statuses = new Set<string>();
  maxContractorId = 0;
  documents = new Map<string, DocumentState>();
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
  private readonly categories: Memo<number, Category | undefined>;
  private readonly siblingNames: Memo<string, number | undefined>;
  private readonly brands: Memo<number, Brand | undefined>;
  private readonly brandNames: Memo<string, number | undefined>;
  private readonly contractors: Memo<number, ContractorRecord | undefined>;
  private readonly statuses: Memo<string, boolean>;
  private readonly documents: Memo<string, DocumentState | undefined>;
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
    const o = this.overlay;
    for (const event of events) {
      switch (event.type) {
        case 'ProductAdded':
          o.products.set(event.data.id, event.data);
          o.skus.set(event.data.sku, event.data.id);
          o.maxProductId = Math.max(o.maxProductId, event.data.id);
          break;
        case 'ProductEdited':
        case 'ProductPricesUpdated': {
          const current = this.product(event.data.id);
          if (current === undefined) break; // only while probing, where a lookup may not be known yet
          const changes = event.data.changes as Partial<ProductRecord>;
          if (changes.sku !== undefined && changes.sku !== current.sku) {
            o.skus.set(current.sku, undefined);
            o.skus.set(changes.sku, current.id);
          }
          o.products.set(current.id, { ...current, ...changes });
          break;
        }
        case 'CategoryAdded':
          o.categories.set(event.data.id, event.data);
          o.siblingNames.set(siblingKey(event.data.parent, event.data.name), event.data.id);
          o.maxCategoryId = Math.max(o.maxCategoryId, event.data.id);
          break;
        case 'CategoryEdited': {
          const current = this.category(event.data.id);
          if (current === undefined) break;
          const next = { id: current.id, name: event.data.name ?? current.name, parent: event.data.parent ?? current.parent };
          o.siblingNames.set(siblingKey(current.parent, current.name), undefined);
          o.siblingNames.set(siblingKey(next.parent, next.name), next.id);
          o.categories.set(next.id, next);
          break;
        }
        case 'BrandAdded':
          o.brands.set(event.data.id, event.data);
          o.brandNames.set(event.data.name, event.data.id);
          o.maxBrandId = Math.max(o.maxBrandId, event.data.id);
          break;
        case 'BrandEdited': {
          const current = this.brand(event.data.id);
          if (current === undefined) break;
          const next = { id: current.id, name: event.data.name ?? current.name, logo: event.data.logo === undefined ? current.logo : event.data.logo };
          o.brandNames.set(current.name, undefined);
          o.brandNames.set(next.name, next.id);
          o.brands.set(next.id, next);
          break;
        }
        case 'ContractorAdded':
          o.contractors.set(event.data.id, event.data);
          o.maxContractorId = Math.max(o.maxContractorId, event.data.id);
          break;
        case 'ContractorEdited': {
          const current = this.contractor(event.data.id);
          if (current !== undefined) o.contractors.set(current.id, { ...current, ...event.data.changes });
          break;
        }
        case 'ContractorStatusCreated':
          o.statuses.add(event.data.name);
          break;
        case 'DocumentRecorded':
          o.documents.set(documentKey(event.data.docType, event.data.id), { fields: event.data.fields, status: event.data.status, basedOn: event.data.basedOn });
          break;
        case 'DocumentRevised':
        case 'DocumentPosted':
        case 'DocumentUnposted':
        case 'DocumentLinked': {
          const key = documentKey(event.data.docType, event.data.id);
          const current = this.document(event.data.docType, event.data.id);
          if (current === undefined) break;
          const next = { ...current };
          if (event.type === 'DocumentRevised') next.fields = { ...current.fields, ...event.data.changes };
          if (event.type === 'DocumentPosted') next.status = 1;
          if (event.type === 'DocumentUnposted') next.status = 0;
          if (event.type === 'DocumentLinked') next.basedOn = event.data.basedOn;
          o.documents.set(key, next);
          break;
        }
      }
    }
  }

  product(id: number): ProductRecord | undefined {
    return this.overlay.products.get(id) ?? this.products.get(id);
  }

  productIdBySku(sku: string): number | undefined {
    return this.overlay.skus.has(sku) ? this.overlay.skus.get(sku) : this.skus.get(sku);
  }

  nextProductId(): number {
    return Math.max(this.maxIds.get('products') ?? 0, this.overlay.maxProductId) + 1;
  }

  category(id: number): Category | undefined {
    return this.overlay.categories.get(id) ?? this.categories.get(id);
  }

  categoryIdBySiblingName(parent: number, name: string): number | undefined {
    const key = siblingKey(parent, name);
    return this.overlay.siblingNames.has(key) ? this.overlay.siblingNames.get(key) : this.siblingNames.get(key);
  }

  nextCategoryId(): number {
    return Math.max(this.maxIds.get('categories') ?? 0, this.overlay.maxCategoryId) + 1;
  }

  brand(id: number): Brand | undefined {
    return this.overlay.brands.get(id) ?? this.brands.get(id);
  }

  brandIdByName(name: string): number | undefined {
    return this.overlay.brandNames.has(name) ? this.overlay.brandNames.get(name) : this.brandNames.get(name);
  }

  nextBrandId(): number {
    return Math.max(this.maxIds.get('brands') ?? 0, this.overlay.maxBrandId) + 1;
  }

  contractor(id: number): ContractorRecord | undefined {
    return this.overlay.contractors.get(id) ?? this.contractors.get(id);
  }

  nextContractorId(): number {
    return Math.max(this.maxIds.get('contractors') ?? 0, this.overlay.maxContractorId) + 1;
  }

  contractorStatusExists(name: string): boolean {
    return this.overlay.statuses.has(name) || (this.statuses.get(name) ?? false);
  }

  document(type: DocumentType, id: number): DocumentState | undefined {
    const key = documentKey(type, id);
    return this.overlay.documents.get(key) ?? this.documents.get(key);
  }
}
