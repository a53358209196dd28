// The floor of add-contractor ×1: a bare node:http server that stores what a one-record write stores, in the same
// database file (a copy of a seeded one), with tradebook's durability: the token's row issued and spent, the event
// row with its SHA-256 chain hash, the contractor's row with its record and served JSON, its phone row and an
// id-count row; group commits a turn of the event loop at synchronous=NORMAL, every answer after an fsync of the WAL
// on libuv's pool. No framework, no validation, no deciding, no access log. Driven by load.mjs (scenario c1).
//
//   FLOOR=store|signed|http KEY=<api key> node bench/write-cost/floor-server.mjs <database> <port>
//
// `store` (the default): as tradebook, the token's row inserted when it is issued. `signed`: nothing stored when a
// token is issued (as a signed token would need), the spent token stored by the POST. `http`: nothing stored at all.
import http from 'node:http';
import fs from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';

const [file, port] = process.argv.slice(2);
const mode = process.env.FLOOR ?? 'store';
const KEY = `Bearer ${process.env.KEY}`;
const PATH = '/api/add-contractor';
const LIFE_MS = 60_000;
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('temp_store = MEMORY');
const sql = {
  begin: db.prepare('BEGIN IMMEDIATE'),
  commit: db.prepare('COMMIT'),
  sweep: db.prepare('DELETE FROM access_tokens WHERE expires_at < ?'),
  issue: db.prepare('INSERT INTO access_tokens (token_hash, key_id, path, expires_at) VALUES (?, ?, ?, ?)'),
  token: db.prepare('SELECT expires_at, body_hash FROM access_tokens WHERE token_hash = ?'),
  spend: db.prepare('UPDATE access_tokens SET body_hash = ?, response = ? WHERE token_hash = ? AND body_hash IS NULL RETURNING token_hash'),
  spent: db.prepare('INSERT INTO access_tokens (token_hash, key_id, path, expires_at, body_hash, response) VALUES (?, 1, ?, ?, ?, ?)'),
  event: db.prepare("INSERT INTO events (seq, stream, stream_version, type, schema_version, data, meta, recorded_at, hash) VALUES (?, ?, 1, 'ContractorAdded', 1, ?, ?, ?, ?)"),
  contractor: db.prepare('INSERT INTO contractors (id, inn, name_key, record, balance, bonus_balance, json) VALUES (?, ?, ?, ?, 0, 0, ?)'),
  phone: db.prepare('INSERT INTO contractor_phones (digits, contractor_id) VALUES (?, ?) ON CONFLICT DO NOTHING'),
  idCount: db.prepare('INSERT INTO contractor_id_counts (level, node, size, before) VALUES (0, ?, 1, 0) ON CONFLICT (level, node) DO UPDATE SET size = contractor_id_counts.size + 1'),
};
let head = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get();
let lastId = db.prepare('SELECT max(id) AS id FROM contractors').get().id;

// The WAL's fsync on the thread pool; who asks while one runs shares the next.
let wal, running, next;
const fsyncWal = () => new Promise((resolve, reject) => fs.fsync((wal ??= fs.openSync(`${file}-wal`, 'r')), (error) => (error ? reject(error) : resolve())));
function startSync() {
  const run = fsyncWal().finally(() => {
    if (running === run) running = undefined;
  });
  return (running = run);
}
const durable = () => next ?? (running ? (next = running.then(() => ((next = undefined), startSync()))) : startSync());

// Group commit: the work of one turn in one transaction, answered once the WAL is on disk.
let queue = [];
function write(work) {
  if (mode === 'http') return Promise.resolve(work(true));
  return new Promise((resolve) => {
    if (queue.push([work, resolve]) === 1) setImmediate(commitGroup);
  });
}
function commitGroup() {
  const jobs = queue;
  queue = [];
  sql.begin.run();
  const values = jobs.map(([work]) => work(false));
  sql.commit.run();
  durable().then(() => jobs.forEach(([, resolve], i) => resolve(values[i])));
}

const answer = (res, status, body = '') => res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);

function issue(res) {
  const token = randomBytes(24).toString('base64url');
  const now = Date.now();
  const stored = mode === 'store' ? write(() => (sql.sweep.run(now), sql.issue.run(sha256(token), 1, PATH, now + LIFE_MS))) : Promise.resolve();
  stored.then(() => answer(res, 200, JSON.stringify({ data: { access_token: token, expired: new Date(now + LIFE_MS).toISOString().slice(0, 19).replace('T', ' ') } })));
}

function add(res, text, tokenHash) {
  const row = mode === 'http' ? undefined : sql.token.get(tokenHash);
  if (mode === 'store' ? !row || row.expires_at < Date.now() || row.body_hash !== null : row !== undefined) return answer(res, 401);
  const record = JSON.parse(text).contractors[0];
  const bodyHash = sha256(text);
  write((nothingStored) => {
    const id = ++lastId;
    const response = JSON.stringify({ data: [{ id, ...record }] });
    if (nothingStored) return response;
    const seq = head.seq + 1;
    const at = new Date().toISOString();
    const data = JSON.stringify({ id, ...record });
    const meta = JSON.stringify({ keyId: 1, tokenHash });
    const hash = sha256(`${head.hash}|${seq}|contractor-${id}|1|ContractorAdded|1|${data}|${meta}|${at}`);
    sql.event.run(seq, `contractor-${id}`, data, meta, at, hash);
    head = { seq, hash };
    sql.contractor.run(id, record.inn, record.name.toLowerCase(), data, JSON.stringify({ id, ...record, balance: 0 }));
    sql.phone.run(record.phone1.replace(/\D/g, ''), id);
    sql.idCount.run(id >> 6);
    if (mode === 'store') sql.spend.get(bodyHash, response, tokenHash);
    else (sql.sweep.run(Date.now()), sql.spent.run(tokenHash, PATH, Date.now() + LIFE_MS, bodyHash, response));
    return response;
  }).then((response) => answer(res, 200, response));
}

http
  .createServer((req, res) => {
    if (req.headers.authorization !== KEY) return answer(res, 401);
    if (req.method === 'GET' && req.url === PATH) return issue(res);
    if (req.method !== 'POST' || req.url !== PATH) return answer(res, 404);
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => add(res, Buffer.concat(chunks).toString(), sha256(String(req.headers['x-access-token']))));
  })
  .listen(Number(port), '127.0.0.1');
