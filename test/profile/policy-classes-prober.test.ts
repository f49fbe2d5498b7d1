/**
 * Several quotas in one RateLimit field, read through the prober (issue 29): a loopback server
 * counts reads and uploads against policies of its own naming, and lists every quota's state in
 * RateLimit with the counted one not first. Read by the first-reported rule, a read's Remaining is
 * the uploads'; once the policies are learned from the answers (policyClassesOf) and handed to the
 * prober, the same server's later answers are read by the right ones.
 */
import { createServer } from 'node:http';
import { expect, onTestFinished, test } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { quotaClassOfPath } from '../../src/contract/lookup.ts';
import { renderRateLimitFields, type PolicyFigures } from '../../src/contract/rate-limit-dialects.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { policyClassesOf } from '../../src/profile/policy-classes.ts';
import { edgeOf, loopbackProber } from '../helpers/loopback-prober.ts';

const READ = { method: 'GET', path: '/recruiter/jobs', key: 'tg_test_key_0001' } as const;
const UPLOAD = {
  method: 'POST',
  path: '/recruiter/jobs/vendor/resume-analysis',
  key: 'tg_test_key_0001',
  body: '{}',
} as const;
const TAGS = { check: 'PROFILE', phase: 'exhaust', tier: 'starter', org: 'starter-a' } as const;
/** Names that say nothing of the class: learning must not rely on them. */
const POLICIES: readonly PolicyFigures[] = [
  { name: 'alpha', quota: 30, windowS: 60 },
  { name: 'beta', quota: 100, windowS: 60 },
];

/** Reads count against beta, uploads against alpha; RateLimit lists alpha first, then beta. */
async function twoQuotaServer() {
  const left: Record<string, number> = { alpha: 30, beta: 100 };
  const server = createServer((req, res) => {
    const counted = req.method === 'GET' ? 'beta' : 'alpha';
    left[counted]! -= 1;
    const now = Date.now();
    const items = POLICIES.map((p) => {
      const quota = { policy: p.name, limit: p.quota, remaining: left[p.name]!, resetMs: now + 30_000 };
      return Object.fromEntries(renderRateLimitFields('ietf', { now, quota, policies: POLICIES }));
    });
    res.setHeader('ratelimit-policy', items[0]!['ratelimit-policy']!);
    res.setHeader('ratelimit', items.map((f) => f.ratelimit).join(', '));
    res.setHeader('content-type', 'application/json');
    req.resume();
    req.on('end', () => res.end('{"status":"ok"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const prober = loopbackProber([edgeOf(server)], { rateLimitReader: { dialect: 'ietf', policies: {} } });
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  return { prober, edge: prober.edges[0]! };
}

test('without learning a read is read from the first quota reported; with it, from the one it counts on', async () => {
  const { prober, edge } = await twoQuotaServer();
  const sent: Observation[] = [];
  for (const request of [READ, READ, READ, UPLOAD, UPLOAD]) sent.push(await prober.send(edge, request, TAGS));
  expect(sent.map((o) => o.status)).toEqual([200, 200, 200, 200, 200]);
  // The first-reported rule: alpha's figures on every read, though reads count against beta.
  expect(sent.slice(0, 3).map((o) => o.rateLimit.remaining.value)).toEqual([30, 30, 30]);
  expect(sent[0]!.rateLimit.dialect?.policy?.name).toBe('alpha');

  const classes = policyClassesOf(sent, (path) => quotaClassOfPath(recruitingApi, path));
  expect(classes.read.value).toBe('beta');
  expect(classes.ingest.value).toBe('alpha');
  prober.learnPolicies('starter', { read: classes.read.value!, ingest: classes.ingest.value! });

  const read = await prober.send(edge, READ, TAGS);
  expect(read.rateLimit.remaining.value).toBe(96);
  expect(read.rateLimit.limit.value).toBe(100);
  expect(read.rateLimit.dialect?.policy?.name).toBe('beta');
  const upload = await prober.send(edge, UPLOAD, TAGS);
  expect(upload.rateLimit.remaining.value).toBe(27);
  expect(upload.rateLimit.dialect?.policy?.name).toBe('alpha');
  // Another tier's answers are not read by what this one learned.
  const other = await prober.send(edge, READ, { ...TAGS, tier: 'professional', org: 'professional-a' });
  expect(other.rateLimit.dialect?.policy?.name).toBe('alpha');
});

test('a name the config declares for a class wins over the one learned', async () => {
  const { prober, edge } = await twoQuotaServer();
  prober.learnPolicies('starter', { read: 'beta' });
  const declared = loopbackProber(prober.edges, { rateLimitReader: { dialect: 'ietf', policies: { read: 'alpha' } } });
  declared.learnPolicies('starter', { read: 'beta' });
  const o = await declared.send(edge, READ, TAGS);
  expect(o.rateLimit.dialect?.policy?.name).toBe('alpha');
});
