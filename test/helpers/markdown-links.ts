/**
 * The relative links of Markdown documents and the anchors they point at, as GitHub renders them:
 * markdown-it parses (so a link in a code block is no link), github-slugger makes each heading's
 * anchor, and `<a id="…">` adds one of its own.
 */
import GithubSlugger from 'github-slugger';
import MarkdownIt, { type Token } from 'markdown-it';
import { posix } from 'node:path';

const markdown = new MarkdownIt({ html: true });

/** A link as written in a document: its target, and whether it is an image's. */
export interface Link {
  readonly href: string;
  readonly image: boolean;
}

/** What a document offers and asks: its anchors, and the links it holds. */
export interface Outline {
  readonly anchors: ReadonlySet<string>;
  readonly links: readonly Link[];
}

const EXPLICIT_ANCHOR = /<a\s+(?:id|name)="([^"]+)"/g;

/** The text GitHub slugs a heading from: its words and code, without the markup. */
function headingText(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((t) => t.type === 'text' || t.type === 'code_inline')
    .map((t) => t.content)
    .join('');
}

function linksIn(tokens: readonly Token[]): Link[] {
  return tokens.flatMap((token): Link[] => {
    if (token.type === 'link_open') return [{ href: String(token.attrGet('href') ?? ''), image: false }];
    if (token.type === 'image') return [{ href: String(token.attrGet('src') ?? ''), image: true }];
    return token.children ? linksIn(token.children) : [];
  });
}

function htmlIn(tokens: readonly Token[]): string[] {
  return tokens.flatMap((token) => [
    ...(token.type === 'html_block' || token.type === 'html_inline' ? [token.content] : []),
    ...(token.children ? htmlIn(token.children) : []),
  ]);
}

export function outlineOf(text: string): Outline {
  const tokens = markdown.parse(text, {});
  const slugger = new GithubSlugger();
  const headings = tokens.flatMap((token, i) =>
    token.type === 'heading_open' ? [slugger.slug(headingText(tokens[i + 1]))] : [],
  );
  const explicit = htmlIn(tokens).flatMap((html) => [...html.matchAll(EXPLICIT_ANCHOR)].map((m) => m[1] as string));
  return { anchors: new Set([...headings, ...explicit]), links: linksIn(tokens) };
}

/** A link that leaves the documents (a scheme: https:, mailto:) is not checked here. */
const isExternal = (href: string) => /^[a-z][a-z0-9+.-]*:/i.test(href);

/**
 * Every relative link of `documents` (path from the root → text) that does not resolve: to a path
 * `exists` denies, or to an anchor the target document does not have. Each as "doc: href (why)".
 */
export function brokenLinks(documents: ReadonlyMap<string, string>, exists: (path: string) => boolean): string[] {
  const outlines = new Map([...documents].map(([path, text]) => [path, outlineOf(text)]));
  return [...outlines].flatMap(([path, outline]) =>
    outline.links
      .filter((link) => !isExternal(link.href))
      .flatMap((link) => {
        const problem = problemOf(path, link.href, outlines, exists);
        return problem === null ? [] : [`${path}: ${link.href} (${problem})`];
      }),
  );
}

function problemOf(
  from: string,
  href: string,
  outlines: ReadonlyMap<string, Outline>,
  exists: (path: string) => boolean,
): string | null {
  const [target = '', fragment] = href.split('#', 2);
  const path = target === '' ? from : posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(target)));
  if (target !== '' && (path.startsWith('..') || !exists(path))) return `no file ${path}`;
  if (fragment === undefined) return null;
  const outline = outlines.get(path);
  if (!outline) return `an anchor in ${path}, which is not a document checked here`;
  return outline.anchors.has(decodeURIComponent(fragment)) ? null : `no anchor #${fragment} in ${path}`;
}
