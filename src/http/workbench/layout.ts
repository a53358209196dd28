import type { Context } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { AuditSession } from './session.ts';

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
header { background: #1f3a5f; color: #fff; padding: .6rem 1.2rem; display: flex; gap: 1.2rem; align-items: center; flex-wrap: wrap; }
header a, header button { color: #fff; text-decoration: none; font: inherit; }
header .brand { font-weight: 600; margin-right: 1rem; }
header form { margin-left: auto; }
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
svg.tree { background: #fff; border: 1px solid #d5dbe3; max-width: 100%; height: auto; }
dl.fields { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; background: #fff; padding: .8rem; border: 1px solid #d5dbe3; }
dl.fields dt { color: #46515e; }
dl.fields dd { margin: 0; }
.pager { margin: .8rem 0; display: flex; gap: 1rem; }
`;

const nav = (session: AuditSession) => html`<header>
  <a class="brand" href="/audit">tradebook audit</a>
  <a href="/audit/documents">Documents</a>
  <a href="/audit/record">Record as of</a>
  <a href="/audit/statement">Statement</a>
  <a href="/audit/log">Event log</a>
  <a href="/audit/anchors">Anchors</a>
  <form method="post" action="/audit/sign-out"><input type="hidden" name="form" value="${session.formToken}"><span>${session.keyName} (key ${session.keyId})</span> <button type="submit">Sign out</button></form>
</header>`;

/** A whole page; `session` undefined for the sign-in page, which has no navigation. */
export function page(title: string, body: Html, session?: AuditSession): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · tradebook</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
</head>
<body>
${session === undefined ? '' : nav(session)}
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

/** Sends a page with the workbench's headers. */
export async function sendPage(c: Context, content: Html, status: 200 | 400 | 401 | 403 | 404 | 429 = 200): Promise<Response> {
  return c.body(String(await content), status, PAGE_HEADERS);
}
