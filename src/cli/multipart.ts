import { FILE_KINDS, extensionOf, kindOfExtension } from '../domain/files.js';

/** The multipart/form-data body of an upload: one part named `file` (the API's only form). */
export interface FileForm {
  bytes: Uint8Array;
  contentType: string;
  /** where the file's own bytes start in the body, and how many there are (for a progress bar of the file) */
  fileOffset: number;
  fileSize: number;
}

/**
 * Node's own FormData serialises the body (through Response), so no form-data package: the part
 * says the type its name's extension names (the server decides by the bytes, and refuses a
 * name or type that contradicts them), application/octet-stream for any other name.
 */
export async function fileForm(bytes: Uint8Array, filename: string, contentType?: string): Promise<FileForm> {
  const kind = kindOfExtension(extensionOf(filename));
  const type = contentType ?? (kind ? FILE_KINDS[kind].mime : 'application/octet-stream');
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(bytes)], { type }), filename);
  const res = new Response(form);
  const body = new Uint8Array(await res.arrayBuffer());
  // one part: its headers end at the first blank line, then come the file's bytes
  return { bytes: body, contentType: res.headers.get('content-type')!, fileOffset: Buffer.from(body.buffer, body.byteOffset, body.byteLength).indexOf('\r\n\r\n') + 4, fileSize: bytes.byteLength };
}

/** Progress of the multipart body's bytes (sent of total) as progress of the file's own bytes. */
export function fileProgress(form: Pick<FileForm, 'fileOffset' | 'fileSize'>, onFile: (sent: number, total: number) => void): (sent: number, total: number) => void {
  return (sent) => onFile(Math.min(form.fileSize, Math.max(0, sent - form.fileOffset)), form.fileSize);
}
