import { describe, expect, test } from 'vitest';
import { anchorKeyFrom, newAnchorKey, signAnchor } from '../../src/audit/anchors.ts';
import { DOCUMENT_TYPES } from '../../src/records/document/events.ts';
import { leaves } from '../../src/http/workbench/show.ts';
import { demoCompany } from '../../src/seed/demo-company.ts';
import { manualClock } from '../helpers.ts';
import { engineService as testService } from '../engine-service.ts';
import { importRecords } from '../documents-fixtures.ts';
import { Browser } from '../workbench-client.ts';

/**
 * Latin words a Russian page may hold outside data and ids: names of formats and of the program, and the
 * commands a note tells the reader to run, with their options.
 */
const ALLOWED = new Set(['SHA', 'XLSX', 'CSV', 'JSON', 'API', 'URL', 'Excel', 'English', 'PDF', 'UTC', 'tradebook']);
const COMMANDS = /tradebook(?: [a-z]+)+(?: --[a-z]+(?: [^\s-]\S*)?)*|--[a-z]+ [a-z]+/g;

/** A record's key (its stream), an id: a status's is named by the status (`contractor-status-VIP`). */
const STREAM = /^contractor-status-/;

/** A SHA-256 in hex, a hash of the log. */
const HASH = /^[0-9a-f]{64}$/;

/** A text's words as the check reads them: an e-mail, a path or a code with its dots, slashes and hyphens is one word. */
const wordsOf = (text: string) => text.split(/[\s,;:()«»"'!?№·→←–—]+|\.(?=\s|$)/).filter((word) => word !== '');

/** What a reader sees of a page: its body's text and placeholders, without code, stored JSON and hashes (ids and data as kept). */
function visibleText(page: string): string {
  const body = page.slice(page.indexOf('<body>'));
  return body
    .replace(/<(pre|code)\b[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<p class="mono">[\s\S]*?<\/p>/g, ' ')
    .replace(/placeholder="([^"]*)"/g, '>$1<')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** The Latin words of a page's text that are neither data, nor ids and codes (a word with a digit: `sale-24`, `SKU-0000001`, `T1`), nor allowed. */
function foreignWords(page: string, data: Set<string>): string[] {
  const text = visibleText(page).replace(COMMANDS, ' ');
  const words = wordsOf(text)
    .filter((token) => !/\d/.test(token) && !STREAM.test(token) && !HASH.test(token) && !data.has(token))
    .flatMap((token) => token.match(/[A-Za-z]{2,}/g) ?? []);
  return [...new Set(words.filter((word) => !ALLOWED.has(word) && !data.has(word)))];
}

/**
 * Every word in the records' string values (e-mails, statuses such as VIP, bonus codes) and the keys' names: data,
 * shown as it is. Types are not data but the API's words (a document's `basedOn` names `sale`, a user is `admin`).
 */
function dataWords(records: { data: unknown }[], keyNames: string[]): Set<string> {
  const words = new Set(keyNames.flatMap(wordsOf));
  for (const record of records)
    for (const [path, value] of leaves(record.data)) if (typeof value === 'string' && !path.endsWith('type')) for (const word of wordsOf(value)) words.add(word);
  return words;
}

async function russianWorkbench() {
  const clock = manualClock(Date.parse('2026-11-27T09:00:00Z'));
  const service = await testService({ clock });
  const records = [...demoCompany(5, { products: 12, contractors: 6, documents: 90 })];
  const imported = await importRecords(service.tb, records);
  expect(imported.failures).toEqual([]);
  // A change by a key, and a contractor's phone removed: a list emptied and a value made null in the log.
  expect((await service.api.write('/api/update-product-prices', 'data', [{ sku: 'SKU-0000001', salePrice: 1250.5 }])).status).toBe(200);
  const { key } = await service.tb.keys.create({ name: 'аудитор', scope: 'audit' });
  const auditor = new Browser(service.app, { 'Accept-Language': 'ru' });
  expect((await auditor.signIn(key)).status).toBe(303);
  return { ...service, auditor, data: dataWords(records, ['test', 'аудитор']) };
}

describe('the Russian pages', () => {
  test('hold no Latin word outside data, ids and the names of formats: every page of the workbench', async () => {
    const { auditor, tb, data } = await russianWorkbench();
    const documents = DOCUMENT_TYPES.map((type) => tb.documents.search({ type }, 1));
    const found = (await Promise.all(documents)).flat().map((json) => JSON.parse(json) as { type: string; id: number; contractor: { id: number } });
    expect(found.length).toBeGreaterThan(6);
    const contractors = [...new Set(found.map((d) => d.contractor.id))];
    const pages = [
      '/audit/documents',
      '/audit/documents?status=1',
      '/audit/documents?id=abc&dateFrom=31.02.2026',
      ...found.flatMap((d) => [`/audit/document/${d.type}/${d.id}`, `/audit/record?stream=${d.type}-${d.id}`]),
      '/audit/contractors',
      '/audit/contractors?q=%D0%BE',
      ...contractors.flatMap((id) => [`/audit/contractor/${id}`, `/audit/record?stream=contractor-${id}`]),
      '/audit/record',
      '/audit/record?stream=product-1&at=01.01.2026',
      '/audit/record?stream=category-2',
      '/audit/record?stream=brand-3',
      '/audit/statement',
      `/audit/statement?contractor=${contractors[0]}&dateFrom=01.01.2026&dateTo=31.12.2026`,
      '/audit/log',
      '/audit/log?order=oldest',
      '/audit/log?type=Product',
      '/audit/log?type=DocumentPosted&order=oldest',
      '/audit/anchors',
      '/audit/nowhere',
    ];
    const foreign: Record<string, string[]> = {};
    for (const path of pages) {
      const res = await auditor.get(path);
      expect(res.text, path).toContain('<html lang="ru">');
      const words = foreignWords(res.text, data);
      if (words.length > 0) foreign[path] = words;
    }
    // Anchors checked: one that holds, one whose head the log does not have, and a file that is no anchors.
    const key = anchorKeyFrom(newAnchorKey())!;
    const seq = await tb.audit.lastSeq();
    const head = { seq, hash: (await tb.audit.hashAt(seq))!, recordedAt: '2026-11-27T09:00:00.000Z' };
    const anchors = [signAnchor(head, key, new Date()), signAnchor({ ...head, hash: 'f'.repeat(64) }, key, new Date()), signAnchor({ ...head, seq: seq + 5 }, key, new Date())];
    await auditor.get('/audit/anchors');
    for (const [name, text] of [['checked', anchors.map((a) => JSON.stringify(a)).join('\n')], ['not anchors', '{"seq": 1}']]) {
      const res = await auditor.request('POST', '/audit/anchors', { anchors: text });
      expect(res.text).toContain('<html lang="ru">');
      const words = foreignWords(res.text, data);
      if (words.length > 0) foreign[`/audit/anchors (${name})`] = words;
      if (name === 'checked') expect(res.text).toContain(`журнал переписан на событии № ${seq} или раньше`);
    }
    const signIn = await new Browser(auditor.app, { 'Accept-Language': 'ru' }).get('/audit/sign-in');
    const words = foreignWords(signIn.text, data);
    if (words.length > 0) foreign['/audit/sign-in'] = words;
    expect(foreign).toEqual({});
  });

  test('event types, field names and values are said in words: a version, ИНН and БИК of the company, да/нет, нет for an empty list, the user’s kind', async () => {
    const { auditor, tb } = await russianWorkbench();
    const [sale] = (await tb.documents.search({ type: 'sale' }, 1)).map((json) => JSON.parse(json) as { id: number; contractor: { id: number } });
    const page = (await auditor.get(`/audit/document/sale/${sale.id}`)).text;
    expect(page).toMatch(/<h1>Отгрузка SA-\d{6} \(№ \d+ в базе\)<\/h1>/);
    expect(page).toContain('<dt>Тип</dt><dd>Отгрузка <code>sale</code></dd>');
    expect(page).toContain('<dd>ООО «Торговый дом Север» (№ 1 в базе), ИНН: 7701987654, КПП: 770101001</dd>');
    expect(page).toContain('<b title="company.bankAccount.bic">Организация · Банковский счёт · БИК</b>: <span class="after">044525225</span>');
    expect(page).toMatch(/<dd>(Администратор \(№ 1 в базе\), Тип: администратор|Кассир Смирнова \(№ 2 в базе\), Тип: сотрудник|Менеджер Волков \(№ 3 в базе\), Тип: сотрудник)<\/dd>/);
    expect(page).toContain('<td>Документ записан (версия 1)</td>');
    expect(page).toContain('<b title="status">Статус</b>: <span class="after">проведён</span>');
    expect(page).toMatch(/<b title="vatIncluded">НДС в цене<\/b>: <span class="after">(да|нет)<\/span>/);
    // A document in a list is named by its type and its number in the base, never by a bare id.
    expect(page).toMatch(/<a href="\/audit\/document\/(paymentin|cashin)\/(\d+)">(Входящий платёж|Приходный кассовый ордер) \(№ \2 в базе\)<\/a>/);
    // A payment says whether it went through the till.
    const [payment] = (await tb.documents.search({ type: 'paymentin' }, 1)).map((json) => JSON.parse(json) as { id: number });
    expect((await auditor.get(`/audit/document/paymentin/${payment.id}`)).text).toMatch(/<b title="register">Касса<\/b>: <span class="after">(да|нет)<\/span>/);
    const contractor = (await auditor.get(`/audit/record?stream=contractor-${sale.contractor.id}`)).text;
    expect(contractor).toContain('<th>Подарочные карты <code>giftCards</code></th><td>нет</td><td>нет</td>');
    expect(contractor).toMatch(/<th>Бонусы · Статус <code>bonus.status<\/code><\/th><td>(не участвует|участвует)<\/td>/);
    expect((await auditor.get(`/audit/contractor/${sale.contractor.id}`)).text).toMatch(/<dt>Бонусы · Статус<\/dt><dd>(не участвует|участвует)<\/dd>/);
    expect(contractor).toMatch(/<td>Контрагент добавлен \(версия 1\)<\/td>|1 из 1 событий, последнее №\d+ Контрагент добавлен/);
    const log = (await auditor.get('/audit/log?type=Contractor&order=oldest')).text;
    expect(log).toContain('<option value="Contractor" selected>все события контрагентов</option>');
    expect(log).toContain('<td>Контрагент добавлен</td>');
    expect(log).not.toContain('<td>ContractorAdded</td>');
  });

  test('the check finds English in a page: the same pages in English are full of it', async () => {
    const { auditor, data } = await russianWorkbench();
    const english = new Browser(auditor.app, { 'Accept-Language': 'en' });
    english.cookie = auditor.cookie;
    expect(foreignWords((await english.get('/audit/log')).text, data)).toEqual(expect.arrayContaining(['The', 'event', 'log']));
  });
});
