/**
 * A local document file, checked with the server's upload rules before a byte is sent (so a
 * wrong file is refused on the prompt, not after the upload), and a progress bar for the upload.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { FILE_KINDS, MAX_UPLOAD_BYTES, SNIFF_BYTES, extensionOf, kindOfExtension, sniff, type FileKind } from '../../domain/files.js';
import type { IO } from '../io.js';
import type { Painter } from '../output.js';

const ACCEPTED = 'PDF, PNG or JPEG';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The type the bytes of a file say it is, or why it cannot be uploaded. */
export function inspectLocalFile(path: string): { ok: true; kind: FileKind; size: number } | { ok: false; message: string } {
  const name = basename(path);
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return { ok: false, message: `${path} is not a file` };
    size = st.size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, message: code === 'ENOENT' ? `${path} does not exist` : `cannot read ${path} (${code ?? (e as Error).message})` };
  }
  if (size === 0) return { ok: false, message: `${name} is empty; choose a ${ACCEPTED} file` };
  if (size > MAX_UPLOAD_BYTES) return { ok: false, message: `${name} is ${formatBytes(size)}; the limit is 10 MiB` };
  const head = Buffer.alloc(SNIFF_BYTES);
  let got = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      got = readSync(fd, head, 0, SNIFF_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    return { ok: false, message: `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  const kind = sniff(head.subarray(0, got));
  if (!kind) return { ok: false, message: `${name} is not a ${ACCEPTED} file (its content decides, not its name)` };
  const ext = extensionOf(name);
  if (ext) {
    const byName = kindOfExtension(ext);
    if (!byName) return { ok: false, message: `${name}: the extension .${ext} is not accepted; use .pdf, .png, .jpg or .jpeg` };
    if (byName !== kind) return { ok: false, message: `${name}: the content is ${FILE_KINDS[kind].label} but its name says .${ext}` };
  }
  return { ok: true, kind, size };
}

/** A question validator: true, or why the file would be refused. */
export function checkLocalFile(path: string): true | string {
  const r = inspectLocalFile(path);
  return r.ok ? true : r.message;
}

export interface ProgressBar {
  update(sent: number, total: number): void;
  done(message: string): void;
  fail(): void;
}

const WIDTH = 24;

/**
 * Upload progress on stderr: a bar redrawn in place on a terminal, one line when it is done
 * otherwise (logs stay readable). Nothing with --quiet.
 */
export function progressBar(io: IO, label: string, paint: Painter, quiet = false): ProgressBar {
  const live = io.stderrTTY && !quiet;
  let lastDrawn = -1;
  let started = false;
  return {
    update(sent, total) {
      if (!live) return;
      const pct = total ? Math.floor((sent / total) * 100) : 100;
      if (pct === lastDrawn) return;
      lastDrawn = pct;
      started = true;
      const full = Math.round((pct / 100) * WIDTH);
      io.err(`\r  uploading ${label} [${'█'.repeat(full)}${'░'.repeat(WIDTH - full)}] ${String(pct).padStart(3)}% ${formatBytes(sent)}/${formatBytes(total)}\x1b[K`);
    },
    done(message) {
      if (quiet) return;
      io.err(`${started ? '\r' : ''}  ${paint.green('✓')} ${message}${live ? '\x1b[K' : ''}\n`);
    },
    fail() {
      if (started) io.err('\n');
    },
  };
}
