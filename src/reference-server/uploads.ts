/**
 * Resume uploads: one file (multipart `file` field, or a raw body of an accepted type), or a batch
 * (multipart with N file parts, or JSON `{"resumes":[{"name","content_base64"}]}`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { errorReply, issueDetails, mediaType, parseJson, validationReply, type Reply } from './http-util.ts';
import { parseMultipart, type UploadedFile } from './multipart.ts';

export const RAW_RESUME_TYPES = [
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/plain',
  'application/octet-stream',
] as const;

/** Resumes per batch; a larger batch is a 400 (the spec names no batch size, §8). */
export const MAX_BATCH = 1000;
const MAX_FIELDS = 20;

export type UploadResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reply: Reply };

const fail = (reply: Reply) => ({ ok: false, reply }) as const;
const badRequest = (message: string) => errorReply(400, 'INVALID_UPLOAD', message);

function unsupported(type: string, accepted: readonly string[]): Reply {
  return errorReply(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    `content type "${type || '(none)'}" is not accepted; send ${accepted.join(', ')}`,
  );
}

function fileName(headers: IncomingHttpHeaders): string {
  const disposition = headers['content-disposition'] ?? '';
  const match = /filename="?([^";]+)"?/i.exec(disposition);
  return match ? match[1]! : 'resume';
}

export async function singleResume(headers: IncomingHttpHeaders, body: Buffer): Promise<UploadResult<UploadedFile>> {
  const type = mediaType(headers['content-type']);
  if (type === 'multipart/form-data') {
    const parsed = await parseMultipart(headers, body, { files: 1, fields: MAX_FIELDS });
    if (!parsed.ok) return fail(badRequest(parsed.message));
    const file = parsed.files.find((f) => f.field === 'file');
    if (!file) return fail(badRequest('multipart body has no "file" part'));
    if (file.content.length === 0) return fail(badRequest('the "file" part is empty'));
    return { ok: true, value: file };
  }
  if (!(RAW_RESUME_TYPES as readonly string[]).includes(type)) {
    return fail(unsupported(type, ['multipart/form-data', ...RAW_RESUME_TYPES]));
  }
  if (body.length === 0) return fail(badRequest('request body is empty; send the resume file'));
  return { ok: true, value: { field: 'body', name: fileName(headers), mimeType: type, content: body } };
}

const bulkJson = z.strictObject({
  resumes: z
    .array(z.strictObject({ name: z.string().min(1).max(255), content_base64: z.base64().min(1) }))
    .min(1)
    .max(MAX_BATCH),
});

export async function bulkResumes(
  headers: IncomingHttpHeaders,
  body: Buffer,
): Promise<UploadResult<readonly UploadedFile[]>> {
  const type = mediaType(headers['content-type']);
  if (type === 'multipart/form-data') {
    const parsed = await parseMultipart(headers, body, { files: MAX_BATCH, fields: MAX_FIELDS });
    if (!parsed.ok) return fail(badRequest(parsed.message));
    if (parsed.files.length === 0) return fail(badRequest('multipart body has no file parts'));
    return { ok: true, value: parsed.files };
  }
  if (type !== 'application/json') return fail(unsupported(type, ['multipart/form-data', 'application/json']));
  const json = parseJson(body);
  if (!json.ok) return json;
  const result = bulkJson.safeParse(json.value);
  if (!result.success) return fail(validationReply(issueDetails(result.error.issues)));
  return {
    ok: true,
    value: result.data.resumes.map((r) => ({
      field: 'resumes',
      name: r.name,
      mimeType: 'application/octet-stream',
      content: Buffer.from(r.content_base64, 'base64'),
    })),
  };
}
