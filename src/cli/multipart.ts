/** The multipart/form-data body of an upload: one part named `file` (the API's only form). */
export interface FileForm {
  bytes: Uint8Array;
  contentType: string;
  /** where the file's own bytes start in the body, and how many there are (for a progress bar of the file) */
  fileOffset: number;
  fileSize: number;
}

export async function fileForm(bytes: Uint8Array, filename: string, contentType?: string): Promise<FileForm> {
  // form-data loads only when something is uploaded
  const { default: FormData } = await import('form-data');
  const form = new FormData();
  form.append('file', Buffer.from(bytes), contentType ? { filename, contentType } : { filename });
  const body = form.getBuffer();
  // one part: its headers end at the first blank line, then come the file's bytes
  return { bytes: body, contentType: form.getHeaders()['content-type'] as string, fileOffset: body.indexOf('\r\n\r\n') + 4, fileSize: bytes.byteLength };
}

/** Progress of the multipart body's bytes (sent of total) as progress of the file's own bytes. */
export function fileProgress(form: Pick<FileForm, 'fileOffset' | 'fileSize'>, onFile: (sent: number, total: number) => void): (sent: number, total: number) => void {
  return (sent) => onFile(Math.min(form.fileSize, Math.max(0, sent - form.fileOffset)), form.fileSize);
}
