import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type AnchorCheck, checkAnchors, keyFingerprint, parseAnchors } from '../../audit/anchors.ts';
import type { Company } from '../../company.ts';
import { page, scrolling, sendPage, tokenField, type View } from './layout.ts';
import type { WorkbenchEnv } from './workbench-env.ts';
import { moscowTime } from './show.ts';

const anchorForm = ({ t, session }: View) => html`<form class="search" method="post" action="/audit/anchors" enctype="multipart/form-data">
${tokenField(session!.formToken)}
<label class="wide">${t.anchors.paste} <textarea name="anchors"></textarea></label>
<label>${t.anchors.file} <input type="file" name="file"></label>
<button class="primary" type="submit">${t.anchors.submit}</button>
</form>
<p class="note">${t.anchors.note}</p>`;

/** Rows rendered between turns of the event loop: 2,000 rows at once held it for about 70 ms. */
const ROWS_A_TURN = 250;

/** A row a check, rendered a part at a time between turns of the event loop. */
async function checkRows({ t }: View, checks: AnchorCheck[]) {
  const parts: string[] = [];
  for (let from = 0; from < checks.length; from += ROWS_A_TURN) {
    if (from > 0) await nextTurn();
    for (const check of checks.slice(from, from + ROWS_A_TURN)) {
      parts.push(
        String(html`<tr${check.holds ? '' : html` class="broken"`}><td class="num">${check.anchor.seq}</td><td class="mono">${keyFingerprint(check.anchor.publicKey)}</td>
<td>${moscowTime(check.anchor.anchoredAt)}</td><td>${check.holds ? html`<span class="ok">${t.anchors.holds}</span>` : html`<span class="bad">${t.anchors.fails(check.problem)}</span>`}</td></tr>`),
      );
    }
  }
  return raw(parts.join(''));
}

export const anchorsPage = (c: Context, view: View) => sendPage(c, page(view, view.t.anchors.title, anchorForm(view)));

/** Checks anchors pasted or uploaded against the log, saying which fail and why. */
export async function checkAnchorsPage(c: Context<WorkbenchEnv>, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const body = c.get('form');
  const [pasted, file] = [body.get('anchors'), body.get('file')];
  const text = `${typeof pasted === 'string' ? pasted : ''}\n${file instanceof File ? await file.text() : ''}`;
  const parsed = parseAnchors(text);
  if (!parsed.ok) return sendPage(c, page(view, t.anchors.title, html`<p class="bad" role="alert">${parsed.problem}</p>${anchorForm(view)}`), 400);
  const checks = await checkAnchors(parsed.anchors, (seq) => tb.audit.hashAt(seq));
  const failed = checks.filter((check) => !check.holds).length;
  const columns = t.anchors.columns;
  return sendPage(
    c,
    page(
      view,
      t.anchors.title,
      html`<p class="${failed === 0 ? 'ok' : 'bad'}" data-anchors="${failed === 0 ? 'hold' : 'fail'}">${failed === 0 ? t.anchors.allHold(checks.length) : t.anchors.someFail(failed, checks.length)}</p>
${scrolling(
  t.anchors.title,
  html`<table class="anchors"><thead><tr><th class="num">${columns.seq}</th><th>${columns.signer}</th><th>${columns.anchored}</th><th>${columns.result}</th></tr></thead>
<tbody>${await checkRows(view, checks)}</tbody></table>`,
)}
${anchorForm(view)}`,
    ),
  );
}
