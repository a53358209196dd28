import type { KeyScope } from '../tokens/api-keys.ts';

/** What the auth middleware leaves for the handlers. */
export interface AppEnv {
  /** `body`: a POST's whole body, read before the handlers run. */
  Variables: { key: { id: number; scope: KeyScope }; body: Uint8Array };
}
