import { describe, expect, it } from 'vitest';
import { keepsBody, shapeOf } from '../../src/measure/body-shape.ts';

const SCOPES = '/recruiter/settings/services-api-scopes';

describe('what a run keeps of a body', () => {
  it('keeps error bodies, the scope list, and everything with --keep-bodies; of data reads only the shape', () => {
    expect(keepsBody(200, '/recruiter/jobs', false, SCOPES)).toBe(false);
    expect(keepsBody(200, '/recruiter/candidates/c-1', false, SCOPES)).toBe(false);
    expect(keepsBody(202, '/recruiter/jobs/vendor/resume-analysis', false, SCOPES)).toBe(false);
    expect(keepsBody(200, SCOPES, false, SCOPES)).toBe(true);
    for (const status of [400, 401, 403, 404, 429, 503])
      expect(keepsBody(status, '/recruiter/jobs', false, SCOPES)).toBe(true);
    expect(keepsBody(200, '/recruiter/jobs', true, SCOPES)).toBe(true);
  });

  it('gives a JSON object its top-level keys and their types, never their values', () => {
    const text = JSON.stringify({
      status: 'success',
      data: [{ title: 'MARKER-7f3a' }],
      total: 1,
      next: null,
      ok: true,
      meta: { a: 1 },
    });
    const shape = shapeOf('application/json; charset=utf-8', text, text.length, 16 * 1024);
    expect(shape).toEqual({
      kind: 'json-object',
      keys: { status: 'string', data: 'array', total: 'number', next: 'null', ok: 'boolean', meta: 'object' },
    });
    expect(JSON.stringify(shape)).not.toContain('MARKER');
  });

  it('names what it could not look into: empty, not JSON, too large to parse, an array or a bare value', () => {
    expect(shapeOf('application/json', '', 0, 100)).toEqual({ kind: 'empty' });
    expect(shapeOf('text/html', '<p>hi</p>', 9, 100)).toEqual({ kind: 'not-json' });
    expect(shapeOf('application/json', '{"a":', 5, 100)).toEqual({ kind: 'not-json' });
    expect(shapeOf('application/json', '{"a":1}', 7, 5)).toEqual({ kind: 'large' });
    expect(shapeOf('application/json', '[1,2]', 5, 100)).toEqual({ kind: 'json-array' });
    expect(shapeOf('application/json', '"x"', 3, 100)).toEqual({ kind: 'json-value' });
  });
});
