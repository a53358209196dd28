import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';
import { tempDir, until } from './helpers.ts';
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

test('served by Node, headers and query strings are read as through the fetch interface: the answers are the same', async () => {
  const db = path.join(tempDir(), 'q.db');
  const server = await startServer(db, 'query-key-123');
  try {
    const headers = { Authorization: 'Bearer query-key-123' };
    const token = ((await (await fetch(`${server.url}/api/add-contractor`, { headers })).json()) as { data: { access_token: string } }).data.access_token;
    const contractors = Array.from({ length: 5 }, (_, i) => ({ type: 'ФЛ', name: `Покупатель ${i + 1}`, contactPerson: 'Он же', phone1: `+7 916 000-00-0${i}` }));
    // The token header in another spelling of its name: header names are case-insensitive.
    const added = await fetch(`${server.url}/api/add-contractor`, { method: 'POST', headers: { ...headers, 'x-ACCESS-token': token }, body: JSON.stringify({ contractors }) });
    expect(added.status).toBe(200);
    const page = async (query: string, auth = headers) => {
      const res = await fetch(`${server.url}/api/contractors${query}`, { headers: auth });
      return [res.status, await res.json()];
    };
    // A repeated parameter: the first counts; percent-encoding and '+' are decoded; a fragment is not sent at all.
    expect(await page('?limit=2&offset=1&limit=4')).toEqual([200, { meta: { allCount: 5, count: 2, limit: 2, offset: 1 }, data: expect.any(Array) }]);
    expect((await page('?%6Cimit=%32&offset=3'))[1].meta).toEqual({ allCount: 5, count: 2, limit: 2, offset: 3 });
    expect(await page('?limit=+2')).toEqual([400, { errors: [expect.objectContaining({ code: 'ERROR_LIMIT' })] }]);
    expect(await page('?limit=0&offset=-1')).toEqual([400, { errors: [expect.objectContaining({ code: 'ERROR_LIMIT' }), expect.objectContaining({ code: 'ERROR_OFFSET' })] }]);
    expect(await page('', { Authorization: 'bearer   query-key-123  ' })).toEqual([200, expect.objectContaining({ meta: expect.objectContaining({ allCount: 5 }) })]);
    expect(await page('', { Authorization: 'Bearer wrong' })).toEqual([401, { errors: [expect.objectContaining({ code: 'ERROR_USER_ACCESS' })] }]);
    expect(await page('', {} as typeof headers)).toEqual([401, { errors: [expect.objectContaining({ code: 'ERROR_NO_API_KEY' })] }]);
  } finally {
    await server.stop();
  }
});

test('SIGTERM sent to the npm start process reaches the server, which finishes and exits', async () => {
  const root = path.resolve(import.meta.dirname, '..');
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, TRADEBOOK_DB: path.join(tempDir(), 'npm.db'), TRADEBOOK_API_KEY: 'npm-start-key-123', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (chunk) => (output += chunk));
  npm.stderr.on('data', (chunk) => (output += chunk));
  const closed = new Promise((resolve) => npm.once('close', resolve));
  await until(() => /listening on port \d+/.test(output), 20_000);
  const port = Number(/listening on port (\d+)/.exec(output)![1]);
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  npm.kill('SIGTERM');
  // Every output pipe closes only once the server process itself is gone.
  await closed;
  expect(output).toContain('SIGTERM: finishing requests in flight');
  expect(output).toContain('"msg":"closed"');
  await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
});
