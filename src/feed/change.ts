import type { DocumentType } from '../records/document/events.ts';
import { eventDefinitions } from '../events/registry.ts';
import type { EventRow } from '../events/store.ts';
import { upcast } from '../events/upcasters.ts';
import { fromKopecks } from '../lib/money.ts';
import type { KeyScope } from '../storage/port.ts';

/**
 * A change as followers read it (`GET /api/changes`, its stream, the webhooks): one event of the log with the
 * record it concerns, its data in the API's units (money in rubles, as the lists show it) and its current shape.
 */

/** The records a change may concern, as the API names them; a contractor status is named by its text. */
export const RECORD_KINDS = ['product', 'category', 'brand', 'contractor', 'contractorStatus', 'document', 'importRun'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export type ChangeRecord =
  | { kind: Exclude<RecordKind, 'document' | 'contractorStatus' | 'importRun'>; id: number }
  | { kind: 'contractorStatus' | 'importRun'; id: string }
  | { kind: 'document'; type: DocumentType; id: number };

export const EVENT_TYPES: readonly string[] = eventDefinitions.map((d) => d.type);

/** The event types of each record kind. */
export const TYPES_OF_KIND: Record<RecordKind, readonly string[]> = {
  product: ['ProductAdded', 'ProductEdited', 'ProductPricesUpdated'],
  category: ['CategoryAdded', 'CategoryEdited'],
  brand: ['BrandAdded', 'BrandEdited'],
  contractor: ['ContractorAdded', 'ContractorEdited'],
  contractorStatus: ['ContractorStatusCreated'],
  document: ['DocumentRecorded', 'DocumentRevised', 'DocumentPosted', 'DocumentUnposted', 'DocumentLinked'],
  importRun: ['ImportRunRecorded'],
};

/** An import run's record names the operator's user and file: an auditor's to read, never an integrator's. */
const AUDIT_ONLY = new Set(TYPES_OF_KIND.importRun);

/** The event types a key of `scope` follows of `types` (every type when undefined): undefined when every one. */
export function visibleTypes(types: ReadonlySet<string> | undefined, scope: KeyScope): ReadonlySet<string> | undefined {
  if (scope === 'audit') return types;
  return new Set([...(types ?? EVENT_TYPES)].filter((type) => !AUDIT_ONLY.has(type)));
}

/** The record a log stream is of: `<kind>-<id>`, `contractor-status-<text>`, `import-<run>`, documents `<document type>-<id>`. */
function recordOf(stream: string): ChangeRecord {
  if (stream.startsWith(STATUS_PREFIX)) return { kind: 'contractorStatus', id: stream.slice(STATUS_PREFIX.length) };
  if (stream.startsWith(IMPORT_PREFIX)) return { kind: 'importRun', id: stream.slice(IMPORT_PREFIX.length) };
  const dash = stream.lastIndexOf('-');
  const [prefix, id] = [stream.slice(0, dash), Number(stream.slice(dash + 1))];
  if (prefix === 'product' || prefix === 'category' || prefix === 'brand' || prefix === 'contractor') return { kind: prefix, id };
  return { kind: 'document', type: prefix as DocumentType, id };
}

const STATUS_PREFIX = 'contractor-status-';
const IMPORT_PREFIX = 'import-';

/** Amounts are kopecks in the log and rubles in the API. The data is a fresh parse of the row's: changed in place. */
type Fields = Record<string, unknown>;

const toRubles = (fields: Fields, names: readonly string[]) => {
  for (const name of names) if (typeof fields[name] === 'number') fields[name] = fromKopecks(fields[name]);
};

/** Product fields (whole or some: an edit names only those it changed). */
function productInRubles(fields: Fields): void {
  toRubles(fields, ['minPrice', 'purchasePrice', 'salePrice']);
  (fields.additionalPrices as Fields[] | undefined)?.forEach((price) => toRubles(price, ['price']));
}

/** Document fields (whole or some), their lines' prices too. */
function documentInRubles(fields: Fields): void {
  toRubles(fields, ['sum', 'vatSum']);
  (fields.products as Fields[] | undefined)?.forEach((line) => toRubles(line, ['pr_price']));
}

/** The event's data, in its current shape, with its money in rubles. */
function dataInApiUnits(row: EventRow): Fields {
  const data = upcast(row.type, row.schema_version, JSON.parse(row.data)) as Fields;
  if (row.type === 'ProductAdded') productInRubles(data);
  else if (row.type === 'ProductEdited' || row.type === 'ProductPricesUpdated') productInRubles(data.changes as Fields);
  else if (row.type === 'DocumentRecorded') documentInRubles(data.fields as Fields);
  else if (row.type === 'DocumentRevised') documentInRubles(data.changes as Fields);
  return data;
}

/** The event types whose data holds money (kopecks in the log). */
const WITH_MONEY = new Set(['ProductAdded', 'ProductEdited', 'ProductPricesUpdated', 'DocumentRecorded', 'DocumentRevised']);
const CURRENT_VERSION = new Map<string, number>(eventDefinitions.map((d) => [d.type, d.schemaVersion]));

/**
 * A log row as a change for a key of `scope`, as JSON text (the `Change` of `schemas.ts`). Data that holds no money
 * and is stored in its current shape goes out as the log holds it, unparsed: a catch-up renders a page of a
 * thousand such changes without a parse. The meta names the key and the access token that made the change: an
 * auditor's to read, never another integrator's.
 */
export function changeJson(row: EventRow, scope: KeyScope): string {
  // A page shared by many followers (`changesAfter`) is rendered once a scope.
  let byScope = rendered.get(row);
  if (byScope === undefined) rendered.set(row, (byScope = {}));
  return (byScope[scope] ??= renderChange(row, scope));
}

/** The changes already rendered, by row and scope: kept as long as the page's rows are. */
const rendered = new WeakMap<EventRow, Partial<Record<KeyScope, string>>>();

function renderChange(row: EventRow, scope: KeyScope): string {
  const asStored = !WITH_MONEY.has(row.type) && CURRENT_VERSION.get(row.type) === row.schema_version;
  const data = asStored ? row.data : JSON.stringify(dataInApiUnits(row));
  const meta = scope === 'audit' ? `,"meta":${row.meta}` : '';
  return `{"seq":${row.seq},"type":${JSON.stringify(row.type)},"record":${JSON.stringify(recordOf(row.stream))},"recordedAt":${JSON.stringify(row.recorded_at)},"data":${data}${meta}}`;
}
