/** The multipart/form-data body of an upload: one part named `file` (the API's only form). */
export async function fileForm(bytes: Uint8Array, filename: string, contentType?: string): Promise<{ bytes: Uint8Array; contentType: string }> {
  // form-data loads only when something is uploaded
  const { default: FormData } = await import('form-data');
  const form = new FormData();
  form.append('file', Buffer.from(bytes), contentType ? { filename, contentType } : { filename });
  return { bytes: form.getBuffer(), contentType: form.getHeaders()['content-type'] as string };
}
