/**
 * The tables that are not projections, as the SQLite migrations leave them, in PostgreSQL's words. JSON is kept
 * as `text` (jsonb would reorder keys and break byte equality), numbers as `bigint` (integer is 32-bit), text
 * that is ordered or unique in `COLLATE "C"` (byte order, as SQLite compares), and no column takes its value
 * from a sequence: a rolled-back insert would burn one, and seq must stay dense.
 */
export const statements = [
  `CREATE TABLE events (
     seq bigint PRIMARY KEY,
     stream text COLLATE "C" NOT NULL,
     stream_version bigint NOT NULL,
     type text COLLATE "C" NOT NULL,
     schema_version integer NOT NULL,
     data text NOT NULL,
     meta text NOT NULL,
     recorded_at text COLLATE "C" NOT NULL,
     hash text NOT NULL,
     CONSTRAINT events_stream_version UNIQUE (stream, stream_version)
   )`,
  'CREATE INDEX events_type ON events (type, seq)',
  'CREATE INDEX events_recorded_at ON events (recorded_at)',
  // The log is append-only at the database level, whoever connects. Row triggers do not see TRUNCATE.
  `CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'events are append-only';
   END $$`,
  'CREATE TRIGGER events_no_update_or_delete BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_append_only()',
  'CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()',

  // One row whose lock every writer takes first and holds to its commit: the cluster-wide write lock. It also
  // keeps the log's last seq and hash, and the fingerprint of the projector versions the read tables have (null
  // until a server sets it).
  `CREATE TABLE chain_head (
     id integer PRIMARY KEY CHECK (id = 1),
     seq bigint NOT NULL,
     hash text NOT NULL,
     projectors text
   )`,
  `INSERT INTO chain_head (id, seq, hash) VALUES (1, 0, repeat('0', 64))`,

  `CREATE TABLE api_keys (
     id bigint PRIMARY KEY,
     name text NOT NULL,
     scope text NOT NULL,
     key_hash text COLLATE "C" NOT NULL UNIQUE,
     created_at text NOT NULL,
     expires_at text,
     revoked_at text
   )`,
  `CREATE TABLE access_tokens (
     token_hash text COLLATE "C" PRIMARY KEY,
     key_id bigint NOT NULL,
     path text NOT NULL,
     expires_at bigint NOT NULL,
     body_hash text,
     response text
   )`,
  'CREATE INDEX access_tokens_expires ON access_tokens (expires_at)',
  `CREATE TABLE projection_checkpoints (
     name text COLLATE "C" PRIMARY KEY,
     version bigint NOT NULL,
     last_seq bigint NOT NULL
   )`,
  // One row in a database written by `rebuild --until … --into …`: the log there ends at `until_seq`.
  `CREATE TABLE point_in_time (
     until_seq bigint NOT NULL,
     source text NOT NULL,
     created_at text NOT NULL
   )`,
];
