import type { Context } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { textsOf } from './language.ts';
import { href } from './links.ts';
import type { AuditSession } from './session.ts';
import type { Texts } from './texts.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * Pages hold audit data and run no script: nothing is cached or framed, every asset comes from this server, and
 * a script that got into a page would not run.
 */
export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export const STYLESHEET_PATH = '/audit/workbench.css';
export const ICON_PATH = '/audit/icon.svg';

/** The tab's icon: a ledger's page. */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="2" y="1" width="12" height="14" rx="1.5" fill="#1f3a5f"/><path d="M5 5h6M5 8h6M5 11h4" stroke="#fff" stroke-width="1.2"/></svg>`;

export const STYLESHEET = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f6f7f9; }
header { background: #1f3a5f; color: #fff; padding: .6rem 1.2rem; display: flex; gap: .6rem 1rem; align-items: center; flex-wrap: wrap; }
header a, header button { color: #fff; text-decoration: none; font: inherit; }
header .brand { font-weight: 600; margin-right: 1rem; }
header nav { display: flex; gap: .4rem 1rem; flex-wrap: wrap; }
header nav a[aria-current] { text-decoration: underline; text-underline-offset: .3em; }
header .language { margin-left: auto; }
header form { display: flex; gap: .5rem; align-items: center; }
header button { background: none; border: 1px solid #8aa4c8; border-radius: 4px; padding: .15rem .6rem; cursor: pointer; }
main { padding: 1rem 1.2rem 3rem; max-width: 1200px; }
h1 { font-size: 1.35rem; margin: .4rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; }
table { border-collapse: collapse; background: #fff; margin: .4rem 0; }
th, td { border: 1px solid #d5dbe3; padding: .3rem .55rem; text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.changed td { background: #fff6d6; }
tr.broken td { background: #fde2e1; }
form.search { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: end; background: #fff; padding: .8rem; border: 1px solid #d5dbe3; margin-bottom: 1rem; }
form.search label.wide { flex: 1 1 100%; }
form.search label { display: flex; flex-direction: column; font-size: .85rem; color: #46515e; }
input, select, textarea { font: inherit; padding: .25rem .4rem; border: 1px solid #b7c0cc; border-radius: 3px; }
textarea { width: 100%; min-height: 8rem; font-family: ui-monospace, monospace; font-size: .85rem; }
button.primary { background: #1f3a5f; color: #fff; border: 0; border-radius: 4px; padding: .35rem .9rem; font: inherit; cursor: pointer; }
.note { color: #46515e; font-size: .9rem; max-width: 60rem; }
.ok { color: #1a6b32; font-weight: 600; }
.bad { color: #a1251b; font-weight: 600; }
.before { color: #8a1c1c; text-decoration: line-through; }
.after { color: #1a5b2a; }
.mono { font-family: ui-monospace, monospace; font-size: .85rem; word-break: break-all; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
table.history td:last-child { overflow-wrap: anywhere; }
svg.tree { background: #fff; border: 1px solid #d5dbe3; display: block; }
dl.fields { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; background: #fff; padding: .8rem; border: 1px solid #d5dbe3; }
dl.fields dt { color: #46515e; }
dl.fields dd { margin: 0; }
.pager { margin: .8rem 0; display: flex; gap: 1rem; flex-wrap: wrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.empty { background: #fff; border: 1px dashed #b7c0cc; padding: .8rem 1rem; max-width: 60rem; }
.downloads { display: flex; gap: 1rem; flex-wrap: wrap; align-items: center; }
ul.changes { margin: 0; padding-left: 1.1rem; }
table.log td { white-space: nowrap; }
table.log td.summary { white-space: normal; min-width: 16rem; }
table.log details > summary { cursor: pointer; }
table.log tr.details td { background: #fbfcfd; white-space: normal; }
.act { background: #fff; padding: 1rem; border: 1px solid #d5dbe3; max-width: 60rem; }
.act h2 { text-align: center; margin: 0 0 .3rem; }
.act .parties, .act .period { text-align: center; margin: 0 0 .8rem; }
.act table { width: 100%; font-size: .9rem; }
.act .signatures { display: grid; grid-template-columns: 1fr 1fr; gap: 2rem; margin-top: 1.6rem; }
.act .signatures .line { border-bottom: 1px solid #1d232a; height: 2.2rem; }
.act .signatures small { color: #46515e; }
@media (max-width: 640px) {
  main { padding: .8rem .6rem 2rem; }
  form.search { flex-direction: column; align-items: stretch; }
  form.search input, form.search select { width: 100%; box-sizing: border-box; }
  header { gap: .6rem; }
  header form, header .language { margin-left: 0; }
  dl.fields { grid-template-columns: 1fr; }
  .act .signatures { grid-template-columns: 1fr; }
  /* A stacked table shows each row as a card of its columns, each labelled: every column on screen, nothing to scroll. */
  table.stacked, table.stacked tbody, table.stacked tr, table.stacked td { display: block; }
  table.stacked { background: none; }
  table.stacked thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  table.stacked tr { background: #fff; border: 1px solid #d5dbe3; margin-bottom: .5rem; }
  table.stacked td { border: 0; border-top: 1px solid #eef1f5; display: flex; justify-content: space-between; gap: 1rem; text-align: right; white-space: normal; }
  table.stacked td:first-child { border-top: 0; }
  table.stacked td::before { content: attr(data-label); color: #46515e; text-align: left; }
}
@page { size: A4; margin: 14mm 12mm; }
@media print {
  header, form, .pager, .downloads, .no-print, details > summary, .scroll-hint { display: none !important; }
  details:not([open]) { display: none; }
  body { background: #fff; font-size: 10pt; }
  main { padding: 0; max-width: none; }
  .scroll { overflow: visible; }
  table { width: 100%; }
  th, td { border-color: #555; }
  a { color: inherit; text-decoration: none; }
  .act { border: 0; padding: 0; max-width: none; }
  .act table { font-size: 8.5pt; }
  svg.tree { max-width: 100%; height: auto; }
}
`;

const NAV = [
  ['/audit/documents', 'documents'],
  ['/audit/contractors', 'contractors'],
  ['/audit/record', 'record'],
  ['/audit/statement', 'statement'],
  ['/audit/log', 'log'],
  ['/audit/anchors', 'anchors'],
  ['/audit/hooks', 'hooks'],
] as const;

/** What a page is made for: the reader's texts, their session (none on the sign-in page) and where they are. */
export interface View {
  t: Texts;
  session?: AuditSession;
  /** The page's path and query, to come back to after switching the language. */
  here: string;
}

export function viewOf(c: Context, session?: AuditSession): View {
  const url = new URL(c.req.url);
  return { t: textsOf(c), session, here: `${url.pathname}${url.search}` };
}

const languageSwitch = ({ t, here }: View) =>
  html`<a class="language" href="${href(`/audit/language/${t.otherLanguage.lang}`, { back: here })}" lang="${t.otherLanguage.lang}" hreflang="${t.otherLanguage.lang}">${t.otherLanguage.name}</a>`;

/** The hidden field carrying a form's token, which proves a post came from one of the workbench's pages. */
export const tokenField = (token: string) => html`<input type="hidden" name="form" value="${token}">`;

const nav = (view: View, session: AuditSession) => {
  const { t, here } = view;
  return html`<header>
  <a class="brand" href="/audit">${t.brand}</a>
  <nav aria-label="${t.session.navigation}">${NAV.map(([path, name]) => html`<a href="${path}"${here.startsWith(path) ? html` aria-current="page"` : ''}>${t.nav[name]}</a>`)}</nav>
  ${languageSwitch(view)}
  <form method="post" action="/audit/sign-out">${tokenField(session.formToken)}<span>${t.session.key(session.keyName, session.keyId)}</span> <button type="submit">${t.session.signOut}</button></form>
</header>`;
};

/** A whole page in the reader's language; the sign-in page (no session) has no navigation. */
export function page(view: View, title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="${view.t.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · tradebook</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
</head>
<body>
${view.session === undefined ? html`<header><span class="brand">${view.t.brand}</span>${languageSwitch(view)}</header>` : nav(view, view.session)}
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

/** A table in a box of its own that scrolls sideways on a narrow screen instead of the page. */
export const scrolling = (label: string, table: Html) => html`<div class="scroll" role="region" aria-label="${label}" tabindex="0">${table}</div>`;

/** Sends a page with the workbench's headers. */
export async function sendPage(c: Context, content: Html, status: 200 | 400 | 401 | 403 | 404 | 429 | 500 | 503 = 200): Promise<Response> {
  return c.body(String(await content), status, PAGE_HEADERS);
}
