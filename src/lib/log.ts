import pino from 'pino';

/** Characters gathered before they are handed on, and the longest a line waits for company. */
const GATHER_CHARS = 4096;
const GATHER_MS = 100;

/**
 * Lines gathered into writes of about 4 KB (or what 100 ms brought, so a quiet server's lines are not held back)
 * and handed to the destination as one string. A line at a time, pino's destination cost a busy server 10 µs and
 * more a line (CPU profile): it measures the byte length of all it holds on every write, and each write it hands
 * to libuv's thread pool wakes a thread. Gathered and written in place, one write serves twenty-odd lines.
 */
class GatheredLines {
  private lines: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly destination: { write(text: string): unknown }) {}

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= GATHER_CHARS) this.handOn();
    else if (this.timer === undefined) this.timer = setTimeout(() => this.handOn(), GATHER_MS).unref();
  }

  handOn(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.destination.write(text);
  }
}

/** Standard output, written synchronously: a write of 4 KB takes the event loop a few microseconds. */
const destination = pino.destination({ dest: 1, sync: true });
const gathered = new GatheredLines(destination);
// The lines of the last moments (a shutdown, a fatal error) are written before the process ends.
process.on('exit', () => gathered.handOn());

/**
 * The server's log: one JSON object a line on standard output (`time` in UTC, `level`, `msg`, and the entry's
 * fields), so a log shipper reads it as it is. No line is lost when the process exits; killed outright, it loses
 * the lines of its last 100 ms at most.
 */
export const logger = pino(
  {
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  },
  gathered,
);

let isoMs = Number.NaN;
let iso = '';

/** Now in ISO 8601 (UTC), made once a millisecond: a busy server writes many lines in one. */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    iso = new Date(now).toISOString();
  }
  return iso;
}

/**
 * A line of the log's own form (`level` info, `time`, the fields, `msg`), its fields given as JSON members
 * (`"name":value,…`) by a caller on a hot path: the access log's line a request, which through pino's general path
 * (a level object, a new Date and a walk over the entry's keys a line) cost four times as much.
 */
export function logFields(fields: string, message: string): void {
  gathered.write(`{"level":"info","time":"${isoNow()}",${fields},"msg":${JSON.stringify(message)}}\n`);
}

/** One line of the server's life (start, shutdown, faults): a message. */
export function log(message: string): void {
  logger.info(message);
}
