/**
 * The characters XML 1.0 cannot hold (its `Char` production): the C0 controls but tab, LF and CR, lone
 * surrogates, U+FFFE and U+FFFF. An XLSX is XML inside; one such character in a cell makes its
 * `sharedStrings.xml` ill-formed and Excel refuses the whole file. The API refuses them in text fields; what
 * the log already holds is written to files without them.
 */
const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/u;
const XML_FORBIDDEN_ALL = new RegExp(XML_FORBIDDEN.source, 'gu');

/** The first character of `text` XML cannot hold, as `U+XXXX`; undefined when it holds none. */
export function xmlForbiddenIn(text: string): string | undefined {
  const found = XML_FORBIDDEN.exec(text);
  return found === null ? undefined : `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` without the characters XML cannot hold, for a cell of an XLSX or CSV file. */
export const xmlSafe = (text: string): string => (XML_FORBIDDEN.test(text) ? text.replace(XML_FORBIDDEN_ALL, '') : text);
