import type { KeyScope } from '../tokens/api-keys.ts';
import type { AuditSession } from '../tokens/audit-sessions.ts';

/** What the auth middleware leaves for the handlers. */
export interface AppEnv {
  Variables: { key: { id: number; scope: KeyScope }; body: Uint8Array; session: AuditSession; overHttps: boolean };
}
