import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Row } from 'exceljs';
import { EXCEL_RU, csvText } from '../../lib/csv.ts';
import { textStream } from '../../lib/streams.ts';
import { xmlSafe } from '../../lib/xml-text.ts';
import { type Act, type ActCell, actFootRows, actHeadRows, actLineRow, footRowsInOrder } from './act.ts';
import { day, rubles } from './show.ts';
import type { Texts } from './texts.ts';

/**
 * The act's files: an XLSX workbook laid out as the printed act, and a CSV as Excel in a Russian locale reads it.
 * Both are written as the statement's documents are read, a page at a time, and sent as they are written: a
 * statement of 100,000 documents costs no more memory than one of ten.
 */

/** The media type of the workbook `actXlsx` writes. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const COLUMNS = 8;
const ROWS_PER_TURN = 100;

/** An act's cell as written in the CSV: amounts with a decimal comma and no grouping, dates `ДД.ММ.ГГГГ`. */
function csvValue(cell: ActCell): string {
  if (cell === null) return '';
  if (typeof cell === 'object') return 'rubles' in cell ? cell.rubles.toFixed(2).replace('.', ',') : day(cell.date);
  return cell;
}

const csvRows = (rows: ActCell[][]) => csvText(rows.map((row) => row.map(csvValue)), EXCEL_RU);

async function* actCsvText(t: Texts, act: Act): AsyncGenerator<string> {
  yield `\uFEFF${csvRows(actHeadRows(t, act).rows)}`;
  for await (const page of act.statement.pages()) yield csvRows(page.map((line) => actLineRow(t, line)));
  yield csvRows(footRowsInOrder(actFootRows(t, act, act.statement.totals(), rubles)));
}

/** The act as CSV for Excel: `;` between fields, decimal commas, dates `ДД.ММ.ГГГГ`, UTF-8 with a byte-order mark. */
export const actCsv = (t: Texts, act: Act): ReadableStream<Uint8Array> => textStream(actCsvText(t, act));

const THIN = { style: 'thin' } as const;
const BORDER = { top: THIN, left: THIN, bottom: THIN, right: THIN };
const IN_TABLE = { vertical: 'top', wrapText: true } as const;
const PAGE_SETUP = {
  paperSize: 9, // A4
  orientation: 'portrait',
  fitToPage: true,
  fitToWidth: 1,
  fitToHeight: 0,
  margins: { left: 0.5, right: 0.5, top: 0.6, bottom: 0.6, header: 0.3, footer: 0.3 },
} as const;

/** Writes one row's cells: text as XML allows it, amounts as numbers, dates as dates. */
function fill(row: Row, cells: ActCell[]): void {
  cells.forEach((cell, column) => {
    if (cell === null) return;
    const target = row.getCell(column + 1);
    if (typeof cell === 'string') target.value = xmlSafe(cell);
    else if ('rubles' in cell) {
      target.value = cell.rubles;
      target.numFmt = '#,##0.00';
    } else {
      target.value = new Date(`${cell.date}T00:00:00Z`);
      target.numFmt = 'dd.mm.yyyy';
    }
  });
}

/** A row of the table: every column bordered, text at the top and wrapped. */
function framed(row: Row): void {
  for (let column = 1; column <= COLUMNS; column++) {
    const cell = row.getCell(column);
    cell.border = BORDER;
    cell.alignment = IN_TABLE;
  }
}

/** Writes the act as an XLSX workbook into `out` through exceljs's streaming writer, a row committed as it is written. */
async function writeActXlsx(t: Texts, act: Act, out: PassThrough): Promise<void> {
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = book.addWorksheet(xmlSafe(t.statement.sheet), { pageSetup: PAGE_SETUP });
  sheet.columns = [12, 34, 14, 14, 12, 34, 14, 14].map((width) => ({ width }));
  let written = 0;
  const write = (cells: ActCell[], shape?: (row: Row, number: number) => void) => {
    const row = sheet.getRow(++written);
    fill(row, cells);
    shape?.(row, written);
    row.commit();
  };
  const wholeWidth = (row: Row, number: number) => {
    sheet.mergeCells(number, 1, number, COLUMNS);
    row.getCell(1).alignment = { horizontal: number <= 2 ? 'center' : 'left', wrapText: true };
  };
  const halves = (_row: Row, number: number) => {
    sheet.mergeCells(number, 1, number, 4);
    sheet.mergeCells(number, 5, number, COLUMNS);
  };
  const bold = (row: Row) => {
    framed(row);
    row.font = { bold: true };
  };

  const head = actHeadRows(t, act);
  head.rows.forEach((cells, index) => {
    if (index < head.headerRow) {
      write(cells, (row, number) => {
        wholeWidth(row, number);
        if (index === 0) row.font = { bold: true, size: 13 };
        if (index === 3) row.height = 45; // the preamble
      });
    } else if (index === head.headerRow) write(cells, (row, number) => (bold(row), halves(row, number)));
    else write(cells, bold);
  });
  for await (const page of act.statement.pages()) {
    for (const [index, line] of page.entries()) {
      write(actLineRow(t, line), framed);
      // exceljs takes about a millisecond a row on a busy machine: the server's other requests go between every hundred.
      if (index % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn();
    }
    // The client reads slower than rows are made: wait for it rather than hold the workbook in memory; a client
    // gone (the stream destroyed) ends the work.
    if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), once(out, 'close')]);
    if (out.destroyed) return;
  }
  const foot = actFootRows(t, act, act.statement.totals(), rubles);
  for (const cells of foot.table) write(cells, bold);
  for (const cells of foot.sentences) write(cells, cells.length === 0 ? undefined : wholeWidth);
  for (const cells of foot.signatures) write(cells, halves);
  sheet.commit();
  await book.commit();
}

/** The act as an XLSX workbook of one sheet, as printed: amounts as numbers, dates as dates, A4 upright. */
export function actXlsx(t: Texts, act: Act): ReadableStream<Uint8Array> {
  const out = new PassThrough();
  writeActXlsx(t, act, out).catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return Readable.toWeb(out) as ReadableStream<Uint8Array>;
}
