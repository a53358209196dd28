import type { Context } from 'hono';
import { html } from 'hono/html';
import { checkAnchors, keyFingerprint, parseAnchors } from '../../audit/anchors.ts';
import type { Company } from '../../company.ts';
import { page, sendPage } from './layout.ts';
import type { AuditSession } from './session.ts';
import type { WorkbenchEnv } from './workbench-env.ts';
import { moscowTime } from './show.ts';

const TITLE = 'Check anchors';

const anchorForm = (session: AuditSession) => html`<form class="search" method="post" action="/audit/anchors" enctype="multipart/form-data">
<input type="hidden" name="form" value="${session.formToken}">
<label class="wide">Anchors, one a line, as <code>tradebook anchor</code> printed them <textarea name="anchors"></textarea></label>
<label>or a file of them <input type="file" name="file"></label>
<button class="primary" type="submit">Check</button>
</form>
<p class="note">An anchor is the head of the log (seq and hash) signed with a key kept away from the database. If the log still
holds exactly that head, nothing at or below it was rewritten since the anchor was made, whatever else the operator controls.
Compare each signer's fingerprint with the one of the key you trust.</p>`;

export const anchorsPage = (c: Context, session: AuditSession) => sendPage(c, page(TITLE, anchorForm(session), session));

/** Checks anchors pasted or uploaded against the log, saying which fail and why. */
export async function checkAnchorsPage(c: Context<WorkbenchEnv>, tb: Company, session: AuditSession): Promise<Response> {
  const body = c.get('form');
  const [pasted, file] = [body.get('anchors'), body.get('file')];
  const text = `${typeof pasted === 'string' ? pasted : ''}\n${file instanceof File ? await file.text() : ''}`;
  const parsed = parseAnchors(text);
  if (!parsed.ok) return sendPage(c, page(TITLE, html`<p class="bad">${parsed.problem}</p>${anchorForm(session)}`, session), 400);
  const checks = await checkAnchors(parsed.anchors, (seq) => tb.audit.hashAt(seq));
  const failed = checks.filter((check) => !check.holds).length;
  return sendPage(
    c,
    page(
      TITLE,
      html`<p class="${failed === 0 ? 'ok' : 'bad'}" data-anchors="${failed === 0 ? 'hold' : 'fail'}">${failed === 0 ? `All ${checks.length} anchors hold.` : `${failed} of ${checks.length} anchors fail.`}</p>
<table class="anchors"><thead><tr><th class="num">seq</th><th>signer</th><th>anchored (Moscow)</th><th>result</th></tr></thead>
<tbody>${checks.map(
        (check) => html`<tr${check.holds ? '' : html` class="broken"`}><td class="num">${check.anchor.seq}</td><td class="mono">${keyFingerprint(check.anchor.publicKey)}</td>
<td>${moscowTime(check.anchor.anchoredAt)}</td><td>${check.holds ? html`<span class="ok">holds</span>` : html`<span class="bad">fails: ${check.problem}</span>`}</td></tr>`,
      )}</tbody></table>
${anchorForm(session)}`,
      session,
    ),
  );
}
