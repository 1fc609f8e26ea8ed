/** One HTTP exchange. Both transports carry exactly these bytes. */
export interface TransportRequest {
  method: string;
  /** path with query string, e.g. /v1/charges?page=2 */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
  /**
   * When set, a Uint8Array body is sent as a stream of chunks and this is called as each chunk
   * is taken by the receiver (upload progress). The bytes on the wire are the same.
   */
  onBodyProgress?: (sent: number, total: number) => void;
}

/** Chunk size of a body sent with progress. */
export const PROGRESS_CHUNK = 64 * 1024;

/** The body as chunks, reporting each one as it is pulled. */
export async function* progressChunks(body: Uint8Array, onProgress: (sent: number, total: number) => void): AsyncGenerator<Uint8Array> {
  let sent = 0;
  onProgress(0, body.byteLength);
  while (sent < body.byteLength) {
    const chunk = body.subarray(sent, Math.min(sent + PROGRESS_CHUNK, body.byteLength));
    yield chunk;
    sent += chunk.byteLength;
    onProgress(sent, body.byteLength);
  }
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface Transport {
  send(req: TransportRequest): Promise<TransportResponse>;
  /** a base URL for display (the remote URL, or embedded:<data dir>) */
  readonly target: string;
}
