import { EXCEL_RU, csvText } from '../../lib/csv.ts';
import { xmlSafe } from '../../lib/xml-text.ts';
import type { Act, ActCell } from './act.ts';
import { actRows } from './act.ts';
import { day, rubles } from './show.ts';
import type { Texts } from './texts.ts';

/** The media type of the workbook `actXlsx` writes. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The act's files: an XLSX workbook laid out as the printed act, and a CSV as Excel in a Russian locale reads it. */

const COLUMNS = 8;

/** An act's cell as written in the CSV: amounts with a decimal comma and no grouping, dates `ДД.ММ.ГГГГ`. */
function csvValue(cell: ActCell): string {
  if (cell === null) return '';
  if (typeof cell === 'object') return 'rubles' in cell ? cell.rubles.toFixed(2).replace('.', ',') : day(cell.date);
  return cell;
}

/** The act as CSV for Excel: `;` between fields, decimal commas, dates `ДД.ММ.ГГГГ`, UTF-8 with a byte-order mark. */
export function actCsv(t: Texts, act: Act): string {
  return `\uFEFF${csvText(actRows(t, act, rubles).rows.map((row) => row.map(csvValue)), EXCEL_RU)}`;
}

/** The act as an XLSX workbook of one sheet, as printed: amounts as numbers, dates as dates, A4 upright. */
export async function actXlsx(t: Texts, act: Act): Promise<Uint8Array<ArrayBuffer>> {
  const { default: ExcelJS } = await import('exceljs');
  const { rows, tableFrom, tableTo } = actRows(t, act, rubles);
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet(t.statement.sheet, {
    pageSetup: { paperSize: 9, orientation: 'portrait', fitToPage: true, fitToWidth: 1, fitToHeight: 0, margins: { left: 0.5, right: 0.5, top: 0.6, bottom: 0.6, header: 0.3, footer: 0.3 } },
  });
  sheet.columns = [12, 34, 14, 14, 12, 34, 14, 14].map((width) => ({ width }));
  const headerRow = tableFrom - 2;
  rows.forEach((cells, index) => {
    const row = sheet.getRow(index + 1);
    cells.forEach((cell, column) => {
      const target = row.getCell(column + 1);
      if (cell === null) return;
      // Text from the log may predate the refusal of characters XML cannot hold; one would spoil the whole file.
      if (typeof cell === 'string') target.value = xmlSafe(cell);
      else if ('rubles' in cell) {
        target.value = cell.rubles;
        target.numFmt = '#,##0.00';
      } else {
        target.value = new Date(`${cell.date}T00:00:00Z`);
        target.numFmt = 'dd.mm.yyyy';
      }
    });
    const inTable = index >= headerRow && index <= tableTo;
    if (inTable) {
      for (let column = 1; column <= COLUMNS; column++) {
        const target = row.getCell(column);
        target.border = { top: { style: 'thin' }, left: { style: 'thin' }, bottom: { style: 'thin' }, right: { style: 'thin' } };
        target.alignment = { vertical: 'top', wrapText: true };
      }
    }
    if (index < headerRow) {
      sheet.mergeCells(index + 1, 1, index + 1, COLUMNS);
      row.getCell(1).alignment = { horizontal: index < 2 ? 'center' : 'left', wrapText: true };
    }
    if (index === 0) row.font = { bold: true, size: 13 };
    if (index === headerRow || index === headerRow + 1 || index === tableTo || index === tableTo - 1) row.font = { bold: true };
  });
  sheet.getRow(4).height = 45;
  sheet.mergeCells(headerRow + 1, 1, headerRow + 1, 4);
  sheet.mergeCells(headerRow + 1, 5, headerRow + 1, 8);
  sheet.mergeCells(tableTo + 3, 1, tableTo + 3, COLUMNS);
  for (let index = tableTo + 4; index < rows.length; index++) {
    sheet.mergeCells(index + 1, 1, index + 1, 4);
    sheet.mergeCells(index + 1, 5, index + 1, 8);
  }
  // exceljs types its buffer as an empty interface; it is a Node Buffer, copied here into a plain byte array.
  return new Uint8Array((await book.xlsx.writeBuffer()) as unknown as ArrayLike<number>);
}
