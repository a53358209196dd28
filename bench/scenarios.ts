import type { Load } from './load.ts';
import { readLoad, writeLoad } from './load.ts';

/** A named way to load the server. */
export interface Scenario {
  name: string;
  load: Load;
  /** The one path a read scenario asks, when it asks the same page every time. */
  path?: string;
}

/** A client of the server being measured, for discovering what the scenarios need (ids, phones, dates). */
export class Probe {
  constructor(
    private readonly base: string,
    private readonly headers: Record<string, string>,
  ) {}

  /** The answer's JSON, or undefined when the path is unknown to this build (a 404 ERROR_NOT_FOUND). */
  async json(path: string, init: { method?: string; body?: string } = {}): Promise<any | undefined> {
    const res = await fetch(this.base + path, { ...init, headers: { ...this.headers, 'Content-Type': 'application/json' } });
    const body = await res.json();
    if (res.status === 404 && body.errors?.[0]?.code === 'ERROR_NOT_FOUND') return undefined;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  }
}

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)];
const lastPageOffset = (count: number, limit: number) => Math.max(0, Math.floor((count - 1) / limit) * limit);

/** The read scenarios, each undefined when its endpoint is not available in this build. */
export async function readScenarios(probe: Probe): Promise<Record<string, Scenario | undefined>> {
  const products = await probe.json('/api/products?limit=1');
  const productCount: number = products.meta.allCount;
  const middle = Math.floor(productCount / 200) * 100;
  const last = lastPageOffset(productCount, 100);
  const ids: number[] = [];
  for (const offset of [0, middle, last]) ids.push(...(await probe.json(`/api/products?limit=100&offset=${offset}`)).data.map((p: { id: number }) => p.id));
  const page = (offset: number): Scenario => ({ name: `GET /api/products?limit=100 offset ${offset}`, load: readLoad(() => `/api/products?limit=100&offset=${offset}`) });

  return {
    productsFirst: page(0),
    productsMiddle: page(middle),
    productsLast: page(last),
    // What compression costs the server: the first page again, for a client that accepts gzip.
    productsFirstGzip: { name: 'GET /api/products?limit=100 offset 0, gzip', load: readLoad(() => '/api/products?limit=100&offset=0', 'GET', undefined, { 'Accept-Encoding': 'gzip' }) },
    productById: { name: 'GET /api/product?id=', load: readLoad(() => `/api/product?id=${pick(ids)}`) },
    contractorByPhone: await contractorByPhone(probe),
    ...(await salesPages(probe)),
  };
}

async function contractorByPhone(probe: Probe): Promise<Scenario | undefined> {
  const first = await probe.json('/api/contractors?limit=1');
  if (!first || first.meta.allCount === 0) return undefined;
  const page = await probe.json(`/api/contractors?limit=100&offset=${Math.floor(first.meta.allCount / 2)}`);
  const phones: string[] = page.data.map((c: { phone1: string }) => c.phone1);
  if ((await probe.json('/api/contractor', { method: 'POST', body: JSON.stringify({ phone: phones[0] }) })) === undefined) return undefined;
  return { name: 'POST /api/contractor by phone', load: readLoad(() => '/api/contractor', 'POST', () => JSON.stringify({ phone: pick(phones) })) };
}

/** The month around the median sale, so the filter selects a realistic share of the documents: its first and last 50. */
async function salesPages(probe: Probe): Promise<{ salesFirst?: Scenario; salesLast?: Scenario }> {
  const all = await probe.json('/api/sales?limit=1');
  if (!all || all.meta.allCount === 0) return {};
  const median = await probe.json(`/api/sales?limit=1&offset=${Math.floor(all.meta.allCount / 2)}`);
  const month: string = median.data[0].date.slice(0, 7);
  const lastDay = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
  const filter = `dateFrom=${month}-01&dateTo=${month}-${String(lastDay).padStart(2, '0')}`;
  const filtered = await probe.json(`/api/sales?limit=1&${filter}`);
  // The month's last 50 sales, a page as full as the first: the last page a client pages to would hold what is
  // left over (23 of 50 in the full data set) and cost less for its size alone, hiding what depth costs.
  const last = Math.max(0, filtered.meta.allCount - 50);
  const page = (offset: number): Scenario => {
    const path = `/api/sales?limit=50&offset=${offset}&${filter}`;
    return { name: `GET /api/sales?limit=50 one month (${filtered.meta.allCount}) offset ${offset}`, load: readLoad(() => path), path };
  };
  return { salesFirst: page(0), salesLast: page(last) };
}

let serial = 0;

/** A new contractor each time, valid under every rule of decisions.md §4. */
function contractor(): Record<string, unknown> {
  const n = ++serial;
  const digits = String(1_000_000 + (n % 9_000_000)).padStart(7, '0');
  return {
    type: 'ЮЛ',
    name: `ООО «Нагрузка ${n}»`,
    contactPerson: 'Иванов Иван Иванович',
    phone1: `+7 (916) ${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5, 7)}`,
    inn: String(7_700_000_000 + (n % 99_999_999)),
    kpp: '770101001',
    status: 'Новый',
    discount: 5,
    email: `buyer${n}@example.ru`,
  };
}

/** The write scenarios; add-contractor is undefined when this build has no contractors. */
export async function writeScenarios(probe: Probe, skus: string[]): Promise<Record<string, Scenario | undefined>> {
  const contractors = (await probe.json('/api/add-contractor')) !== undefined;
  const addContractors = (size: number): Scenario | undefined =>
    contractors
      ? { name: `add-contractor, batches of ${size}`, load: writeLoad('/api/add-contractor', () => JSON.stringify({ contractors: Array.from({ length: size }, contractor) }), size) }
      : undefined;
  let next = 0;
  const prices = () => {
    const data = Array.from({ length: 100 }, () => {
      const n = next++;
      // A price no product had before (rounds over the catalogue differ), so every record appends an event.
      return { sku: skus[n % skus.length], salePrice: 5000 + Math.floor(n / skus.length) + (n % 100) / 100 };
    });
    return JSON.stringify({ data });
  };
  return {
    addContractors100: addContractors(100),
    addContractors1: addContractors(1),
    updatePrices100: { name: 'update-product-prices, batches of 100', load: writeLoad('/api/update-product-prices', prices, 100) },
  };
}

/** Who the workbench pages are measured for: an audit key's session, and the contractor with the most documents in one year. */
export interface WorkbenchSubject {
  auditKey: string;
  busiest: { contractorId: number; year: string; documents: number };
}

/**
 * The auditor's pages, signed in with a session cookie: the median sale's document page (its tree, paid and
 * history) and the busiest contractor's statement for its busiest year.
 */
export async function workbenchScenarios(base: string, probe: Probe, subject: WorkbenchSubject): Promise<Record<string, Scenario | undefined>> {
  // As a browser signs in: the form (its token, and the cookie that goes with it), posted from this origin.
  const form = await fetch(`${base}/audit/sign-in`);
  const formCookie = form.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const token = /name="form" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signIn = await fetch(`${base}/audit/sign-in`, {
    method: 'POST',
    headers: { Origin: base, Cookie: formCookie },
    body: new URLSearchParams({ key: subject.auditKey, form: token }),
    redirect: 'manual',
  });
  const cookie = signIn.headers.getSetCookie().find((set) => set.startsWith('tb_audit='))?.split(';')[0];
  const sales = await probe.json('/api/sales?limit=1');
  if (signIn.status !== 303 || cookie === undefined || !sales || sales.meta.allCount === 0) return { documentPage: undefined, statementPage: undefined };
  const median = (await probe.json(`/api/sales?limit=1&offset=${Math.floor(sales.meta.allCount / 2)}`)).data[0];
  const { contractorId, year, documents } = subject.busiest;
  const statement = `/audit/statement?contractor=${contractorId}&dateFrom=${year}-01-01&dateTo=${year}-12-31`;
  const page = (name: string, path: string): Scenario => ({ name, load: readLoad(() => path, 'GET', undefined, { Cookie: cookie }), path });
  return {
    documentPage: page(`GET /audit/document/sale/${median.id} (the median sale's page)`, `/audit/document/sale/${median.id}`),
    statementPage: page(`GET /audit/statement, the busiest contractor's year (${documents} documents)`, statement),
  };
}

/** The contractor whose one year holds the most documents, for the workbench's statement page (both engines' SQL). */
export const BUSIEST_CONTRACTOR_YEAR = `SELECT r.contractor_id AS "contractorId", substr(d.date, 1, 4) AS year, count(*) AS documents
  FROM document_records r JOIN documents d ON d.key = r.key GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 1`;
