import { describe, expect, it } from 'vitest';
import { scopeListVerdict } from '../../src/verdicts/scope-list.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { obs } from '../helpers/observations.ts';

const listing = (body: unknown, status = 200) =>
  obs({ check: 'SCOPE-LIST', path: '/recruiter/settings/services-api-scopes', status, body });
const entry = (scope: string) => ({ scope, description: `permits ${scope}` });

describe('SCOPE-LIST', () => {
  it('passes the §2 envelope naming known scopes', () => {
    const o = listing({ status: 'success', data: [entry('jobs.read'), entry('resume.parse')] });
    const f = scopeListVerdict(o, recruitingApi);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.evidence).toEqual([o.id]);
    expect(f.data).toEqual({ scopes: ['jobs.read', 'resume.parse'] });
  });

  it('passes an empty list with a note, and notes duplicates', () => {
    const empty = scopeListVerdict(listing({ status: 'success', data: [] }), recruitingApi);
    expect(empty.verdict).toBe('pass');
    expect(empty.reasons).toEqual([{ code: 'scope-list-empty' }]);
    const twice = scopeListVerdict(
      listing({ status: 'success', data: [entry('jobs.read'), entry('jobs.read')] }),
      recruitingApi,
    );
    expect(twice.verdict).toBe('pass');
    expect(twice.reasons).toEqual([{ code: 'scope-listed-twice', names: ['jobs.read'] }]);
  });

  it('fails unknown scope names', () => {
    const f = scopeListVerdict(
      listing({ status: 'success', data: [entry('jobs.read'), entry('admin.everything')] }),
      recruitingApi,
    );
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'unknown-scope-names', names: ['admin.everything'] }]);
  });

  it.each([
    ['data not an array', { status: 'success', data: { scope: 'jobs.read' } }, 'data'],
    ['an entry without description', { status: 'success', data: [{ scope: 'jobs.read' }] }, 'data.0.description'],
    [
      'a numeric scope',
      { status: 'success', data: [entry('jobs.read'), { scope: 7, description: 'x' }] },
      'data.1.scope',
    ],
    ['status other than success', { status: 'ok', data: [] }, 'status'],
    ['no envelope at all', [entry('jobs.read')], '(body)'],
  ])('fails a body with %s, naming the path', (_what, body, path) => {
    const f = scopeListVerdict(listing(body), recruitingApi);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'scope-list-shape', paths: [path], messages: [expect.any(String)] }]);
  });

  it('fails a non-JSON body and a non-200 status', () => {
    const text = scopeListVerdict(obs({ bodyText: '<html>oops</html>', contentType: 'text/html' }), recruitingApi);
    expect(text.verdict).toBe('fail');
    expect(text.reasons).toEqual([
      { code: 'scope-list-not-json', contentType: 'text/html', bodyBytes: 17, excerpt: '<html>oops</html>' },
    ]);
    const failed = listing({ status: 'error' }, 500);
    const error = scopeListVerdict(failed, recruitingApi);
    expect(error.verdict).toBe('fail');
    expect(error.reasons).toEqual([{ code: 'scope-list-status', status: 500, request: failed.id }]);
  });

  it('is inconclusive when rate-limited or unanswered', () => {
    const refused = listing(undefined, 429);
    const limited = scopeListVerdict(refused, recruitingApi);
    expect(limited.verdict).toBe('inconclusive');
    expect(limited.reasons).toEqual([{ code: 'scope-list-rate-limited', request: refused.id }]);
    const lost = obs({ status: null, error: 'ECONNREFUSED', path: '/recruiter/settings/services-api-scopes' });
    const f = scopeListVerdict(lost, recruitingApi);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'scope-list-unanswered', request: lost.id, error: 'ECONNREFUSED' }]);
  });
});
