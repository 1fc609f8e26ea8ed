import type { BusboyFileStream, BusboyInstance } from '@fastify/busboy';
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { FILE_KINDS, MAX_UPLOAD_BYTES, SNIFF_BYTES, extensionOf, kindOfExtension, kindOfMime, sniff, type FileKind } from '../../domain/files.js';
import { ApiError } from '../errors.js';
import type { ReceivedFile } from '../services/submerchants.js';
import type { CoreRequest } from './request.js';

/** Room for the multipart framing around the file when judging a declared Content-Length. */
export const MULTIPART_OVERHEAD = 64 * 1024;

const ACCEPTED = 'PNG, JPEG or PDF';

/**
 * Where uploads are streamed to before they are checked and handed to the file store
 * (deps.files): local scratch, <dataDir>/tmp/uploads. Nothing stays there once a request ends.
 */
export function uploadTmpDir(dataDir: string): string {
  return join(dataDir, 'tmp', 'uploads');
}

/** A path inside `dir` for a server-generated name; refuses anything that would leave it. */
export function insideDir(dir: string, name: string): string {
  const base = resolve(dir);
  const p = resolve(base, name);
  if (!p.startsWith(base + sep)) throw new Error('path escapes the upload directory');
  return p;
}

/**
 * Streams a multipart/form-data body with one part named `file` into a temp file in `dir`.
 * The first bytes decide the type (PNG, JPEG, PDF): anything else, or a name or part type that
 * claims another type, is a 415 as soon as it is known. Past `maxBytes` busboy stops the file
 * ('limit'): reading stops there, the partial temp file is deleted and the answer is a 413.
 * The body is never held in memory: chunks go to disk with backpressure. On any failure the
 * temp file is removed before the promise rejects.
 *
 * Reading stops by unpiping, never by destroying the request: over HTTP, destroying it would
 * reset the socket before the client sees the error; the server drains the rest instead.
 */
export async function receiveUpload(opts: {
  body: AsyncIterable<Uint8Array> | null;
  contentType: string;
  dir: string;
  maxBytes: number;
}): Promise<ReceivedFile> {
  if (!opts.body) throw invalidUpload('file: is required; send multipart/form-data with one part named file');
  // loaded here, not at start-up: only uploads need the multipart parser
  const busboy = await import('@fastify/busboy');
  const Busboy = (busboy.Busboy ?? (busboy as unknown as { default: typeof busboy }).default.Busboy) as typeof busboy.Busboy;
  let bb: BusboyInstance;
  try {
    bb = Busboy({
      headers: { 'content-type': opts.contentType },
      limits: { fileSize: opts.maxBytes, files: 1, fields: 0, parts: 1, fieldSize: 1024 },
    });
  } catch (e) {
    throw invalidUpload(`the multipart body cannot be read: ${(e as Error).message}`);
  }
  await mkdir(opts.dir, { recursive: true, mode: 0o700 });
  // the node:http server's request is a Readable already; any other source is made one
  const source = opts.body instanceof Readable ? opts.body : Readable.from(opts.body);

  return new Promise<ReceivedFile>((resolvePromise, rejectPromise) => {
    let settled = false;
    let tmpPath: string | undefined;
    let out: WriteStream | undefined;
    let file: BusboyFileStream | undefined;
    let sawFile = false;
    let fileWritten: Omit<ReceivedFile, 'tmpPath'> | undefined;
    let parsed = false;

    const stopInput = () => {
      source.unpipe(bb);
      source.pause();
      file?.removeAllListeners('data');
      file?.pause();
    };

    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      stopInput();
      const cleanup = async () => {
        if (out && !out.closed) {
          await new Promise<void>((r) => {
            out!.once('close', () => r());
            out!.destroy();
          });
        }
        if (tmpPath) await rm(tmpPath, { force: true });
      };
      cleanup().then(
        () => rejectPromise(err),
        () => rejectPromise(err),
      );
    };

    const maybeDone = () => {
      if (settled || !parsed || !fileWritten || !tmpPath) return;
      settled = true;
      resolvePromise({ tmpPath, ...fileWritten });
    };

    bb.on('file', (field, stream, filename, _enc, mimeType) => {
      file = stream;
      if (sawFile) return fail(invalidUpload('send exactly one part named file'));
      sawFile = true;
      if (field !== 'file') return fail(invalidUpload(`${field}: is not a known part; send one part named file`));
      const clientName = filename ?? '';
      const ext = extensionOf(clientName);
      if (ext && !kindOfExtension(ext)) {
        return fail(new ApiError('unsupported_media_type', `file: the extension .${ext} is not accepted; send a ${ACCEPTED} file`));
      }
      tmpPath = insideDir(opts.dir, `.upload-${randomUUID()}.part`);
      out = createWriteStream(tmpPath, { flags: 'wx', mode: 0o600 });
      out.on('error', (e) => fail(e));

      let head = Buffer.alloc(0);
      let size = 0;
      let kind: FileKind | null = null;

      const decide = (): boolean => {
        kind = sniff(head);
        if (!kind) {
          fail(
            new ApiError(
              'unsupported_media_type',
              size === 0 ? `file: is empty; send a ${ACCEPTED} file` : `file: the content is not a ${ACCEPTED} file`,
            ),
          );
          return false;
        }
        const byName = ext ? kindOfExtension(ext) : null;
        const byHeader = kindOfMime(mimeType ?? '');
        const claimed = byName && byName !== kind ? `its name says .${ext}` : byHeader && byHeader !== kind ? `its Content-Type says ${mimeType}` : null;
        if (claimed) {
          fail(new ApiError('unsupported_media_type', `file: the content is ${FILE_KINDS[kind].label} but ${claimed}`));
          return false;
        }
        return true;
      };

      stream.on('limit', () => {
        fail(new ApiError('payload_too_large', `file: is larger than ${opts.maxBytes} bytes (10 MiB)`));
      });
      stream.on('error', (e: Error) => fail(invalidUpload(`the multipart body ended early or is malformed: ${e.message}`)));
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (head.length < SNIFF_BYTES) {
          head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
          if (head.length >= SNIFF_BYTES && !decide()) return;
        }
        if (!out!.write(chunk)) {
          stream.pause();
          out!.once('drain', () => {
            if (!settled) stream.resume();
          });
        }
      });
      stream.on('end', () => {
        if (settled || stream.truncated) return;
        if (!kind && !decide()) return;
        out!.end(() => {
          if (settled) return;
          fileWritten = { size, kind: kind!, clientName };
          maybeDone();
        });
      });
    });
    bb.on('fieldsLimit', () => fail(invalidUpload('send only one part, named file, with a file in it')));
    bb.on('filesLimit', () => fail(invalidUpload('send exactly one part named file')));
    bb.on('partsLimit', () => fail(invalidUpload('send exactly one part named file')));
    bb.on('error', (e: unknown) => fail(invalidUpload(`the multipart body is malformed: ${(e as Error).message}`)));
    bb.on('finish', () => {
      parsed = true;
      if (!sawFile) return fail(invalidUpload('file: is required; send multipart/form-data with one part named file'));
      maybeDone();
    });
    source.on('error', () => fail(invalidUpload('the request body could not be read to the end')));
    source.pipe(bb);
  });
}

function invalidUpload(message: string): ApiError {
  const field = message.startsWith('file:') ? 'file' : '(body)';
  return new ApiError('validation_error', message, [{ field, message: message.replace(/^file: /, '') }]);
}

/**
 * The upload of a request: a multipart/form-data body with one part named file (415 for any
 * other type, 413 for a declared length past the limit before anything is read), streamed to
 * local scratch, <dataDir>/tmp/uploads, while the size limit (413) and the type (415) are
 * decided, before anything reaches the file store. The caller removes the temp file.
 */
export function readUpload(request: CoreRequest, dataDir: string): Promise<ReceivedFile> {
  const contentType = request.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new ApiError('unsupported_media_type', 'Send the file as multipart/form-data (with a boundary) in one part named file');
  }
  const declared = Number(request.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD) {
    throw new ApiError('payload_too_large', `file: is larger than ${MAX_UPLOAD_BYTES} bytes (10 MiB)`, [
      { field: 'file', message: `is larger than ${MAX_UPLOAD_BYTES} bytes (10 MiB)` },
    ]);
  }
  return receiveUpload({ body: request.stream(), contentType, dir: uploadTmpDir(dataDir), maxBytes: MAX_UPLOAD_BYTES });
}
