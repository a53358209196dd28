/**
 * CSV as the project writes it (CRLF line ends), made safe to open in a spreadsheet. A cell starting with `=`,
 * `+`, `-`, `@`, a tab or a carriage return is a formula to Excel, LibreOffice and Google Sheets, and a document
 * number imported as `=HYPERLINK(…)` would run when the file is opened; such a cell is written quoted with a
 * leading `'`, which makes it text. A plain decimal number (`-200.00`, or `-200,00` with a decimal comma) is no
 * formula and stays a number.
 */

import { xmlSafe } from './xml-text.ts';

/** How the file separates fields and writes decimals. */
export interface CsvDialect {
  separator: ',' | ';';
  decimal: '.' | ',';
}

/** RFC 4180: comma-separated, a decimal point. */
export const RFC_4180: CsvDialect = { separator: ',', decimal: '.' };
/** As Excel in a Russian locale reads a CSV: `;` between fields, a decimal comma. */
export const EXCEL_RU: CsvDialect = { separator: ';', decimal: ',' };

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = { '.': /^[-+]?\d+(?:\.\d+)?$/, ',': /^[-+]?\d+(?:,\d+)?$/ };
const NEEDS_QUOTES = { ',': /[",\r\n]/, ';': /[";\r\n]/ };

/**
 * One cell: neutralised when a spreadsheet would read it as a formula, quoted when it must be; without the
 * characters XML cannot hold, which a spreadsheet saving the file as XLSX could not keep.
 */
export function csvCell(value: string | number, dialect: CsvDialect = RFC_4180): string {
  const text = typeof value === 'number' ? String(value).replace('.', dialect.decimal) : xmlSafe(value);
  const formula = FORMULA_START.test(text) && !PLAIN_NUMBER[dialect.decimal].test(text);
  const cell = formula ? `'${text}` : text;
  return formula || NEEDS_QUOTES[dialect.separator].test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** Rows of cells as CSV text, each row ending in CRLF. */
export function csvText(rows: (string | number)[][], dialect: CsvDialect = RFC_4180): string {
  return rows.map((row) => `${row.map((cell) => csvCell(cell, dialect)).join(dialect.separator)}\r\n`).join('');
}
