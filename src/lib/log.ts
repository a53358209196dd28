import pino from 'pino';

/** Bytes gathered before they are handed on, and the longest a line waits for company. */
const GATHER_BYTES = 16 * 1024;
const GATHER_MS = 100;

/** Where gathered lines go, as bytes (each write gets bytes of its own, never written into again). */
interface Destination {
  write(bytes: Buffer): unknown;
}

/**
 * Lines gathered into writes of about 16 KB (or what 100 ms brought, so a quiet server's lines are not held back),
 * each line encoded once, straight into the bytes that are written. A line at a time, pino's destination cost a
 * busy server 10 µs and more a line (CPU profile): it measures the byte length of all it holds on every write, and
 * each write it hands to libuv's thread pool wakes a thread. Handed a string, its synchronous write encodes the
 * text twice (to write it, then again to count what was written); handed bytes, once.
 */
class GatheredLines {
  private bytes = Buffer.allocUnsafe(GATHER_BYTES);
  private used = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly destination: Destination) {}

  write(line: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8: a line that might not fit goes after what is gathered.
    if (this.used + line.length * 3 > this.bytes.length) {
      this.handOn();
      if (line.length * 3 > this.bytes.length) return void this.destination.write(Buffer.from(line));
    }
    this.used += this.bytes.write(line, this.used);
    if (this.timer === undefined) this.timer = setTimeout(() => this.handOn(), GATHER_MS).unref();
  }

  handOn(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.used === 0) return;
    const gathered = this.bytes.subarray(0, this.used);
    this.bytes = Buffer.allocUnsafe(GATHER_BYTES);
    this.used = 0;
    this.destination.write(gathered);
  }
}

/** Standard output, written synchronously: a write of 16 KB takes the event loop a few microseconds. */
const destination = pino.destination({ dest: 1, sync: true, contentMode: 'buffer' }) as unknown as Destination;
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

let second = Number.NaN;
let secondIso = '';

/** Now in ISO 8601 (UTC): the date and time to the second made once a second, a busy server writes many lines in one. */
function isoNow(): string {
  const now = Date.now();
  const ms = now % 1000;
  if (now - ms !== second) {
    second = now - ms;
    secondIso = new Date(second).toISOString().slice(0, 20);
  }
  return `${secondIso}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
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
