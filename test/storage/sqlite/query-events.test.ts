import { expect, test } from 'vitest';
import { queryEvents } from '../../../src/storage/sqlite/event-log.ts';
import { testService } from '../../helpers.ts';

test('the log is read a chunk at a time: whatever the chunk, filtered or not, nothing is lost or repeated', async () => {
  const { api, tb } = await testService();
  await api.write('/api/add-product-brand', 'brand', [{ name: 'А' }, { name: 'Б' }, { name: 'В' }]);
  await api.write('/api/add-product-category', 'category', [{ name: 'Г' }, { name: 'Д' }]);
  const seqs = (chunk: number, type?: string) => [...queryEvents(tb.db, { type }, chunk)].map((row) => row.seq);
  for (const chunk of [1, 2, 3, 5000]) {
    expect(seqs(chunk), `chunk ${chunk}`).toEqual([1, 2, 3, 4, 5]);
    expect(seqs(chunk, 'BrandAdded'), `chunk ${chunk}`).toEqual([1, 2, 3]);
  }
});
