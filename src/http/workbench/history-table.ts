import { html } from 'hono/html';
import type { HistoryEntry } from '../../audit/history.ts';
import { href } from './links.ts';
import { fieldText } from './show.ts';

const change = (entry: HistoryEntry, field: string) => {
  const after = html`<span class="after">${fieldText(field, entry.changes[field])}</span>`;
  return field in entry.before
    ? html`<li><b>${field}</b>: <span class="before">${fieldText(field, entry.before[field])}</span> → ${after}</li>`
    : html`<li><b>${field}</b>: ${after}</li>`;
};

/** A record's history: each event, when (Moscow time), who, and each field it changed before → after. */
export function historyTable(history: HistoryEntry[]) {
  return html`<table class="history">
<thead><tr><th class="num">seq</th><th>time (Moscow)</th><th>event</th><th>who</th><th>changes</th></tr></thead>
<tbody>${history.map(
    (entry) => html`<tr data-seq="${entry.seq}">
<td class="num"><a href="${href('/audit/log', { after: entry.seq - 1 })}">${entry.seq}</a></td><td>${entry.time}</td><td>${entry.type} (v${entry.streamVersion})</td><td>${entry.who}</td>
<td><ul>${Object.keys(entry.changes).map((field) => change(entry, field))}</ul></td></tr>`,
  )}</tbody>
</table>`;
}
