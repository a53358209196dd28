// A fixed-body server: bare node:http answering one pre-serialised body (a real page) to every request.
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.argv[2]);
const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length };
http
  .createServer((req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  })
  .listen(Number(process.env.PORT), () => process.stdout.write('listening\n'));
