import { appendBetween } from './appending.ts';

// A writer process of the concurrent-writers test: appends between two times, then prints what it appended.
const [url, start, until, name] = process.argv.slice(2);
console.log(JSON.stringify(await appendBetween(url, Number(start), Number(until), name)));
