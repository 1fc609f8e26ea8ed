import * as z from 'zod';
import { fieldsWhere } from './common.js';

/**
 * What the contract says about a field beyond its type, for clients that present it (the CLI
 * reads these at build time into its operation specs). Kept in a registry of its own, not in
 * zod's global one, so the OpenAPI document does not change.
 */
export interface FieldHint {
  /**
   * A value people copy whole and paste elsewhere (a PIX "copia e cola", a checkout URL, a
   * boleto's digitable line): tables print it on a line of its own, outside the box, uncut.
   */
  copy?: true;
  /**
   * The values a string (or each string of a list) may take, where a refinement checks them
   * rather than an enum: clients check them before sending and complete them.
   */
  values?: readonly string[];
  /** An absolute http(s) URL, checked before sending. */
  format?: 'url';
}

export const fieldHints = z.registry<FieldHint>();

/** `schema`, marked with `hint` (the mark is on this very schema: apply it last). */
export function hinted<T extends z.ZodType>(schema: T, hint: FieldHint): T {
  fieldHints.add(schema, hint);
  return schema;
}

type Def = { type: string; innerType?: z.core.$ZodType; element?: z.core.$ZodType; in?: z.core.$ZodType };
const defOf = (s: z.core.$ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The hint of a field, looking through optional, nullable and pipes (the hint may sit on either side). */
export function hintOf(schema: z.core.$ZodType): FieldHint | undefined {
  let t: z.core.$ZodType | undefined = schema;
  while (t) {
    const h = fieldHints.get(t);
    if (h) return h;
    const def = defOf(t);
    t = def.type === 'optional' || def.type === 'nullable' ? def.innerType : def.type === 'pipe' ? def.in : undefined;
  }
  return undefined;
}

/** The fields of a record schema marked as values to copy, by dotted path (`pix.qr_code`). */
export const copyFields = (schema: z.ZodType): string[] => fieldsWhere(schema, (f) => !!hintOf(f)?.copy);
