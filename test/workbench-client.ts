import type { Hono } from 'hono';
import type { AppEnv } from '../src/http/env.ts';
import type { Requester } from './app-on-socket.ts';

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

/**
 * A browser's view of the workbench: its session cookie and sign-in form cookie, redirects not followed, pages as
 * text. A post is sent as the page last shown would send it: from this origin, with that page's form token.
 */
export class Browser {
  cookie = '';
  formCookie = '';
  formToken = '';
  constructor(
    readonly app: Requester,
    /** Sent with every request (a proxy's X-Forwarded-For, say). */
    readonly headers: Record<string, string> = {},
  ) {}

  async request(method: string, url: string, form?: Record<string, string>) {
    const cookies = [this.cookie, url.startsWith('/audit/sign-in') ? this.formCookie : ''].filter((c) => c !== '');
    const headers: Record<string, string> = cookies.length === 0 ? { ...this.headers } : { ...this.headers, Cookie: cookies.join('; ') };
    const body = method === 'POST' ? new URLSearchParams({ form: this.formToken, ...form }).toString() : undefined;
    if (method === 'POST') headers.Origin = 'http://localhost';
    if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const res = await this.app.request(url, { method, headers, body });
    const sets = res.headers.getSetCookie();
    const set = sets.find((s) => s.startsWith('tb_audit=')) ?? null;
    if (set !== null) this.cookie = /^tb_audit=;/.test(set) ? '' : set.split(';')[0];
    const setForm = sets.find((s) => s.startsWith('tb_form='));
    if (setForm !== undefined) this.formCookie = /^tb_form=;/.test(setForm) ? '' : setForm.split(';')[0];
    const text = await res.text();
    this.formToken = /name="form" value="([^"]+)"/.exec(text)?.[1] ?? this.formToken;
    // setCookie: the session cookie's, if the answer set one.
    return { status: res.status, headers: res.headers, setCookie: set, text };
  }

  get = (url: string) => this.request('GET', url);
  async signIn(key: string) {
    await this.get('/audit/sign-in');
    return this.request('POST', '/audit/sign-in', { key });
  }
}
