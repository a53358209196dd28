import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { html } from 'hono/html';
import { formFields } from '../body-limit.ts';
import { fromTrustedProxy } from '../client-address.ts';
import { requestHeader } from '../node-request.ts';
import type { TrustedProxies } from '../trusted-proxies.ts';
import { page, sendPage, viewOf } from './layout.ts';
import type { Texts } from './texts.ts';
import type { WorkbenchEnv } from './workbench-env.ts';

/**
 * Every state-changing workbench request (sign-in, sign-out, checking anchors) must come from one of the
 * workbench's own pages: the browser's `Origin` (or, without one, `Sec-Fetch-Site`) names this server, and the
 * form carries its token (the session's, or before sign-in the sign-in form's own). A page on another site can
 * make a browser post here, but can neither read that token nor send this server's origin.
 */

interface Refusal {
  code: 'ERROR_CROSS_SITE' | 'ERROR_FORM_TOKEN';
  why: (t: Texts) => string;
}

/** The host the browser addressed: the proxy's `X-Forwarded-Host` when it is trusted, else `Host`. */
function ownHost(c: Context, proxies: TrustedProxies): string | undefined {
  return (fromTrustedProxy(c, proxies) ? requestHeader(c, 'x-forwarded-host') : undefined) ?? requestHeader(c, 'host') ?? new URL(c.req.url).host;
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** Compared as bytes: a token of as many characters as the expected one can be of more bytes (`é` against `a`). */
function sameToken(expected: string, given: string): boolean {
  const [want, got] = [Buffer.from(expected), Buffer.from(given)];
  return want.length === got.length && timingSafeEqual(want, got);
}

/** Why this post is refused as not from one of our pages, or undefined when it is. */
function refusalOf(c: Context, proxies: TrustedProxies, expected: string | undefined, given: FormDataEntryValue | null): Refusal | undefined {
  const origin = requestHeader(c, 'origin');
  const site = requestHeader(c, 'sec-fetch-site');
  // The pages' no-referrer policy makes a browser send `Origin: null` with their forms; it then says where
  // the post came from in Sec-Fetch-Site. A request with neither is no browser's, and has only its token to show.
  const byOrigin = origin !== undefined && origin !== 'null' ? hostOf(origin) === ownHost(c, proxies) : undefined;
  const bySite = site === undefined ? undefined : site === 'same-origin';
  if (!(byOrigin ?? bySite ?? origin === undefined)) {
    return { code: 'ERROR_CROSS_SITE', why: (t) => t.refused.crossSite(origin ?? `Sec-Fetch-Site: ${site}`) };
  }
  if (expected === undefined || typeof given !== 'string' || !sameToken(expected, given)) {
    return { code: 'ERROR_FORM_TOKEN', why: (t) => t.refused.formToken };
  }
  return undefined;
}

/**
 * Reads the post's form (after `takeBody`) and lets it through only from one of our pages, with `expected` as
 * its token; otherwise 403 with a page saying why, its error named. The fields are left for the handler.
 */
export function fromOwnPage(proxies: TrustedProxies, expected: (c: Context<WorkbenchEnv>) => string | undefined) {
  return createMiddleware<WorkbenchEnv>(async (c, next) => {
    const fields = await formFields(c);
    const refusal = refusalOf(c, proxies, expected(c), fields.get('form'));
    if (refusal !== undefined) {
      // A refused sign-out or anchors post comes with a session (its navigation shown); a sign-in has none.
      const view = viewOf(c, c.get('session'));
      const { t } = view;
      const body = html`<p class="bad" role="alert" data-error="${refusal.code}">${refusal.why(t)}</p><p class="note">${t.refused.code(refusal.code)} <a href="/audit">${t.refused.back}</a>.</p>`;
      return sendPage(c, page(view, t.refused.title, body), 403);
    }
    c.set('form', fields);
    await next();
  });
}
