import type { DocumentType } from '../records/document/events.ts';
import { definitionByType, eventDefinitions } from '../events/registry.ts';
import { upcast } from '../events/upcasters.ts';
import type { EventDefinition } from '../events/define.ts';
import { mapMoney, moneyMembers } from '../events/money.ts';
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

/**
 * A log row as followers read it: the columns a change is made of, as stored (the hash chain and the stream's
 * version are no part of a change). `api` and `audit` keep its change once rendered for that scope: a row of the
 * shared tail goes to every follower at the head.
 */
export interface ChangeRow {
  seq: number;
  stream: string;
  type: string;
  schemaVersion: number;
  data: string;
  meta: string;
  recordedAt: string;
  api?: string;
  audit?: string;
}

/** The columns of `events` a `ChangeRow` is read from, in the order `changeRow` takes them. */
export const CHANGE_COLUMNS = 'seq, stream, type, schema_version, data, meta, recorded_at';
export type ChangeColumns = [number, string, string, number, string, string, string];

/** Read as arrays (`SqlSession.rows`): the driver's objects of all nine columns took about 1.7× as long (profiled). */
export const changeRow = ([seq, stream, type, schemaVersion, data, meta, recordedAt]: ChangeColumns): ChangeRow => ({
  seq,
  stream,
  type,
  schemaVersion,
  data,
  meta,
  recordedAt,
  api: undefined,
  audit: undefined,
});

/** The data of an event of an older shape: brought to its current one, with its money in rubles. */
function upcastInApiUnits(row: ChangeRow): string {
  const data = upcast(row.type, row.schemaVersion, JSON.parse(row.data));
  return JSON.stringify(mapMoney(definitionByType.get(row.type)!.schema, data, fromKopecks));
}

/**
 * The amounts of an event type's data, found in its stored text: a member holding a number, of a name that holds
 * money in that type's schema (`moneyMembers`) and nothing else there, so that the name alone says it is money. A
 * member's name begins with `{"` or `,"` where a string's text never can (a quote inside a string is escaped): a
 * name or a comment that reads `,"price":5` is text, and stays as it is.
 */
function moneyInText(definition: EventDefinition): RegExp | undefined {
  const { money, other } = moneyMembers(definition.schema);
  const ambiguous = [...money].filter((name) => other.has(name));
  if (ambiguous.length > 0) throw new Error(`${definition.type}: ${ambiguous.join(', ')} hold money and other values: its amounts cannot be found by name`);
  return money.size === 0 ? undefined : new RegExp(`([{,]"(?:${[...money].join('|')})":)(-?\\d[\\d.eE+-]*)`, 'g');
}

const MONEY: ReadonlyMap<string, RegExp> = new Map(
  eventDefinitions.flatMap((definition) => {
    const pattern = moneyInText(definition);
    return pattern === undefined ? [] : [[definition.type, pattern] as const];
  }),
);

/** A number as JSON writes it, from kopecks to rubles: the text a parse, `fromKopecks` and `JSON.stringify` give. */
const inRubles = (_: string, member: string, kopecks: string) => member + String(fromKopecks(Number(kopecks)));

/**
 * The event's data in the API's units, as JSON text. The log's data is JSON as `JSON.stringify` wrote it, so data
 * in its current shape goes out as stored, its amounts rewritten in place (`MONEY`): no parse and no stringify,
 * which took a catch-up's page of a thousand changes as long as the rest of it. An older shape is upcast.
 */
function dataInApiUnits(row: ChangeRow): string {
  if (definitionByType.get(row.type)?.schemaVersion !== row.schemaVersion) return upcastInApiUnits(row);
  const money = MONEY.get(row.type);
  return money === undefined ? row.data : row.data.replace(money, inRubles);
}

/**
 * A log row as a change for a key of `scope`, as JSON text (the `Change` of `schemas.ts`), rendered once a row and
 * scope. The meta names the key and the access token that made the change: an auditor's to read, never another
 * integrator's.
 */
export function changeJson(row: ChangeRow, scope: KeyScope): string {
  return (row[scope] ??= renderChange(row, scope));
}

function renderChange(row: ChangeRow, scope: KeyScope): string {
  const meta = scope === 'audit' ? `,"meta":${row.meta}` : '';
  return `{"seq":${row.seq},"type":${JSON.stringify(row.type)},"record":${JSON.stringify(recordOf(row.stream))},"recordedAt":${JSON.stringify(row.recordedAt)},"data":${dataInApiUnits(row)}${meta}}`;
}
