import { html } from 'hono/html';
import { HISTORY_PAGE, type HistoryEntry, historyOfVersions, importRunsOf, latestHistory, whoOf } from '../../audit/history.ts';
import type { Company } from '../../company.ts';
import type { EventMeta, StoredEvent } from '../../events/store.ts';
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

/** Who wrote these events, in the reader's words: the names of their keys and the import runs they name, read once. */
const whoIn = (tb: Company, t: Texts) => async (events: StoredEvent[]) => {
  const metas = events.map((event) => event.meta);
  // An import run's stream holds its one record.
  const [names, runs] = [await keyNamesOf(tb, metas), await importRunsOf((stream) => tb.audit.streamVersions(stream, 1, 1), metas)];
  return whoOf({ keyName: (id) => names.get(id), importRun: (id) => runs.get(id) }, t.who);
};

/** The entries of these versions of a record's history (oldest first), as the API tells them, who in the reader's words. */
export function historyIn(tb: Company, t: Texts, stream: string, versions: readonly number[]): Promise<HistoryEntry[]> {
  return historyOfVersions((first, last) => tb.audit.streamVersions(stream, first, last), versions, whoIn(tb, t));
}

/** A page of a record's history, newest first: HISTORY_PAGE versions up to `upTo`, and how many the record has. */
export interface HistoryPage {
  entries: HistoryEntry[];
  upTo: number;
  length: number;
}

/**
 * The page of a record's history a page's `history` parameter asks for: the HISTORY_PAGE versions up to the one it
 * names, or the newest (when it names none, or one past the record's last). Only a page asked for by its version
 * reads how many the record has.
 */
export async function historyPageIn(tb: Company, t: Texts, stream: string, asked: string | undefined): Promise<HistoryPage> {
  const wanted = asked !== undefined && /^\d{1,15}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : undefined;
  const read = (first: number, last: number) => tb.audit.streamVersions(stream, first, last);
  const { entries, last } = await latestHistory(read, wanted ?? Number.MAX_SAFE_INTEGER, HISTORY_PAGE, whoIn(tb, t));
  const length = wanted === undefined || last < wanted ? last : await tb.audit.streamLength(stream);
  return { entries: entries.reverse(), upTo: last, length };
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

/**
 * A page of a record's history, newest first: each event, when (Moscow time), who, and each field it changed
 * before → after; links to the newer and older pages (`path` with `history` the newest version of that page).
 */
export function historyTable({ t }: View, { entries, upTo, length }: HistoryPage, path: string) {
  if (entries.length === 0) return html`<p class="empty">${t.history.empty}</p>`;
  const h = t.history;
  const at = (version: number) => `${href(path, { history: version })}#history`;
  const older = upTo - HISTORY_PAGE;
  const pager =
    length <= HISTORY_PAGE
      ? ''
      : html`<nav class="pager" aria-label="${t.fields.page}"><span class="note">${h.shown(upTo - entries.length + 1, upTo, length)}</span>
${upTo < length ? html`<a href="${at(length)}">${t.common.first}</a> <a href="${at(Math.min(length, upTo + HISTORY_PAGE))}" rel="prev">${t.common.previous}</a>` : ''}
${older >= 1 ? html`<a href="${at(older)}" rel="next">${t.common.next}</a> <a href="${at(Math.min(HISTORY_PAGE, older))}">${t.common.last}</a>` : ''}</nav>`;
  return html`<div id="history">${scrolling(
    t.document.history,
    html`<table class="history">
<thead><tr><th class="num">${h.seq}</th><th>${h.time}</th><th>${h.event}</th><th>${h.who}</th><th>${h.changes}</th></tr></thead>
<tbody>${entries.map(
      (entry) => html`<tr data-seq="${entry.seq}">
<td class="num"><a href="${href('/audit/log', { order: 'oldest', after: entry.seq - 1 })}">${entry.seq}</a></td><td>${moscowText(entry.time)}</td><td>${entry.type} (v${entry.streamVersion})</td><td>${entry.who}</td>
<td>${entryChanges(t, entry)}</td></tr>`,
    )}</tbody>
</table>`,
  )}${pager}</div>`;
}
