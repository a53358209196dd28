import type { Hono } from 'hono';
import type { AppEnv } from '../src/http/env.ts';

type Send = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * A browser's part in signing in to the workbench: the form (its token, and the cookie that goes with it), then
 * the post from the page's own origin. Resolves with the session's cookie (`tb_audit=…`).
 */
async function signInWith(send: Send, origin: string, key: string): Promise<string> {
  const form = await send('/audit/sign-in');
  const formCookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0];
  const token = /name="form" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signed = await send('/audit/sign-in', {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin, Cookie: formCookie },
    body: new URLSearchParams({ key, form: token }).toString(),
  });
  if (signed.status !== 303) throw new Error(`sign-in answered ${signed.status}: ${await signed.text()}`);
  const cookie = signed.headers.getSetCookie().map((set) => set.split(';')[0]).find((pair) => pair.startsWith('tb_audit='));
  if (cookie === undefined) throw new Error('sign-in set no session cookie');
  return cookie;
}

/** Signs in to a running server at `url`. */
export async function signInOver(url: string, key: string): Promise<{ cookie: string }> {
  return { cookie: await signInWith((path, init) => fetch(url + path, init), url, key) };
}

/** Signs in to the app in-process (`app.request`, whose requests are addressed to http://localhost). */
export function workbenchCookie(app: Hono<AppEnv>, key: string): Promise<string> {
  return signInWith(async (path, init) => app.request(path, init), 'http://localhost', key);
}
