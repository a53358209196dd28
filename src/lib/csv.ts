/**
 * CSV as the project writes it (RFC 4180: comma-separated, CRLF line ends), made safe to open in a spreadsheet.
 * A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel, LibreOffice and
 * Google Sheets, and a document number imported as `=HYPERLINK(…)` would run when the file is opened; such a
 * cell is written quoted with a leading `'`, which makes it text. A plain decimal number (`-200.00`) is no
 * formula and stays a number.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[-+]?\d+(?:\.\d+)?$/;

/** One cell: neutralised when a spreadsheet would read it as a formula, quoted when it must be. */
export function csvCell(value: string | number): string {
  const text = String(value);
  const formula = FORMULA_START.test(text) && !PLAIN_NUMBER.test(text);
  const cell = formula ? `'${text}` : text;
  return formula || /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** Rows of cells as CSV text, each row ending in CRLF. */
export function csvText(rows: (string | number)[][]): string {
  return rows.map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}
