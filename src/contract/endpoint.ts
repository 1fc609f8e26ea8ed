import type * as z from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * secret: Basic public_key:secret_key. public: Basic public_key: (tokenization, checkout).
 * none: no credentials (OpenAPI document, hosted pages).
 */
export type AuthKind = 'secret' | 'public' | 'none';

/** CLI hints; the CLI derives its commands, flags and columns from these. */
export interface CliSpec {
  /** e.g. ['charges', 'create'] */
  command: readonly string[];
  /**
   * A worked example shown in --help. A date that must lie ahead of today is written
   * `{today+N}`: help prints the São Paulo day N days from the day it is shown, so the example
   * works as written on any day.
   */
  example: string;
  /** Further worked examples, where one command does distinct jobs (a charge by card, PIX or boleto). */
  moreExamples?: readonly string[];
  /** Table columns for records of this endpoint's response, in the order they are shown. */
  columns?: readonly string[];
  /**
   * The same columns from most to least important (default: the order of `columns`): a table
   * wider than the terminal drops the least important first, and the first is the row's own id,
   * never shortened.
   */
  importance?: readonly string[];
  /** id of a get operation: `--wait` polls it until the record's status leaves `pending` */
  waitWith?: string;
  /**
   * Flag names that differ from the field's: body or query field path (dotted) → flag, e.g.
   * `{ file_ids: 'file-id' }` for a list given one value per flag (`--file-id A --file-id B`).
   */
  flagNames?: Readonly<Record<string, string>>;
}

/** The columns of a table, in the order shown, and from most to least important (default: that order). */
export interface CliTable {
  columns: readonly string[];
  importance?: readonly string[];
}

/**
 * How the CLI presents a resource beyond its endpoints' `cli` blocks: each resource module
 * exports one, src/contract/presentation.ts lists them, and the build turns them into the CLI's
 * generated files (src/cli/spec/generate.ts), so the CLI reads them without loading the contract.
 */
export interface CliPresentation {
  /** What a group of its commands is for, by command words (`charges`, `merchant pin`): `mpay --help`, `mpay <group> --help`. */
  groups?: Readonly<Record<string, string>>;
  /**
   * What a field of its requests is, by the field's last path segment, for the flags of its
   * endpoints whose schema does not describe the field; a field several resources share is
   * described in src/contract/presentation.ts.
   */
  fields?: Readonly<Record<string, string>>;
  /** The table of a list nested in a record shown alone (a statement's `entries`), by the list's field name. */
  nested?: Readonly<Record<string, CliTable>>;
}

/**
 * An operation anyone may call, made idempotent by a field of its body instead of the
 * Idempotency-Key header: a retry with the same value replays the first answer. The key,
 * `<prefix> <the path's parameters> <the field's value>` (spaces: never a valid
 * Idempotency-Key header, so never one of the merchant's own keys), is kept under the merchant
 * that owns the path's resource (the server's route names it).
 */
export interface BodyIdempotency {
  /** the key's first word */
  prefix: string;
  /** the body's field whose value ends the key (one per attempt) */
  bodyField: string;
}

export interface Endpoint<
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  id: string;
  method: HttpMethod;
  /** OpenAPI-style template, e.g. /v1/charges/{id} */
  path: string;
  summary: string;
  auth: AuthKind;
  body?: B;
  /** multipart/form-data upload instead of a JSON body */
  multipart?: boolean;
  /** the success response is raw bytes (a download), not the JSON envelope */
  raw?: boolean;
  query?: Q;
  /** schema of `data` in the success envelope (of one item for lists) */
  response: R;
  list?: boolean;
  /**
   * The response is one record whose array field of this name is one page of a list (a
   * statement's `entries`): the query takes `page` and `per_page` as a list's does, and the
   * envelope carries `pagination` for that field.
   */
  pages?: string;
  /** success status; 201 for creations by default */
  status?: number;
  /** only mounted when the server runs as a sandbox */
  sandbox?: boolean;
  /** message of the success envelope */
  message: string;
  tag: string;
  cli?: CliSpec;
  /**
   * How the server keeps an Idempotency-Key of this endpoint: by default in transactions of its
   * own around the handler; 'in-transaction', in the handler's one transaction (claimed there
   * and its answer kept there: one commit a request), for a handler that writes only through
   * the store it is given, in one transaction, and does nothing after it but build its answer.
   */
  idempotency?: 'in-transaction' | BodyIdempotency;
  /**
   * The answer is a function of the stored rows alone (no time, no signed URL): the server may
   * serve it again while the database reads the same (src/server/readMemo.ts).
   */
  memo?: true;
}

export function endpoint<
  const I extends string,
  const P extends string,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  R extends z.ZodType = z.ZodType,
  L extends boolean = false,
  const G extends string = never,
>(
  e: Omit<Endpoint<B, Q, R>, 'id' | 'list' | 'path' | 'pages'> & { id: I; path: P; list?: L; pages?: G },
): Endpoint<B, Q, R> & { id: I; path: P; list?: L; pages?: G } {
  return e;
}

/** The names of the `{name}` placeholders of a path template: '/v1/charges/{id}/refund' -> 'id'. */
type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? N | ParamNames<Rest> : never;
/** The path parameters of an endpoint, typed from its template: '/v1/charges/{id}' -> { id: string }. */
export type ParamsOf<E> = E extends { path: infer P extends string }
  ? string extends P
    ? Record<string, string>
    : { [K in ParamNames<P>]: string }
  : never;

export type BodyOf<E> = E extends Endpoint<infer B, any, any> ? (B extends z.ZodType ? z.input<B> : never) : never;
/**
 * What a caller passes as the query: each parameter as the wire string (z.input) or as the value
 * it parses to (z.output: numbers for page/per_page and amounts, booleans for flags); the SDK
 * serialises both with String().
 */
export type QueryOf<E> = E extends Endpoint<any, infer Q, any> ? (Q extends z.ZodType ? CallerQuery<z.input<Q>, z.output<Q>> : never) : never;
type CallerQuery<In, Out> = { [K in keyof In]: In[K] | (K extends keyof Out ? Out[K] : never) };
export type DataOf<E> = E extends Endpoint<any, any, infer R>
  ? E extends { list?: true }
    ? z.output<R>[]
    : z.output<R>
  : never;

export type BodyOut<E> = E extends Endpoint<infer B, any, any> ? (B extends z.ZodType ? z.output<B> : undefined) : never;
export type QueryOut<E> = E extends Endpoint<any, infer Q, any> ? (Q extends z.ZodType ? z.output<Q> : undefined) : never;
export type ItemOut<E> = E extends Endpoint<any, any, infer R> ? z.output<R> : never;

/**
 * What routing an operation needs, without its schemas: the table the build generates from the
 * contract (generated/operations.json), by which the SDK client calls and the server routes.
 */
export interface OperationRoute {
  method: HttpMethod;
  path: string;
  auth: AuthKind;
  sandbox: boolean;
  multipart: boolean;
  /** the resource module that defines it (src/contract/loaders.ts) */
  resource: import('./loaders.js').ResourceName;
}
