// The floor under a remote read: what `mpay --base-url URL keys list -o json` must do at the
// least, written by hand with Node's HTTP client and nothing else: one GET with the keys of the
// environment, its JSON envelope parsed, the data printed. bench/startup/run.mjs times it beside
// mpay, to show what mpay itself adds.  node floor-remote.cjs BASE_URL
'use strict';
const { request } = require('node:http');

const auth = Buffer.from(`${process.env.MPAY_PUBLIC_KEY}:${process.env.MPAY_SECRET_KEY}`).toString('base64');
request(new URL('/v1/api-keys', process.argv[2]), { headers: { authorization: `Basic ${auth}`, accept: 'application/json' } }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (d) => (body += d));
  res.on('end', () => {
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${body}`);
    process.stdout.write(`${JSON.stringify(JSON.parse(body).data, null, 2)}\n`);
  });
}).end();
