import { html } from 'hono/html';
import { type HistoryEntry, historyOf, importRunsOf, whoOf } from '../../audit/history.ts';
import type { Company } from '../../company.ts';
import type { EventMeta } from '../../events/store.ts';
import type { Texts } from './texts.ts';
import { type View, scrolling } from './layout.ts';
import { href } from './links.ts';
import { eventName, fieldLabel, leaves, moscowText, storedText } from './show.ts';
import { kindOf, recordNames, referencedStream, shownValue } from './record-names.ts';

/** The names of the keys these events were written with, each read once. */
export async function keyNamesOf(tb: Company, metas: EventMeta[]): Promise<Map<number, string | undefined>> {
  const names = new Map<number, string | undefined>();
  for (const { keyId } of metas) if (keyId !== undefined && !names.has(keyId)) names.set(keyId, await tb.keys.nameOf(keyId));
  return names;
}

/** A record's history as the API tells it, who in the reader's words. */
export async function historyIn(tb: Company, t: Texts, stream: string): Promise<HistoryEntry[]> {
  const events = await tb.audit.streamEvents(stream);
  const metas = events.map((event) => event.meta);
  const [names, runs] = [await keyNamesOf(tb, metas), await importRunsOf(tb.audit.streamEvents, metas)];
  return historyOf(events, whoOf({ keyName: (id) => names.get(id), importRun: (id) => runs.get(id) }, t.who));
}

/** The keys of the records the changes of these entries (of records of `kind`) name, for their names to be read at once. */
export const referencedIn = (kind: string, entries: HistoryEntry[]) =>
  entries.flatMap((entry) => [...Object.entries(entry.changes), ...Object.entries(entry.before)].flatMap(([field, value]) => leaves(value, field))).flatMap(([path, value]) => referencedStream(kind, path, value) ?? []);

/** One changed value of a record of `kind`, nested ones (a document's lines, its company) field by field, only the leaves that differ; other records named by name. */
export function fieldChanges(t: Texts, kind: string, names: Map<string, string>, field: string, after: unknown, before: unknown, had: boolean) {
  const was = new Map(had ? leaves(before, field) : []);
  const now = leaves(after, field);
  const paths = [...new Set([...now.map(([path]) => path), ...was.keys()])];
  const nowOf = new Map(now);
  return paths
    .filter((path) => !had || storedText(t, path, was.get(path)) !== storedText(t, path, nowOf.get(path)))
    .map((path) => {
      const shown = html`<span class="after">${shownValue(t, kind, path, nowOf.get(path), names)}</span>`;
      const name = html`<b title="${path}">${fieldLabel(t, path)}</b>`;
      return was.has(path) ? html`<li>${name}: <span class="before">${shownValue(t, kind, path, was.get(path), names)}</span> → ${shown}</li>` : html`<li>${name}: ${shown}</li>`;
    });
}

/** The changes of one event of a record of `kind`, field by field before → after. */
export const entryChanges = (t: Texts, kind: string, names: Map<string, string>, entry: HistoryEntry) =>
  html`<ul class="changes">${Object.keys(entry.changes).flatMap((field) => fieldChanges(t, kind, names, field, entry.changes[field], entry.before[field], field in entry.before))}</ul>`;

/**
 * A record's history (`stream`'s): each event, when (Moscow time), who, and each field it changed before → after,
 * other records by name; the names the page knows already (`known`, by key) are not read again.
 */
export async function historyTable(tb: Company, { t }: View, stream: string, known = new Map<string, string>()) {
  const history = await historyIn(tb, t, stream);
  const kind = kindOf(stream);
  const names = new Map([...known, ...(await recordNames(tb, t, referencedIn(kind, history).filter((named) => !known.has(named))))]);
  if (history.length === 0) return html`<p class="empty">${t.history.empty}</p>`;
  const h = t.history;
  return scrolling(
    t.document.history,
    html`<table class="history">
<thead><tr><th class="num">${h.seq}</th><th>${h.time}</th><th>${h.event}</th><th>${h.who}</th><th>${h.changes}</th></tr></thead>
<tbody>${history.map(
      (entry) => html`<tr data-seq="${entry.seq}">
<td class="num"><a href="${href('/audit/log', { order: 'oldest', after: entry.seq - 1 })}">${entry.seq}</a></td><td>${moscowText(entry.time)}</td><td>${h.eventOf(eventName(t, entry.type), entry.streamVersion)}</td><td>${entry.who}</td>
<td>${entryChanges(t, kind, names, entry)}</td></tr>`,
    )}</tbody>
</table>`,
  );
}
