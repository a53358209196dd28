import type { AppEnv } from '../env.ts';

/** What the workbench's middleware leaves for its pages: the session (in AppEnv) and a post's form fields. */
export type WorkbenchEnv = AppEnv & { Variables: { form: FormData } };
