import { expect, test, vi } from 'vitest';
import { failFsyncs, holdFsyncs, testService, until } from '../helpers.ts';

test('concurrent POSTs share one commit; a batch refused in the group (decided against the ones before it) is answered alone and applies nothing', async () => {
  const { api, tb } = await testService();
  // The third repeats the first's name: it is refused when decided after it, inside the same transaction.
  const names = ['Альфа', 'Бета', 'Альфа', 'Гамма'];
  const tokens = await Promise.all(names.map(() => api.token('/api/add-product-brand')));
  const before = tb.writer.commits;
  const answers = await Promise.all(names.map((name, i) => api.post('/api/add-product-brand', { brand: [{ name }] }, tokens[i])));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 200]);
  expect(answers[2].body.errors[0].code).toBe('ERROR_BRAND_NAME');
  expect(tb.writer.commits - before).toBe(1);
  const listed = (await api.get('/api/product-brands')).body.data.map((b: { name: string }) => b.name);
  expect(listed.sort()).toEqual(['Альфа', 'Бета', 'Гамма']);
  expect((await tb.audit.eventsAfter(0, 100)).filter((e) => e.type === 'BrandAdded')).toHaveLength(3);
  // The refused batch's token was not spent: it can still carry a good body.
  expect((await api.post('/api/add-product-brand', { brand: [{ name: 'Дельта' }] }, tokens[2])).status).toBe(200);
});

test('two POSTs of one token in one group: the first applies, the second gets its answer or a refusal, never a second apply', async () => {
  const { api } = await testService();
  const token = await api.token('/api/add-product-brand');
  const body = { brand: [{ name: 'Один раз' }] };
  const [first, again, other] = await Promise.all([
    api.post('/api/add-product-brand', body, token),
    api.post('/api/add-product-brand', body, token),
    api.post('/api/add-product-brand', { brand: [{ name: 'Другое' }] }, token),
  ]);
  expect([first.status, again.status, other.status]).toEqual([200, 200, 401]);
  expect(again.text).toBe(first.text);
  expect((await api.get('/api/product-brands')).body.meta.allCount).toBe(1);
});

test('a replayed answer waits, like the first, until the write it repeats is on disk', async () => {
  const { api } = await testService();
  const token = await api.token('/api/add-product-brand');
  const body = { brand: [{ name: 'На диске' }] };
  const held = holdFsyncs();
  try {
    const done: string[] = [];
    const first = api.post('/api/add-product-brand', body, token).then((r) => (done.push('first'), r));
    await until(() => held.waiting.length > 0); // committed (the token is spent), its fsync not done
    const again = api.post('/api/add-product-brand', body, token).then((r) => (done.push('again'), r));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(done).toEqual([]);
    while (done.length < 2) {
      await until(() => held.waiting.length > 0 || done.length === 2);
      held.waiting.shift()?.release();
    }
    expect((await again).text).toBe((await first).text);
    expect((await first).status).toBe(200);
  } finally {
    held.restore();
  }
});

test("a token GET is answered without waiting for the disk; the POST that spends it is answered once its commit, and the token's with it, is fsynced", async () => {
  const { api } = await testService();
  const held = holdFsyncs();
  try {
    const token = await api.token('/api/add-product-brand');
    expect(held.waiting).toEqual([]);
    let answered = false;
    const post = api.post('/api/add-product-brand', { brand: [{ name: 'После токена' }] }, token).then((r) => ((answered = true), r));
    await until(() => held.waiting.length > 0);
    expect(answered).toBe(false);
    while (!answered) {
      await until(() => held.waiting.length > 0 || answered);
      held.waiting.shift()?.release();
    }
    expect((await post).status).toBe(200);
  } finally {
    held.restore();
  }
});

test('a write whose fsync fails is answered 500 saying its outcome is unknown, never 200', async () => {
  const { api } = await testService();
  const token = await api.token('/api/add-product-brand');
  const restoreFsync = failFsyncs();
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const res = await api.post('/api/add-product-brand', { brand: [{ name: 'Неизвестно' }] }, token);
    expect(res.status).toBe(500);
    expect(res.body.errors[0].code).toBe('ERROR_INTERNAL');
    expect(res.body.errors[0].message).toMatch(/committed but the disk did not confirm it/);
  } finally {
    restoreFsync();
    errors.mockRestore();
  }
});

test('the projection checkpoints follow the log after every write', async () => {
  const { api, tb } = await testService();
  await api.write('/api/add-product-brand', 'brand', [{ name: 'А' }, { name: 'Б' }]);
  await api.write('/api/add-product-category', 'category', [{ name: 'Группа' }]);
  expect(await tb.audit.lastSeq()).toBe(3);
  expect(await tb.staleProjections()).toEqual([]);
});
