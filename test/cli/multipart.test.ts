import { describe, expect, it } from 'vitest';
import { fileForm } from '../../src/cli/multipart.js';
import { realPdf, realPng } from '../helpers/files.js';

const text = (b: Uint8Array) => Buffer.from(b).toString('latin1');

describe('fileForm (Node FormData, no form-data package)', () => {
  it('one part named file, its type from the name, the bytes where fileOffset says', async () => {
    const pdf = realPdf();
    const form = await fileForm(pdf, 'scan.pdf');
    expect(form.contentType).toMatch(/^multipart\/form-data; boundary=\S+$/);
    const boundary = form.contentType.split('boundary=')[1]!;
    const head = text(form.bytes.subarray(0, form.fileOffset));
    expect(head).toBe(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    expect(Buffer.from(form.bytes.subarray(form.fileOffset, form.fileOffset + pdf.length)).equals(pdf)).toBe(true);
    expect(text(form.bytes.subarray(form.fileOffset + pdf.length))).toBe(`\r\n--${boundary}--\r\n`);
    expect(form.fileSize).toBe(pdf.length);
  });

  it('.jpg and .jpeg are image/jpeg, an explicit type wins, other names are application/octet-stream', async () => {
    const png = realPng();
    expect(text((await fileForm(png, 'a.JPG')).bytes)).toContain('Content-Type: image/jpeg\r\n');
    expect(text((await fileForm(png, 'a.jpeg')).bytes)).toContain('Content-Type: image/jpeg\r\n');
    expect(text((await fileForm(png, 'a.bin', 'image/png')).bytes)).toContain('Content-Type: image/png\r\n');
    expect(text((await fileForm(png, 'notes.txt')).bytes)).toContain('Content-Type: application/octet-stream\r\n');
  });
});
