import { once } from 'node:events';
import { appendWhenGo } from './appending.ts';

// A writer process of the concurrent-writers test: says "ready" on stdout once connected, reads the time to append
// until from stdin, then prints what it appended.
const [url, name] = process.argv.slice(2);
const go = once(process.stdin.setEncoding('utf8'), 'data').then(([line]) => Number(line));
console.log(JSON.stringify(await appendWhenGo(url, name, () => process.stdout.write('ready\n'), go)));
