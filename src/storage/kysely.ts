import { createRequire } from 'node:module';
import type * as KyselyModule from 'kysely';

/**
 * Kysely's values, loaded from its CommonJS build. Its ESM build is some 600 files, and through tsx's module
 * hooks loading them was most of the server's start-up time; `require` loads the same library natively.
 * Types still come from `import type … from 'kysely'`.
 */
export const kysely = createRequire(import.meta.url)('kysely') as typeof KyselyModule;
export const { sql } = kysely;
