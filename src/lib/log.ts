import pino from 'pino';

/**
 * The server's log: one JSON object a line on standard output (`time` in UTC, `level`, `msg`, and the entry's
 * fields), so a log shipper reads it as it is. Written synchronously: a line is out before the process exits.
 */
export const logger = pino({
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
});

/** One line of the server's life (start, shutdown, faults): a message. */
export function log(message: string): void {
  logger.info(message);
}
