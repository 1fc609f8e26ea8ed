import type { IncomingMessage } from 'node:http';
import { ApiError, ClientClosedError } from './errors.js';

export const JSON_LIMIT = 1024 * 1024;
/** Bodies of the operations anyone may call (the checkout's pay, tokenizing with the public key). */
export const PUBLIC_JSON_LIMIT = 16 * 1024;
/** Arrays and objects nested deeper than this are refused before parsing (no request needs more). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a JSON text nests arrays/objects deeper than `max`: one pass over the bytes (strings
 * skipped), stopping as soon as the limit is passed, so a hostile document costs no more than
 * reading it and is never handed to JSON.parse.
 */
export function nestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}

const tooLarge = (max: number) => new ApiError('payload_too_large', `Request body is larger than ${max} bytes`);
const declaredOver = (contentLength: string | null | undefined, max: number) => Number(contentLength ?? NaN) > max;

/** A body already in memory (an in-process request), under the same limit and the same 413. */
export function capInMemory(bytes: Uint8Array, contentLength: string | undefined, max: number): Promise<Uint8Array> {
  return declaredOver(contentLength, max) || bytes.byteLength > max ? Promise.reject(tooLarge(max)) : Promise.resolve(bytes);
}

/** Reads a request body up to `max` bytes; past that a 413, without reading the rest. */
export async function readCapped(req: Request, max: number): Promise<Uint8Array> {
  if (declaredOver(req.headers.get('content-length'), max)) throw tooLarge(max);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}

/**
 * The same, read straight from Node's incoming message (the HTTP server), without building a
 * web stream over it. A body over `max` bytes is refused as soon as it passes the limit; the
 * rest is left for the server to discard.
 */
export function readIncomingCapped(incoming: IncomingMessage, max: number): Promise<Uint8Array> {
  if (declaredOver(incoming.headers['content-length'], max)) return Promise.reject(tooLarge(max));
  if (incoming.readableEnded) return Promise.resolve(new Uint8Array(0));
  // a client gone before the body is read (while a slow step ran): 'aborted' has already fired
  // and would never fire again, so the read would wait for ever
  if (incoming.destroyed && !incoming.complete) return Promise.reject(new ClientClosedError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: unknown, value?: Uint8Array) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('aborted', onAborted);
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > max) {
        incoming.pause();
        done(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = (e: unknown) => done(e);
    const onAborted = () => done(new ClientClosedError());
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('aborted', onAborted);
  });
}

export function parseJsonBody(bytes: Uint8Array, contentType: string | null): unknown {
  if (bytes.byteLength === 0) return undefined;
  if (!contentType || !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new ApiError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
  }
  if (nestedDeeperThan(bytes, MAX_JSON_DEPTH)) {
    throw new ApiError('invalid_json', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  }
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (e) {
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${(e as Error).message}`);
  }
}
