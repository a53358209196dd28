import { Readable } from 'node:stream';
import { main } from '../src/cli/main.ts';

/**
 * Runs the command line in this process, as `runCli` runs it as one: the database from TRADEBOOK_DB, `stdin` as
 * standard input, what it writes to stdout and stderr, and its exit status (process.exitCode; 1 for an error it
 * does not catch, as Node exits with). For the commands' behaviour; what only a process shows (the binary, its
 * bundle, signals, broken pipes) is tested with `runCli`. Runs one at a time: they share the process's streams,
 * environment and exit code.
 */
export function runCliHere(file: string, args: string[], stdin?: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const run = queue.then(() => runNow(file, args, stdin ?? ''));
  queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

let queue: Promise<void> = Promise.resolve();

/** `stream.write` replaced by one appending to `sink`; returns the restore. */
function capture(stream: NodeJS.WriteStream, sink: (text: string) => void): () => void {
  const write = stream.write;
  const listeners = stream.listeners('error');
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = write;
    // The command line listens for a broken pipe on stdout: its listener goes with the run.
    for (const listener of stream.listeners('error')) if (!listeners.includes(listener)) stream.off('error', listener as () => void);
  };
}

async function runNow(file: string, args: string[], stdin: string) {
  let stdout = '';
  let stderr = '';
  const restoreOut = capture(process.stdout, (text) => (stdout += text));
  const restoreErr = capture(process.stderr, (text) => (stderr += text));
  const realStdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  Object.defineProperty(process, 'stdin', { configurable: true, value: Readable.from([Buffer.from(stdin)]) });
  const realDb = process.env.TRADEBOOK_DB;
  const realExitCode = process.exitCode;
  process.env.TRADEBOOK_DB = file;
  process.exitCode = undefined;
  let status: number;
  try {
    await main(['node', 'tradebook', ...args]);
    status = Number(process.exitCode ?? 0);
  } catch (error) {
    stderr += `${(error as Error).stack ?? String(error)}\n`;
    status = 1;
  } finally {
    restoreOut();
    restoreErr();
    Object.defineProperty(process, 'stdin', realStdin);
    if (realDb === undefined) delete process.env.TRADEBOOK_DB;
    else process.env.TRADEBOOK_DB = realDb;
  }
  process.exitCode = realExitCode;
  return { status, stdout, stderr };
}
