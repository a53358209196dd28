/** A browser's part in signing in to the workbench of a running server: the form, its token and cookies, the post. */
export async function signInOver(url: string, key: string): Promise<{ cookie: string }> {
  const form = await fetch(`${url}/audit/sign-in`);
  const formCookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0];
  const token = /name="form" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signed = await fetch(`${url}/audit/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: url, Cookie: formCookie },
    body: new URLSearchParams({ key, form: token }),
  });
  if (signed.status !== 303) throw new Error(`sign-in answered ${signed.status}: ${await signed.text()}`);
  const cookie = signed.headers.getSetCookie().map((set) => set.split(';')[0]).find((pair) => pair.startsWith('tb_audit='));
  if (cookie === undefined) throw new Error('sign-in set no session cookie');
  return { cookie };
}
