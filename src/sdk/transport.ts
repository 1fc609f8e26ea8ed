/** One HTTP exchange. Both transports carry exactly these bytes. */
export interface TransportRequest {
  method: string;
  /** path with query string, e.g. /v1/charges?page=2 */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
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
