// Drives a running server with two-step writes (token GET, then POST) or reads, and prints from /proc, a record:
// the server's CPU (all threads, its main thread alone, and each other thread that ran, by thread id: the WAL
// checkpointer's worker is the newest of the threads the server has before its first request) and its I/O
// (`rchar`/`wchar`, `syscr`/`syscw`: bytes and calls of every read and write, sockets included, so SQLite's page
// reads, WAL frames and the checkpoints' copies and the requests and answers; `read_bytes`/`write_bytes`: what
// reached the disk). The measure of docs/performance.md, "add-contractor ×1".
//
//   node bench/write-cost/load.mjs <port> <api key> <server pid> <scenario> <clients> <warm-up rounds> <seconds> <first serial>
//
// Scenarios: c1 and c100 (add-contractor, batches of 1 and 100: the bench's records), p100 (update-product-prices,
// batches of 100 over the first 3,000 products' skus), p100all (the same over every product's sku in id order, as
// the bench walks them, so a large catalogue's rows do not all stay in the page cache), page (the first products
// page of 100), one (a page of one).
// `first serial` numbers the new contractors (their names, phones and inns), so runs on one database do not collide.
import http from 'node:http';
import fs from 'node:fs';

const [port, key, pid, scenario, clients, warmUp, seconds, first] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(clients) });
const AUTH = { Authorization: `Bearer ${key}` };

function request(method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: Number(port), method, path, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let serial = Number(first);
/** As bench/scenarios.ts makes them. */
function contractor() {
  const n = ++serial;
  const digits = String(1_000_000 + (n % 9_000_000)).padStart(7, '0');
  const phone1 = `+7 (916) ${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5, 7)}`;
  return { type: 'ЮЛ', name: `ООО «Нагрузка ${n}»`, contactPerson: 'Иванов Иван Иванович', phone1, inn: String(7_700_000_000 + (n % 99_999_999)), kpp: '770101001', status: 'Новый', discount: 5, email: `buyer${n}@example.ru` };
}

const skus = [];
if (scenario === 'p100' || scenario === 'p100all') {
  const count = scenario === 'p100' ? 3000 : JSON.parse((await request('GET', '/api/products?limit=1', AUTH)).text).meta.allCount;
  for (let offset = 0; offset < count; offset += 100) skus.push(...JSON.parse((await request('GET', `/api/products?limit=100&offset=${offset}`, AUTH)).text).data.map((p) => p.sku));
}
/** A price no product had before, as bench/scenarios.ts makes them. */
const price = () => {
  const n = serial++;
  return { sku: skus[n % skus.length], salePrice: 5000 + Math.floor(n / skus.length) + (n % 100) / 100 };
};

const prices = ['/api/update-product-prices', () => ({ data: Array.from({ length: 100 }, price) }), 100];
const WRITES = {
  c1: ['/api/add-contractor', () => ({ contractors: [contractor()] }), 1],
  c100: ['/api/add-contractor', () => ({ contractors: Array.from({ length: 100 }, contractor) }), 100],
  p100: prices,
  p100all: prices,
};
const READS = { page: '/api/products?limit=100&offset=0', one: '/api/products?limit=1' };
if (!(scenario in WRITES) && !(scenario in READS)) throw new Error(`no scenario ${scenario}`);
const [path, body, size] = WRITES[scenario] ?? [READS[scenario], undefined, 1];

async function round() {
  const answer = await request('GET', path, AUTH);
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
  if (!body) return;
  const token = JSON.parse(answer.text).data.access_token;
  const written = await request('POST', path, { ...AUTH, 'X-Access-Token': token, 'Content-Type': 'application/json' }, JSON.stringify(body()));
  if (written.status !== 200) throw new Error(`POST ${path}: ${written.status} ${written.text.slice(0, 300)}`);
}

/** user + system CPU in µs of the process (`task` undefined) or of one of its threads. */
function cpu(task) {
  const stat = fs.readFileSync(task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in clock ticks of 1/100 s (getconf CLK_TCK).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Each thread's CPU in µs, by thread id. */
function threads() {
  return new Map(fs.readdirSync(`/proc/${pid}/task`).map((task) => [task, cpu(task)]));
}

/** The process's I/O counters. */
function io() {
  return Object.fromEntries(fs.readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n').map((line) => line.split(': ')).map(([name, value]) => [name, Number(value)]));
}

const clientsOf = (loop) => Promise.all(Array.from({ length: Number(clients) }, loop));
let warm = Number(warmUp);
await clientsOf(async () => {
  while (warm-- > 0) await round();
});
const [all0, main0, threads0, io0, t0] = [cpu(), cpu(pid), threads(), io(), performance.now()];
const end = t0 + Number(seconds) * 1000;
let rounds = 0;
await clientsOf(async () => {
  while (performance.now() < end) {
    await round();
    rounds++;
  }
});
const [all1, main1, threads1, io1, t1] = [cpu(), cpu(pid), threads(), io(), performance.now()];
const records = rounds * size;
const perRecord = (us) => Math.round((10 * us) / records) / 10;
const otherThreadsUs = Object.fromEntries(
  [...threads1].filter(([task, us]) => task !== pid && us > (threads0.get(task) ?? 0)).map(([task, us]) => [task, perRecord(us - (threads0.get(task) ?? 0))]),
);
const ioPerRecord = Object.fromEntries(['rchar', 'wchar', 'syscr', 'syscw', 'read_bytes', 'write_bytes'].map((name) => [name, perRecord(io1[name] - io0[name])]));
console.log(JSON.stringify({ scenario, records, usPerRecord: perRecord(all1 - all0), mainThreadUs: perRecord(main1 - main0), recordsPerS: Math.round(records / ((t1 - t0) / 1000)), otherThreadsUs, ioPerRecord }));
