// A Hono app on @hono/node-server (the framework and adapter mpay's server uses) answering the
// same small JSON as the bare node:http baseline: what the framework alone costs, measured in
// the same run by bench/server/run.mjs. Prints its URL on the first line of stdout.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const body = JSON.stringify({ success: true, message: 'ok', data: { id: '0190a8a2-7c1e-7b3e-9f00-000000000000', amount: 1990, status: 'captured' } });
const app = new Hono();
app.get('/v1/charges/:id', () => new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log(`http://127.0.0.1:${info.port}`));
