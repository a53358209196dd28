import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import { verifyDatabase } from '../../scripts/lib/verify-database.ts';
import { testService } from '../helpers.ts';

test('the crash test verifier finds a tampered event and a read table that differs from a rebuild', async () => {
  const { api, tb, file } = await testService();
  await api.write('/api/add-product-brand', 'brand', [{ name: 'Первый' }, { name: 'Второй' }]);
  tb.close();
  expect(verifyDatabase(file)).toEqual([]);

  const db = new Database(file);
  db.prepare("UPDATE product_brands SET json = replace(json, 'Первый', 'Подмена') WHERE id = 1").run();
  db.exec('DROP TRIGGER events_no_update');
  db.prepare("UPDATE events SET data = replace(data, 'Второй', 'Третий') WHERE seq = 2").run();
  db.close();
  expect(verifyDatabase(file)).toEqual(['event 2: hash chain broken', expect.stringMatching(/^read table product_brands differs/)]);
});
