/** The workbench's sign-in sessions, as the SQLite migration of the same name leaves them: a hash of the id, times in ms. */
export const statements = [
  `CREATE TABLE audit_sessions (
     id_hash text COLLATE "C" PRIMARY KEY,
     key_id bigint NOT NULL,
     created_at bigint NOT NULL,
     last_seen_at bigint NOT NULL,
     ends_at bigint NOT NULL
   )`,
];
