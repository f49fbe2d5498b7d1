/**
 * docs/contract.md, written from the contract module (`npm run generate`; a test fails when the
 * committed file is stale): the recruiting API as tiergate holds it, section by section under the
 * spec's numbers, then the assumptions it makes where the spec is silent. The figures, names and
 * shapes come from the contract; the sentences around them are tiergate's own.
 */
import { z } from 'zod';
import { rateLimitErrorBody, scopeListBody } from './error-body.ts';
import { endpointById } from './lookup.ts';
import { LIMITS_ANCHORS, SPEC_SECTIONS, linkSpecSections, specSection } from './spec-sections-source.ts';
import { LIMIT_FIELDS, type AssumptionId, type Contract, type Endpoint, type Figure } from './types.ts';

/** Where the document is committed, from the repository's root. */
export const CONTRACT_DOC_PATH = 'docs/contract.md';

const link = (text: string) => linkSpecSections(text, '');
const assumption = (id: AssumptionId) => `[${id}](#${id})`;
const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** A heading with the section's anchor before it. */
function heading(number: string): string[] {
  const { anchor, title } = specSection(number);
  const level = number.includes('.') ? '###' : '##';
  return [`<a id="${anchor}"></a>`, '', `${level} §${number} ${title}`, ''];
}

/** The fields of a JSON body as a table, read from its zod schema. */
function bodyTable(schema: z.ZodType): string[] {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, Record<string, unknown>> };
  const rows = Object.entries(json.properties).map(([name, field]) => {
    const type = field.type === 'array' ? 'array' : String(field.type);
    const value = field.const === undefined ? '' : code(JSON.stringify(field.const));
    return `| ${code(name)} | ${type} | ${value} |`;
  });
  return ['| field | type | value |', '|---|---|---|', ...rows];
}

function figureText(figure: Figure): string {
  return `${figure.value.toLocaleString('en-US')}${figure.atLeast ? ' or more' : ''}`;
}

function serviceSections(c: Contract): string[] {
  const tierLabels = Object.values(c.tiers)
    .map((t) => t.label)
    .join(', ');
  return [
    ...heading('1'),
    'A multi-tenant recruiting API over HTTP: resumes parsed and scored (one file, or a batch parsed',
    "asynchronously), job openings with their stages and criteria, candidates' interview transcripts",
    'and scorecards, and event webhooks. Every call is made for an organization, which holds API keys',
    link(`and is on one plan tier (${tierLabels}); the tier sets the organization's limits (§8).`),
    '',
    ...heading('2'),
    `The scope list (${code(endpointById(c, 'scope-list').path)}) answers with this envelope, each`,
    `element of ${code('data')} a scope and what it permits:`,
    '',
    ...bodyTable(scopeListBody),
    '',
    link(`A request over quota gets this body (§7):`),
    '',
    ...bodyTable(rateLimitErrorBody),
    '',
    'The fields of jobs, candidates, webhooks and resume analyses are not in the spec: tiergate reads',
    'only the shape of those bodies (their top-level keys and types), never asserts it.',
    '',
    ...heading('3'),
    'The spec mentions draft, active and archived jobs and no moves between them. tiergate asserts',
    'nothing about states; the job a run creates it archives at the end.',
    '',
  ];
}

function endpointRow(e: Endpoint): string {
  const scope = e.scope === null ? `any valid key (${assumption('bootstrap-any-scope')})` : code(e.scope);
  const counts =
    e.quotaClass === null
      ? `nothing (${assumption('head-bootstrap-free')})`
      : e.counts === 'item'
        ? `${e.quotaClass}, one per resume (${assumption('bulk-counts-per-resume')})`
        : `${e.quotaClass}, one per call`;
  return `| ${e.method} | ${code(e.path)} | ${scope} | ${counts} | ${cell(e.summary)} | ${link(e.spec)} |`;
}

function endpointsSection(c: Contract): string[] {
  return [
    ...heading('4'),
    `Paths go from an edge's origin (${code('target.edges')}); ${code(':id')} is an identifier segment. Which`,
    `quota an endpoint counts against is tiergate's reading (${assumption('quota-classes')}), as is what counts`,
    `(${assumption('counted-requests')}).`,
    '',
    '| method | path | scope | counts against | what it does | spec |',
    '|---|---|---|---|---|---|',
    ...c.endpoints.map(endpointRow),
    '',
    'Request and response bodies, query parameters and status codes of these endpoints are not in the',
    link('spec beyond the two bodies of §2.'),
    '',
  ];
}

function authenticationSection(c: Contract): string[] {
  const scopeGuards = (scope: string) =>
    c.endpoints
      .filter((e) => e.scope === scope)
      .map((e) => `${e.method} ${code(e.path)}`)
      .join(', ');
  return [
    ...heading('5'),
    'Who calls, and what a key may do.',
    '',
    ...heading('5.1'),
    `Every call carries an API key in the ${code(c.headers.apiKey)} header (header names are case-insensitive).`,
    `A call without one, or with a key that is malformed, unknown or revoked, is refused: tiergate takes`,
    `the refusal to be ${c.statuses.unauthenticated} with a JSON error body (${assumption('auth-status')}).`,
    '',
    ...heading('5.2'),
    "Keys are issued from the organization's dashboard. tiergate makes none on a deployment except through",
    'the revocation hook its owner writes ([`revocation.hook`](configuration.md#revocation)); on the',
    'reference target it makes them through the admin API.',
    '',
    ...heading('5.3'),
    '| environment | prefix | then |',
    '|---|---|---|',
    ...c.keyFormats.map((f) => `| ${f.env} | ${code(f.prefix)} | ${code(f.pattern.source.replace(/^\^|\$$/g, ''))} |`),
    '',
    'A key is shown everywhere as its prefix and last four characters; a full key is never written.',
    '',
    ...heading('5.4'),
    `${code(`${c.headers.apiKey}: <API_KEY>`)}, the key alone, no scheme before it.`,
    '',
    ...heading('5.5'),
    'A key holds the scopes chosen when it is made, the fewest it needs. tiergate asks each organization',
    'for a key holding every scope, a second one likewise, and one holding none',
    '([`orgs[].keys`](configuration.md#orgs)).',
    '',
    ...heading('5.6'),
    '| scope | permits | guards |',
    '|---|---|---|',
    ...c.scopes.map((s) => `| ${code(s.scope)} | ${cell(s.description)} | ${scopeGuards(s.scope)} |`),
    '',
    `A valid key without an endpoint's scope is refused: tiergate takes the refusal to be ${c.statuses.forbidden}`,
    `with a JSON error body (${assumption('scope-status')}).`,
    '',
    ...heading('5.7'),
    `${code(`GET ${endpointById(c, 'scope-list').path}`)} lists the scopes the organization may grant (the`,
    link(`envelope of §2).`),
    '',
    ...heading('5.8'),
    'A new key is made before the old one is revoked, so traffic moves to it with no gap: both work in',
    'between, and the new one after.',
    '',
    ...heading('5.9'),
    `A revoked key is refused on every edge node, worldwide, less than ${c.revocationSlaMs / 1000} s after its revocation.`,
    '',
  ];
}

function errorsSection(c: Contract): string[] {
  return [
    ...heading('6'),
    `Webhooks are managed with ${code('webhook.manage')} through ${code(`POST ${endpointById(c, 'webhooks').path}`)}.`,
    'Event kinds, payloads, delivery and signing are not in the spec.',
    '',
    ...heading('7'),
    link(`An organization over its quota gets ${c.statuses.rateLimited}, the body of §2 with code`),
    `${code(c.rateLimitErrorCode)}, and ${code(c.headers.retryAfter)}: the seconds to wait. The statuses of`,
    'other errors (a missing, malformed or revoked key, a missing scope, a malformed request) are not in',
    `the spec; tiergate's are assumptions (${assumption('auth-status')}, ${assumption('scope-status')}).`,
    '',
    ...heading('7.1'),
    `A request over quota is refused with ${c.statuses.rateLimited} and that body.`,
    '',
    ...heading('7.2'),
    `A client waits what ${code(c.headers.retryAfter)} says, then retries with a growing delay and some`,
    'random jitter, a bounded number of times.',
    '',
  ];
}

function limitsSection(c: Contract): string[] {
  const tierRow = (t: Contract['tiers'][keyof Contract['tiers']]) =>
    `| ${t.label} | ${LIMIT_FIELDS.map((field) => figureText(t[field])).join(' | ')} |`;
  const h = c.headers;
  return [
    ...heading('8'),
    `Limits apply per organization, by its tier, in windows of a minute (${c.windowSeconds} s:`,
    `${assumption('window-length')}); how windows start and end is tiergate's assumption (${assumption('fixed-windows')}).`,
    '',
    `<a id="${LIMITS_ANCHORS.tiers}"></a>`,
    '',
    '### Tiers',
    '',
    '| tier | read requests per window | resumes ingested per window | requests in flight at once |',
    '|---|---|---|---|',
    ...Object.values(c.tiers).map(tierRow),
    '',
    'A figure "or more" is a minimum: the organization\'s contract sets its own, which a config may',
    'declare ([`orgs[].limits`](configuration.md#orgs)).',
    '',
    `<a id="${LIMITS_ANCHORS.headers}"></a>`,
    '',
    '### Rate-limit headers',
    '',
    'On every response, whatever its status:',
    '',
    '| header | value |',
    '|---|---|',
    `| ${code(h.limit)} | integer: the most requests the current window admits (${assumption('limit-header-class')}) |`,
    `| ${code(h.remaining)} | integer: the requests the window has left |`,
    `| ${code(h.reset)} | integer: when the window ends, in epoch seconds |`,
    '',
    `Not in the spec: ${code(h.edgeNode)}, the header a deployment may name its answering node in`,
    '([`target.edgeHeader`](configuration.md#target)).',
    '',
    ...heading('8.1'),
    link(`A request over quota is refused with ${c.statuses.rateLimited}, as §7 says.`),
    '',
    ...heading('8.2'),
    "Higher limits (for a migration, say) come from the provider's enterprise team on request.",
    '',
    ...heading('8.3'),
    link(`A key's revocation reaches every edge in less than ${c.revocationSlaMs / 1000} s (as §5.9).`),
    '',
    `What the spec leaves open here: what a request beyond the concurrency cap gets`,
    `(${assumption('concurrency-status')}), the window of figures not per minute, and limits on file or batch size.`,
    '',
  ];
}

function versioningAndAssumptions(c: Contract): string[] {
  return [
    ...heading('9'),
    `Paths carry no version, and the spec names no versioning scheme. This is version ${c.version} of tiergate's`,
    `${code(c.name)} contract.`,
    '',
    '## Where the spec is silent: assumptions',
    '',
    'What tiergate takes to be so where the spec says nothing. A check resting on one says so in its',
    'result and in the check table ([checks.md](checks.md)); a config may declare what the deployment',
    'intends instead ([`assumptions`](configuration.md#assumptions)).',
    '',
    ...c.assumptions.flatMap((a) => [`### ${a.id}`, '', link(a.statement), '', `The spec: ${link(a.gap)}`, '']),
  ];
}

/** docs/contract.md as the contract gives it. */
export function contractMarkdown(c: Contract): string {
  const contents = SPEC_SECTIONS.filter((s) => !s.number.includes('.')).map(
    (s) => `[§${s.number} ${s.title}](#${s.anchor})`,
  );
  return [
    '# The contract: the recruiting API as tiergate holds it',
    '',
    `<!-- Generated from src/contract/ by npm run generate: edit the contract module, not this file. -->`,
    '',
    'What a deployment of the recruiting API promises, in the order and under the section numbers of its',
    'spec, so that a "§8" anywhere in these documents links here. The figures, names and shapes come',
    "from tiergate's contract module (`src/contract/`), which every check judges by.",
    '',
    `Sections: ${contents.join(' · ')} · [assumptions](#where-the-spec-is-silent-assumptions)`,
    '',
    ...serviceSections(c),
    ...endpointsSection(c),
    ...authenticationSection(c),
    ...errorsSection(c),
    ...limitsSection(c),
    ...versioningAndAssumptions(c),
  ].join('\n');
}
