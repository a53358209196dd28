import { linesSum } from '../records/document/deciders.ts';
import { toKopecks } from '../lib/money.ts';

/**
 * A deterministic demo company as import lines: a catalogue, customers and suppliers, and document chains
 * (order → invoice → shipment → payment, returns, register sales, supplier purchases). Everything is drawn
 * from a seeded generator and produced lazily, one line at a time, so memory stays flat at any size; a
 * product or contractor is re-derived from its id whenever a document needs it.
 */

export interface DemoSizes {
  products: number;
  contractors: number;
  documents: number;
}

export interface ImportLine {
  type: string;
  data: Record<string, unknown>;
}

/** mulberry32: a small, fast, seedable generator; the same seed gives the same company. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(rnd: Random, list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
const int = (rnd: Random, min: number, max: number) => min + Math.floor(rnd() * (max - min + 1));
const digits = (rnd: Random, n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? int(rnd, 1, 9) : int(rnd, 0, 9))).join('');

const CATEGORIES: [string, string[]][] = [
  ['Мебель', ['Столы', 'Стулья', 'Шкафы']],
  ['Электроника', ['Телефоны', 'Ноутбуки', 'Аксессуары']],
  ['Бытовая техника', ['Холодильники', 'Стиральные машины']],
  ['Продукты', ['Молочные продукты', 'Бакалея', 'Напитки']],
  ['Канцелярия', []],
  ['Инструменты', ['Электроинструмент', 'Ручной инструмент']],
];
const BRANDS = ['Заря', 'Восток', 'Сибирь', 'Альфа', 'Полюс', 'Экран', 'Маяк', 'Рассвет', 'Берёзка', 'Уралмаш', 'Север', 'Кедр'];
/** A noun's grammatical gender, which the adjective before it agrees with. */
type Gender = 'm' | 'f' | 'n';
const NOUNS: [string, Gender][] = [
  ['Стол', 'm'], ['Стул', 'm'], ['Шкаф', 'm'], ['Смартфон', 'm'], ['Ноутбук', 'm'], ['Кабель', 'm'], ['Холодильник', 'm'], ['Молоко', 'n'], ['Кефир', 'm'],
  ['Крупа', 'f'], ['Сок', 'm'], ['Тетрадь', 'f'], ['Ручка', 'f'], ['Дрель', 'f'], ['Молоток', 'm'], ['Чайник', 'm'], ['Лампа', 'f'],
];
/** Adjectives in the masculine (the dictionary form); `agreeing` gives the feminine and neuter. */
const ADJECTIVES = ['Классический', 'Компактный', 'Новый', 'Усиленный', 'Домашний', 'Офисный', 'Практичный', 'Большой', 'Малый'];

/**
 * A full adjective in the gender of its noun: hard stems `-ый`/`-ой` → `-ая`/`-ое`, `-кий`/`-гий`/`-хий` → `-кая`/`-кое`,
 * soft `-ний` → `-няя`/`-нее`, and after ж, ш, ч, щ `-ий` → `-ая`/`-ее`.
 */
export function agreeing(masculine: string, gender: Gender): string {
  if (gender === 'm') return masculine;
  const stem = masculine.slice(0, -2);
  const ending = masculine.slice(-2);
  const last = stem.slice(-1);
  if (ending === 'ий' && last === 'н') return stem + (gender === 'f' ? 'яя' : 'ее');
  if (ending === 'ий' && 'жшчщ'.includes(last)) return stem + (gender === 'f' ? 'ая' : 'ее');
  return stem + (gender === 'f' ? 'ая' : 'ое');
}
const SURNAMES = ['Иванов', 'Петров', 'Сидоров', 'Смирнов', 'Кузнецов', 'Попов', 'Соколов', 'Лебедев', 'Козлов', 'Новиков', 'Морозов', 'Волков', 'Фёдоров', 'Михайлов'];
const FIRST_NAMES = ['Иван', 'Пётр', 'Алексей', 'Сергей', 'Дмитрий', 'Андрей', 'Николай', 'Михаил', 'Олег', 'Юрий'];
const PATRONYMICS = ['Иванович', 'Петрович', 'Сергеевич', 'Алексеевич', 'Николаевич', 'Андреевич'];
const ORG_WORDS = ['Ромашка', 'Вектор', 'Гранит', 'Меридиан', 'Север', 'Прогресс', 'Импульс', 'Созвездие', 'Оптима', 'Техносфера', 'Магистраль', 'Спектр'];
const CITIES = ['Москва', 'Санкт-Петербург', 'Казань', 'Екатеринбург', 'Новосибирск', 'Нижний Новгород', 'Самара'];
const STREETS = ['Ленина', 'Мира', 'Советская', 'Гагарина', 'Садовая', 'Лесная', 'Пушкина'];
const STATUSES = ['Новый', 'Постоянный', 'Оптовый', 'VIP'];
const STOCKS = [
  { id: 1, name: 'Основной склад' },
  { id: 2, name: 'Магазин на Ленина' },
];
const USERS = [
  { id: 1, type: 'admin', name: 'Администратор' },
  { id: 2, type: 'user', name: 'Кассир Смирнова' },
  { id: 3, type: 'user', name: 'Менеджер Волков' },
];
const COMPANY = {
  id: 1,
  name: 'ООО «Торговый дом Север»',
  inn: '7701987654',
  kpp: '770101001',
  bankAccount: { id: 1, name: 'ПАО Сбербанк', bic: '044525225', correspondent_account: '30101810400000000225', current_account: '40702810938000012345' },
};

/** The demo company's own details (`company set`), in force from before its first document. */
export const DEMO_COMPANY_DETAILS = {
  from: '2025-01-01',
  name: COMPANY.name,
  inn: COMPANY.inn,
  kpp: COMPANY.kpp,
  address: '125009, г. Москва, ул. Тверская, д. 7',
  director: 'Орлов А. В.',
  accountant: 'Белова Е. Н.',
};

const categoryCount = CATEGORIES.reduce((n, [, children]) => n + 1 + children.length, 0);

function* categoryLines(): Generator<ImportLine> {
  let id = 0;
  for (const [name, children] of CATEGORIES) {
    const parent = ++id;
    yield { type: 'product_category', data: { id: parent, name, parent: 0 } };
    for (const child of children) yield { type: 'product_category', data: { id: ++id, name: child, parent } };
  }
}

/** A product's name: the adjective agreeing with its noun, the brand and a model number (`Усиленная ручка Заря-123`). */
const productName = (adjective: string, [noun, gender]: [string, Gender], brand: string, model: number) => `${agreeing(adjective, gender)} ${noun.toLowerCase()} ${brand}-${model}`;

/** A product is a pure function of the seed and its id, so documents can show it without keeping it. */
function demoProduct(seed: number, id: number) {
  const rnd = seededRandom(seed * 7919 + id);
  // Prices on the wire: roubles with kopecks.
  const purchaseKopecks = int(rnd, 5_000, 5_000_000);
  const purchase = purchaseKopecks / 100;
  const sale = Math.round(purchaseKopecks * (1.2 + rnd() * 0.5)) / 100;
  return {
    id,
    name: productName(pick(rnd, ADJECTIVES), pick(rnd, NOUNS), pick(rnd, BRANDS), int(rnd, 100, 999)),
    sku: `SKU-${String(id).padStart(7, '0')}`,
    categoryId: int(rnd, 1, categoryCount),
    brandId: int(rnd, 1, BRANDS.length),
    purchasePrice: purchase,
    salePrice: sale,
    minPrice: Math.round(purchaseKopecks * 1.1) / 100,
    unit: 'шт',
    vat: 20,
    barcodes: [`46${digits(rnd, 11)}`],
  };
}

/** Customers and suppliers: legal entities with 10-digit INN and a KPP, entrepreneurs and persons with 12 digits. */
function demoContractor(seed: number, id: number) {
  const rnd = seededRandom(seed * 104_729 + id);
  const type = pick(rnd, ['ЮЛ', 'ЮЛ', 'ИП', 'ФЛ'] as const);
  const person = `${pick(rnd, SURNAMES)} ${pick(rnd, FIRST_NAMES)} ${pick(rnd, PATRONYMICS)}`;
  const name = type === 'ЮЛ' ? `ООО «${pick(rnd, ORG_WORDS)}-${id}»` : type === 'ИП' ? `ИП ${person}` : person;
  const address = `г. ${pick(rnd, CITIES)}, ул. ${pick(rnd, STREETS)}, д. ${int(rnd, 1, 150)}`;
  const inBonus = type === 'ФЛ' && rnd() < 0.6;
  return {
    id,
    type,
    name,
    contactPerson: person,
    inn: digits(rnd, type === 'ЮЛ' ? 10 : 12),
    kpp: type === 'ЮЛ' ? digits(rnd, 9) : null,
    status: pick(rnd, STATUSES),
    discount: pick(rnd, [0, 0, 3, 5, 10]),
    legalAddress: address,
    actualAddress: address,
    phone1: `+7 9${digits(rnd, 2)} ${digits(rnd, 3)}-${digits(rnd, 2)}-${digits(rnd, 2)}`,
    phone2: rnd() < 0.3 ? `8 495 ${digits(rnd, 3)}-${digits(rnd, 2)}-${digits(rnd, 2)}` : null,
    email: `client${id}@example.ru`,
    staff: { id: 3, name: 'Менеджер Волков' },
    bonus: inBonus ? { status: 1, percent: pick(rnd, [3, 5]), usePercent: 30, code: `BC${digits(rnd, 8)}` } : { status: 0 },
    giftCards: [],
    banks: type === 'ФЛ' ? [] : [{ bik: '044525225', bank: 'ПАО Сбербанк', korNumber: '30101810400000000225', rasNumber: `40702810${digits(rnd, 12)}` }],
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(2025, 11, 1);

/** The documents: chains of one customer or supplier, spread over a year in date order. */
function* documentLines(seed: number, sizes: DemoSizes): Generator<ImportLine> {
  const rnd = seededRandom(seed);
  const ids: Record<string, number> = {};
  const nextId = (type: string) => (ids[type] = (ids[type] ?? 0) + 1);
  let emitted = 0;
  let minute = 0;
  const perDay = Math.max(1, sizes.documents / 365);

  function document(type: string, contractorId: number, day: number, status: number, body: Record<string, unknown>, basedOn: { type: string; id: number }[]): ImportLine {
    const date = new Date(FIRST_DAY + day * DAY_MS);
    const ymd = date.toISOString().slice(0, 10);
    // Each document of a chain is made a little after the one before it.
    minute = Math.min(minute + int(rnd, 5, 45), 23 * 60 + 59);
    const created = `${ymd} ${pad(Math.floor(minute / 60))}:${pad(minute % 60)}:${pad(int(rnd, 0, 59))}`;
    const id = nextId(type);
    emitted++;
    return {
      type,
      data: { id, number: `${type.slice(0, 2).toUpperCase()}-${String(id).padStart(6, '0')}`, date: ymd, status, contractor: { id: contractorId }, comment: null, user: pick(rnd, USERS), created, edited: created, company: COMPANY, basedOn, ...body },
    };
  }
  const lines = () =>
    Array.from({ length: int(rnd, 1, 4) }, () => {
      const p = demoProduct(seed, int(rnd, 1, sizes.products));
      return { pr_id: p.id, pr_name: p.name, pr_sku: p.sku, pr_count: int(rnd, 1, 5), pr_unit: { name: 'шт', code: '796' }, pr_price: p.salePrice, pr_vat: 20, pr_discount: pick(rnd, [0, 0, 0, 5, 10]) };
    });
  // What the payment for these lines comes to, computed as the import computes a document's sum.
  const total = (products: { pr_count: number; pr_price: number; pr_discount: number }[]) =>
    linesSum(products.map((l) => ({ ...l, pr_price: toKopecks(l.pr_price)! }))) / 100;
  const ref = (line: ImportLine) => ({ type: line.type, id: line.data.id as number });
  const posted = () => (rnd() < 0.9 ? 1 : 0);

  while (emitted < sizes.documents) {
    const day = Math.min(364, Math.floor(emitted / perDay));
    const customer = int(rnd, 1, sizes.contractors);
    minute = int(rnd, 9 * 60, 15 * 60);
    const kind = rnd();
    const chain: ImportLine[] = [];
    if (kind < 0.2) {
      // A register sale: shipment and payment at the till.
      const products = lines();
      const sale = document('sale', customer, day, 1, { stock: STOCKS[1], vat: 1, fiscal: 1, products }, []);
      const byCard = rnd() < 0.5;
      chain.push(sale, document(byCard ? 'paymentin' : 'cashin', customer, day, 1, { sum: total(products), purpose: 'Оплата покупки', register: true }, [ref(sale)]));
    } else if (kind < 0.3) {
      // From a supplier: order, purchase, outgoing payment.
      const products = lines();
      const order = document('supplierorder', customer, day, 1, { stock: STOCKS[0], vat: 1, products }, []);
      const purchase = document('purchase', customer, day, posted(), { stock: STOCKS[0], vat: 1, products }, [ref(order)]);
      chain.push(order, purchase, document('paymentout', customer, day, posted(), { sum: total(products), purpose: 'Оплата поставщику' }, [ref(purchase)]));
    } else {
      // order → invoice → shipment → payment, some stopping early, some unposted, some returned.
      const products = lines();
      const body = { stock: STOCKS[0], vat: 1, products };
      const order = document('customerorder', customer, day, 1, body, []);
      chain.push(order);
      if (rnd() < 0.9) {
        const invoice = document('customerinvoice', customer, day, posted(), body, [ref(order)]);
        chain.push(invoice);
        if (rnd() < 0.9) {
          const sale = document('sale', customer, day, posted(), { ...body, fiscal: 0 }, [ref(invoice)]);
          chain.push(sale);
          if (rnd() < 0.85) chain.push(document(rnd() < 0.6 ? 'paymentin' : 'cashin', customer, day, posted(), { sum: total(products), purpose: `Оплата по счёту ${invoice.data.number}` }, [ref(sale)]));
          if (rnd() < 0.05) {
            const returned = document('customerreturn', customer, day, 1, { stock: STOCKS[0], vat: 1, products: products.slice(0, 1) }, [ref(sale)]);
            chain.push(returned, document('cashout', customer, day, 1, { sum: total(products.slice(0, 1)), purpose: 'Возврат денег покупателю' }, [ref(returned)]));
          }
        }
      }
    }
    yield* chain.slice(0, Math.max(1, chain.length - (emitted - sizes.documents)));
  }
}

/** Every line of the demo company, in an order that only ever refers back. */
export function* demoCompany(seed: number, sizes: DemoSizes): Generator<ImportLine> {
  if (sizes.products > 0) {
    yield* categoryLines();
    for (const [i, name] of BRANDS.entries()) yield { type: 'product_brand', data: { id: i + 1, name } };
  }
  for (let id = 1; id <= sizes.products; id++) yield { type: 'product', data: demoProduct(seed, id) };
  for (let id = 1; id <= sizes.contractors; id++) yield { type: 'contractor', data: demoContractor(seed, id) };
  if (sizes.documents > 0 && (sizes.contractors === 0 || sizes.products === 0)) throw new Error('documents need at least one product and one contractor');
  yield* documentLines(seed, sizes);
}

/** How many lines `demoCompany` yields for these sizes (for the progress bar). */
export function demoLineCount(sizes: DemoSizes): number {
  return (sizes.products > 0 ? categoryCount + BRANDS.length : 0) + sizes.products + sizes.contractors + sizes.documents;
}
