import type { AnyEndpoint } from '../../contract/index.js';
import { envelope, listEnvelope, pagedEnvelope } from '../../contract/common.js';
import { JsonText, RawAnswer, type AppDeps, type Page, type PagedRecord, type PageRequest } from '../context.js';
import { keptAnswer, keptText, type StoredResponse } from '../idempotency.js';
import { jsonAnswer, type Answer } from './request.js';

/** A handler's answer shaped for the wire, and what an Idempotency-Key keeps of it. */
export interface Shaped {
  value: Answer;
  keep: StoredResponse;
}

/**
 * The shape stage: the handler's record (or page of records, or record holding a page of
 * records) in the envelope `{ success, message, data, pagination? }` with the endpoint's status (201 for creations), its own status
 * and message where it set them; a raw answer (a download) as it is. With `validateResponses`
 * (tests) every envelope is checked against the contract. `keeping`: an Idempotency-Key keeps
 * the answer, without the secrets shown once.
 */
export function shape(deps: Pick<AppDeps, 'validateResponses'>, e: AnyEndpoint, ctx: { status?: number; message?: string }, result: unknown, page: PageRequest, keeping: boolean): Shaped {
  if (result instanceof RawAnswer) {
    // a download or a page: never under an Idempotency-Key (GETs and uploads keep none)
    return { value: { status: result.status, headers: { ...result.headers }, body: result.body }, keep: { status: result.status, body: '' } };
  }
  const status = ctx.status ?? e.status ?? (e.method === 'POST' ? 201 : 200);
  const message = ctx.message ?? e.message;
  const serialised = serialisedEnvelope(e.list ? (result as Page<unknown>) : result, message, e.list ? page : undefined);
  if (serialised !== undefined) {
    // the same text JSON.stringify gives of the envelope below; the object only where it is needed
    if (deps.validateResponses) (e.list ? listEnvelope(e.response) : envelope(e.response)).parse(JSON.parse(serialised));
    return { value: jsonAnswer(status, serialised), keep: { status, body: keeping ? keptText(serialised) : serialised } };
  }
  let out: Record<string, unknown>;
  if (e.list) {
    const p = result as Page<unknown>;
    out = { success: true, message, data: p.items, pagination: { page: page.page, perPage: page.perPage, total: p.total, totalPages: Math.ceil(p.total / page.perPage) } };
    if (deps.validateResponses) listEnvelope(e.response).parse(out);
  } else if (e.pages) {
    // a record holding a page of a list (a statement's entries): the list's pagination
    const p = result as PagedRecord<unknown>;
    out = { success: true, message, data: p.record, pagination: { page: page.page, perPage: page.perPage, total: p.total, totalPages: Math.ceil(p.total / page.perPage) } };
    if (deps.validateResponses) pagedEnvelope(e.response).parse(out);
  } else {
    out = { success: true, message, data: result };
    if (deps.validateResponses) envelope(e.response).parse(out);
  }
  const text = JSON.stringify(out);
  return { value: jsonAnswer(status, text), keep: { status, body: keeping ? keptAnswer(out) : text } };
}

/**
 * The envelope's text when the handler answered records already serialised (`JsonText`: a
 * record, or a page of them), else undefined. Byte for byte what JSON.stringify gives of
 * `{ success, message, data, pagination }` (no message key when there is no message).
 */
function serialisedEnvelope(result: unknown, message: string | undefined, list: PageRequest | undefined): string | undefined {
  let data: string;
  let pagination = '';
  if (list) {
    const p = result as Page<unknown>;
    if (!p.items.length || !(p.items[0] instanceof JsonText)) return undefined;
    data = '[';
    for (let i = 0; i < p.items.length; i++) {
      const item = p.items[i];
      data += (i ? ',' : '') + (item instanceof JsonText ? item.text : JSON.stringify(item));
    }
    data += ']';
    pagination = `,"pagination":${JSON.stringify({ page: list.page, perPage: list.perPage, total: p.total, totalPages: Math.ceil(p.total / list.perPage) })}`;
  } else if (result instanceof JsonText) data = result.text;
  else return undefined;
  return `{"success":true,${message === undefined ? '' : `"message":${JSON.stringify(message)},`}"data":${data}${pagination}}`;
}
