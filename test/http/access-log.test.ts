import { expect, test } from 'vitest';
import { accessFields } from '../../src/http/access-log.ts';

test("an access entry's JSON members parse back to the entry, whatever its path holds, fields with no value left out", () => {
  const entries = [
    { reqId: 'client-42.a:b', method: 'GET', path: '/api/product', status: 200, ms: 0.3, keyId: 7, client: '203.0.113.9', read: '/api/audit/events?stream=a%26b' },
    { reqId: '0b7e1c3a-2f4d-4e5f-8a9b-0c1d2e3f4a5b', method: 'POST', path: '/api/"quoted"\\back\nline/Товары/😀', status: 401, ms: 12, client: '::1', session: 'ab12' },
  ];
  for (const entry of entries) {
    const fields = accessFields(entry);
    expect(JSON.parse(`{${fields}}`)).toEqual(entry);
    expect(Object.keys(JSON.parse(`{${fields}}`))).toEqual(Object.keys(entry));
  }
});
