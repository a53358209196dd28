import { expect, test } from 'vitest';
import { socketUrl } from '../../../src/storage/postgres/socket-url.ts';

test('a socket directory as the host parameter or as the encoded host becomes the socket path; any other URL is left alone', () => {
  expect(socketUrl('postgres:///books?host=/var/run/postgresql')).toEqual({ url: 'postgres://localhost/books', path: '/var/run/postgresql/.s.PGSQL.5432' });
  expect(socketUrl('postgres://clerk@%2Fvar%2Frun%2Fpostgresql/books')).toEqual({
    url: 'postgres://clerk@localhost/books',
    path: '/var/run/postgresql/.s.PGSQL.5432',
  });
  // The port names the socket file; the other parameters stay.
  expect(socketUrl('postgres://clerk:secret@localhost:5433/books?host=/tmp/&sslmode=disable')).toEqual({
    url: 'postgres://clerk:secret@localhost:5433/books?sslmode=disable',
    path: '/tmp/.s.PGSQL.5433',
  });
  for (const url of ['postgres://clerk@127.0.0.1:5432/books', 'postgres://clerk@db.example.com/books?host=replica.example.com', 'postgres://[bad']) {
    expect(socketUrl(url)).toEqual({ url });
  }
});
