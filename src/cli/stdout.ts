/** Writes to stdout, waiting when the pipe is full, so memory stays flat however much is printed. */
export async function writeOut(text: string): Promise<void> {
  if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}
