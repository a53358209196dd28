import type { Generated } from 'kysely';
import type { EventRow } from '../events/rows.ts';

/**
 * The tables that are not projections, as the migrations (`migrations/`) leave them on both engines: the event log
 * and the bookkeeping around it. Typing a kysely query with `Database` makes a misspelt table or column a type
 * error. Integers are JS numbers on both engines (PostgreSQL's `bigint` is parsed as one by the connections).
 */
export interface Database {
  events: EventsTable;
  api_keys: ApiKeysTable;
  access_tokens: AccessTokensTable;
  audit_sessions: AuditSessionsTable;
  key_version: KeyVersionTable;
  webhooks: WebhooksTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  point_in_time: PointInTimeTable;
  /** PostgreSQL only: the row every writer locks first. */
  chain_head: ChainHeadTable;
}

/** The event log's rows, as the events module defines a stored event. */
export type EventsTable = EventRow;

export interface ApiKeysTable {
  /** SQLite assigns it (the row id) when none is given; on PostgreSQL the writer does, under the chain head's lock. */
  id: Generated<number>;
  name: string;
  scope: string;
  key_hash: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface AccessTokensTable {
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  token_hash: string;
  key_id: number;
  path: string;
  /** ms since the epoch. */
  expires_at: number;
  body_hash: string | null;
  response: string | null;
}

/** The workbench's sign-in sessions: a hash of the session's id; times in ms. */
export interface AuditSessionsTable {
  id_hash: string;
  key_id: number;
  created_at: number;
  last_seen_at: number;
  ends_at: number;
}

/** At most one row (made by the first key change): bumped by every change other processes' key caches must hear of. */
export interface KeyVersionTable {
  /** Always 1. */
  id: number;
  version: number;
}

/** The webhooks the servers deliver the log's changes to (`src/feed/webhooks/`); times in ms. */
export interface WebhooksTable {
  id: number;
  url: string;
  /** The event types and record kinds it wants, comma-separated; null: every change. */
  types: string | null;
  /** The `whsec_` secret its deliveries are signed with. */
  secret: string;
  /** The last seq its receiver acknowledged (or a filter passed over). */
  position: number;
  /** Why it is paused (by hand, or after a day of failures); null while active. */
  paused: string | null;
  last_error: string | null;
  failing_since: number | null;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  created_at: number;
  /** Which server delivers it, until when: one at a time. */
  lease_owner: string | null;
  lease_until: number | null;
}

export interface ProjectionCheckpointsTable {
  name: string;
  version: number;
  last_seq: number;
}

/** One row in a database written by `rebuild --until … --into …`: the log there ends at `until_seq`. */
export interface PointInTimeTable {
  until_seq: number;
  source: string;
  created_at: string;
}

export interface ChainHeadTable {
  /** Always 1. */
  id: number;
  seq: number;
  hash: string;
  /** The fingerprint of the projector versions the read tables have; null until a server sets it. */
  projectors: string | null;
}
