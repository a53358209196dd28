import { z } from 'zod';
import { defineEvent } from '../../events/define.ts';

/**
 * The record of one import run, in its own stream `import-<runId>`, appended when the run ends: who ran it, the
 * file and its digest (of exactly the bytes read), and what it did. Every event the run appended names the run in
 * its meta (`importRun`), beside its line, so the log says which file each imported fact came from.
 */
export const ImportRunRecorded = defineEvent(
  'ImportRunRecorded',
  1,
  z.object({
    runId: z.string(),
    /** The operating-system user who ran the import. */
    user: z.string(),
    note: z.string().nullable(),
    /** The file's name as given on the command line; `-` for standard input. */
    file: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    /** When the run started (UTC ISO); the event's own time is when it ended. */
    started: z.string(),
    lines: z.number().int(),
    applied: z.number().int(),
    failed: z.number().int(),
    events: z.number().int(),
  }),
);

export const importEvents = [ImportRunRecorded] as const;

export type ImportRun = z.infer<typeof ImportRunRecorded.schema>;

export const importRunStream = (runId: string) => `import-${runId}`;
