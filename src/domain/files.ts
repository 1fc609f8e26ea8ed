/**
 * Uploaded file rules: the bytes decide the type (magic numbers), the client's name is only
 * shown, never used as a path.
 */
import { UUID_SOURCE } from './ids.js';

export type FileKind = 'png' | 'jpeg' | 'pdf';

export const FILE_KINDS: Record<FileKind, { mime: string; extensions: readonly string[]; label: string }> = {
  png: { mime: 'image/png', extensions: ['png'], label: 'PNG' },
  jpeg: { mime: 'image/jpeg', extensions: ['jpg', 'jpeg'], label: 'JPEG' },
  pdf: { mime: 'application/pdf', extensions: ['pdf'], label: 'PDF' },
};

export const ACCEPTED_MIME_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;

/** The key of a stored upload: a UUID the server made and the extension of its kind. */
export const FILE_KEY_RE = new RegExp(`^${UUID_SOURCE}\\.(png|jpg|pdf)$`);

/** 10 MiB: the seed's "10 MB" upload limit, in bytes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** How many leading bytes `sniff` needs to decide. */
export const SNIFF_BYTES = 16;


export const PNG_SIGNATURE: readonly number[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * The type of a file from its first bytes, or null when it is none of PNG, JPEG, PDF.
 * PNG: the 8-byte signature followed by the IHDR chunk (the first chunk of every PNG).
 * JPEG: SOI (FF D8) followed by a marker (FF xx, xx a real marker code: not 00 or FF).
 * PDF: "%PDF-" followed by a version "d.".
 * A header cut short (fewer bytes than these checks need) is not a file of that type.
 */
export function sniff(head: Uint8Array): FileKind | null {
  if (head.length >= 16 && PNG_SIGNATURE.every((b, i) => head[i] === b) && ascii(head, 12, 16) === 'IHDR') return 'png';
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff && head[3] !== 0x00 && head[3] !== 0xff) {
    return 'jpeg';
  }
  if (head.length >= 7 && ascii(head, 0, 5) === '%PDF-' && isDigit(head[5]) && head[6] === 0x2e) return 'pdf';
  return null;
}

function ascii(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...b.subarray(from, to));
}
function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

/** Lower-case extension of a file name without the dot ('' when there is none). */
export function extensionOf(name: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m ? m[1]!.toLowerCase() : '';
}

/** The kind that an extension names, if it is one of ours. */
export function kindOfExtension(ext: string): FileKind | null {
  for (const [k, v] of Object.entries(FILE_KINDS) as [FileKind, (typeof FILE_KINDS)[FileKind]][]) {
    if (v.extensions.includes(ext)) return k;
  }
  return null;
}

/** The kind that a media type names, if it is one of ours ('image/jpg' is read as JPEG). */
export function kindOfMime(mime: string): FileKind | null {
  const m = mime.toLowerCase().split(';')[0]!.trim();
  if (m === 'image/png') return 'png';
  if (m === 'image/jpeg' || m === 'image/jpg' || m === 'image/pjpeg') return 'jpeg';
  if (m === 'application/pdf') return 'pdf';
  return null;
}

/**
 * A file name safe to show and to put in a Content-Disposition header: the last path segment
 * only, no control characters, quotes, backslashes or reserved characters, no leading dots,
 * whitespace collapsed, at most 120 characters (keeping the extension). Never a path: stored
 * files are named by the server.
 */
export function sanitizeFileName(raw: string, kind: FileKind): string {
  let name = raw.normalize('NFC').split(/[\\/]/).pop() ?? '';
  name = name
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips from a file name
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[<>:"|?*;%`$]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  const ext = extensionOf(name);
  if (!ext) name = name ? `${name}.${FILE_KINDS[kind].extensions[0]}` : `file.${FILE_KINDS[kind].extensions[0]}`;
  if (name.length > 120) {
    const e = extensionOf(name);
    name = `${name.slice(0, 120 - e.length - 1)}.${e}`;
  }
  return name;
}
