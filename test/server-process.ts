import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The real server as a child process (`node bin/server.mjs`) on a free port, for fault and limit tests. */

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The processes started here that are still running. A test that times out or throws before its clean-up would
 * leave its server listening (and its database open) after the test file: they are killed when this process ends.
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** `child`, killed with this process should it still be running then. */
function tracked<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** How long a server is given to start listening: a test's and a hook's time limit (vitest.config.ts). */
const START_DEADLINE_MS = 60_000;

export function startServer(file: string, key: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = tracked(
    spawn(process.execPath, [path.join(ROOT, 'bin/server.mjs')], {
      cwd: ROOT,
      env: { ...process.env, TRADEBOOK_DB: file, TRADEBOOK_API_KEY: key, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    // One that did not start in time is ended: no test holds it to stop it later. In time is as long as a test or
    // hook may take (vitest.config.ts): a start on a new file migrates it (some forty fsyncs), and beside the other
    // files of a whole-suite run an fsync takes up to half a second, so a start may take tens of seconds.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${START_DEADLINE_MS} ms:\n${output}`));
    }, START_DEADLINE_MS);
    const onData = () => {
      const match = /listening on port (\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      const port = Number(match[1]);
      resolve({
        child,
        port,
        url: `http://127.0.0.1:${port}`,
        output: () => output,
        exited,
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)));
  });
}

/** A raw connection (from `localAddress`, any loopback address): what the server sent, and when it closed the connection. */
export function rawConnection(port: number, localAddress?: string) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  const started = Date.now();
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => {}); // the server may reset a connection it cuts off
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  return { socket, received: () => received, closed };
}

/**
 * The server's end of a connection from local port `clientPort` to `port`, as the kernel lists it: its TCP state
 * (hex, 01 established, 08 close-wait) and the bytes it has not read yet; undefined once it is gone.
 */
export function serverEnd(port: number, clientPort: number): { state: string; unread: number } | undefined {
  const hex = (n: number) => `:${n.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, remote, state, queues] = line.trim().split(/\s+/);
      if (local?.endsWith(hex(port)) && remote.endsWith(hex(clientPort))) return { state, unread: Number.parseInt(queues.split(':')[1], 16) };
    }
  }
  return undefined;
}

/**
 * A request of which only the head and the body's first `sentFirst` bytes are on the wire, once the server has read
 * them all. `rest()` sends the remainder and resolves with what the server answered; the client keeps its side
 * open until answered (a client that half-closes is cut off by Node's HTTP server before an answer that waits
 * for the disk).
 */
export async function partlySentRequest(port: number, head: string, body: Buffer, sentFirst: number): Promise<{ rest(): Promise<string> }> {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head);
  await new Promise((resolve) => socket.write(body.subarray(0, sentFirst), resolve));
  for (const deadline = Date.now() + 5000; serverEnd(port, socket.localPort!)?.unread !== 0; ) {
    if (Date.now() > deadline) throw new Error('the server did not read the request it was sent');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    async rest() {
      socket.write(body.subarray(sentFirst));
      const answered = new Promise((resolve) => socket.on('data', () => received.endsWith('}') && resolve(undefined)));
      await Promise.race([answered, closed]);
      socket.end();
      await closed;
      return received;
    },
  };
}

/** Runs the command line as a process on the given database; resolves with its exit code and output. */
export function runCli(file: string, args: string[], stdin?: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return runToExit('bin/tradebook.mjs', args, { TRADEBOOK_DB: file }, stdin);
}

/** Runs `script` (under the repository) as a process to its end; resolves with its exit code and output. */
export function runToExit(script: string, args: string[], env: Record<string, string>, stdin?: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const child = tracked(
    spawn(process.execPath, [path.join(ROOT, script), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  // Decoded as a stream: a character whose bytes two chunks share is not split into two broken ones.
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  child.stdin.end(stdin ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ status: code ?? -1, stdout, stderr })));
}

/** Starts the command line without waiting for it (to interrupt it). */
export function spawnCli(file: string, args: string[]): ChildProcess {
  return tracked(spawn(process.execPath, [path.join(ROOT, 'bin/tradebook.mjs'), ...args], { cwd: ROOT, env: { ...process.env, TRADEBOOK_DB: file }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

export interface Response {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** A response with its body read as text and, when it is JSON, parsed. */
export async function readResponse(res: globalThis.Response): Promise<Response> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** A client of the real server: JSON in and out, the key on every request. */
export class HttpClient {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  async request(method: string, route: string, body?: string, headers: Record<string, string> = {}): Promise<Response> {
    return readResponse(await fetch(this.url + route, { method, body, headers: { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json', ...headers } }));
  }

  /** Both steps of a write. */
  async write(route: string, wrapper: string, records: unknown[]): Promise<Response> {
    const token = await this.request('GET', route);
    if (token.status !== 200) return token;
    return this.request('POST', route, JSON.stringify({ [wrapper]: records }), { 'X-Access-Token': token.body.data.access_token });
  }
}
