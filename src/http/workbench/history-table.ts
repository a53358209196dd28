import { html } from 'hono/html';
import { type HistoryEntry, historyOf, importRunsOf, whoOf } from '../../audit/history.ts';
import type { Company } from '../../company.ts';
import type { EventMeta } from '../../events/store.ts';
import type { Texts } from './texts.ts';
import { type View, scrolling } from './layout.ts';
import { href } from './links.ts';
import { fieldLabel, leafName, leaves, moscowText, storedText } from './show.ts';

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

/** One changed value, nested ones (a document's lines, its company) field by field, only the leaves that differ. */
export function fieldChanges(t: Texts, field: string, after: unknown, before: unknown, had: boolean) {
  const was = new Map(had ? leaves(before, field) : []);
  const now = leaves(after, field);
  const paths = [...new Set([...now.map(([path]) => path), ...was.keys()])];
  const nowOf = new Map(now);
  return paths
    .filter((path) => !had || storedText(leafName(path), was.get(path)) !== storedText(leafName(path), nowOf.get(path)))
    .map((path) => {
      const shown = html`<span class="after">${storedText(leafName(path), nowOf.get(path))}</span>`;
      const name = html`<b title="${path}">${fieldLabel(t, path)}</b>`;
      return was.has(path) ? html`<li>${name}: <span class="before">${storedText(leafName(path), was.get(path))}</span> → ${shown}</li>` : html`<li>${name}: ${shown}</li>`;
    });
}

/** The changes of one event, field by field before → after. */
export const entryChanges = (t: Texts, entry: HistoryEntry) =>
  html`<ul class="changes">${Object.keys(entry.changes).flatMap((field) => fieldChanges(t, field, entry.changes[field], entry.before[field], field in entry.before))}</ul>`;

/** A record's history: each event, when (Moscow time), who, and each field it changed before → after. */
export function historyTable({ t }: View, history: HistoryEntry[]) {
  if (history.length === 0) return html`<p class="empty">${t.history.empty}</p>`;
  const h = t.history;
  return scrolling(
    t.document.history,
    html`<table class="history">
<thead><tr><th class="num">${h.seq}</th><th>${h.time}</th><th>${h.event}</th><th>${h.who}</th><th>${h.changes}</th></tr></thead>
<tbody>${history.map(
      (entry) => html`<tr data-seq="${entry.seq}">
<td class="num"><a href="${href('/audit/log', { order: 'oldest', after: entry.seq - 1 })}">${entry.seq}</a></td><td>${moscowText(entry.time)}</td><td>${entry.type} (v${entry.streamVersion})</td><td>${entry.who}</td>
<td>${entryChanges(t, entry)}</td></tr>`,
    )}</tbody>
</table>`,
  );
}
