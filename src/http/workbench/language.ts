import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { requestHeader } from '../node-request.ts';
import { returnPath } from './return-path.ts';
import { type Lang, type Texts, en, ru } from './texts.ts';

/** The cookie remembering the language picked on a page; it outranks the browser's Accept-Language. */
export const LANGUAGE_COOKIE = 'tb_lang';
const TEXTS: Record<Lang, Texts> = { ru, en };
const isLang = (value: string | undefined): value is Lang => value === 'ru' || value === 'en';

/** The language the browser prefers among ours, by Accept-Language's weights: Russian or else English. */
export function preferredLanguage(acceptLanguage: string | undefined): Lang {
  let best: { lang: Lang; q: number } = { lang: 'en', q: 0 };
  for (const part of (acceptLanguage ?? '').split(',')) {
    const [tag, ...params] = part.trim().toLowerCase().split(';');
    const lang = tag.split('-')[0];
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (isLang(lang) && Number.isFinite(q) && q > best.q) best = { lang, q };
  }
  return best.lang;
}

/** The request's language: the one picked on a page, else the browser's preference. */
export function languageOf(c: Context): Lang {
  const picked = getCookie(c, LANGUAGE_COOKIE);
  return isLang(picked) ? picked : preferredLanguage(requestHeader(c, 'accept-language'));
}

export const textsOf = (c: Context): Texts => TEXTS[languageOf(c)];

/** Picks a language for a year and goes back to the page it was picked on. */
export function switchLanguage(c: Context): Response {
  const lang = c.req.param('lang');
  if (isLang(lang)) c.header('Set-Cookie', `${LANGUAGE_COOKIE}=${lang}; Path=/audit; Max-Age=31536000; SameSite=Lax`);
  return c.redirect(returnPath(c.req.query('back'), '/audit'), 303);
}
