import { recordKinds } from '../records/registry.ts';

/**
 * Event schema evolution: rows in the log are never rewritten, so an event written by an older schema version
 * is brought to the current shape when it is read back (`toStoredEvent`), one version step at a time.
 * Each change of an event's shape bumps its `schemaVersion` and adds the step from the version before to its kind's `upcasters`.
 */
export interface Upcaster {
  type: string;
  /** The version this step reads; it returns the data of `fromVersion + 1`. */
  fromVersion: number;
  upcast(data: Record<string, unknown>): Record<string, unknown>;
}

/** Every kind's steps (each kind declares its own beside its events: records/registry.ts). */
export const upcasters: Upcaster[] = recordKinds.flatMap((kind): readonly Upcaster[] => kind.upcasters ?? []);

const stepFrom = new Map(upcasters.map((u) => [`${u.type}@${u.fromVersion}`, u]));

/** The data of an event written at `schemaVersion`, in the shape of the newest version there is a step to. */
export function upcast(type: string, schemaVersion: number, data: Record<string, unknown>): Record<string, unknown> {
  let current = data;
  let version = schemaVersion;
  let step = stepFrom.get(`${type}@${version}`);
  while (step) {
    current = step.upcast(current);
    step = stepFrom.get(`${type}@${++version}`);
  }
  return current;
}
