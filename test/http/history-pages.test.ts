import { expect, test } from 'vitest';
import { engineService as testService } from '../engine-service.ts';
import { importRecords, romashka } from '../documents-fixtures.ts';
import { Browser } from '../workbench-client.ts';

/**
 * A record's history comes a page at a time, however often the record was edited: the workbench's record pages
 * 50 entries a page, newest first, the API 1,000 at most after a version; the log page tells each event's change
 * from the versions it shows.
 */

const EDITS = 120;

async function editedContractor() {
  const service = await testService();
  const edits = Array.from({ length: EDITS }, (_, i) => ({ type: 'contractor', data: { ...romashka, legalAddress: `Москва, ул. Правки, ${i + 1}` } }));
  const imported = await importRecords(service.tb, [{ type: 'contractor', data: romashka }, ...edits]);
  expect(imported.failures).toEqual([]);
  const { key: auditKey } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const auditor = new Browser(service.app);
  await auditor.signIn(auditKey);
  return { ...service, auditor, auditKey };
}

/** The stream versions a page's history table lists, in order. */
const versions = (text: string) => [...text.slice(text.indexOf('<table class="history">')).matchAll(/\(v(\d+)\)<\/td>/g)].map((m) => Number(m[1]));
const link = (text: string, rel: 'next' | 'prev') => new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(text.slice(text.indexOf('<div id="history">')))?.[1].replaceAll('&amp;', '&');
const range = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i);

test('a record edited 120 times: its page shows 50 entries of its history, newest first, and pages on to the oldest and back', async () => {
  const { auditor } = await editedContractor();
  const newest = await auditor.get('/audit/contractor/7');
  expect(newest.status).toBe(200);
  expect(versions(newest.text)).toEqual(range(121, 72));
  expect(newest.text).toContain('Versions 72–121 of 121, newest first.');
  expect(newest.text).toContain('<span class="before">Москва, ул. Правки, 119</span> → <span class="after">Москва, ул. Правки, 120</span>');
  expect(link(newest.text, 'prev')).toBeUndefined();
  const older = await auditor.get(link(newest.text, 'next')!.replace(/#history$/, ''));
  expect(versions(older.text)).toEqual(range(71, 22));
  const oldest = await auditor.get(link(older.text, 'next')!.replace(/#history$/, ''));
  expect(versions(oldest.text)).toEqual(range(21, 1));
  expect(link(oldest.text, 'next')).toBeUndefined();
  const back = await auditor.get(link(oldest.text, 'prev')!.replace(/#history$/, ''));
  expect(versions(back.text)).toEqual(range(71, 22));
  // A version the record does not have, or no version at all, is its newest page.
  for (const asked of ['0', '500', 'x', '-3']) expect(versions((await auditor.get(`/audit/contractor/7?history=${asked}`)).text), asked).toEqual(range(121, 72));
});

test('the API gives the history a page at a time after a version, each entry before → after; the log page tells the changes of the events it shows', async () => {
  const { auditor, auditKey, app } = await editedContractor();
  const api = async (url: string) => {
    const res = await app.request(url, { headers: { Authorization: `Bearer ${auditKey}` } });
    return { status: res.status, body: await res.json() };
  };
  const first = await api('/api/history?stream=contractor-7&limit=50');
  expect(first.body.meta).toEqual({ stream: 'contractor-7', after: 0, limit: 50, count: 50, next: 50 });
  const last = await api('/api/history?stream=contractor-7&after=100&limit=50');
  expect(last.body.meta).toEqual({ stream: 'contractor-7', after: 100, limit: 50, count: 21, next: 121 });
  expect(last.body.data[0]).toMatchObject({ streamVersion: 101, changes: { legalAddress: 'Москва, ул. Правки, 100' }, before: { legalAddress: 'Москва, ул. Правки, 99' } });
  for (const [query, code] of [
    ['after=-1', 'ERROR_AFTER'],
    ['limit=0', 'ERROR_LIMIT'],
    ['limit=1001', 'ERROR_LIMIT'],
  ]) {
    const refused = await api(`/api/history?stream=contractor-7&${query}`);
    expect(refused.status, query).toBe(400);
    expect(refused.body.errors[0].code).toBe(code);
  }

  const log = await auditor.get('/audit/log?stream=contractor-7');
  expect(log.text).toContain('<span class="before">Москва, ул. Правки, 119</span> → <span class="after">Москва, ул. Правки, 120</span>');
  const asOf = await auditor.get('/audit/record?stream=contractor-7');
  expect(asOf.status).toBe(200);
  expect(asOf.text).toContain('Москва, ул. Правки, 120');
});
