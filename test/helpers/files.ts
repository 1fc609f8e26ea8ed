import { encodePng } from '../../src/domain/png.js';

/** A real, decodable 2×2 RGB PNG: red, green / blue, white. */
export function realPng(): Buffer {
  return encodePng(2, 'rgb', [Uint8Array.of(255, 0, 0, 0, 255, 0), Uint8Array.of(0, 0, 255, 255, 255, 255)]);
}

function segment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/**
 * A real, decodable 1×1 grey baseline JPEG: SOI, APP0 (JFIF), DQT, SOF0, the standard
 * luminance Huffman tables (JPEG Annex K), SOS, one block (DC diff 0 = "00", EOB = "1010",
 * padded with 1s → 0x2B), EOI.
 */
export function realJpeg(): Buffer {
  const dcBits = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
  const dcVals = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const acBits = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
  const acVals = Buffer.from(
    '01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa',
    'hex',
  );
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0])),
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, Buffer.from([8, 0, 1, 0, 1, 1, 1, 0x11, 0])),
    segment(0xc4, Buffer.concat([Buffer.from([0x00, ...dcBits, ...dcVals])])),
    segment(0xc4, Buffer.concat([Buffer.from([0x10, ...acBits]), acVals])),
    segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    Buffer.from([0x2b, 0xff, 0xd9]),
  ]);
}

/** A real one-page PDF with a correct cross-reference table. */
export function realPdf(): Buffer {
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** An ELF header (Linux executable) followed by padding. */
export function elf(): Buffer {
  return Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56)]);
}
/** A DOS/PE executable start ("MZ"). */
export function mz(): Buffer {
  return Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62), Buffer.from('This program cannot be run in DOS mode.')]);
}
/** A ZIP local file header. */
export function zip(): Buffer {
  return Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]), Buffer.alloc(40)]);
}

/**
 * A multipart/form-data body with one file part, produced chunk by chunk as it is pulled.
 * The file is `head` followed by filler up to `fileSize` bytes. `pulled()` tells how many
 * bytes the reader has taken so far.
 */
export function streamingMultipart(o: { fileSize: number; head: Buffer; fileName?: string; mime?: string; chunk?: number; onChunk?: () => void }) {
  const boundary = `----mpay${Math.random().toString(16).slice(2)}`;
  const pre = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${o.fileName ?? 'big.pdf'}"\r\nContent-Type: ${o.mime ?? 'application/pdf'}\r\n\r\n`,
  );
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = o.chunk ?? 64 * 1024;
  const filler = Buffer.alloc(size, 0x61);
  let fileSent = 0;
  let stage: 'pre' | 'file' | 'post' | 'done' = 'pre';
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      o.onChunk?.();
      let piece: Buffer;
      if (stage === 'pre') {
        piece = pre;
        stage = 'file';
      } else if (stage === 'file') {
        const n = Math.min(size, o.fileSize - fileSent);
        if (fileSent === 0) {
          piece = Buffer.concat([o.head, filler]).subarray(0, n);
        } else {
          piece = filler.subarray(0, n);
        }
        fileSent += n;
        if (fileSent >= o.fileSize) stage = 'post';
      } else if (stage === 'post') {
        piece = post;
        stage = 'done';
      } else {
        controller.close();
        return;
      }
      pulled += piece.length;
      // a fresh copy per chunk, as a network would deliver it
      controller.enqueue(new Uint8Array(piece));
    },
  });
  return {
    stream,
    contentType: `multipart/form-data; boundary=${boundary}`,
    totalLength: pre.length + o.fileSize + post.length,
    pulled: () => pulled,
  };
}
