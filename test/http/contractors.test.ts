import { describe, expect, test } from 'vitest';
import { phoneDigits } from '../../src/lib/phone.ts';
import { engineService as testService } from '../engine-service.ts';

const romashka = { type: 'ЮЛ', name: 'ООО Ромашка', contactPerson: 'Иванов Иван', phone1: '+7 (916) 123-45-67', inn: '7701234567', kpp: '770101001' };
const petrov = { type: 'ИП', name: 'ИП Петров', contactPerson: 'Петров Пётр', phone1: '8 903 000-11-22', phone2: '+7 495 111 22 33', inn: '770123456789' };

async function withContractors(records: unknown[] = [romashka, petrov]) {
  const service = await testService();
  const added = await service.api.write('/api/add-contractor', 'contractors', records);
  expect(added.status).toBe(200);
  return service;
}

const codes = (res: { body: { errors: { code: string }[] } }) => res.body.errors.map((e) => e.code);

describe('add-contractor and edit-contractor', () => {
  test('adding returns id and name in batch order; the list shows every field', async () => {
    const { api } = await testService();
    const res = await api.write('/api/add-contractor', 'contractors', [{ ...romashka, status: 'VIP', discount: 5, email: 'a@b.ru', legalAddress: 'Москва' }, petrov]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [{ id: 1, name: 'ООО Ромашка' }, { id: 2, name: 'ИП Петров' }] });
    const list = await api.get('/api/contractors');
    expect(list.body.meta).toEqual({ allCount: 2, count: 2, limit: 100, offset: 0 });
    expect(list.body.data[0]).toEqual({
      id: 1,
      type: 'ЮЛ',
      name: 'ООО Ромашка',
      contactPerson: 'Иванов Иван',
      inn: '7701234567',
      kpp: '770101001',
      status: 'VIP',
      discount: 5,
      legalAddress: 'Москва',
      actualAddress: null,
      phone1: '+7 (916) 123-45-67',
      phone2: null,
      email: 'a@b.ru',
      staff: null,
      balance: 0,
      bonus: { status: 0, percent: null, usePercent: null, code: null, balance: 0 },
      giftCards: [],
      banks: [],
    });
  });

  test('a status not seen before is created once, as its own event', async () => {
    const { api, tb } = await testService();
    await api.write('/api/add-contractor', 'contractors', [{ ...romashka, status: 'Опт' }, { ...petrov, status: 'Опт' }]);
    await api.write('/api/edit-contractor', 'contractors', [{ id: 2, ...petrov, status: 'Розница' }]);
    const created = (await tb.audit.eventsAfter(0, 1000, { type: 'ContractorStatusCreated' })).map(({ stream, data }) => ({ stream, data }));
    expect(created).toEqual([
      { stream: 'contractor-status-Опт', data: '{"name":"Опт"}' },
      { stream: 'contractor-status-Розница', data: '{"name":"Розница"}' },
    ]);
  });

  test('edit leaves omitted fields, clears nulls, and an unchanged edit appends nothing', async () => {
    const { api, tb } = await withContractors();
    const res = await api.write('/api/edit-contractor', 'contractors', [{ id: 1, ...romashka, kpp: null, name: 'АО Ромашка', email: 'x@y.ru' }]);
    expect(res.body).toEqual({ data: [{ id: 1, name: 'АО Ромашка' }] });
    const one = await api.post('/api/contractor', { id: 1 });
    expect(one.body.data).toMatchObject({ name: 'АО Ромашка', kpp: null, inn: '7701234567', email: 'x@y.ru' });
    const before = await tb.audit.lastSeq();
    await api.write('/api/edit-contractor', 'contractors', [{ id: 1, type: 'ЮЛ', name: 'АО Ромашка', contactPerson: 'Иванов Иван', phone1: romashka.phone1 }]);
    expect(await tb.audit.lastSeq()).toBe(before);
  });

  test('every invalid field of every record is listed and nothing is applied', async () => {
    const { api } = await testService();
    const res = await api.write('/api/add-contractor', 'contractors', [
      romashka,
      { type: 'ООО', name: ' ', contactPerson: 'X', phone1: '123' },
      { ...romashka, inn: '123' },
      { ...petrov, phone2: 'abc', email: 'nope', discount: 101 },
      { ...petrov, contactPerson: undefined },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { index: number; code: string; field: string }) => [e.index, e.code, e.field])).toEqual([
      [1, 'ERROR_TYPE', 'type'],
      [1, 'ERROR_NAME', 'name'],
      [1, 'ERROR_PHONE', 'phone1'],
      [2, 'ERROR_INN', 'inn'],
      [3, 'ERROR_DISCOUNT', 'discount'],
      [3, 'ERROR_PHONE', 'phone2'],
      [3, 'ERROR_EMAIL', 'email'],
      [4, 'ERROR_CONTACT_PERSON', 'contactPerson'],
    ]);
    expect((await api.get('/api/contractors')).body.meta.allCount).toBe(0);
  });

  test('one answer lists every problem of a record, in plain words: a wrong inn beside a discount out of range', async () => {
    const { api } = await testService();
    const res = await api.write('/api/add-contractor', 'contractors', [{ ...petrov, type: 'ФЛ', inn: '1', discount: 150 }]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { code: 'ERROR_DISCOUNT', field: 'discount', index: 0, message: 'discount: must be at most 100' },
      { code: 'ERROR_INN', field: 'inn', index: 0, message: 'inn: must be 12 digits for a contractor of type ФЛ' },
    ]);
    // Edits too; and an inn that is wrong in itself is reported once, as the field's own problem.
    const edit = await api.write('/api/edit-contractor', 'contractors', [{ ...petrov, id: 1, type: 'ЮЛ', inn: '123', email: 'nope' }]);
    expect(edit.body.errors.map((e: { code: string; message: string }) => [e.code, e.message])).toEqual([
      ['ERROR_EMAIL', 'email: must look like an e-mail address'],
      ['ERROR_INN', 'inn: must be 10 digits for a contractor of type ЮЛ'],
    ]);
  });

  test('inn length follows the type: 10 digits for ЮЛ, 12 for ИП and ФЛ', async () => {
    const { api } = await testService();
    const res = await api.write('/api/add-contractor', 'contractors', [
      { ...romashka, inn: '770123456789' },
      { ...petrov, type: 'ФЛ', inn: '7701234567' },
      { ...petrov, type: 'ФЛ', inn: '770123456789' },
    ]);
    expect(res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [0, 'ERROR_INN'],
      [1, 'ERROR_INN'],
    ]);
  });

  test('wrapper errors: empty, missing, not an array, more than 100 records, body not JSON', async () => {
    const { api } = await testService();
    for (const path of ['/api/add-contractor', '/api/edit-contractor/']) {
      for (const body of [{ contractors: [] }, {}, { contractors: {} }, { contractors: Array.from({ length: 101 }, () => romashka) }, { contractors: [1] }]) {
        const res = await api.post(path, body, await api.token(path));
        expect(res.status).toBe(400);
        expect(codes(res)).toEqual(['ERROR_CONTRACTORS']);
      }
    }
    const raw = await api.request('POST', '/api/add-contractor', { raw: '{nope', headers: { 'X-Access-Token': await api.token('/api/add-contractor') } });
    expect(codes(raw)).toEqual(['ERROR_CONTRACTORS']);
  });

  test('edit of an unknown or missing id is ERROR_ID with its index; 100 records a batch are accepted', async () => {
    const { api } = await withContractors();
    const res = await api.write('/api/edit-contractor', 'contractors', [{ id: 1, ...romashka }, { id: 9, ...petrov }, { ...petrov }]);
    expect(res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'ERROR_ID'],
      [2, 'ERROR_ID'],
    ]);
    const many = await api.write('/api/add-contractor', 'contractors', Array.from({ length: 100 }, (_, i) => ({ ...petrov, name: `ИП ${i}` })));
    expect(many.body.data).toHaveLength(100);
  });

  test('edit checks every field as add does', async () => {
    const { api } = await withContractors();
    const res = await api.write('/api/edit-contractor', 'contractors', [{ id: 1, ...romashka, type: 'АО', phone1: '1', name: '' }, { id: 2, ...petrov, inn: '1' }]);
    expect(res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [0, 'ERROR_TYPE'],
      [0, 'ERROR_NAME'],
      [0, 'ERROR_PHONE'],
      [1, 'ERROR_INN'],
    ]);
  });

  test('a wrong method on a contractor path is 405', async () => {
    const { api } = await testService();
    expect((await api.get('/api/contractor')).status).toBe(405);
    expect((await api.post('/api/contractors', {})).status).toBe(405);
  });

  test('access token and key errors', async () => {
    const { api } = await testService();
    expect(codes(await api.post('/api/add-contractor', { contractors: [romashka] }))).toEqual(['ERROR_ACCESS_TOKEN']);
    const noKey = await api.app.request('/api/contractors');
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).errors[0].code).toBe('ERROR_NO_API_KEY');
    const badKey = await api.app.request('/api/contractors', { headers: { Authorization: 'Bearer nope' } });
    expect((await badKey.json()).errors[0].code).toBe('ERROR_USER_ACCESS');
    const lookup = await api.app.request('/api/contractor', { method: 'POST', headers: { Authorization: 'Bearer nope' } });
    expect(lookup.status).toBe(401);
  });
});

describe('GET /api/contractors', () => {
  test('pages in id order, including ids imported below the highest one', async () => {
    const { api, tb } = await withContractors(Array.from({ length: 5 }, (_, i) => ({ ...petrov, name: `ИП ${i + 1}` })));
    const { importLines } = await import('../../src/use-cases/import.ts');
    async function* lines() {
      yield JSON.stringify({ type: 'contractor', data: { id: 100, ...romashka } });
      yield JSON.stringify({ type: 'contractor', data: { id: 50, ...romashka } });
    }
    await importLines(tb, lines(), () => {});
    const page = await api.get('/api/contractors?limit=3&offset=4');
    expect(page.body.meta).toEqual({ allCount: 7, count: 3, limit: 3, offset: 4 });
    expect(page.body.data.map((c: { id: number }) => c.id)).toEqual([5, 50, 100]);
    expect((await api.get('/api/contractors/?offset=7')).body).toEqual({ meta: { allCount: 7, count: 0, limit: 100, offset: 7 }, data: [] });
  });

  test.each([
    ['limit=0', 'ERROR_LIMIT'],
    ['limit=101', 'ERROR_LIMIT'],
    ['limit=1.5', 'ERROR_LIMIT'],
    ['limit=abc', 'ERROR_LIMIT'],
    ['offset=-1', 'ERROR_OFFSET'],
    ['offset=1e3', 'ERROR_OFFSET'],
  ])('%s is %s', async (query, code) => {
    const { api } = await testService();
    const res = await api.get(`/api/contractors?${query}`);
    expect(res.status).toBe(400);
    expect(codes(res)).toEqual([code]);
  });
});

describe('POST /api/contractor', () => {
  test('phone digits: separators dropped, a leading 8 of 11 digits counts as 7', () => {
    expect(phoneDigits('+7 (916) 123-45-67')).toBe('79161234567');
    expect(phoneDigits('8 916 123 45 67')).toBe('79161234567');
    expect(phoneDigits('8123456789')).toBe('8123456789');
  });

  test('by id, inn or phone (phone1 or phone2), from body or query', async () => {
    const { api } = await withContractors();
    const id = async (res: { status: number; body: { data: { id: number } } }) => (expect(res.status).toBe(200), res.body.data.id);
    expect(await id(await api.post('/api/contractor', { id: 2 }))).toBe(2);
    expect(await id(await api.post('/api/contractor?id=1', undefined))).toBe(1);
    expect(await id(await api.post('/api/contractor', { inn: '770123456789' }))).toBe(2);
    expect(await id(await api.post('/api/contractor', { phone: '79161234567' }))).toBe(1);
    expect(await id(await api.post('/api/contractor', { phone: '8 (916) 123 45 67' }))).toBe(1);
    expect(await id(await api.post('/api/contractor?phone=%2B74951112233', {}))).toBe(2);
    expect(await id(await api.post('/api/contractor', { phone: '+7 903 000 11 22' }))).toBe(2);
  });

  test('precedence id > inn > phone, body before query', async () => {
    const { api } = await withContractors();
    expect((await api.post('/api/contractor', { id: 2, inn: '7701234567', phone: '79161234567' })).body.data.id).toBe(2);
    expect((await api.post('/api/contractor', { inn: '7701234567', phone: '74951112233' })).body.data.id).toBe(1);
    expect((await api.post('/api/contractor?id=1', { id: 2 })).body.data.id).toBe(2);
    expect((await api.post('/api/contractor?id=1', { inn: '770123456789' })).body.data.id).toBe(1);
  });

  test('several contractors with the same inn or phone: the lowest id', async () => {
    const { api } = await withContractors([romashka, petrov, romashka]);
    expect((await api.post('/api/contractor', { inn: '7701234567' })).body.data.id).toBe(1);
    await api.write('/api/edit-contractor', 'contractors', [{ id: 1, ...romashka, phone1: '+7 999 000 00 00' }]);
    expect((await api.post('/api/contractor', { phone: '79161234567' })).body.data.id).toBe(3);
  });

  test.each([
    [{}, '', 400, 'ERROR_ID'],
    [undefined, '', 400, 'ERROR_ID'],
    [{ id: 0 }, '', 400, 'ERROR_ID'],
    [{ id: 'x' }, '', 400, 'ERROR_ID'],
    [{ id: 1.5 }, '', 400, 'ERROR_ID'],
    [[1], '', 400, 'ERROR_ID'],
    [{ inn: '123' }, '', 400, 'ERROR_INN'],
    [{ phone: '12' }, '', 400, 'ERROR_PHONE'],
    [{ id: 99 }, '', 404, 'ERROR_ID'],
    [{}, '?inn=7709999999', 404, 'ERROR_INN'],
    [{ phone: '+7 000 000 00 00' }, '', 404, 'ERROR_PHONE'],
  ])('body %j query %s: %i %s', async (body, query, status, code) => {
    const { api } = await withContractors();
    const res = await api.post(`/api/contractor${query}`, body);
    expect(res.status).toBe(status);
    expect(codes(res)).toEqual([code]);
  });

  test('a body that is not JSON is ERROR_ID', async () => {
    const { api } = await withContractors();
    const res = await api.request('POST', '/api/contractor?id=1', { raw: 'id=1' });
    expect(res.status).toBe(400);
    expect(codes(res)).toEqual(['ERROR_ID']);
  });
});
