/**
 * What a run keeps of a response body (README "What a run sends, writes and keeps"). A deployment's
 * answers to data reads carry its customers' data (job titles, a candidate's transcripts): a run keeps
 * only their shape. Bodies a verdict reads are kept whole: error bodies (the 429 body, 401/403/404
 * bodies), and the scope list (§4), which names the API's scopes, not a customer's data.
 */
export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

/** The shape of a body not kept: its top-level JSON keys and their types, or only its kind. */
export interface BodyShape {
  /** 'large': JSON by its type, but beyond what the run parses. */
  readonly kind: 'json-object' | 'json-array' | 'json-value' | 'not-json' | 'large' | 'empty';
  /** For a JSON object: each top-level key and the JSON type of its value. */
  readonly keys?: Readonly<Record<string, JsonType>>;
}

/** Whether a response's body is kept as it came (else only its shape). */
export function keepsBody(status: number | null, path: string, keepAll: boolean, scopeListPath: string): boolean {
  return keepAll || status === null || status >= 300 || path === scopeListPath;
}

/** The shape of a body: its text, and its JSON when it parsed (undefined: not parsed). */
export function shapeOf(contentType: string | null, text: string, bytes: number, maxParseBytes: number): BodyShape {
  if (bytes === 0) return { kind: 'empty' };
  if (!contentType?.includes('json')) return { kind: 'not-json' };
  if (bytes > maxParseBytes) return { kind: 'large' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'not-json' };
  }
  if (Array.isArray(parsed)) return { kind: 'json-array' };
  if (parsed === null || typeof parsed !== 'object') return { kind: 'json-value' };
  const keys: Record<string, JsonType> = {};
  for (const [key, value] of Object.entries(parsed)) keys[key] = jsonTypeOf(value);
  return { kind: 'json-object', keys };
}

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}
