import postgres from 'postgres';
import { unreachableOf } from './errors.ts';
import { PostgresKeyChanges } from './key-changes.ts';
import { PostgresListener } from './listener.ts';
import { PostgresLogChanges } from './log-changes.ts';

/** How often a lost listening connection is tried again when the key cache has not set it. */
const LISTEN_RETRY_MS = 1000;
import { socketUrl } from './socket-url.ts';

/**
 * All the PostgreSQL engine asks of a connection: a statement with parameters, answered with its rows. On a
 * `session` (one connection, never shared) BEGIN, SAVEPOINT and COMMIT are plain statements, so the writer's
 * transaction and savepoints are its own; the same shape is served by postgres.js here and by PGlite in tests.
 */
export interface Sql {
  /**
   * The rows as objects. A statement with parameters is prepared once a connection: postgres.js sends one that is
   * not in two round trips (the parameters' types asked for, then the values), and the key checks and token steps
   * of every request go through here. Every text with parameters is one of a bounded set (values are never spliced in).
   */
  sql<Row extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The rows as arrays of their columns' values; the statement is prepared once a connection (read models repeat theirs). */
  values<Row extends unknown[] = unknown[]>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The rows as arrays of their columns' text as received, in UTF-8 buffers (null for NULL), never decoded; prepared as `values`. */
  buffers(text: string, params?: readonly unknown[]): Promise<(Buffer | null)[][]>;
  /** A statement whose rows nobody reads (prepared as `values`); on the writer's connection it is pipelined (`PipelinedSql`). */
  run(text: string, params?: readonly unknown[]): Promise<void>;
}

export interface PostgresDatabase {
  /** One connection for the writer alone: its transactions are sent as statements on it. */
  readonly session: Sql;
  /** Pooled connections for reads: they see committed work only, never the writer's open transaction. */
  readonly pool: Sql;
  /** Key changes as the database announces them, heard on a connection of their own, tried again every `retryMs` when lost. */
  keyChanges?(retryMs: number): PostgresKeyChanges;
  /** The log's commits by every process on the database, heard on the same connection as key changes. */
  logChanges?(): PostgresLogChanges;
  close(): Promise<void>;
}

const INT8 = 20;

/**
 * postgres.js connects again, silently, when its connection was closed (the server restarted, an administrator
 * ended the backend): the statements after it would run on a new connection outside the transaction they belong
 * to, each committed alone, without the chain head's lock. The session's guard sees BEGIN, COMMIT and ROLLBACK go
 * by; once the connection closes inside a transaction, every statement but the ROLLBACK fails as the lost
 * connection it is (nothing of that transaction was committed), and the ROLLBACK, the transaction being gone
 * already, is not sent.
 */
class TransactionGuard {
  private open = false;
  private lost = false;

  connectionClosed(): void {
    if (this.open) this.lost = true;
  }

  /** Whether `text` is not to be sent (the ROLLBACK of a lost transaction); throws for any other statement of one. */
  skips(text: string): boolean {
    const rollback = text.startsWith('ROLLBACK') && !text.startsWith('ROLLBACK TO');
    // A BEGIN starts afresh: whatever was lost is over (the BEGIN itself may be what failed, with no ROLLBACK after).
    if (text.startsWith('BEGIN')) this.lost = false;
    if (this.lost) {
      if (!rollback) throw Object.assign(new Error('the connection closed inside a transaction, which is lost'), { code: 'CONNECTION_CLOSED' });
      this.open = this.lost = false;
      return true;
    }
    if (text.startsWith('BEGIN')) this.open = true;
    else if (rollback || text === 'COMMIT') this.open = false;
    return false;
  }
}

export interface ConnectOptions {
  /** Connections of the pool. */
  poolSize?: number;
  /** A statement unanswered this long is abandoned with its connections (see `Client`); none: waited for. */
  stallMs?: number;
}

type Postgres = ReturnType<typeof postgres>;

/**
 * A postgres.js client replaced by a fresh one when a statement stalls. postgres.js 3.4.9 can leave a connection
 * whose backend was ended in the middle of a statement (a failover, a restart, an administrator) stuck: every
 * statement queued on it then waits forever, and a server would stop answering. Past `stallMs` the statement
 * fails as a lost connection, and the next ones go to new connections.
 */
class Client implements Statements {
  private current: Postgres;

  constructor(
    private readonly connect: () => Postgres,
    private readonly stallMs: number | undefined,
    private readonly onLost: () => void,
  ) {
    this.current = connect();
  }

  run<T>(statement: (client: Postgres) => Promise<T>): Promise<T> {
    const answer = statement(this.current);
    if (this.stallMs === undefined) return answer;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.replace();
        reject(Object.assign(new Error(`no answer from the database within ${this.stallMs} ms`), { code: 'CONNECTION_STALLED' }));
      }, this.stallMs);
      answer.then(
        (value) => (clearTimeout(timer), resolve(value)),
        (error: unknown) => (clearTimeout(timer), reject(error)),
      );
    });
  }

  private replace(): void {
    const stalled = this.current;
    this.current = this.connect();
    this.onLost();
    // Not awaited: ending a stuck client can wait forever too.
    stalled.end({ timeout: 0 }).catch(() => {});
  }

  end(): Promise<void> {
    return this.current.end();
  }
}

/** Where `Sql`'s statements go: one client of one connection, or a pool of them. */
interface Statements {
  run<T>(statement: (client: Postgres) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}

/**
 * Connections for reads, each a postgres.js client of its own with one connection; a statement goes to the one
 * with the fewest statements on their way (queued behind them there when every one is busy, as postgres.js
 * pipelines). Not one postgres.js client of several connections: its queue of busy connections made each
 * statement dearer the longer a server ran (figures: docs/performance.md, *Figures behind choices in the code*).
 */
class Pool implements Statements {
  private readonly sending: number[];

  constructor(private readonly clients: Client[]) {
    this.sending = clients.map(() => 0);
  }

  async run<T>(statement: (client: Postgres) => Promise<T>): Promise<T> {
    let chosen = 0;
    for (let i = 1; i < this.clients.length; i++) if (this.sending[i] < this.sending[chosen]) chosen = i;
    this.sending[chosen]++;
    try {
      return await this.clients[chosen].run(statement);
    } finally {
      this.sending[chosen]--;
    }
  }

  async end(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.end()));
  }
}

/** Connects to the database a `postgres://` URL names. Connections open on first use. */
export function openPostgres(url: string, options: ConnectOptions = {}): PostgresDatabase {
  const { url: hostUrl, path } = socketUrl(url);
  const settings = {
    path,
    // Notices (a ROLLBACK with no transaction, IF NOT EXISTS) are not problems.
    onnotice: () => {},
    // Ids, money and positions are bigint; tradebook keeps them as JS numbers, as SQLite hands them over.
    types: { int8: { to: INT8, from: [INT8], serialize: String, parse: Number } },
  };
  const transaction = new TransactionGuard();
  const lost = () => transaction.connectionClosed();
  // postgres.js parses the URL when a client is made: one it cannot parse is said here, before anything connects.
  const client = (onLost: () => void, onclose?: () => void) => {
    try {
      return new Client(() => postgres(hostUrl, { ...settings, max: 1, onclose }), options.stallMs, onLost);
    } catch (error) {
      throw unreachableOf(error, url) ?? error;
    }
  };
  // A client of one connection: postgres.js lets BEGIN be sent as a statement only there.
  const session = client(lost, lost);
  const pool = new Pool(Array.from({ length: options.poolSize ?? 4 }, () => client(() => {})));
  const over = (client: Statements, guard?: TransactionGuard): Sql => ({
    sql: async <Row extends object>(text: string, params: readonly unknown[] = []) =>
      guard?.skips(text) ? [] : client.run((c) => c.unsafe(text, params as never[], { prepare: params.length > 0 }) as unknown as Promise<Row[]>),
    values: async <Row extends unknown[]>(text: string, params: readonly unknown[] = []) =>
      guard?.skips(text) ? [] : client.run((c) => c.unsafe(text, params as never[], { prepare: true }).values() as unknown as Promise<Row[]>),
    buffers: async (text: string, params: readonly unknown[] = []) =>
      guard?.skips(text) ? [] : client.run((c) => c.unsafe(text, params as never[], { prepare: true }).raw() as unknown as Promise<(Buffer | null)[][]>),
    run: async (text: string, params: readonly unknown[] = []) =>
      void (guard?.skips(text) ? [] : await client.run((c) => c.unsafe(text, params as never[], { prepare: true }).values())),
  });
  // One listening connection for every channel; its retry interval is the first asker's.
  let listener: PostgresListener | undefined;
  const listenerOf = (retryMs: number) => (listener ??= new PostgresListener(url, retryMs));
  return {
    session: over(session, transaction),
    pool: over(pool),
    keyChanges: (retryMs) => new PostgresKeyChanges(listenerOf(retryMs)),
    logChanges: () => new PostgresLogChanges(listenerOf(LISTEN_RETRY_MS)),
    close: async () => {
      await Promise.all([session.end(), pool.end()]);
    },
  };
}
