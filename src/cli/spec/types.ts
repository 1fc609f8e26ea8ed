/** The CLI's description of one API operation, generated at build time from the contract. */
import type { OperationId } from '../../sdk/client.js';

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
  /** the contract's description of the field (its schema's) */
  description?: string;
  /** what the field is, from the resource's presentation, where the schema has no description */
  about?: string;
  /** the unit the contract states for a number ("cents", "seconds", "days") */
  unit?: string;
  /** the contract's ranges: numbers (inclusive) and string lengths */
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** the contract's least number of items of a list */
  minItems?: number;
  /** the contract's default, when it has one */
  default?: unknown;
  /** the field takes null: the value `null` sends it (clears the field) */
  nullable?: boolean;
  /** checked before sending: `url` is an absolute http(s) URL */
  format?: 'url';
}

/** The pagination of a list: ranges and default, from the contract. */
export interface PaginationSpec {
  pageMax: number;
  perPageMax: number;
  perPageDefault: number;
}

export interface OperationSpec {
  id: OperationId;
  method: string;
  path: string;
  auth: 'secret' | 'public' | 'none';
  summary: string;
  message: string;
  command: string[];
  example: string;
  /** further worked examples shown in --help */
  moreExamples?: string[];
  columns: string[];
  /** the columns from most to least important, for a list too wide for the terminal */
  importance?: string[];
  /** fields of the response record that are money (integer cents), shown as R$ in tables */
  money: string[];
  /** fields of the response record that are values to copy: tables print them whole below the box */
  copy: string[];
  list: boolean;
  /** the response is a record whose field of this name is a page of a list (a statement's entries) */
  pages?: string;
  multipart: boolean;
  /** the response is raw bytes (a download) */
  raw: boolean;
  /** `--wait`: poll this operation until the record leaves `pending` */
  waitWith?: OperationId;
  sandbox: boolean;
  hasBody: boolean;
  /** path parameters, in order: become positional arguments */
  params: string[];
  flags: FlagSpec[];
  /** lists and paged records only */
  pagination?: PaginationSpec;
}

/** The columns of a table, in the order shown, and from most to least important. */
export interface TableSpec {
  columns: string[];
  importance: string[];
}

/** What the CLI presents besides its operations, from the contract (src/contract/presentation.ts), generated at build time. */
export interface PresentationSpec {
  /** what each group of generated commands is for, by its command words (`merchant pin`) */
  groups: Record<string, string>;
  /** the table of a list nested in a record shown alone, by the list's field name */
  nested: Record<string, TableSpec>;
}
