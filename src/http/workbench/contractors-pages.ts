import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import { formatMoscow } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { queryInt } from '../query.ts';
import { type ListedDocument, documentsTable } from './documents-pages.ts';
import { formValues, problems, readForm } from './forms.ts';
import { historyPageIn, historyTable } from './history-table.ts';
import { page, scrolling, sendPage, type View } from './layout.ts';
import { href, statementHref } from './links.ts';
import { contractorLink, fieldLabel, leaves, rubles } from './show.ts';

const FOUND = 50;
const RECENT = 20;

const findQuery = z.object({ q: z.string().max(200, 'must be at most 200 characters') });

/** A contractor as the API shows it: the fields the pages use. */
interface ShownContractor {
  id: number;
  name: string | null;
  inn: string | null;
  kpp: string | null;
  phone1: string | null;
  balance: number;
  [field: string]: unknown;
}

/**
 * The contractors an auditor means by what they typed: a whole INN (10 or 12 digits) by its index, a phone (7 or
 * more digits among other characters) by its digits' index, and anything else by part of the name.
 */
async function findContractors(tb: Company, q: string): Promise<string[]> {
  const text = q.trim();
  const digits = text.replace(/\D/g, '');
  if (/^\d{10}(\d{2})?$/.test(text)) {
    const ids = await tb.contractors.idsByInn(text, FOUND + 1);
    if (ids.length > 0) return tb.contractors.jsonByIds(ids);
  }
  if (digits.length >= 7 && /^[\d\s()+\-.]+$/.test(text)) {
    const ids = await tb.contractors.idsByPhone(text, FOUND + 1);
    if (ids.length > 0) return tb.contractors.jsonByIds(ids);
  }
  return tb.contractors.byNamePart(text, FOUND + 1);
}

function findForm({ t }: View, values: Record<string, string>) {
  return html`<form class="search" method="get" action="/audit/contractors">
<label class="wide">${t.contractors.query} <input name="q" size="40" placeholder="${t.contractors.placeholder}" value="${values.q ?? ''}" required></label>
<button class="primary" type="submit">${t.common.find}</button>
</form>
<p class="note">${t.contractors.note}</p>`;
}

/** Contractors found by name, INN or phone, each linked to its page. */
export async function findContractorsPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const form = readForm(c, findQuery);
  const values = formValues(c);
  if (!form.asked) return sendPage(c, page(view, t.contractors.title, findForm(view, values)));
  if (!form.ok) return sendPage(c, page(view, t.contractors.title, html`${findForm(view, values)}${problems(t, form.errors)}`), 400);
  const found = (await findContractors(tb, form.value.q)).map((json) => JSON.parse(json) as ShownContractor);
  const columns = t.contractors.columns;
  const shown = found.slice(0, FOUND);
  const results =
    found.length === 0
      ? html`<p class="empty">${t.contractors.noMatch(form.value.q)}</p>`
      : html`${scrolling(
          t.contractors.title,
          html`<table class="contractors"><thead><tr><th>${columns.name}</th><th>${columns.inn}</th><th>${columns.kpp}</th><th>${columns.phone}</th><th class="num">${columns.balance}</th></tr></thead>
<tbody>${shown.map(
            (k) => html`<tr data-contractor="${k.id}"><td>${contractorLink(k.id, k.name)}</td><td>${k.inn ?? ''}</td><td>${k.kpp ?? ''}</td><td>${k.phone1 ?? ''}</td><td class="num">${rubles(k.balance)}</td></tr>`,
          )}</tbody></table>`,
        )}${found.length > FOUND ? html`<p class="note">${t.contractors.more(FOUND)}</p>` : ''}`;
  return sendPage(c, page(view, t.contractors.title, html`${findForm(view, values)}${results}`));
}

const SKIPPED = new Set(['id', 'name', 'balance']);
/** A contractor's fields that are amounts in rubles, as the API shows them. */
const MONEY_FIELDS = new Set(['bonus.balance']);

/** A contractor's page: its details, balance, latest documents, a link to its акт сверки and its history. */
export async function contractorPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const id = queryInt(1).safeParse(c.req.param('id'));
  const json = id.success ? await tb.contractors.jsonById(id.data) : undefined;
  if (!id.success || json === undefined) return sendPage(c, page(view, t.contractors.title, html`<p class="empty">${t.contractors.noSuch(id.success ? id.data : 0)}</p>`), 404);
  const k = JSON.parse(json) as ShownContractor;
  const year = formatMoscow(tb.clock()).slice(0, 4);
  const documents = (await tb.documents.search({ contractorId: k.id }, RECENT)).map((row) => JSON.parse(row) as ListedDocument);
  const fields = leaves(Object.fromEntries(Object.entries(k).filter(([field]) => !SKIPPED.has(field))))
    .filter(([, value]) => value !== null && value !== '' && value !== '[]' && value !== '{}')
    .map(([path, value]) => {
      return html`<dt>${fieldLabel(t, path)}</dt><dd>${MONEY_FIELDS.has(path) && typeof value === 'number' ? rubles(value) : String(value)}</dd>`;
    });
  return sendPage(
    c,
    page(
      view,
      k.name ?? `#${k.id}`,
      html`<dl class="fields"><dt>${t.contractors.balance}</dt><dd data-balance="${k.balance}">${t.contractors.balanceMeaning(rubles(k.balance))}</dd>${fields}</dl>
<p><a href="${statementHref(k.id, year)}">${t.contractors.statement(year)}</a> · <a href="${href('/audit/documents', { contractor: k.id })}">${t.contractors.allDocuments}</a></p>
<h2>${t.contractors.documents}</h2>
${documents.length === 0 ? html`<p class="empty">${t.documents.noMatch}</p>` : documentsTable(view, documents)}
<h2>${t.contractors.history}</h2>
${historyTable(view, await historyPageIn(tb, t, `contractor-${k.id}`, c.req.query('history')), c.req.path)}`,
    ),
  );
}
