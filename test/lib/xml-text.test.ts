import { expect, test } from 'vitest';
import { xmlForbiddenIn, xmlSafe } from '../../src/lib/xml-text.ts';
import { csvText } from '../../src/lib/csv.ts';

test('the characters XML 1.0 cannot hold are named, and dropped from file text; tab, LF, CR and paired surrogates stay', () => {
  for (const [input, forbidden, safe] of [
    ['API\uFFFEName\uFFFF', 'U+FFFE', 'APIName'],
    ['a\u0000b\u0001c\u0008d\u000Be\u000Cf\u001Fg', 'U+0000', 'abcdefg'],
    ['lone \uD800 high, lone \uDC00 low', 'U+D800', 'lone  high, lone  low'],
    ['tab\tLF\nCR\r😀 \uFFFD \uFEFF\u007F', undefined, 'tab\tLF\nCR\r😀 \uFFFD \uFEFF\u007F'],
  ] as const) {
    expect(xmlForbiddenIn(input), input).toBe(forbidden);
    expect(xmlSafe(input), input).toBe(safe);
  }
});

test('a CSV cell drops them too', () => {
  expect(csvText([['API\uFFFEName\uFFFF', 'x\u0001']])).toBe('APIName,x\r\n');
});
