// node:http answering GET /v1/charges/{id} with one PostgreSQL read of that charge and nothing
// else (no authentication, logging, validation; the envelope { success, message, data }): the
// ceiling for a GET that reads PostgreSQL on this machine, measured in the same run by
// bench/server/run.mjs. The read mpay's store makes: a `pg` Pool of 10 connections, an unnamed
// parameterized query. Read-only; prints its URL on the first line of stdout.
//
//   node bench/server/pg-read-baseline.mjs <postgres URL, with the schema in its search_path>
import http from 'node:http';
import pg from 'pg';

const url = process.argv[2];
if (!url) {
  console.error('usage: pg-read-baseline.mjs <postgres URL>');
  process.exit(2);
}
const pool = new pg.Pool({ connectionString: url, max: 10 });
const PREFIX = '/v1/charges/';

const server = http.createServer(async (req, res) => {
  let status = 404;
  let body = JSON.stringify({ success: false, message: 'not found', error: 'not_found' });
  if (req.url.startsWith(PREFIX)) {
    const { rows } = await pool.query('SELECT * FROM charges WHERE id = $1', [req.url.slice(PREFIX.length)]);
    if (rows[0]) {
      status = 200;
      body = JSON.stringify({ success: true, message: 'Charge retrieved', data: rows[0] });
    }
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
