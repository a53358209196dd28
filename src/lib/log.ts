/** One line a message on standard output, with a UTC timestamp. */
export function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} ${message}\n`);
}
