/** multipart/form-data bodies (already size-limited and buffered) parsed with busboy. */
import type { IncomingHttpHeaders } from 'node:http';
import busboy from 'busboy';
import { messageOf } from '../util/errors.ts';

export interface UploadedFile {
  readonly field: string;
  readonly name: string;
  readonly mimeType: string;
  readonly content: Buffer;
}

export type MultipartResult =
  | { readonly ok: true; readonly files: readonly UploadedFile[]; readonly fields: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly message: string };

export interface MultipartLimits {
  readonly files: number;
  readonly fields: number;
}

export function parseMultipart(
  headers: IncomingHttpHeaders,
  body: Buffer,
  limits: MultipartLimits,
): Promise<MultipartResult> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: MultipartResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers,
        limits: { files: limits.files, fields: limits.fields, parts: limits.files + limits.fields },
      });
    } catch (error) {
      settle({ ok: false, message: `malformed multipart request: ${messageOf(error)}` });
      return;
    }
    const files: UploadedFile[] = [];
    const fields = new Map<string, string>();
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () =>
        files.push({ field, name: info.filename ?? field, mimeType: info.mimeType, content: Buffer.concat(chunks) }),
      );
      stream.on('error', () => undefined);
    });
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('filesLimit', () =>
      settle({ ok: false, message: `too many files: at most ${limits.files} per request` }),
    );
    parser.on('partsLimit', () => settle({ ok: false, message: 'too many parts in the multipart body' }));
    parser.on('fieldsLimit', () => settle({ ok: false, message: `too many fields: at most ${limits.fields}` }));
    parser.on('error', (error: unknown) =>
      settle({ ok: false, message: `malformed multipart body: ${messageOf(error)}` }),
    );
    parser.on('close', () => settle({ ok: true, files, fields }));
    parser.end(body);
  });
}
