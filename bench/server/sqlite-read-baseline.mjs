// node:http answering GET /v1/charges/{id} with one SQLite read of that charge from mpay's own
// database file and nothing else: no authentication, no logging, no validation, no envelope
// beyond { success, message, data }. The read is the one mpay's store makes (a prepared
// statement in better-sqlite3's raw mode, the row built by a function compiled for its
// columns, WAL, the same pragmas), so this is the ceiling for any GET that reads SQLite on
// this machine, measured in the same run by bench/server/run.mjs. Read-only; prints its URL on
// the first line of stdout.
//
//   node bench/server/sqlite-read-baseline.mjs <path to mpay.db>
import http from 'node:http';
import Database from 'better-sqlite3';

const file = process.argv[2];
if (!file) {
  console.error('usage: sqlite-read-baseline.mjs <path to mpay.db>');
  process.exit(2);
}
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 30000');
db.pragma('cache_size = -32768');
db.pragma('mmap_size = 268435456');
const stmt = db.prepare('SELECT * FROM charges WHERE id = ?').raw(true);
const names = stmt.columns().map((c) => c.name);
const row = new Function('v', `return { ${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')} };`);
const PREFIX = '/v1/charges/';

const server = http.createServer((req, res) => {
  const values = req.url.startsWith(PREFIX) ? stmt.get(req.url.slice(PREFIX.length)) : undefined;
  const body = values
    ? JSON.stringify({ success: true, message: 'Charge retrieved', data: row(values) })
    : JSON.stringify({ success: false, message: 'not found', error: 'not_found' });
  res.writeHead(values ? 200 : 404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
