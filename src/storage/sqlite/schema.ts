import type { Generated } from 'kysely';
import type { EventRow } from '../../events/rows.ts';

/** The tables that are not projections: the event log and the bookkeeping around it. */
export type EventsTable = EventRow;

export interface ApiKeysTable {
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
  expires_at: number;
  body_hash: string | null;
  response: string | null;
}

export interface ProjectionCheckpointsTable {
  name: string;
  version: number;
  last_seq: number;
}

export interface PointInTimeTable {
  until_seq: number;
  source: string;
  created_at: string;
}

export interface AuditSessionsTable {
  id_hash: string;
  key_id: number;
  created_at: number;
  last_seen_at: number;
  ends_at: number;
}

export interface DB {
  events: EventsTable;
  api_keys: ApiKeysTable;
  access_tokens: AccessTokensTable;
  audit_sessions: AuditSessionsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  point_in_time: PointInTimeTable;
}
