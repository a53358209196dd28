/**
 * A `postgres://` URL as postgres.js takes it, with the Unix-domain socket a URL may name the way libpq reads it: a
 * `host` query parameter that is a directory (`postgres:///db?host=/var/run/postgresql`), or a host that is one,
 * percent-encoded (`postgres://tradebook@%2Fvar%2Frun%2Fpostgresql/db`). postgres.js reads neither: it sends
 * `host` to the server as a setting, and looks an encoded directory up as a host name. A PostgreSQL on the same
 * machine answers through its socket without the TCP stack on either side. Any other URL is returned as it is.
 */
export function socketUrl(url: string): { url: string; path?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url }; // postgres.js says what is wrong with it
  }
  const hostParameter = parsed.searchParams.get('host') ?? '';
  const directory = hostParameter.startsWith('/') ? hostParameter : decodeURIComponent(parsed.hostname);
  if (!directory.startsWith('/')) return { url };
  parsed.searchParams.delete('host');
  parsed.hostname = 'localhost';
  return { url: parsed.toString(), path: `${directory.replace(/\/+$/, '')}/.s.PGSQL.${parsed.port || '5432'}` };
}
