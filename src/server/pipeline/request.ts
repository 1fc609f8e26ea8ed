/**
 * What the pipeline needs of a request and gives back, whoever received it: the node:http
 * server (src/server/http.ts), a Web Request (`app.fetch`, src/server/pipeline/web.ts) or the
 * SDK's in-process transport (src/server/inProcess.ts). Every request goes through the same
 * pipeline (src/server/pipeline/index.ts) whichever of them it came by.
 */

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface CoreRequest {
  readonly method: string;
  /** the path as sent, without the query string (percent-encoding not yet undone) */
  readonly path: string;
  /** the query string with its '?', or '' */
  readonly search: string;
  /** the peer's address (the socket's), before any trusted proxy is looked through */
  readonly peerAddress: string | undefined;
  /** a request header by its lower-case name */
  header(name: string): string | undefined;
  /** the body, up to `max` bytes (past that a 413) */
  body(max: number): Promise<Uint8Array>;
  /** the body as chunks, read as they are consumed (a multipart upload, never held whole) */
  stream(): AsyncIterable<Uint8Array>;
  /** the origin the request was addressed to (scheme and Host), for links handed out */
  origin(): string;
  /** the client went away before the answer was ready */
  gone(): boolean;
}

/** The pipeline's answer: a status, headers and a body (JSON or HTML text, bytes, or none). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

/** A JSON answer: its text, or that text already encoded as UTF-8 (a read memo's answer). */
export function jsonAnswer(status: number, text: string | Uint8Array, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: text };
}

/** The body's length in bytes (for Content-Length). */
export function byteLength(body: Answer['body']): number {
  if (body === null) return 0;
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}
