import os from 'node:os';

/** Who runs the command line, as the log records it: the operating-system user (USER when the system has no name for it). */
export function osUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? `uid ${process.getuid?.() ?? '?'}`;
  }
}
