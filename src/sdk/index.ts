/**
 * mpay SDK: a typed client of the merchant payments API and the card Tokenizer.
 *
 *   import { MpayClient, HttpTransport, Tokenizer } from 'mpay';
 *   const client = new MpayClient({ transport: new HttpTransport('http://127.0.0.1:4010'), publicKey, secretKey });
 *   const { data } = await client.call('apiKeys.list', { query: { per_page: 50 } });
 *
 * The SDK is a client only: it never loads the server or its store engines. The service
 * itself, in-process, is the separate entry 'mpay/embedded' (`openEmbedded`, src/sdk/embedded.ts).
 */
export { MpayClient, errorFromResponse, toQueryString } from './client.js';
export type { AnyCallOptions, CallByIdOptions, CallOptions, ClientOptions, Envelope, Exchange, OperationId, Operation, Pagination, RawResponse, RequestOptions, Result } from './client.js';
export { Tokenizer } from './tokenizer.js';
export type { CardData, TokenizerOptions } from './tokenizer.js';
export { ApiError, AuthenticationError, ConnectionError, MpayError, NotMpayApiError, ValidationError } from './errors.js';
export type { ErrorDetail } from './errors.js';
export { HttpTransport } from './httpTransport.js';
export { EmbeddedTransport } from './embeddedTransport.js';
export type { Transport, TransportRequest, TransportResponse } from './transport.js';
export type { TokenizeResult } from '../contract/resources/tokens.js';

