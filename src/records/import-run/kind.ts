import { importEvents } from './events.ts';
import { recordKind } from '../kind.ts';

/** The record of an import run, appended once, whole, when the run ends; no command reads it to decide. */
export const importRun = recordKind({
  events: importEvents,
  evolve: (_current, event) => event.data,
});
