import { inflateRawSync } from 'node:zlib';
import { describe, expect, test, vi } from 'vitest';
import { engineService as testService } from '../engine-service.ts';
import { eventCount, importRecords, line, romashka, sale } from '../documents-fixtures.ts';

/**
 * Text that XML cannot hold (an XLSX is XML inside): the API refuses it in every text field with the field's
 * error, and what the log already holds is written to the акт's files without it.
 */

const BAD = ['API\uFFFEName\uFFFF', 'bell\u0007', 'lone \uD800', 'vertical\u000Btab'];

const contractor = { type: 'ЮЛ', name: 'ООО Заря', contactPerson: 'Петров Пётр', phone1: '+7 916 765-43-21', inn: '7707654321', kpp: '770701001' };

describe('text fields refuse the characters XML cannot hold', () => {
  test('on every write: the field’s error with index and field, nothing applied', async () => {
    const { api, tb } = await testService();
    const before = await eventCount(tb);
    for (const bad of BAD) {
      const cases = [
        ['/api/add-product', 'products', [{ name: 'Стол', sku: 'T1', categoryId: 0 }, { name: bad, sku: 'T2', categoryId: 0 }], 'ERROR_NAME', 'name'],
        ['/api/add-product', 'products', [{ name: 'Стол', sku: 'T1', categoryId: 0, barcodes: [bad] }], 'ERROR_BARCODES', 'barcodes'],
        ['/api/add-product-category', 'category', [{ name: bad }], 'ERROR_CATEGORY_NAME', 'name'],
        ['/api/add-product-brand', 'brand', [{ name: 'Заря' }, { name: bad }], 'ERROR_BRAND_NAME', 'name'],
        ['/api/add-contractor', 'contractors', [{ ...contractor, name: bad }], 'ERROR_NAME', 'name'],
        ['/api/add-contractor', 'contractors', [{ ...contractor, legalAddress: bad }], 'ERROR_LEGAL_ADDRESS', 'legalAddress'],
        ['/api/edit-contractor', 'contractors', [{ id: 1, ...contractor, contactPerson: bad }], 'ERROR_CONTACT_PERSON', 'contactPerson'],
      ] as const;
      for (const [path, wrapper, records, code, field] of cases) {
        const res = await api.write(path, wrapper, records as unknown as Record<string, unknown>[]);
        expect(res.status, `${path} ${JSON.stringify(bad)}`).toBe(400);
        const index = records.length - 1;
        expect(res.body.errors, `${path} ${JSON.stringify(bad)}`).toContainEqual(expect.objectContaining({ code, field, index, message: expect.stringMatching(/must not contain the character U\+[0-9A-F]{4}/) }));
      }
    }
    const imported = await importRecords(tb, [line('product_brand', { name: 'Заря' }), line('contractor', { ...romashka, name: BAD[0] })]);
    expect(imported.failures.map((f) => [f.line, f.errors.map((e) => [e.code, e.field])])).toEqual([[2, [['ERROR_NAME', 'name']]]]);
    expect(await eventCount(tb)).toBe(before + 1);
  });
});

describe('the акт’s files drop them from what the log already holds', () => {
  test('a contractor named with U+FFFE and U+FFFF before they were refused: its XLSX opens, its CSV carries neither', async () => {
    const { tb, app } = await testService();
    const { key: auditKey } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    // The log of an older version, which accepted such a name: the event is written as it then was.
    const append = tb.log.append.bind(tb.log);
    const spy = vi.spyOn(tb.log, 'append').mockImplementation((events, meta) =>
      append(
        events.map((e) => (e.type === 'ContractorAdded' ? { ...e, data: { ...e.data, name: BAD[0] } } : e)),
        meta,
      ),
    );
    const imported = await importRecords(tb, [line('contractor', romashka), line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 }), sale(3, 1, 500)]);
    spy.mockRestore();
    expect(imported.failures).toEqual([]);
    expect((await tb.contractors.byId(7))?.name).toBe(BAD[0]);

    const query = 'contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31';
    const headers = { Authorization: `Bearer ${auditKey}` };
    const xlsx = Buffer.from(await (await app.request(`/api/audit/statement?${query}&format=xlsx`, { headers })).arrayBuffer());
    // The streamed workbook writes its text inline, in the sheet.
    const sheet = zipEntry(xlsx, 'xl/worksheets/sheet1.xml');
    expect(sheet).toContain('APIName');
    expect(sheet).not.toMatch(/[\uFFFE\uFFFF]/);
    const { default: ExcelJS } = await import('exceljs');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx as never);
    expect(JSON.stringify(book.worksheets[0].getSheetValues())).toContain('По данным APIName');

    const csv = await (await app.request(`/api/audit/statement?${query}&format=csv`, { headers })).text();
    expect(csv).not.toMatch(/[\uFFFE\uFFFF]/);
  });
});

/** One entry of a zip archive, as text, found by its central directory (a streamed zip leaves sizes out of local headers). */
function zipEntry(zip: Buffer, name: string): string {
  const end = zip.lastIndexOf('PK\u0005\u0006');
  let at = zip.readUInt32LE(end + 16);
  for (let entries = zip.readUInt16LE(end + 10); entries > 0; entries--) {
    const [method, size, nameLength, extraLength, commentLength, local] = [
      zip.readUInt16LE(at + 10),
      zip.readUInt32LE(at + 20),
      zip.readUInt16LE(at + 28),
      zip.readUInt16LE(at + 30),
      zip.readUInt16LE(at + 32),
      zip.readUInt32LE(at + 42),
    ];
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      return (method === 0 ? data : inflateRawSync(data)).toString('utf8');
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`no ${name} in the archive`);
}
