/** The CLI's description of one API operation, generated at build time from the contract. */
export type FlagType = 'string' | 'integer' | 'number' | 'boolean' | 'json' | 'string[]';

export interface FlagSpec {
  /** flag name without dashes, e.g. "customer.tax-id" */
  flag: string;
  /** where the value goes in the body or query, e.g. ["customer", "tax_id"] */
  path: string[];
  in: 'body' | 'query';
  type: FlagType;
  choices?: string[];
  required: boolean;
  description?: string;
}

export interface OperationSpec {
  id: string;
  method: string;
  path: string;
  auth: 'secret' | 'public' | 'none';
  summary: string;
  message: string;
  command: string[];
  example: string;
  columns: string[];
  list: boolean;
  multipart: boolean;
  /** the response is raw bytes (a download) */
  raw: boolean;
  /** `--wait`: poll this operation until the record leaves `pending` */
  waitWith?: string;
  sandbox: boolean;
  hasBody: boolean;
  /** path parameters, in order: become positional arguments */
  params: string[];
  flags: FlagSpec[];
}
