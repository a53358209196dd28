import path from 'node:path';
import { expect, test } from 'vitest';
import { tempDir } from './helpers.ts';
import { startServer } from './server-process.ts';

test('the real server: first start prints a key once, serves reads and writes, stops on SIGTERM', async () => {
  const db = path.join(tempDir(), 'nested', 'folder', 't.db');
  // An empty TRADEBOOK_API_KEY counts as unset.
  const server = await startServer(db, '');
  try {
    const key = /not shown again:\n(\S+)/.exec(server.output())?.[1];
    expect(key).toBeDefined();
    const headers = { Authorization: `Bearer ${key}` };
    const token = ((await (await fetch(`${server.url}/api/add-product-brand`, { headers })).json()) as { data: { access_token: string } }).data.access_token;
    const added = await fetch(`${server.url}/api/add-product-brand/`, {
      method: 'POST',
      headers: { ...headers, 'X-Access-Token': token },
      body: JSON.stringify({ brand: [{ name: 'Живой' }] }),
    });
    expect(added.status).toBe(200);
    const brands = await fetch(`${server.url}/api/product-brands`, { headers });
    expect(brands.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await brands.json()).toEqual({ meta: { allCount: 1 }, data: [{ id: 1, name: 'Живой', logo: null }] });
  } finally {
    expect(await server.stop()).toBe(0);
  }
  // The second start has a key already: none is printed, and TRADEBOOK_API_KEY registers the given one.
  const again = await startServer(db, 'given-key-123');
  try {
    expect(again.output()).not.toContain('not shown again');
    const res = await fetch(`${again.url}/api/product-brands`, { headers: { Authorization: 'Bearer given-key-123' } });
    expect(res.status).toBe(200);
  } finally {
    await again.stop();
  }
});
